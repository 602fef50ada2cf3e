"""What every metric shares: the undefined-value policy, label checks, group codes.

Undefined values
----------------
One policy for the whole package: when a fairness value is undefined on the
data given (a ratio with a zero denominator, a rate over an empty set), the
metric returns ``nan`` and emits :class:`UndefinedFairnessWarning`, whose
message names the case, the attribute and the group. It never returns a
sentinel (0, 1, inf): a sentinel would rank as a real value in a model search,
whereas ``nan`` is ranked last by ``GridSearchCV`` and stands out in
``cross_validate``. Invalid *input* (lengths, NaN, a single group, a missing
``pos_label``) raises instead.

The group gaps (DP, EO, PQP) narrow "undefined" to what cannot be compared: a
group whose own rate is 0/0 (no positive label for EO, no positive prediction
for PQP, no weight for DP) is left out of its attribute's gap, with one
warning per attribute naming the groups left out; the gap is ``nan`` only when
fewer than 2 groups of an attribute keep a defined rate. A small group without
positives in one cross-validation fold thus no longer blanks the whole score.
"""

import numbers

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from .._validation import MSG_LENGTH, MSG_NOT_1D, _is_dataframe, check_sensitive


class UndefinedFairnessWarning(UndefinedMetricWarning):
    """A fairness value is undefined on the data given; ``nan`` was returned.

    A subclass of :class:`sklearn.exceptions.UndefinedMetricWarning`, so
    filters written for scikit-learn's metrics apply to it too.
    """


MSG_POS_LABEL_NEEDED = (
    "{metric} compares the rate of one class across groups, and the labels are not "
    "binary 0/1 (classes found: {classes}). Pass pos_label=<the favourable class>; the "
    "other classes then count as negative. No class is chosen for you."
)
MSG_POS_LABEL_ABSENT = (
    "pos_label={pos_label!r} occurs neither in y_true nor in y_pred (classes found: "
    "{classes}). Check its spelling and type."
)
MSG_GROUPS_LEFT_OUT = (
    "{metric}: for sensitive attribute {attr!r}, group(s) {groups} have no {what} in the "
    "data given, so their rate is 0/0; they are left out of this attribute's gap, which "
    "compares the {n_defined} groups with a defined rate. Score on more rows, or merge "
    "rare groups, to compare every group."
)
MSG_GROUP_UNDEFINED = (
    "{metric} is undefined for sensitive attribute {attr!r}: group(s) {groups} have no "
    "{what} in the data given, so their rate is 0/0 and they are left out, which leaves "
    "{n_defined} group(s) with a defined rate, fewer than the 2 a gap needs. Returning nan "
    "(policy: undefined values are nan, never a sentinel). Score on more rows, or merge "
    "rare groups."
)


def column_1d(y, name):
    """Return ``y`` as a 1-D ndarray (a column vector or one-column frame is accepted)."""
    if _is_dataframe(y):
        if y.shape[1] != 1:
            raise ValueError(MSG_NOT_1D.format(name=name, shape=y.shape))
        y = y.iloc[:, 0]
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(MSG_NOT_1D.format(name=name, shape=y.shape))
    return y


def check_pair(y_true, y_pred):
    """Two label vectors of equal length, as 1-D arrays."""
    y_true = column_1d(y_true, "y_true")
    y_pred = column_1d(y_pred, "y_pred")
    if y_pred.shape[0] != y_true.shape[0]:
        raise ValueError(
            MSG_LENGTH.format(name="y_pred", got=y_pred.shape[0], expected=y_true.shape[0])
            .replace("but X has", "but y_true has")
        )
    if y_true.shape[0] == 0:
        raise ValueError("y_true is empty: at least 2 rows are needed.")
    return y_true, y_pred


def _small_int_range(y):
    """True when ``y`` is integer (or bool) with a range small enough for bincount."""
    if y.dtype.kind not in "biu" or y.size == 0:
        return False
    lo, hi = int(y.min()), int(y.max())
    return hi - lo <= 4 * y.size + 1024


def fast_unique(y):
    """``np.unique(y)`` in O(n) for small-range integers (sorting 1e6 rows costs ~50 ms)."""
    if _small_int_range(y):
        lo = int(y.min())
        present = np.flatnonzero(np.bincount((y - lo).astype(np.intp, copy=False)))
        return (present + lo).astype(y.dtype, copy=False)
    return np.unique(y)


def positive_masks(y_true, y_pred, pos_label, metric):
    """Boolean masks ``y_true == pos`` and ``y_pred == pos``, following the pos_label rule.

    ``pos_label=None`` accepts only binary labels coded 0/1 (ints, floats or
    booleans) or -1/1, and then takes 1 as the positive class. Any other label
    set needs an explicit ``pos_label``: the metric never picks a class itself.
    """
    classes = np.union1d(fast_unique(y_true), fast_unique(y_pred)) \
        if y_true.dtype.kind == y_pred.dtype.kind else _union_mixed(y_true, y_pred)
    shown = _show(classes)
    if pos_label is None:
        binary = classes.dtype.kind in "biuf" and (
            set(classes.tolist()) <= {0, 1} or set(classes.tolist()) <= {-1, 1}
        )
        if not binary:
            raise ValueError(MSG_POS_LABEL_NEEDED.format(metric=metric, classes=shown))
        pos_label = True if classes.dtype.kind == "b" else 1
    elif not np.any(classes == pos_label):
        raise ValueError(MSG_POS_LABEL_ABSENT.format(pos_label=pos_label, classes=shown))
    return y_true == pos_label, y_pred == pos_label


