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
"""

import numpy as np
from scipy import stats

from ._pvalue import effective_counts, fisher_pvalue, step_up_constant

#: the probability of flagging at which the gap counts as detectable
POWER = 0.8
#: the grid of gaps searched
STEP = 0.005


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

    Along each total ``t = x1 + x2`` both conditions are monotone in ``x1``
    (the gap grows, Fisher's tail ``P(X >= x1 | t)`` shrinks), so the flagged
    outcomes of that total are those from a first ``x1`` on: it is found by
    bisection, with ``log2(m1)`` p-values per total instead of one per outcome.
    """
    t = np.arange(m1 + m2 + 1)
    first = np.maximum(0, t - m2)  # the first x1 flagged, searched in [first, last + 1]
    last = np.minimum(m1, t) + 1
    with np.errstate(invalid="ignore", divide="ignore"):
        while (first < last).any():
            open_ = np.flatnonzero(first < last)
            mid = (first[open_] + last[open_]) // 2
            x2 = t[open_] - mid
            p = fisher_pvalue(mid, np.full(mid.shape, m1), x2, np.full(mid.shape, m2))
            flagged = (mid / m1 - x2 / m2 - tau > 1e-12) & (p <= threshold)
            last[open_] = np.where(flagged, mid, last[open_])
            first[open_] = np.where(flagged, first[open_], mid + 1)
    x1, x2 = np.meshgrid(np.arange(m1 + 1), np.arange(m2 + 1), indexing="ij")
    return x1 >= first[x1 + x2]


def power_curve(m1, m2, p2, tau, threshold, gaps, region=None):
    """The probability of a flag at each gap of ``gaps`` (exact, over every outcome)."""
    m1, m2 = int(m1), int(m2)
    if region is None:
        region = _region(m1, m2, tau, threshold)
    pmf2 = stats.binom.pmf(np.arange(m2 + 1), m2, p2)
    rates = np.clip(p2 + np.asarray(gaps, dtype=np.float64), 0.0, 1.0)
    pmf1 = stats.binom.pmf(np.arange(m1 + 1)[None, :], m1, rates[:, None])
    return pmf1 @ region.astype(np.float64) @ pmf2


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
    distinct, inverse = np.unique(keys, axis=0, return_inverse=True)
    found = np.full(distinct.shape[0], np.nan)
    regions = {}
    for j, (a, b, x) in enumerate(distinct):
        if (a, b) not in regions:  # the outcomes flagged depend on the sides' sizes only
            regions[a, b] = _region(int(a), int(b), tau, threshold)
        rate = x / b
        gaps = np.arange(0.0, 1.0 - rate + STEP / 2, STEP)
        curve = power_curve(a, b, rate, tau, threshold, gaps, region=regions[a, b])
        reached = np.flatnonzero(curve >= POWER)
        if reached.shape[0]:
            found[j] = round(float(gaps[reached[0]]), 10)
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

