"""Labels, predictions and sample weights checked: one column each, of one kind, same rows."""

import numpy as np

from .._column_kind import NUMBER_KINDS, column_kind
from .._narwhals import is_dataframe, is_series, missing_mask
from ._features import _check_finite, _example, _raise_missing
from ._frames import frame_columns
from ._messages import (
    MSG_COMPLEX,
    MSG_EMPTY,
    MSG_LABEL_KINDS,
    MSG_LABEL_NON_NUMERIC,
    MSG_LENGTH,
    MSG_MIXED,
    MSG_NOT_1D,
    MSG_WEIGHT_INVALID,
    MSG_WEIGHT_NON_NUMERIC,
)


def column_1d(y, name):
    """Return ``y`` as a 1-D ndarray; a column vector or a one-column frame is accepted.

    pandas and polars Series and one-column DataFrames are converted column
    by column (nullable dtypes to their values, missing values to NaN or None).
    """
    if is_dataframe(y):
        names, columns = frame_columns(y)
        if len(columns) != 1:
            raise ValueError(MSG_NOT_1D.format(name=name, shape=(len(y), len(columns))))
        y = columns[0]
    elif is_series(y):
        y = frame_columns(y)[1][0]
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(MSG_NOT_1D.format(name=name, shape=y.shape))
    return y


def _kind(y):
    """``"numeric"``, ``"string"``, ``"mixed"`` (an object array of several kinds) or the
    dtype's name, for the labels' messages; read by :func:`~.._column_kind.column_kind`."""
    kind = column_kind(y)
    if kind in (*NUMBER_KINDS, "empty"):
        return "numeric"
    if kind == "text":
        return "string"
    return "mixed" if y.dtype == object else y.dtype.name


def check_pair(y_true, y_pred):
    """Two label vectors of equal length as 1-D arrays, with no missing value.

    Both must hold the same kind of values (numbers, or strings): ``"1"`` and
    ``1`` are different classes, and numpy would silently turn the integers
    into strings. Numeric labels come back as numeric arrays.
    """
    y_true = column_1d(y_true, "y_true")
    y_pred = column_1d(y_pred, "y_pred")
    if y_pred.shape[0] != y_true.shape[0]:
        raise ValueError(MSG_LENGTH.format(name="y_pred", got=y_pred.shape[0],
                                           other="y_true", expected=y_true.shape[0]))
    if y_true.shape[0] == 0:
        raise ValueError(MSG_EMPTY.format(name="y_true"))
    pair = []
    for name, y in (("y_true", y_true), ("y_pred", y_pred)):
        if y.dtype.kind == "c":
            raise TypeError(MSG_COMPLEX.format(name=name, dtype=y.dtype))
        if y.dtype == object:  # NaN in a float column is reported with infinity below
            missing = missing_mask(y)
            if missing.any():
                _raise_missing(missing, name)
        kind = _kind(y)
        if kind == "mixed":
            raise TypeError(MSG_MIXED.format(name=name, types=_type_names(y)))
        if kind == "numeric" and y.dtype == object:
            y = y.astype(np.float64)
        pair.append((y, kind))
    (y_true, true_kind), (y_pred, pred_kind) = pair
    if true_kind != pred_kind:
        raise TypeError(MSG_LABEL_KINDS.format(true_kind=true_kind, pred_kind=pred_kind))
    if true_kind == "numeric":
        _check_finite(y_true, "y_true")
        _check_finite(y_pred, "y_pred")
    return y_true, y_pred


def label_coordinates(y_true, y_pred):
    """Both labels as float64 coordinates (HFM paper, Eq. 9), after :func:`check_pair`.

    Numeric labels are used as they are; string labels are coded jointly
    ``0 .. k-1`` in sorted order, so that equal classes get equal codes.
    """
    y_true, y_pred = check_pair(y_true, y_pred)
    if y_true.dtype.kind not in "biuf":
        classes = np.union1d(y_true, y_pred)
        y_true = np.searchsorted(classes, y_true)
        y_pred = np.searchsorted(classes, y_pred)
    return y_true.astype(np.float64), y_pred.astype(np.float64)


def check_label(y, n_samples, *, name="y"):
    """Return a numeric label vector as float64 of length ``n_samples``.

    The label is a coordinate of the points (HFM paper, Eq. 9), so it must be
    numeric: booleans and integers are accepted, strings are not.
    """
    y = column_1d(y, name)
    if y.shape[0] != n_samples:
        raise ValueError(MSG_LENGTH.format(name=name, got=y.shape[0], other="X",
                                           expected=n_samples))
    if y.dtype == object:  # NaN in a float column is reported with infinity below
        missing = missing_mask(y)
        if missing.any():
            _raise_missing(missing, name)
    if _kind(y) != "numeric":
        raise TypeError(MSG_LABEL_NON_NUMERIC.format(name=name, dtype=y.dtype,
                                                     example=_example(y)))
    y = np.asarray(y, dtype=np.float64)
    _check_finite(y, name)
    return y


def check_sample_weight(sample_weight, n_samples, *, other="y_true"):
    """``None``, or the weights as float64 of length ``n_samples``, finite and >= 0.

    Weights whose sums could overflow (or that are all subnormal) come back
    divided by their largest value, which changes no rate.
    """
    if sample_weight is None:
        return None
    w = column_1d(sample_weight, "sample_weight")
    if w.shape[0] != n_samples:
        raise ValueError(MSG_LENGTH.format(name="sample_weight", got=w.shape[0],
                                           other=other, expected=n_samples))
    if _kind(w) != "numeric":
        raise TypeError(MSG_WEIGHT_NON_NUMERIC.format(example=_example(w)))
    w = np.asarray(w, dtype=np.float64)
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(MSG_WEIGHT_INVALID.format(count=int(bad.sum()), row=row,
                                                   value=float(w[row])))
    return _normalised_weights(w)


#: weights whose largest is outside [WEIGHT_TINY, finfo.max / n] are divided by it
WEIGHT_TINY = 1e-200


def _normalised_weights(w):
    """``w`` divided by its largest value when sums of ``w`` could leave float64's range.

    Every rate is a ratio of weighted sums, so a common factor changes none
    of them; but weights of 1e308 overflow to ``inf`` when summed (and make
    every rate ``inf / inf``), and subnormal weights lose their precision.
    A sum over ``n`` rows (or ``n`` resampled rows) is at most ``n`` times
    the largest weight, so weights are rescaled to a largest of 1 whenever
    that bound overflows or the largest weight is below :data:`WEIGHT_TINY`.
    The caller's array is never modified.
    """
    top = float(w.max()) if w.size else 0.0
    if top == 0.0:
        return w
    with np.errstate(over="ignore"):
        overflows = not np.isfinite(np.float64(top) * max(w.shape[0], 1))
    if overflows or top < WEIGHT_TINY:
        return w / top
    return w


def _type_names(col):
    return ", ".join(sorted({type(v).__name__ for v in col.tolist()}))