def _union_mixed(y_true, y_pred):
    try:
        return np.union1d(fast_unique(y_true), fast_unique(y_pred))
    except TypeError:
        return np.asarray(sorted(set(y_true.tolist()) | set(y_pred.tolist()), key=repr),
                          dtype=object)


def _show(values, limit=8):
    values = list(values.tolist())
    text = ", ".join(repr(v) for v in values[:limit])
    return "[" + text + (", ...]" if len(values) > limit else "]")


def encode_sensitive(sensitive_features, n_samples):
    """Group codes per attribute: ``(codes, names, groups)`` as in ``check_sensitive``.

    Fast paths, O(n) or a hash, for what the group metrics meet at 1e6 rows:
    small-range integer columns (bincount) and pandas columns (``pd.factorize``,
    which is some 10x faster than sorting Python strings). Anything else, and
    every error, goes through the shared check with its messages.
    """
    fallback = (sensitive_features, n_samples)
    if _is_dataframe(sensitive_features) or hasattr(sensitive_features, "to_numpy"):
        frame = sensitive_features
        series = ([frame.iloc[:, k] for k in range(frame.shape[1])] if _is_dataframe(frame)
                  else [frame])
        names = (list(frame.columns) if _is_dataframe(frame)
                 else [frame.name if frame.name is not None else 0])
        columns = [s.to_numpy() if s.dtype.kind in "biu" else s for s in series]
    else:
        arr = np.asarray(sensitive_features)
        if arr.ndim not in (1, 2) or arr.dtype.kind not in "biu":
            return check_sensitive(*fallback, name="sensitive_features")
        cols = arr[:, None] if arr.ndim == 1 else arr
        names = list(range(cols.shape[1]))
        columns = [cols[:, k] for k in range(cols.shape[1])]
    if not columns or any(len(c) != n_samples for c in columns):
        return check_sensitive(*fallback, name="sensitive_features")
    codes, groups = [], []
    for col in columns:
        encoded = _encode_column(col)
        if encoded is None:
            return check_sensitive(*fallback, name="sensitive_features")
        codes.append(encoded[0])
        groups.append(encoded[1])
    return codes, names, groups


def _encode_column(col):
    """``(codes, sorted values)``, or None to defer to the shared check."""
    if isinstance(col, np.ndarray):
        if not _small_int_range(col):
            return None
        lo = int(col.min())
        shifted = (col - lo).astype(np.intp, copy=False)
        counts = np.bincount(shifted)
        present = np.flatnonzero(counts)
        lookup = np.zeros(counts.shape[0], dtype=np.intp)
        lookup[present] = np.arange(present.shape[0])
        codes, values = lookup[shifted], (present + lo).astype(col.dtype, copy=False)
    else:  # a pandas Series
        import pandas as pd

        try:
            codes, values = pd.factorize(col, sort=True)
        except TypeError:  # unorderable mix: the shared check explains
            return None
        values = np.asarray(values)
        if codes.size and codes.min() < 0:  # missing values
            return None
        codes = codes.astype(np.intp, copy=False)
    if values.shape[0] < 2:
        return None
    return codes, values


def is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


MSG_COLUMN_MISSING = (
    "sensitive column {col!r} is not in X ({where}). Give DataFrame column names or "
    "integer positions."
)


def resolve_columns(X, sensitive):
    """Positions and names of the sensitive columns of ``X``.

    ``sensitive`` is one column or a list: DataFrame column names, or integer
    positions (for a DataFrame, an integer that is not a column name is a
    position).
    """
    cols = list(sensitive) if isinstance(sensitive, (list, tuple, np.ndarray)) else [sensitive]
    if not cols:
        raise ValueError("sensitive is empty: name at least one column of X.")
    if _is_dataframe(X):
        columns = list(X.columns)
        positions = []
        for col in cols:
            if col in columns:
                positions.append(columns.index(col))
            elif is_int(col) and -len(columns) <= col < len(columns):
                positions.append(col % len(columns))
            else:
                raise ValueError(MSG_COLUMN_MISSING.format(
                    col=col, where=f"columns {columns[:10]!r}{'...' if len(columns) > 10 else ''}"))
        names = [columns[p] for p in positions]
    else:
        n_cols = np.shape(X)[1] if np.ndim(X) == 2 else 0
        positions = []
        for col in cols:
            if not (is_int(col) and -n_cols <= col < n_cols):
                raise ValueError(MSG_COLUMN_MISSING.format(
                    col=col, where=f"an array with {n_cols} columns"))
            positions.append(int(col) % n_cols)
        names = list(positions)
    if len(set(positions)) != len(positions):
        raise ValueError(f"sensitive names a column twice: {cols!r}.")
    return positions, names


def split_columns(X, positions, *, drop):
    """``(A, X_rest)``: the sensitive columns, and ``X`` without them when ``drop``."""
    if _is_dataframe(X):
        A = X.iloc[:, positions]
        rest = X.drop(columns=X.columns[positions]) if drop else X
        return A, rest
    X = np.asarray(X)
    A = X[:, positions]
    rest = np.delete(X, positions, axis=1) if drop else X
    return A, rest
