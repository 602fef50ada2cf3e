"""Confidence bounds for ``diff = p1 - p2``, a difference of two proportions.

Both sides hold ``n1`` and ``n2`` testers with expected positive rates
``p1`` and ``p2`` (the mean over all tie-breaks, see ``_knn`` and ``_cbn``).
The variance used is the plug-in binomial variance at those rates,
``p (1 - p) / n`` per side: the variance of a rate over ``n`` Bernoulli
decisions whose probability is the expected rate. (It exceeds the mean over
tie-breaks of the per-tie-break plug-in variance by ``Var_tie(p) / n``, so it
is never narrower than averaging the tie-broken intervals.)

* ``"wald"``: ``diff -/+ z sqrt(p1 (1 - p1) / n1 + p2 (1 - p2) / n2)``, the
  one-sided Wald bound of Alvarez and Ruggieri's counterfactual situation
  testing. It has zero width when both rates are 0 or 1.
* ``"newcombe"``: Newcombe's hybrid score interval (method 10 of Newcombe,
  1998), built from the two Wilson score intervals; it keeps a positive
  width at rates 0 and 1 and its coverage is close to nominal for small
  ``n``.

Each bound is one-sided at level ``1 - alpha``: ``diff_lower`` is the lower
bound, ``diff_upper`` the upper; together they form a two-sided
``1 - 2 alpha`` interval.
"""

import numpy as np
from scipy import stats

from ...utils._interval import ConfidenceInterval

BOUNDS = ("newcombe", "wald")


def _wilson(p, n, z):
    with np.errstate(invalid="ignore", divide="ignore"):
        z2n = z * z / n
        centre = (p + z2n / 2) / (1 + z2n)
        half = z * np.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    return centre - half, centre + half


def diff_bounds(p1, n1, p2, n2, *, alpha, method):
    """One-sided ``1 - alpha`` lower and upper bounds of ``p1 - p2``.

    Parameters
    ----------
    p1, p2 : ndarray
        Positive rates (NaN where a side has no tester).
    n1, n2 : ndarray
        Testers on each side.
    alpha : float
    method : {"newcombe", "wald"}

    Returns
    -------
    bounds : ConfidenceInterval
        ``(low, high)``: the lower and the upper bound, arrays.
    """
    z = stats.norm.ppf(1.0 - alpha)
    p1, p2 = np.clip(p1, 0.0, 1.0), np.clip(p2, 0.0, 1.0)
    diff = p1 - p2
    with np.errstate(invalid="ignore", divide="ignore"):
        if method == "wald":
            se = np.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
            return ConfidenceInterval(diff - z * se, diff + z * se)
        l1, u1 = _wilson(p1, n1, z)
        l2, u2 = _wilson(p2, n2, z)
        lower = diff - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
        upper = diff + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return ConfidenceInterval(lower, upper)
