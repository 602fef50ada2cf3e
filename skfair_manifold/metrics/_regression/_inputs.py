"""The continuous report's input checks: a column of numbers, and the user's loss per row.

:func:`continuous_column` checks the continuous report's columns and the
scores (``y_score``) alike; :func:`loss_values` the values of the function
passed as ``fairness_report(loss=)``.
"""

import numpy as np

from ...utils._validation import column_1d
from ...utils._validation._features import _example

__all__ = ["continuous_column", "loss_values"]

MSG_NOT_NUMERIC = "{name} must hold numbers {what}; got values such as {example!r}."

MSG_LOSS_SHAPE = (
    "loss(y_true, y_pred) must return one number per row ({n}); {name} returned {got}. "
    "Pass a function of two arrays that returns the rows' losses, such as "
    "lambda t, p: (p - t) ** 2 (not a mean: the report averages it by group)."
)

MSG_LOSS_VALUES = (
    "loss(y_true, y_pred) returned {count} NaN, infinite or non-numeric value(s), first at "
    "row {row} (y_true {true!r}, y_pred {pred!r}); it must be finite on every row."
)

MSG_NOT_FINITE = (
    "{name} holds {count} NaN or infinite value(s), first at row {row}; remove or impute "
    "them first."
)


def continuous_column(values, name, n_samples=None, *,
                      what="for a continuous target (target_type='continuous')"):
    """``values`` as a float64 column of numbers, finite; a clear error otherwise.

    ``what`` says, in the message, why numbers are needed. The continuous
    report's columns and the scores (``y_score``) are checked here alike.
    """
    col = column_1d(values, name)
    if col.dtype.kind not in "biuf":
        try:
            col = col.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(MSG_NOT_NUMERIC.format(
                name=name, what=what, example=_example(col))) from None
    col = np.asarray(col, dtype=np.float64)
    bad = ~np.isfinite(col)
    if bad.any():
        raise ValueError(MSG_NOT_FINITE.format(name=name, count=int(bad.sum()),
                                               row=int(np.flatnonzero(bad)[0])))
    if n_samples is not None and col.shape[0] != n_samples:
        raise ValueError(f"{name} has {col.shape[0]} rows but y_true has {n_samples}; they "
                         f"must describe the same rows.")
    return col


def loss_values(loss, y_true, y_pred):
    """Each row's loss from the user's function, checked: float64, shape (n,), finite."""
    name = getattr(loss, "__name__", type(loss).__name__)
    values = loss(y_true.copy(), y_pred.copy())  # the function cannot change the report's
    try:
        values = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        values = np.asarray(values, dtype=object)
    if values.shape != y_true.shape:
        got = f"shape {values.shape}" if values.ndim else f"one number ({values.item()!r})"
        raise ValueError(MSG_LOSS_SHAPE.format(n=y_true.shape[0], name=name, got=got))
    bad = ~np.isfinite(values) if values.dtype.kind == "f" else np.ones(values.shape, bool)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(MSG_LOSS_VALUES.format(count=int(bad.sum()), row=row,
                                                true=float(y_true[row]),
                                                pred=float(y_pred[row])))
    return values
