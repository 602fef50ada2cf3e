"""The report's in-memory rows: checked once, the sensitive features resolved once, the table."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

from ...utils._validation import (
    as_sensitive,
    caller_index,
    check_pair,
    check_sample_weight,
    names_in_X,
)
from .._groups._cells import rows_cell_table
from .._common import positive_masks


MSG_DR_NEEDS_COLUMNS = (
    "the discriminative risk perturbs the estimator's input, so with estimator= the "
    "sensitive_features must name the sensitive columns of X (names or positions, for "
    "example sensitive_features=['sex', 'race']) or be columns of X given as a named Series "
    "or DataFrame; got {got}."
)

MSG_X_NEEDED = (
    "sensitive_features={got!r} names columns, which needs X (the features with the "
    "sensitive columns in them)."
)


def _is_column_reference(value, n_samples):
    if isinstance(value, (str, Integral)) and not isinstance(value, bool):
        return True
    return (isinstance(value, (list, tuple)) and 0 < len(value) < n_samples
            and all(isinstance(v, (str, Integral)) and not isinstance(v, bool)
                    for v in value))


def _column_name(values, default):
    name = getattr(values, "name", None)
    return default if name is None else str(name)


def _favourable(pos_label, y_true):
    """The favourable class as the metrics resolved it."""
    if pos_label is not None:
        return pos_label
    return True if y_true.dtype.kind == "b" else 1


def _rows_table(y_true, y_pred, sensitive_features, X, estimator, pos_label, sample_weight,
                random_state):
    """The cell table of in-memory rows, and what HFM and DR need of the rows.

    The sensitive features are resolved once, into the call's
    :class:`~...utils._validation.SensitiveFeatures` (``rows["sensitive"]``):
    the cell table, HFM, DR and the scores read it, and each attribute is
    encoded once.
    """
    names_given = {"label": _column_name(y_true, "y_true"),
                   "prediction": _column_name(y_pred, "y_pred")}
    index = caller_index(y_true, y_pred, X)  # how the pages name the rows
    y_true, y_pred = check_pair(y_true, y_pred)
    n = y_true.shape[0]
    true_pos, pred_pos = positive_masks(y_true, y_pred, pos_label, "fairness_report")
    weights = check_sample_weight(sample_weight, n)
    rng = check_random_state(random_state)
    seed = int(rng.randint(np.iinfo(np.int32).max))

    named, every = names_in_X(sensitive_features, X)  # a named Series or frame of X's
    from_X = _is_column_reference(sensitive_features, n) or every
    if from_X and X is None:
        raise ValueError(MSG_X_NEEDED.format(got=sensitive_features))
    if not from_X and estimator is not None:
        raise ValueError(MSG_DR_NEEDS_COLUMNS.format(got=type(sensitive_features).__name__))
    sensitive = as_sensitive(named if every else sensitive_features, n,
                             X=X if from_X else None)
    if estimator is not None and X is None:
        raise ValueError("estimator= needs X, the rows the estimator predicts.")

    table = rows_cell_table(sensitive, n, true_pos, pred_pos, weights)
    rows = {"names_given": names_given, "weighted": weights is not None, "weights": weights,
            "y_true": y_true, "y_pred": y_pred, "X_hfm": sensitive.rest if from_X else X,
            "sensitive": sensitive, "index": index}
    return table, _favourable(pos_label, y_true), rng, seed, rows
