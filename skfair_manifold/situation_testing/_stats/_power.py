"""The smallest detectable gap: what a person's testers could have shown, flagged or not.

A person not flagged learns nothing from "not flagged" alone: the testers
may have been too few to see any gap. For each candidate the audit states
the smallest difference ``delta = p1 - p2`` between the testers' rates of
favourable decisions that the exact rule would have flagged with
probability :data:`POWER` (0.8), with these testers at this level:

* the sides hold ``m1`` and ``m2`` whole effective testers (as the p-value
  counts them, :func:`._pvalue.effective_counts`);
* under the alternative, the protected side's favourable decisions follow
  ``Binomial(m2, p2)`` at the person's observed ``p2`` (a plug-in), and the
  unprotected side's ``Binomial(m1, p2 + delta)``;
* the rule flags when ``x1 / m1 - x2 / m2 > tau`` and Fisher's one-sided
  p-value is at most the audit's threshold for one more flag: the
  step-up threshold ``fdr (R + 1) / (c m)`` with ``R`` people flagged out of
  ``m`` candidates (``c = 1`` for Benjamini-Hochberg, ``sum 1/i`` for
  Benjamini-Yekutieli; the discrete procedure's last critical value, or
  ``fdr / m`` when none was reached), or ``alpha_test`` person by person.

The power is summed exactly over every outcome ``(x1, x2)``; the gap is
the smallest on a grid of steps of :data:`STEP` (0.005) at which it reaches
0.8, undefined (nan) when even ``p1 = 1`` would not. It is a statement about
the design (these testers, this level), not an estimate of the person's gap.

Large sides. Weighted testers can count as thousands of effective testers
(records taken with a small probability each: a tie group of thousands of
identical records). Above :data:`TABLE_LIMIT` outcomes the flagged region is
not tabulated but held by its boundary, the least flagged ``x1`` for each
``x2`` (the region is an upper set in ``x1``: ``diff`` grows with ``x1``, and
Fisher's one-sided p-value falls with it, checked on every tabulated
region), so the power is ``sum_x2 P(x2) P(X1 >= c(x2))``. Only the ``x2`` of
probability above :data:`WINDOW_TAIL` on either side count (about
``15 sqrt(m2)`` values; what is left out is at most ``2e-12`` of the power,
so the gap is the exact one unless the power lies within ``2e-12`` of 0.8 at
a step of the grid), and each ``c(x2)`` is found by bisection over ``x1``,
the p-value at each step summed term by term from the hypergeometric law's
point outward (:func:`_fisher_tails`, about ``10 sqrt(m)`` terms, each the
one before times a ratio; within a relative ``1e-6`` of the threshold it is
taken again from :func:`~._pvalue.fisher_pvalue`). The work is about ``m
log m`` for ``m`` testers, not the ``m**2`` of every outcome, and the memory
linear in the sides. The two ways give the same gaps (tested on sides where
both run).
"""

import numpy as np
from scipy import stats
from scipy.special import gammaln

from ._pvalue import effective_counts, fisher_pvalue, step_up_constant

#: the probability of flagging at which the gap counts as detectable
POWER = 0.8
#: the grid of gaps searched
STEP = 0.005
#: the outcomes ``(m1 + 1) (m1 + m2 + 1)`` above which the region is held by its boundary
TABLE_LIMIT = 50_000
#: the probability of the protected side's outcomes left out on each side of the window
WINDOW_TAIL = 1e-12


def next_flag_threshold(*, flag_rule, fdr, fdr_method, alpha_test, n_candidates,
                        n_flagged, dbh_cutoff=None):
    """The p-value at most which one more candidate would be flagged (None: no exact rule)."""
    if flag_rule != "exact":
        return None
    if fdr is None or n_candidates <= 1:
        return float(alpha_test)
    if fdr_method == "dbh":
        return float(dbh_cutoff) if dbh_cutoff else fdr / n_candidates
    return fdr * (n_flagged + 1) / (step_up_constant(fdr_method, n_candidates) * n_candidates)


def _region(m1, m2, tau, threshold):
    """The outcomes ``(x1, x2)`` the rule flags: a boolean (m1 + 1, m2 + 1) array.

    Fisher's p-value ``P(X >= x1 | t)`` of every outcome at once: the
    hypergeometric law of each total ``t = x1 + x2`` from log-binomials, its
    upper tails by one cumulative sum along ``x1`` (from the far tail, so the
    small terms are added first). An outcome whose p-value lies within a
    relative ``1e-9`` of ``threshold`` is evaluated again by
    :func:`~._pvalue.fisher_pvalue`, so the region is the one that function
    gives, outcome by outcome.
    """
    tail = _tails(np.arange(m1 + m2 + 1), m1, m2, _log_factorials(m1 + m2))
    x1, x2 = np.meshgrid(np.arange(m1 + 1), np.arange(m2 + 1), indexing="ij")
    return _flagged(tail[x1 + x2, x1], x1, x2, m1, m2, tau, threshold)


