"""A continuous audit computed once and at any magnitude of the amounts.

``transform``, ``flag`` and ``report`` read one computation of the testers'
moments (the fitted data leave out each person's own record in all three),
and the audit is scale-equivariant: amounts and ``tau`` multiplied by 1e295
or 1e-304 give the same flags and p-values, the means multiplied alike. The
references are plain: the means of the testers found by brute force, and
the audit at scale 1.
"""

import numpy as np
import pandas as pd
import pytest

from skfair_manifold.datasets import make_biased_wages
from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.situation_testing._stats import _continuous
from skfair_manifold.situation_testing._stats._pvalue import q_values

WAGE_GRAPH = ["education", "experience", "region", "sector", "sex"]


def _wage_auditor(scale=1.0, **kw):
    return SituationTestingAuditor(protected="sex", protected_value="female",
                                   decision="continuous", tau=1000.0 * scale,
                                   graph=WAGE_GRAPH, interval=["experience"], **kw)


def test_transform_flag_and_report_share_one_computation():
    """The README's wage audit: transform's p-values are the report's, and BH on them
    flags the rows flag flags."""
    wages = make_biased_wages(3000, gap=0.1, random_state=0)
    est = _wage_auditor().fit(wages.data, wages.target)
    out = est.transform(wages.data)
    flagged = est.flag(wages.data, wages.target)
    report = est.report(wages.data, wages.target)
    candidate = report.audit["candidate"]
    np.testing.assert_array_equal(out[candidate, 5], report.audit["p_value"][candidate])
    rows = np.asarray(report.summary["row"])
    np.testing.assert_array_equal(out[rows, :2],
                                  np.column_stack([report.summary["mean1"],
                                                   report.summary["mean2"]]))
    q = q_values(out[candidate, 5])
    by_hand = np.zeros(len(out), dtype=bool)
    by_hand[np.flatnonzero(candidate)] = (q <= 0.1) & (out[candidate, 2] > 1000.0)
    np.testing.assert_array_equal(by_hand, flagged)


def _brute_means(X, y, group, k):
    """KNN-DD's testers by brute force (mean of the normalised distances of ``a`` and the
    overlap of ``b``; ties at the K-th distance shared; the row left out): (n, 2) means."""
    a, b = X["a"].to_numpy(float), X["b"].to_numpy()
    n = len(y)
    means = np.zeros((n, 2))
    for i in range(n):
        d = (np.abs(a - a[i]) / (a.max() - a.min()) + (b != b[i])) / 2.0
        for s, side in enumerate((~group, group)):
            idx = np.flatnonzero(side & (np.arange(n) != i))
            dd = d[idx]
            kth = np.sort(dd)[k - 1]
            inner, tie = dd < kth, dd == kth
            w = inner.astype(float)
            w[tie] = (k - inner.sum()) / tie.sum()
            # amounts far from 1: each divided by the largest before summing
            top = np.abs(y[idx]).max()
            means[i, s] = (w * (y[idx] / top)).sum() / w.sum() * top
    return means


@pytest.mark.parametrize("scale", [1e295, 1e-304, 1.0])
def test_knn_means_at_any_magnitude_equal_brute_force(scale):
    rng = np.random.RandomState(5)
    n = 120
    X = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "a": rng.randint(0, 6, n),
                      "b": rng.choice(["x", "y", "z"], n)})
    y = np.round(rng.lognormal(3, 0.3, n), 2) * scale
    group = (X["sex"] == "f").to_numpy()
    est = SituationTestingAuditor(protected="sex", protected_value="f", method="knn", k=7,
                                  decision="continuous", tau=0.0).fit(X, y)
    out = est.transform(X)
    assert np.isfinite(out[:, :7]).all()
    np.testing.assert_allclose(out[:, :2], _brute_means(X, y, group, 7), rtol=1e-9)


@pytest.mark.parametrize("method", ["cbn", "knn"])
def test_audit_is_scale_equivariant(method):
    """Amounts and tau times 1e295 or 1e-304: the same flags and p-values (403 people at
    scale 1 on the README's audit), the amounts' columns, each person's shortfall and the
    total shortfall (report.harm) scaled alike."""
    wages = make_biased_wages(3000 if method == "cbn" else 2000, gap=0.1, random_state=0)
    results = {}
    for scale in (1.0, 1e295, 1e-304):
        est = _wage_auditor(scale) if method == "cbn" else SituationTestingAuditor(
            protected="sex", protected_value="female", decision="continuous", method="knn",
            k=30, tau=1000.0 * scale)
        y = wages.target * scale
        est.fit(wages.data, y)
        report = est.report(wages.data, y)
        results[scale] = (est.flag(wages.data, y), est.transform(wages.data),
                          report.audit["detectable_gap"], report.audit["shortfall"],
                          report.harm["total_shortfall"].to_numpy())
    flags, out, gaps, shortfall, total = results[1.0]
    assert flags.sum() >= 10 and total[-1] > 0
    for scale in (1e295, 1e-304):
        f, o, g, s, t = results[scale]
        # who was harmed, and how much, in the amounts' units
        np.testing.assert_allclose(s / scale, shortfall, rtol=1e-6, equal_nan=True,
                                   atol=1e-9 * total[-1])
        np.testing.assert_allclose(t / scale, total, rtol=1e-6)
        np.testing.assert_array_equal(f, flags)
        np.testing.assert_allclose(o[:, 5], out[:, 5], rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(o[:, 7], out[:, 7], rtol=1e-8)
        for j in (0, 1, 2, 3, 4, 6):
            np.testing.assert_allclose(o[:, j] / scale, out[:, j], rtol=1e-8,
                                       atol=1e-9 * np.abs(out[:, 0]).max())
        np.testing.assert_allclose(g / scale, gaps, rtol=1e-8, equal_nan=True)


def test_scaled_moments_keep_the_digits_of_an_offset():
    """Amounts of 1e12 + a few units: the scaled sums give the sample means and Welch's
    standard error to 1e-9 of the spread (plain sums lose about 1e-3 there)."""
    rng = np.random.RandomState(6)
    a, b = 1e12 + rng.normal(0, 3, 40), 1e12 + rng.normal(1, 3, 30)
    y = np.r_[a, b]
    v, ref, scale = _continuous.scaled_decisions(y)
    side = np.r_[np.zeros(40, int), np.ones(30, int)]
    S1 = np.array([[v[side == 0].sum(), v[side == 1].sum()]])
    S2 = np.array([[(v[side == 0] ** 2).sum(), (v[side == 1] ** 2).sum()]])
    n = np.array([[40.0, 30.0]])
    out = _continuous.unscale_table(
        _continuous.mean_table(S1, n, n.copy(), S2, alpha=0.1)[0], ref, scale)
    assert out[0, 2] == pytest.approx(np.mean(a - 1e12) - np.mean(b - 1e12), abs=1e-8)
    se = np.sqrt(np.var(a - 1e12, ddof=1) / 40 + np.var(b - 1e12, ddof=1) / 30)
    assert out[0, 6] == pytest.approx(se, rel=1e-8)
