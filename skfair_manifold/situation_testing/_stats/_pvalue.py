"""The per-person p-value of situation testing and the false discovery rate of an audit.

Per person. The null hypothesis of the rule is that, among a person's
testers, the decision does not depend on the side (protected or not): the
``n1`` testers of ``S+`` and the ``n2`` of ``S-`` are then exchangeable, and
given the positives among all of them, the positives that fall in ``S+``
follow the hypergeometric law of a random relabelling of the protected
attribute within the testers. The p-value is the one-sided tail of that
law, ``P(X >= x1)`` (Fisher's exact test of ``p1 <= p2``): it needs no
large-sample approximation, so it stays valid at rates near 0 or 1, where
the Wald bound is too narrow.

Weighted testers. Where testers carry weights (a tie group of which only
some records are taken under KNN-DD; subgroups sampled in pairs under
CBN-DD), a side counts as its *effective* number of testers
``n_eff = n**2 / sum(w**2)`` (the size of an unweighted sample with the
same variance of the mean), rounded to the nearest whole tester, with
``p * n_eff`` positives rounded against the claim (down in ``S+``, up in
``S-``). When every tester of a side has the same weight (KNN-DD without a
tie; CBN-DD taking a fixed share of each subgroup) this is Fisher's test on
the records themselves.

Across an audit. Testing thousands of people at 10% each flags about 10% of
them when nobody is discriminated. :func:`q_values` turns the p-values of
the audited candidates into Benjamini-Hochberg q-values (the smallest false
discovery rate at which each person would be flagged) or
Benjamini-Yekutieli ones (valid under any dependence, at a cost of
``sum_{i<=m} 1/i``, about ``ln m + 0.58``). Neighbours share testers, so
their statistics are positively dependent: the same testers' decisions
enter both rates with the same sign, which is the positive regression
dependence under which Benjamini-Hochberg keeps its level (Benjamini and
Yekutieli, 2001, Theorem 1.2). Benjamini-Hochberg is the default; the
simulations of the test suite and the benchmarks check the level.

Discrete tests. A person with few testers, or few positives among them,
has a Fisher test that cannot reach a small p-value, yet Benjamini-Hochberg
counts them in ``m`` like any other. ``"dbh"`` is the discrete step-up
procedure [HSU] of Döhler, Durand and Roquain (2018, "New FDR bounds for
discrete and heterogeneous tests", Electron. J. Statist. 12, 1867-1900;
``DBH(direction="su")`` of the R package DiscreteFDR): with ``F_i`` the
null law of person ``i``'s p-value (the hypergeometric law of its margins:
``F_i(t)`` is the largest attainable p-value at most ``t``), ``A`` the union
of the attainable values,

- ``tau_m = max{t in A : sum_i F_i(t) / (1 - F_i(t)) <= level m}``,
- ``xi(t) = (1/m) sum_i F_i(t) / (1 - F_i(tau_m))``,
- ``tau_k = max{t in A, t <= tau_m : xi(t) <= level k / m}``,

and the ``k^ = max{k : p_(k) <= tau_k}`` smallest p-values are rejected. The paper
proves its false discovery rate at most ``level`` for independent tests;
for the positively dependent tests of an audit the
simulations check it, as for Benjamini-Hochberg. With continuous p-values
(``F_i(t) = t``) it is Benjamini-Hochberg at level ``level / (1 + level)``.
Its ``q_value`` is the step-up adjusted value at the audit's level (see
:func:`discrete_step_up`); DiscreteFDR gives none for the step-up
direction, because its critical values depend on the level through
``tau_m``.
"""

import numpy as np
from scipy import stats

FDR_METHODS = ("bh", "by", "dbh")

#: relative tolerance of ``F_i(t)``: an attainable value within it of ``t`` counts as at most ``t``
_SUPPORT_TOL = 1e-10

_ROUND_TOL = 1e-9