def _log_factorials(n):
    """``log((i - 1)!)`` for ``i`` in ``0 .. n + 1`` (index 0 unused)."""
    return gammaln(np.arange(n + 2, dtype=np.float64))


def _tails(totals, m1, m2, log_factorial):
    """``P(X >= x1 | t)`` for each total of ``totals`` (rows) and ``x1`` (columns)."""
    def log_choose(n, k):  # whole n >= k >= 0, by look-up
        n, k = np.asarray(n, dtype=np.intp), np.asarray(k, dtype=np.intp)
        return log_factorial[n + 1] - log_factorial[k + 1] - log_factorial[n - k + 1]

    t = np.asarray(totals)[:, None]
    a = np.arange(m1 + 1)[None, :]  # x1 along each total
    b = t - a  # x2
    valid = (b >= 0) & (b <= m2)
    with np.errstate(invalid="ignore"):
        log_pmf = log_choose(m1, a) + log_choose(m2, np.where(valid, b, 0)) \
            - log_choose(m1 + m2, t)
    pmf = np.exp(np.where(valid, log_pmf, -np.inf))  # 0 outside the law, no overflow
    return np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]


def _flagged(p, x1, x2, m1, m2, tau, threshold):
    """Whether the rule flags each outcome, its tail ``p`` checked again by
    :func:`~._pvalue.fisher_pvalue` within a relative ``1e-9`` of ``threshold``."""
    p = np.clip(p, 0.0, 1.0)
    near = np.abs(p - threshold) <= 1e-9 * max(threshold, 1e-300)
    if near.any():
        p[near] = fisher_pvalue(x1[near], np.full(int(near.sum()), m1), x2[near],
                                np.full(int(near.sum()), m2))
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = x1 / m1 - x2 / m2
    return (diff - tau > 1e-12) & (p <= threshold)


def power_curve(m1, m2, p2, tau, threshold, gaps, region=None):
    """The probability of a flag at each gap of ``gaps`` (exact, over every outcome)."""
    m1, m2 = int(m1), int(m2)
    if region is None and (m1 + 1) * (m1 + m2 + 1) > TABLE_LIMIT:
        return _Boundary(m1, m2, tau, threshold).power(p2)(gaps)
    if region is None:
        region = _region(m1, m2, tau, threshold)
    return _power(m1, p2, gaps, _flag_given_x1(region, m2, p2))


def _flag_given_x1(region, m2, p2):
    """``P(flag | x1)`` for each ``x1``: the region summed over ``x2 ~ Binomial(m2, p2)``."""
    return region.astype(np.float64) @ stats.binom.pmf(np.arange(m2 + 1), m2, p2)


def _power(m1, p2, gaps, given_x1):
    """The probability of a flag at each gap: ``x1 ~ Binomial(m1, p2 + gap)``."""
    rates = np.clip(p2 + np.asarray(gaps, dtype=np.float64), 0.0, 1.0)
    pmf1 = stats.binom.pmf(np.arange(m1 + 1)[None, :], m1, rates[:, None])
    return pmf1 @ given_x1


def _window(m2, p2):
    """The protected side's outcomes ``x2`` of ``Binomial(m2, p2)`` outside whose range
    at most :data:`WINDOW_TAIL` of the probability lies on each side."""
    if p2 <= 0.0:
        return np.array([0])
    if p2 >= 1.0:
        return np.array([m2])
    lo = int(stats.binom.ppf(WINDOW_TAIL, m2, p2))
    hi = int(stats.binom.isf(WINDOW_TAIL, m2, p2))
    return np.arange(max(lo - 1, 0), min(hi + 1, m2) + 1)


def _log_choose(n, k):
    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


