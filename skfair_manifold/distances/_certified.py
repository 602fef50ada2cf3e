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
  The rows checked for the maximum (below) are known exactly: they form a
  stratum of their own, and the sample estimates the excess of the other
  rows only, which removes the largest approximate distances, where the
  excess has its long tail, from the estimated part.
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


def certify(approx, engine, sample, *, max_checks, want_max=True, n_jobs=None,
            content=None):
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
    content : ndarray of int, optional
        The rows in an order of their content (:func:`._row_order.content_order`):
        rows of equal approximate distance are checked in that order, so the
        rows checked do not depend on their positions. None: by position.

    Returns
    -------
    result : Bunch
        ``sample_exact`` (n_labels, n_attributes, s); ``max_low``,
        ``max_high`` (n_labels, n_attributes), the certain bounds of each
        maximum; ``max_complete`` (same shape, bool): the check ended, so
        ``max_low`` is the exact maximum; ``n_checked``: rows checked for the
        maxima beyond the sample; ``checked_rows``, the rows at the top of
        the decreasing orders that are all known exactly (sample rows among
        them included), and ``checked_exact`` (n_labels, n_attributes,
        len(checked_rows)), their exact distances.
    """
    n_labels, n_attr, n = approx.shape
    sample_exact = engine.rows(sample, n_jobs=n_jobs) if sample.size else \
        np.empty((n_labels, n_attr, 0))
    low = sample_exact.max(axis=2) if sample.size else np.zeros((n_labels, n_attr))
    checked = np.zeros(n, dtype=bool)
    checked[sample] = True
    n_checked = 0
    # The rows known exactly and their distances (a few thousand rows: no
    # array of every row's, 0.2 x X at 1,000,000 x 20)
    known_rows, known = [np.asarray(sample)], [sample_exact]
    prefix = np.zeros(n, dtype=bool)
    if want_max:
        index = np.int32 if n < 2 ** 31 else np.intp
        orders = [[_decreasing(approx[l, k], content).astype(index)
                   for k in range(n_attr)] for l in range(n_labels)]
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
            # the first ``room`` distinct rows in the orders' sequence (not by position)
            cat = np.concatenate([w[:share] for w in wanted])
            rows = np.sort(cat[np.sort(np.unique(cat, return_index=True)[1])][:room])
            exact = engine.rows(rows, n_jobs=n_jobs)
            known_rows.append(rows)
            known.append(exact)
            checked[rows] = True
            n_checked += rows.size
            np.maximum(low, exact.max(axis=2), out=low)
            batch = min(2 * batch, LAST_BATCH)
        # The stratum known exactly: per label and attribute, the longest run
        # of checked rows at the top of the decreasing order (a function of
        # the approximate distances, not of which rows the sample drew).
        for l in range(n_labels):
            for k in range(n_attr):
                order = orders[l][k]
                top = int(np.argmin(checked[order])) if not checked.all() else n
                prefix[order[:top]] = True
    unchecked = ~checked
    if unchecked.any():
        top_unchecked = approx[:, :, unchecked].max(axis=2)
    else:
        top_unchecked = np.zeros_like(low)
    complete = top_unchecked <= low
    high = np.where(complete, low, top_unchecked)
    if n_checked == 0:
        prefix[:] = False  # nothing beyond the sample: the sample alone estimates
    stratum = np.flatnonzero(prefix)
    known_rows = np.concatenate(known_rows)
    first = np.unique(known_rows, return_index=True)[1]  # (a row is checked once)
    at = np.searchsorted(known_rows[first], stratum)
    checked_exact = np.concatenate(known, axis=2)[:, :, first[at]] if stratum.size else \
        np.empty((n_labels, n_attr, 0))
    return Bunch(sample_exact=sample_exact, max_low=low, max_high=high,
                 max_complete=complete, n_checked=n_checked, checked_rows=stratum,
                 checked_exact=checked_exact)


def mean_estimate(approx_mean, excess, n_samples):
    """Difference estimator of a mean, its variance and its skewness shift.

    ``approx_mean`` (...,) is the mean of the approximate distances over all
    rows, ``excess`` (..., s) the approximate minus the exact distance on the
    sample. Returns ``(estimate, variance, shift)``: the unbiased estimate,
    its variance with the finite-population correction, and Johnson's (1978)
    correction for the skewness of the excess, ``m3 / (6 m2 s)``, by which
    the centre of the interval moves down (the excess has a long right tail,
    so a symmetric interval would miss low values of the mean excess less
    often than high ones).
    """
    s = excess.shape[-1]
    estimate = approx_mean - excess.mean(axis=-1)
    if s >= n_samples or s < 2:
        zero = np.zeros_like(estimate)
        return estimate, zero, zero
    fpc = 1.0 - s / n_samples
    centred = excess - excess.mean(axis=-1, keepdims=True)
    m2 = (centred ** 2).mean(axis=-1)
    m3 = (centred ** 3).mean(axis=-1)
    variance = fpc * excess.var(axis=-1, ddof=1) / s
    shift = np.where(m2 > 0, m3 / (6 * np.where(m2 > 0, m2, 1.0) * s), 0.0) * fpc
    return estimate, variance, shift


def mean_covariance(excess_a, excess_b, n_samples):
    """Covariance of two difference estimators that share the sample."""
    s = excess_a.shape[-1]
    if s >= n_samples or s < 2:
        return np.zeros(excess_a.shape[:-1])
    da = excess_a - excess_a.mean(axis=-1, keepdims=True)
    db = excess_b - excess_b.mean(axis=-1, keepdims=True)
    return (1.0 - s / n_samples) * (da * db).sum(axis=-1) / (s - 1) / s


def exact_statistics(rows):
    """The statistics of exact row distances ``rows`` (n_labels, K, n): no uncertainty.

    The same fields as :func:`certified_statistics`, with every interval of
    zero width, every variance, covariance and shift zero, and the maxima
    complete; ``raw_*`` are the values themselves.
    """
    n_labels, n_attr, _ = rows.shape
    max_k, mean_k = rows.max(axis=2), rows.mean(axis=2)
    # Eq. 7 per label, as the mean of each label's row of per-attribute means.
    mean_all = mean_k.mean(axis=1)
    zero_k, zero_all = np.zeros_like(mean_k), np.zeros_like(mean_all)
    return Bunch(
        max_low=max_k, max_high=max_k, max_complete=np.ones((n_labels, n_attr), dtype=bool),
        n_checked=0, budget=0,
        mean=mean_k, mean_var=zero_k, mean_shift=zero_k, mean_low=mean_k, mean_high=mean_k,
        mean_cov=np.zeros(n_attr),
        avg=mean_all, avg_var=zero_all, avg_shift=zero_all, avg_low=mean_all,
        avg_high=mean_all, avg_cov=0.0,
        raw_max=max_k, raw_mean=mean_k)


def certified_statistics(rows, cert, sample, budget, z):
    """Corrected means with their intervals, and the maxima's certain bounds.

    ``rows`` (2, K, n) are the approximate row distances of the true labels
    and the predictions, ``cert`` the result of :func:`certify`, ``sample``
    the rows drawn, ``budget`` the checks allowed for the maxima and ``z``
    the normal quantile of the intervals.

    Returns a Bunch: per label and attribute (2, K) ``max_low``,
    ``max_high``, ``max_complete`` (the maximum's bounds, see
    :func:`certify`); ``mean`` (Eq. 5, corrected), ``mean_var`` (its
    variance), ``mean_shift`` (the skewness shift of the interval's centre),
    ``mean_low``, ``mean_high`` (its interval) and ``mean_cov`` (K,), the
    covariance of the two labels' estimates; the same for Eq. 7's mean over
    the attributes as ``avg``, ``avg_var``, ``avg_shift``, ``avg_low``,
    ``avg_high`` (2,) and ``avg_cov``; ``raw_max``, ``raw_mean`` (2, K) from
    the approximate distances alone; ``n_checked`` and ``budget``.
    """
    n_labels, n_attr, n = rows.shape
    raw_max, raw_mean = rows.max(axis=2), rows.mean(axis=2)  # (2, K)
    # Rows checked for the maxima are known exactly (a stratum of their own);
    # the sample estimates the mean excess of the n_u other rows.
    checked = cert.checked_rows
    n_u = n - checked.size
    in_rest = ~np.isin(sample, checked)
    excess = rows[:, :, sample[in_rest]] - cert.sample_exact[:, :, in_rest]  # (2, K, s_u)
    known_sum = cert.checked_exact.sum(axis=2)  # (2, K)
    rest_sum = rows.sum(axis=2) - rows[:, :, checked].sum(axis=2)
    weight = n_u / n
    # The exact mean is never above the approximate one: a certain upper bound.
    upper_k = (known_sum + rest_sum) / n

    def corrected(rest_mean, exc, known, upper):
        est, var, shift = mean_estimate(rest_mean, exc, n_u)
        est = np.clip(known / n + weight * est, 0.0, upper)
        var, shift = weight ** 2 * var, weight * shift
        half = z * np.sqrt(var)
        low = np.clip(est - shift - half, 0.0, upper)
        high = np.clip(est - shift + half, 0.0, upper)
        return est, var, shift, low, high

    # Per attribute and label: Eq. 5 corrected.
    mean_k, var_k, shift_k, low_k, high_k = corrected(
        rest_sum / max(n_u, 1), excess, known_sum, upper_k)
    cov_k = weight ** 2 * mean_covariance(excess[0], excess[1], n_u)
    # Eq. 7 over attributes: the mean over attributes of the per-row excess.
    mean_all, var_all, shift_all, low_all, high_all = corrected(
        rest_sum.mean(axis=1) / max(n_u, 1), excess.mean(axis=1), known_sum.mean(axis=1),
        upper_k.mean(axis=1))
    cov_all = weight ** 2 * mean_covariance(excess[0].mean(axis=0), excess[1].mean(axis=0),
                                            n_u)
    return Bunch(
        max_low=cert.max_low, max_high=cert.max_high, max_complete=cert.max_complete,
        n_checked=int(cert.n_checked), budget=int(budget),
        mean=mean_k, mean_var=var_k, mean_shift=shift_k, mean_low=low_k, mean_high=high_k,
        mean_cov=cov_k,
        avg=mean_all, avg_var=var_all, avg_shift=shift_all, avg_low=low_all,
        avg_high=high_all, avg_cov=cov_all,
        raw_max=raw_max, raw_mean=raw_mean)


def _decreasing(values, content):
    """Rows by decreasing ``values``, ties in ``content`` order (by position if None)."""
    if content is None:
        return np.argsort(-values, kind="stable")
    return content[np.argsort(-values[content], kind="stable")]
