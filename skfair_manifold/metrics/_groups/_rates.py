"""Rates and gaps from the sums of a :class:`~._cells.CellTable`.

Every rate of a binary classifier is a ratio of two sums of cells: the cells
``[t, p]`` (true label ``t``, prediction ``p``, 1 the favourable class) that
count in its numerator and those that count in its denominator. The functions
here work on arrays of shape ``(..., n_groups, 2, 2)``, so the same code
serves the point estimates and any number of bootstrap replicates.
"""

import warnings

import numpy as np

#: per rate: the cells of its numerator and of its denominator, as [t, p] masks
_ALL = np.ones((2, 2), dtype=bool)
RATE_CELLS = {
    "base_rate": (np.array([[0, 0], [1, 1]], bool), _ALL),
    "selection_rate": (np.array([[0, 1], [0, 1]], bool), _ALL),
    "true_positive_rate": (np.array([[0, 0], [0, 1]], bool), np.array([[0, 0], [1, 1]], bool)),
    "false_positive_rate": (np.array([[0, 1], [0, 0]], bool), np.array([[1, 1], [0, 0]], bool)),
    "precision": (np.array([[0, 0], [0, 1]], bool), np.array([[0, 1], [0, 1]], bool)),
    "accuracy": (np.array([[1, 0], [0, 1]], bool), _ALL),
}
#: the per-group rates, in the column order of ``by_group``
RATES = tuple(RATE_CELLS)
#: the gap metrics and the rate each compares
GAP_RATES = {
    "demographic_parity": "selection_rate",
    "equal_opportunity": "true_positive_rate",
    "predictive_quality_parity": "precision",
}


def masked_sum(values, mask):
    """Sum of ``values[..., 2, 2]`` over the cells of ``mask``."""
    return (values * mask).sum(axis=(-2, -1))


def rate_parts(values, rate):
    """Numerator and denominator sums of ``rate`` over ``values`` (..., 2, 2)."""
    numerator, denominator = RATE_CELLS[rate]
    return masked_sum(values, numerator), masked_sum(values, denominator)


def rates_of(weight):
    """Every rate from weight sums of shape (..., 2, 2); nan where the denominator is 0."""
    out = {}
    for rate in RATES:
        num, den = rate_parts(weight, rate)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[rate] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out


def gaps_of(rate, overall, compared):
    """The four gap forms of ``rate`` (..., g) over the groups ``compared`` (g,) with a rate.

    Returns a dict of arrays of shape (...): ``difference`` (largest rate minus
    smallest), ``difference_to_overall``, ``ratio`` (smallest over largest) and
    ``ratio_to_overall``; nan where fewer than 2 groups take part (or where a
    ratio's largest rate is 0), and ``high`` / ``low``: the positions of the
    groups with the largest and the smallest rate (-1 where undefined; ties:
    the first group in order).
    """
    rate = np.asarray(rate, dtype=np.float64)
    overall = np.asarray(overall, dtype=np.float64)
    defined = ~np.isnan(rate) & compared
    enough = defined.sum(axis=-1) >= 2
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        high = np.argmax(np.where(defined, rate, -np.inf), axis=-1)
        low = np.argmin(np.where(defined, rate, np.inf), axis=-1)
        hi = np.take_along_axis(rate, high[..., None], axis=-1)[..., 0]
        lo = np.take_along_axis(rate, low[..., None], axis=-1)[..., 0]
        o = overall[..., None]
        dev = np.where(defined, np.abs(rate - o), -np.inf).max(axis=-1)
        to_o = np.where(defined, np.minimum(rate / o, np.where(rate > 0, o / rate, 0.0)),
                        np.inf).min(axis=-1)
        return {
            "difference": np.where(enough, hi - lo, np.nan),
            "difference_to_overall": np.where(enough, dev, np.nan),
            "ratio": np.where(enough & (hi > 0), lo / np.where(hi > 0, hi, 1.0), np.nan),
            "ratio_to_overall": np.where(enough & (overall > 0), to_o, np.nan),
            "high": np.where(enough, high, -1),
            "low": np.where(enough, low, -1),
        }


#: the gap forms, in column order
GAP_FORMS = ("difference", "difference_to_overall", "ratio", "ratio_to_overall")
