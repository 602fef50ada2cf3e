"""What every metric shares: the undefined-value policy and the positive class.

The input checks themselves (labels, sensitive columns, weights) live in
:mod:`skfair_manifold.utils._validation`.

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

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from ..utils._validation import fast_unique


class UndefinedFairnessWarning(UndefinedMetricWarning):
    """A fairness value is undefined on the data given; ``nan`` was returned.

    A subclass of :class:`sklearn.exceptions.UndefinedMetricWarning`, so
    filters written for scikit-learn's metrics apply to it too.
    """


MSG_POS_LABEL_NEEDED = (
    "{metric} compares the rate of one class across groups, and the labels are not "
    "binary 0/1 (classes found: {classes}). Pass pos_label=<the favourable class>; the "
    "other classes then count as negative. No class is chosen for you.{hint}"
)
#: the end of MSG_POS_LABEL_NEEDED when the labels are many numbers (amounts, not classes)
HINT_AMOUNTS = (
    " If they are amounts (a wage, a limit: {count} distinct numbers), they are a quantity, "
    "not classes: {fix}."
)
#: what a quantity asks for, per caller
AMOUNT_FIXES = {
    "fairness_report": "pass target_type='continuous' (the groups' mean predictions, errors "
                       "and distributions)",
}
AMOUNT_FIX_METRICS = (
    "compare them with mean_prediction_difference, error_difference, bounded_group_loss or "
    "distribution_distance, or fairness_report(target_type='continuous')"
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
            hint = ""
            if classes.dtype.kind in "iuf" and classes.shape[0] > 10:
                hint = HINT_AMOUNTS.format(count=classes.shape[0], fix=AMOUNT_FIXES.get(
                    metric, AMOUNT_FIX_METRICS))
            raise ValueError(MSG_POS_LABEL_NEEDED.format(metric=metric, classes=shown,
                                                         hint=hint))
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