def effective_counts(p1, n1_eff, p2, n2_eff):
    """Whole testers and positives of each side (rounded against the claim).

    Returns ``(x1, m1, x2, m2)`` as float arrays (NaN where a rate is NaN).
    """
    with np.errstate(invalid="ignore"):
        m1 = np.maximum(np.round(n1_eff), 1.0)
        m2 = np.maximum(np.round(n2_eff), 1.0)
        x1 = np.clip(np.floor(np.clip(p1, 0, 1) * m1 + _ROUND_TOL), 0, m1)
        x2 = np.clip(np.ceil(np.clip(p2, 0, 1) * m2 - _ROUND_TOL), 0, m2)
    return x1, m1, x2, m2


def fisher_pvalue(x1, m1, x2, m2, *, u=None):
    """One-sided p-value of ``p1 <= p2`` by the hypergeometric law of relabelling.

    Parameters
    ----------
    x1, m1, x2, m2 : array-like
        Positives and testers of ``S+`` and ``S-`` (whole numbers; NaN gives
        NaN).
    u : array-like or None, default=None
        None: the exact (conservative) p-value ``P(X >= x1)``. Else uniform
        draws in [0, 1): the randomised p-value ``P(X > x1) + u P(X = x1)``,
        exactly uniform under the null (used to check the calibration).

    Returns
    -------
    p : ndarray
    """
    x1, m1, x2, m2 = (np.asarray(a, dtype=np.float64) for a in (x1, m1, x2, m2))
    bad = ~(np.isfinite(x1) & np.isfinite(m1) & np.isfinite(x2) & np.isfinite(m2))
    x1, m1, x2, m2 = (np.where(bad, 0.0, a) for a in (x1, m1, x2, m2))
    if u is None and x1.ndim == 1 and x1.shape[0] > 1:
        # people who share their counts (one cell of Q, one tie group) share the law:
        # each distinct (x1, m1, x2, m2) is evaluated once
        distinct, inverse = np.unique(np.column_stack([x1, m1, x2, m2]), axis=0,
                                      return_inverse=True)
        if distinct.shape[0] < x1.shape[0]:
            p = fisher_pvalue(*distinct.T)[inverse.reshape(-1)]
            return np.where(bad, np.nan, p)
    total, positives = m1 + m2, x1 + x2
    law = stats.hypergeom(total.astype(np.int64), positives.astype(np.int64),
                          m1.astype(np.int64))
    above = law.sf(x1)  # P(X > x1)
    if u is None:
        p = above + law.pmf(x1)
    else:
        p = above + np.asarray(u, dtype=np.float64) * law.pmf(x1)
    p = np.clip(p, 0.0, 1.0)
    return np.where(bad, np.nan, p)


def step_up_constant(method, m):
    """The step-up procedure's constant: 1 for Benjamini-Hochberg, ``sum_{i<=m} 1/i`` for
    Benjamini-Yekutieli (its price for validity under any dependence)."""
    return 1.0 if method == "bh" else float(np.sum(1.0 / np.arange(1, m + 1)))


