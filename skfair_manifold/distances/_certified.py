"""The approximation made certain: exact checks of a sample and of the largest rows.

Every approximate row distance ``r_i`` is the true distance from row ``i`` to
some row of another group, so it is never below the exact distance ``e_i``.
Two consequences, used here:

* **Mean** (Eq. 5, 7). The excess ``r_i - e_i >= 0`` is measured exactly on a
  seeded simple random sample ``S`` of ``s`` rows (without replacement). The
  difference estimator (a control variate with coefficient 1)
  ``mean(r) - mean_S(r - e)`` is unbiased for ``mean(e)``; its variance is
  ``(1 - s / n) * var_S(r - e) / s`` (finite-population correction). The same
  rows serve every label and attribute, so their covariances are estimated
  from the same sample.
* **Maximum** (Eq. 4, 6). A row whose approximate distance is not above the
  largest exact distance found so far cannot hold the maximum. Rows are
  checked in decreasing order of approximate distance until no unchecked row
  can exceed the largest exact distance found: that value is then the exact
  maximum. When the budget of checks ends first, the maximum lies, with
  certainty, between the largest exact distance found and the largest
  approximate distance of an unchecked row.
"""

import numpy as np
from sklearn.utils import Bunch

#: Rows checked in the first round of the maximum's check; doubles each round.
FIRST_BATCH = 256
LAST_BATCH = 8192


def certify(approx, engine, sample, *, max_checks, want_max=True, n_jobs=None):
    """Exact distances of a sample, and the maxima checked within a budget.

    Parameters
    ----------
    approx : ndarray of shape (n_labels, n_attributes, n_samples)
        Approximate row distances (upper bounds of the exact ones).
    engine : ExactEngine
        The exact engine prepared on the same rows, labels and attributes.
    sample : ndarray of int
        Rows of the random sample (checked first).
    max_checks : int
        Rows checked for the maxima beyond the sample.
    want_max : bool, default=True
        ``False`` skips the maximum's check.
    n_jobs : int, default=None
        Workers of the exact checks (joblib); the result does not depend on it.

    Returns
    -------
    result : Bunch
        ``sample_exact`` (n_labels, n_attributes, s); ``max_low``,
        ``max_high`` (n_labels, n_attributes), the certain bounds of each
        maximum; ``max_complete`` (same shape, bool): the check ended, so
        ``max_low`` is the exact maximum; ``n_checked``: rows checked for the
        maxima beyond the sample.
    """
    n_labels, n_attr, n = approx.shape
    sample_exact = engine.rows(sample, n_jobs=n_jobs) if sample.size else \
        np.empty((n_labels, n_attr, 0))
    low = sample_exact.max(axis=2) if sample.size else np.zeros((n_labels, n_attr))
    checked = np.zeros(n, dtype=bool)
    checked[sample] = True
    n_checked = 0
    if want_max:
        orders = [[np.argsort(-approx[l, k], kind="stable") for k in range(n_attr)]
                  for l in range(n_labels)]
        batch = FIRST_BATCH
        while True:
            wanted = []
            for l in range(n_labels):
                for k in range(n_attr):
                    order = orders[l][k]
                    rows = order[~checked[order]]
                    above = np.searchsorted(-approx[l, k, rows], -low[l, k], side="left")
                    if above:
                        wanted.append(rows[:above])
            room = max_checks - n_checked
            if not wanted or room <= 0:
                break
            share = max(1, min(batch, room) // len(wanted))
            rows = np.unique(np.concatenate([w[:share] for w in wanted]))[:room]
            exact = engine.rows(rows, n_jobs=n_jobs)
            checked[rows] = True
            n_checked += rows.size
            np.maximum(low, exact.max(axis=2), out=low)
            batch = min(2 * batch, LAST_BATCH)
    unchecked = ~checked
    if unchecked.any():
        top_unchecked = approx[:, :, unchecked].max(axis=2)
    else:
        top_unchecked = np.zeros_like(low)
    complete = top_unchecked <= low
    high = np.where(complete, low, top_unchecked)
    return Bunch(sample_exact=sample_exact, max_low=low, max_high=high,
                 max_complete=complete, n_checked=n_checked)


def mean_estimate(approx_mean, excess, n_samples):
    """Difference estimator of a mean and its variance (finite population).

    ``approx_mean`` (...,) is the mean of the approximate distances over all
    rows, ``excess`` (..., s) the approximate minus the exact distance on the
    sample. Returns ``(estimate, variance)``.
    """
    s = excess.shape[-1]
    estimate = approx_mean - excess.mean(axis=-1)
    if s >= n_samples or s < 2:
        return estimate, np.zeros_like(estimate)
    variance = (1.0 - s / n_samples) * excess.var(axis=-1, ddof=1) / s
    return estimate, variance


def mean_covariance(excess_a, excess_b, n_samples):
    """Covariance of two difference estimators that share the sample."""
    s = excess_a.shape[-1]
    if s >= n_samples or s < 2:
        return np.zeros(excess_a.shape[:-1])
    da = excess_a - excess_a.mean(axis=-1, keepdims=True)
    db = excess_b - excess_b.mean(axis=-1, keepdims=True)
    return (1.0 - s / n_samples) * (da * db).sum(axis=-1) / (s - 1) / s