def _fisher_tails(x1, x2, m1, m2, chunk=128):
    """Fisher's one-sided p-value ``P(X >= x1 | t = x1 + x2)`` of each outcome, summed.

    From the point of the law at ``x1`` (by log-binomials), the terms away
    from the law's mode, each the one before times the ratio of consecutive
    points: upward from ``x1`` when it lies at or above the mode, else ``1``
    less the sum downward from ``x1 - 1``; stopped when what is left, at
    most the last term over ``1 - ratio`` (the ratios fall away from the
    mode), is below ``1e-17`` of the sum. ``chunk`` terms a step.
    """
    x1 = np.asarray(x1, dtype=np.float64)
    x2 = np.asarray(x2, dtype=np.float64)
    t, total = x1 + x2, float(m1 + m2)
    lo, hi = np.maximum(0.0, t - m2), np.minimum(t, m1)
    mode = np.floor((t + 1.0) * (m1 + 1.0) / (total + 2.0))
    up = x1 >= mode
    start = np.where(up, x1, x1 - 1.0)
    inside = (start >= lo) & (start <= hi)
    log_point = np.where(inside, _log_choose(m1, np.clip(start, 0, m1))
                         + _log_choose(m2, np.clip(t - start, 0, m2))
                         - _log_choose(total, t), -np.inf)
    point = np.exp(log_point)
    sums = point.copy()
    term, x = point.copy(), start.copy()
    active = np.flatnonzero(inside & (point > 0))
    steps = np.arange(chunk, dtype=np.float64)
    while active.shape[0]:
        xa, ta, ua = x[active][:, None], t[active][:, None], up[active][:, None]
        at = np.where(ua, xa + steps, xa - steps)  # the points each ratio leaves
        with np.errstate(divide="ignore", invalid="ignore"):
            forward = (m1 - at) * (ta - at) / ((at + 1.0) * (m2 - ta + at + 1.0))
            backward = at * (m2 - ta + at) / ((m1 - at + 1.0) * (ta - at + 1.0))
        ratio = np.clip(np.nan_to_num(np.where(ua, forward, backward), nan=0.0), 0.0, None)
        terms = term[active][:, None] * np.cumprod(ratio, axis=1)
        sums[active] += terms.sum(axis=1)
        term[active] = terms[:, -1]
        x[active] = np.where(up[active], x[active] + chunk, x[active] - chunk)
        with np.errstate(divide="ignore", invalid="ignore"):
            left = terms[:, -1] / np.maximum(1.0 - ratio[:, -1], 1e-300)
        active = active[(left > 1e-17 * sums[active]) & (terms[:, -1] > 0)]
    tail = np.where(up, sums, 1.0 - sums)
    tail = np.where(start > hi, 0.0, np.where(start < lo, 1.0, tail))  # beyond the law
    return np.clip(tail, 0.0, 1.0)


def _least_flagged(x2, m1, m2, tau, threshold):
    """The least ``x1`` the rule flags beside each ``x2`` (``m1 + 1``: none), by bisection
    over the upper set of flagged ``x1`` (see the module's docstring)."""
    x2 = np.asarray(x2, dtype=np.float64)

    def flagged(x1, rows):
        p = _fisher_tails(x1, x2[rows], m1, m2)
        near = np.abs(p - threshold) <= 1e-6 * max(threshold, 1e-300)
        if near.any():  # near the threshold: the p-value's own function decides
            p[near] = fisher_pvalue(x1[near], np.full(int(near.sum()), m1), x2[rows][near],
                                    np.full(int(near.sum()), m2))
        with np.errstate(invalid="ignore", divide="ignore"):
            diff = x1 / m1 - x2[rows] / m2
        return (diff - tau > 1e-12) & (p <= threshold)

    # every flagged x1 lies above tau's line: x1 / m1 > tau + x2 / m2
    low = np.clip(np.floor(m1 * (tau + x2 / m2)), 0, m1)
    high = np.full(x2.shape, float(m1 + 1))  # the least flagged x1 lies in [low, high]
    rows = np.arange(x2.shape[0])
    top = flagged(np.full(x2.shape, float(m1)), rows)  # none flagged when x1 = m1 is not
    low[~top] = m1 + 1
    while True:
        open_ = np.flatnonzero(low < high)
        if not open_.shape[0]:
            break
        mid = np.floor((low[open_] + high[open_]) / 2.0)
        hit = flagged(mid, open_)
        high[open_[hit]] = mid[hit]
        low[open_[~hit]] = mid[~hit] + 1
    return high.astype(np.int64)


def _boundary_power(m1, least, pmf2, p2, gaps):
    """The probability of a flag at each gap, from the boundary ``least`` at protected
    outcomes of probabilities ``pmf2``."""
    rates = np.clip(p2 + np.asarray(gaps, dtype=np.float64), 0.0, 1.0)
    reach = stats.binom.sf(least[None, :] - 1, m1, rates[:, None])  # P(X1 >= c(x2))
    return reach @ pmf2


class _Boundary:
    """The least flagged ``x1`` of each ``x2`` for one pair of sides, found where asked."""

    def __init__(self, m1, m2, tau, threshold):
        self.m1, self.m2, self.tau, self.threshold = m1, m2, tau, threshold
        self.least = np.full(m2 + 1, -1, dtype=np.int64)

    def power(self, p2):
        """The power function at protected rate ``p2`` (a function of the gaps)."""
        x2 = _window(self.m2, p2)
        todo = x2[self.least[x2] < 0]
        if todo.shape[0]:
            self.least[todo] = _least_flagged(todo, self.m1, self.m2, self.tau,
                                              self.threshold)
        pmf2 = stats.binom.pmf(x2, self.m2, p2)
        least = self.least[x2]
        return lambda gaps: _boundary_power(self.m1, least, pmf2, p2, gaps)