def q_values(p, *, method="bh", counts=None):
    """Benjamini-Hochberg (``"bh"``) or Benjamini-Yekutieli (``"by"``) q-values.

    ``q_(i) = min_{j >= i} min(1, c m p_(j) / j)`` over the ``m`` finite
    p-values sorted increasingly, with ``c = 1`` (BH) or
    ``c = sum_{i<=m} 1/i`` (BY). Flagging ``q <= level`` is the step-up
    procedure at false discovery rate ``level``. NaN p-values stay NaN and
    do not count in ``m``. The discrete procedure (``fdr_method="dbh"``)
    is :func:`discrete_step_up`.

    Parameters
    ----------
    p : array-like of shape (n,)
    method : {"bh", "by"}, default="bh"
    counts : array-like of int of shape (n,) or None, default=None
        The number of tests each p-value stands for (the candidates of one
        cell of an aggregated table share their p-value); None: one each.
        The q-values are those of the expanded tests, bit for bit: tests of
        equal p-value share the q-value of the last of them, ``c m p / j``
        at its rank ``j``.

    Returns
    -------
    q : ndarray of shape (n,)
    """
    if method not in ("bh", "by"):
        raise ValueError(f"method must be 'bh' or 'by'; got {method!r} (the discrete "
                         "procedure is discrete_step_up).")
    p = np.asarray(p, dtype=np.float64)
    q = np.full(p.shape, np.nan)
    finite = np.flatnonzero(np.isfinite(p))
    order = finite[np.argsort(p[finite], kind="stable")]
    rank = np.arange(1, order.shape[0] + 1) if counts is None else \
        np.cumsum(np.asarray(counts, dtype=np.int64)[order])
    m = int(rank[-1]) if rank.size else 0
    if m == 0:
        return q
    scaled = step_up_constant(method, m) * m * p[order] / rank
    q[order] = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    return q


def hypergeometric_supports(m1, m2, positives, counts=None):
    """The attainable p-values of Fisher's one-sided test for each distinct margin.

    Returns ``(values, value_group, counts)``: the attainable p-values
    ``P(X >= x)`` of every distinct margin ``(m1, m2, x1 + x2)`` (computed
    by :func:`fisher_pvalue`, so that an observed p-value is one of them bit
    for bit), the distinct margin each value belongs to, and the number of
    tests sharing each distinct margin (``counts``: the number of tests each
    entry stands for; None: one each).
    """
    key = np.column_stack([m1, m2, positives]).astype(np.int64)
    uniq, inverse, counts_ = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    counts = counts_ if counts is None else np.bincount(
        inverse.reshape(-1), weights=counts, minlength=uniq.shape[0]).astype(np.int64)
    u1, u2, us = uniq[:, 0], uniq[:, 1], uniq[:, 2]
    lo = np.maximum(0, us - u2)  # the fewest positives S+ can hold
    hi = np.minimum(us, u1)
    length = hi - lo + 1
    value_group = np.repeat(np.arange(uniq.shape[0]), length)
    start = np.cumsum(length) - length
    x = lo[value_group] + np.arange(value_group.shape[0]) - start[value_group]
    values = fisher_pvalue(x, u1[value_group], us[value_group] - x, u2[value_group])
    return values, value_group, counts


class _StepSum:
    """``t -> sum_g weight_g * phi(F_g(t))`` for step functions ``F_g`` (one sorted pass).

    ``phi(F_g)`` jumps only at the attainable values of ``g``: the jumps,
    sorted by position and summed cumulatively, give the sum at any ``t``
    by one binary search.
    """

    def __init__(self, values, value_group, weight, phi):
        order = np.lexsort((values, value_group))
        v, g = values[order], value_group[order]
        first = np.r_[True, g[1:] != g[:-1]]
        prev = np.where(first, 0.0, np.r_[0.0, v[:-1]])
        with np.errstate(divide="ignore", invalid="ignore"):
            jump = weight[g] * (phi(v) - phi(prev))
        jump = np.where(v == prev, 0.0, jump)  # equal values: no step
        pos = np.argsort(v, kind="stable")
        self.at, self.total = v[pos], np.cumsum(jump[pos])

    def __call__(self, t):
        i = np.searchsorted(self.at, np.asarray(t) * (1 + _SUPPORT_TOL), side="right") - 1
        return np.where(i >= 0, self.total[np.maximum(i, 0)], 0.0)


def _odds(f):
    return f / (1.0 - f)


