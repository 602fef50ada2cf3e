"""Which report a pair of columns gets, class labels or a quantity: said, never guessed."""

import numpy as np

from ...utils._validation import column_1d


MSG_MIXED_TARGET = (
    "y_true is {true_kind} but y_pred is {pred_kind}: no report is guessed between a class "
    "label and a quantity. For probability scores against 0/1 labels, pass the predicted "
    "classes as y_pred and the scores as y_score= (their AUC and calibration by group), or "
    "threshold them (for example y_pred >= 0.5); to compare the groups' means of two "
    "quantities, pass target_type='continuous'."
)

MSG_CONSTANT_TARGET = (
    "{name} holds a single value ({value!r}) and {other} holds quantities (numbers that are "
    "not all integers): a constant is read neither as classes nor as a quantity for you. "
    "For a constant prediction of a quantity pass target_type='continuous' (the groups' "
    "means and errors); for one class pass target_type='binary' with pos_label=<the "
    "favourable class>."
)


def resolve_target_type(target_type, y_true, y_pred):
    """``("binary" | "continuous", how it was chosen)``; refuses a mixed pair under "auto".

    ``"auto"`` takes the pair as continuous when both hold numbers that are
    not all integers (scikit-learn's ``type_of_target`` says
    ``"continuous"``), or when one does and the other is not binary; a
    continuous one against a binary one is refused with a message.
    """
    if target_type == "binary":
        return "binary", "target_type='binary'"
    if target_type == "continuous":
        return "continuous", "target_type='continuous'"
    from sklearn.utils.multiclass import type_of_target

    kinds, single = [], []
    for y in (y_true, y_pred):
        try:
            column = column_1d(y, "y")
            kinds.append(type_of_target(column))
            values = np.unique(column) if column.dtype.kind in "biuf" else ()
            single.append(values[0] if len(values) == 1 else None)
        except (TypeError, ValueError):
            kinds.append("unknown")
            single.append(None)
    true_kind, pred_kind = kinds
    if "continuous" not in kinds:
        return "binary", "detected: class labels"
    if "binary" in kinds:
        for name, kind, value in (("y_pred", pred_kind, single[1]),
                                  ("y_true", true_kind, single[0])):
            if kind == "binary" and value is not None:  # one value: not two classes
                raise ValueError(MSG_CONSTANT_TARGET.format(
                    name=name, value=value.item(),
                    other="y_true" if name == "y_pred" else "y_pred"))
        raise ValueError(MSG_MIXED_TARGET.format(
            true_kind=_kind_text(true_kind), pred_kind=_kind_text(pred_kind)))
    return "continuous", "detected: y_true and y_pred hold quantities, not classes"


def _kind_text(kind):
    return {"continuous": "continuous (numbers that are not all integers)",
            "binary": "binary (two classes)"}.get(kind, kind)