def _first_reaching(power, gaps, monotone):
    """The first gap of ``gaps`` whose power (``power(gaps)``) reaches :data:`POWER`
    (nan: none).

    ``monotone``: the region is an upper set in ``x1`` for every ``x2``, so the
    power grows with the gap and a bisection finds the gap the scan would
    (about 8 evaluations instead of one per gap); otherwise every gap is
    evaluated.
    """
    if not monotone:
        reached = np.flatnonzero(power(gaps) >= POWER)
        return round(float(gaps[reached[0]]), 10) if reached.shape[0] else np.nan
    lo, hi = 0, gaps.shape[0] - 1
    if power(gaps[hi:])[0] < POWER:
        return np.nan
    while lo < hi:  # the first index whose power reaches POWER lies in [lo, hi]
        mid = (lo + hi) // 2
        if power(gaps[mid:mid + 1])[0] >= POWER:
            hi = mid
        else:
            lo = mid + 1
    return round(float(gaps[lo]), 10)


def detectable_gaps(p1, n1_eff, p2, n2_eff, *, tau, threshold):
    """The smallest detectable gap of each person (nan where undefined or no exact rule)."""
    out = np.full(np.shape(p1), np.nan)
    if threshold is None:
        return out
    _, m1, x2, m2 = effective_counts(np.asarray(p1), np.asarray(n1_eff), np.asarray(p2),
                                     np.asarray(n2_eff))
    index = np.flatnonzero(np.isfinite(m1) & np.isfinite(m2) & np.isfinite(x2))
    if index.shape[0] == 0:
        return out
    keys = np.column_stack([m1[index], m2[index], x2[index]])
    # sorted by the sides' sizes: one region (which depends on them only) held at a time
    distinct, inverse = np.unique(keys, axis=0, return_inverse=True)
    found = np.full(distinct.shape[0], np.nan)
    sizes, region, boundary, monotone = None, None, None, False
    for j, (a, b, x) in enumerate(distinct):
        a, b = int(a), int(b)
        if sizes != (a, b):
            sizes = (a, b)
            if (a + 1) * (a + b + 1) <= TABLE_LIMIT:
                region, boundary = _region(a, b, tau, threshold), None
                monotone = bool(np.all(region[1:] >= region[:-1]))
            else:  # large sides: the boundary of the region (an upper set in x1)
                region, boundary, monotone = None, _Boundary(a, b, tau, threshold), True
        rate = x / b
        gaps = np.arange(0.0, 1.0 - rate + STEP / 2, STEP)
        if boundary is None:
            given_x1 = _flag_given_x1(region, b, rate)

            def power(g, a=a, rate=rate, given_x1=given_x1):
                return _power(a, rate, g, given_x1)
        else:
            power = boundary.power(rate)
        found[j] = _first_reaching(power, gaps, monotone)
    out[index] = found[inverse.reshape(-1)]
    return out


def not_flagged_gaps(gaps, candidate, flagged, counts=None):
    """What the candidates not flagged could not have shown, in one summary.

    ``gaps``, ``candidate``, ``flagged``: per row (or per cell, with
    ``counts`` the people each stands for). Returns a dict: ``n`` (the
    candidates not flagged), ``n_undefined`` (of them, those whose testers
    would flag no gap at 80%), and over the others the ``median`` candidate's
    detectable gap (the median over people: a cell counts as many times as
    its people) with the smallest (``low``) and largest (``high``); None
    where no candidate has one.
    """
    gaps = np.asarray(gaps, dtype=np.float64)
    weight = np.ones(gaps.shape[0], dtype=np.int64) if counts is None else \
        np.asarray(counts, dtype=np.int64)
    quiet = np.asarray(candidate, dtype=bool) & ~np.asarray(flagged, dtype=bool)
    seen = quiet & np.isfinite(gaps)
    out = {"n": int(weight[quiet].sum()), "n_undefined": int(weight[quiet & ~seen].sum()),
           "median": None, "low": None, "high": None}
    if seen.any():
        order = np.argsort(gaps[seen], kind="stable")
        values, people = gaps[seen][order], np.cumsum(weight[seen][order])
        half = people[-1] / 2
        i = int(np.searchsorted(people, half))
        median = values[i] if people[i] > half or i + 1 == values.shape[0] \
            else (values[i] + values[i + 1]) / 2  # an even count: the middle two's mean
        out.update(median=float(median), low=float(values[0]), high=float(values[-1]))
    return out