def discrete_step_up(p, margins, *, level, counts=None):
    """The discrete step-up procedure [HSU] of Döhler, Durand and Roquain (2018).

    Parameters
    ----------
    p : array-like of shape (n,)
        Fisher's one-sided p-values (NaN: not tested, not counted in ``m``).
    margins : tuple of three array-likes of shape (n,)
        ``(m1, m2, x1 + x2)`` of each test (whole numbers, see
        :func:`effective_counts`): the hypergeometric law of its p-value.
    level : float
        The false discovery rate.
    counts : array-like of int of shape (n,) or None, default=None
        The number of tests each entry stands for (see :func:`q_values`).

    Returns
    -------
    q : ndarray of shape (n,)
        The step-up adjusted value at ``level``:
        ``q_(i) = min(1, min_{j >= i} y_j)`` over the ``m`` finite p-values
        sorted increasingly, with ``y_j = m xi(p_(j)) / j`` where
        ``p_(j) <= tau_m`` and ``y_j = sum_l F_l(p_(j)) / (1 - F_l(p_(j))) / j``
        above it (then ``y_j > level``). ``q <= level`` exactly for the
        rejected tests, as with Benjamini-Hochberg's q-value (which it is,
        times ``1 + level``, for continuous p-values below ``tau_m``). It
        depends on ``level`` through ``tau_m``: at another level it is not
        the smallest level of rejection.
    cutoff : float
        The last critical value ``tau_k^`` (0 without rejection): the
        p-values at most it are the rejected ones.
    """
    p = np.asarray(p, dtype=np.float64)
    q = np.full(p.shape, np.nan)
    finite = np.flatnonzero(np.isfinite(p))
    if finite.shape[0] == 0:
        return q, 0.0
    weight = None if counts is None else np.asarray(counts, dtype=np.int64)[finite]
    values, value_group, law_counts = hypergeometric_supports(
        *(np.asarray(a, dtype=np.float64)[finite] for a in margins), counts=weight)
    q[finite], cutoff = step_up_on_supports(p[finite], values, value_group, law_counts,
                                            level=level, weight=weight)
    return q, cutoff


def step_up_on_supports(p, values, value_group, counts, *, level, weight=None):
    """[HSU] on finite p-values whose null laws are given by their attainable values.

    ``values[j]`` is an attainable p-value of the law ``value_group[j]``;
    ``counts[g]`` tests follow law ``g`` (``counts.sum()`` is the number of
    tests), each ``p`` being attainable under its law; ``weight`` the number
    of tests each ``p`` stands for (None: one each). Returns ``(q, cutoff)``
    as :func:`discrete_step_up`.
    """
    weight = np.ones(p.shape[0], dtype=np.int64) if weight is None else weight
    m = int(weight.sum())
    counts = np.asarray(counts, dtype=np.float64)
    odds = _StepSum(values, value_group, counts, _odds)  # sum_i F_i / (1 - F_i)
    support = np.unique(values)
    ok = np.flatnonzero(odds(support) <= level * m)
    tau_m = support[ok[-1]] if ok.size else 0.0
    f_tau = np.zeros(counts.shape[0])  # F_g(tau_m) of each law
    under = values <= tau_m * (1 + _SUPPORT_TOL)
    np.maximum.at(f_tau, value_group[under], values[under])
    xi = _StepSum(values, value_group, counts / (1.0 - f_tau), lambda f: f)  # m xi(t)
    order = np.argsort(p, kind="stable")
    ps = p[order]
    rank = np.cumsum(weight[order])
    below = ps <= tau_m * (1 + _SUPPORT_TOL)
    with np.errstate(invalid="ignore"):
        y = np.where(below, xi(ps), odds(ps)) / rank
    q = np.empty(p.shape[0])
    q[order] = np.minimum(np.minimum.accumulate(y[::-1])[::-1], 1.0)
    n_rejected = int(weight[q <= level].sum())
    cutoff = 0.0
    if n_rejected:
        crit = support[support <= tau_m * (1 + _SUPPORT_TOL)]
        crit = crit[xi(crit) <= level * n_rejected]
        cutoff = float(crit[-1]) if crit.size else \
            float(ps[np.searchsorted(rank, n_rejected)])
    return q, cutoff
