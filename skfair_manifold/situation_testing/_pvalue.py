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
"""

import numpy as np
from scipy import stats

FDR_METHODS = ("bh", "by")

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


def q_values(p, *, method="bh"):
    """Benjamini-Hochberg (``"bh"``) or -Yekutieli (``"by"``) q-values.

    ``q_(i) = min_{j >= i} min(1, c m p_(j) / j)`` over the ``m`` finite
    p-values sorted increasingly, with ``c = 1`` (BH) or
    ``c = sum_{i<=m} 1/i`` (BY). Flagging ``q <= level`` is the step-up
    procedure at false discovery rate ``level``. NaN p-values stay NaN and
    do not count in ``m``.

    Parameters
    ----------
    p : array-like of shape (n,)
    method : {"bh", "by"}, default="bh"

    Returns
    -------
    q : ndarray of shape (n,)
    """
    p = np.asarray(p, dtype=np.float64)
    q = np.full(p.shape, np.nan)
    finite = np.flatnonzero(np.isfinite(p))
    m = finite.shape[0]
    if m == 0:
        return q
    c = 1.0 if method == "bh" else float(np.sum(1.0 / np.arange(1, m + 1)))
    order = finite[np.argsort(p[finite], kind="stable")]
    scaled = c * m * p[order] / np.arange(1, m + 1)
    q[order] = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    return q
