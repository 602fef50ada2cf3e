"""The smallest detectable gap of thousands of effective testers, in about linear work.

The references: scipy's hypergeometric law (the p-value of every outcome),
the tabulated region of every outcome (``_region``, itself checked against
one p-value per outcome in ``test_power.py``), and the lazy ``flag``, which
must not compute the gaps at all.
"""

import numpy as np
import pandas as pd
import pytest

from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.situation_testing._stats import _power
from skfair_manifold.situation_testing._stats._pvalue import fisher_pvalue


def test_the_summed_tails_are_fishers_p_values():
    rng = np.random.default_rng(0)
    for _ in range(60):
        m1, m2 = (int(v) for v in rng.integers(1, 4000, 2))
        x1, x2 = rng.integers(0, m1 + 1, 40), rng.integers(0, m2 + 1, 40)
        got = _power._fisher_tails(x1, x2, m1, m2)
        ref = fisher_pvalue(x1, np.full(40, m1), x2, np.full(40, m2))
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("m1, m2, threshold", [(1500, 1000, 1e-3), (900, 2600, 0.05),
                                               (2000, 2000, 1e-5)])
def test_the_boundary_of_large_sides_gives_the_gaps_of_every_outcome(m1, m2, threshold):
    """Sides too large for the table by default (the boundary path runs), the reference
    from the table of every outcome."""
    region = _power._region(m1, m2, 0.05, threshold)
    for p2 in (0.1, 0.45, 0.8):
        gaps = np.arange(0.0, 1.0 - p2 + _power.STEP / 2, _power.STEP)
        ref = _power._power(m1, p2, gaps, _power._flag_given_x1(region, m2, p2))
        got = _power.power_curve(m1, m2, p2, 0.05, threshold, gaps)
        np.testing.assert_allclose(got, ref, atol=5e-12)
    x = np.array([0.1, 0.45, 0.8]) * m2
    by_boundary = _power.detectable_gaps(x / m2, np.full(3, m1), x / m2, np.full(3, m2),
                                         tau=0.05, threshold=threshold)
    for j, p2 in enumerate(x / m2):
        gaps = np.arange(0.0, 1.0 - p2 + _power.STEP / 2, _power.STEP)
        power = _power._power(m1, p2, gaps, _power._flag_given_x1(region, m2, p2))
        reached = np.flatnonzero(power >= _power.POWER)
        expected = round(float(gaps[reached[0]]), 10) if reached.size else np.nan
        assert by_boundary[j] == pytest.approx(expected, nan_ok=True)


def test_a_tie_group_of_a_hundred_thousand_testers_costs_outcomes_linear_in_them(
        monkeypatch):
    """100,000 effective testers a side: the p-values of a few hundred thousand outcomes
    (the table would hold 2e10), and the gap the simulation's law gives."""
    evaluated = []
    tails = _power._fisher_tails

    def counted(x1, x2, m1, m2, **kw):
        evaluated.append(np.size(x1))
        return tails(x1, x2, m1, m2, **kw)
    monkeypatch.setattr(_power, "_fisher_tails", counted)
    m = 100_000
    gap = _power.detectable_gaps(np.array([0.4]), np.array([m]), np.array([0.4]),
                                 np.array([m]), tau=0.05, threshold=1e-3)[0]
    assert sum(evaluated) < 40 * np.sqrt(m) * np.log2(m)
    assert gap == pytest.approx(0.055)  # tau plus a few standard errors of 0.0022
    rng = np.random.default_rng(1)
    x1, x2 = rng.binomial(m, 0.4 + gap, 2000), rng.binomial(m, 0.4, 2000)
    flagged = (x1 / m - x2 / m > 0.05) & (fisher_pvalue(
        x1, np.full(2000, m), x2, np.full(2000, m)) <= 1e-3)
    assert flagged.mean() >= _power.POWER - 0.03


def _tie_groups(n, seed=0):
    rng = np.random.default_rng(seed)
    records = rng.integers(0, 3, (20, 3))
    X = pd.DataFrame(records[rng.integers(0, 20, n)], columns=["a", "b", "c"])
    X["sex"] = rng.integers(0, 2, n)
    return X, (rng.random(n) < 0.5).astype(int)


def test_the_report_of_tie_groups_gives_the_tables_gaps(monkeypatch):
    X, y = _tie_groups(20_000)
    auditor = SituationTestingAuditor(protected="sex", protected_value=1, k="auto",
                                      graph=["a", "b", "c", "sex"]).fit(X, y)
    gaps = auditor.report(X, y).audit["detectable_gap"]  # by the boundary (500 a side)
    monkeypatch.setattr(_power, "TABLE_LIMIT", 10**12)  # every region tabulated
    auditor = SituationTestingAuditor(protected="sex", protected_value=1, k="auto",
                                      graph=["a", "b", "c", "sex"]).fit(X, y)
    np.testing.assert_array_equal(auditor.report(X, y).audit["detectable_gap"], gaps)
    assert np.isfinite(gaps).sum() > 1000


def test_the_lazy_flag_computes_no_gap(monkeypatch):
    duckdb = pytest.importorskip("duckdb")
    from skfair_manifold.situation_testing import _assembly, cell_verdicts
    from skfair_manifold.situation_testing._lazy import _verdicts

    X, y = _tie_groups(5000)
    relation = duckdb.from_df(X.assign(y=y))
    auditor = SituationTestingAuditor(protected="sex", protected_value=1, k="auto",
                                      graph=["a", "b", "c", "sex"]).fit(relation, "y")
    cells = cell_verdicts(auditor, relation, "y")  # asked for: the gaps are there
    assert np.isfinite(cells["detectable_gap"]).any()

    def refuse(*args, **kwargs):
        raise AssertionError("the detectable gap was computed")
    monkeypatch.setattr(_verdicts, "detectable_gaps_of", refuse)
    monkeypatch.setattr(_assembly, "detectable_gaps_of", refuse)
    flagged = auditor.flag(relation, "y").df()["flagged"].to_numpy()
    expected = SituationTestingAuditor(protected="sex", protected_value=1, k="auto",
                                       graph=["a", "b", "c", "sex"]).fit(X, y).flag(X, y)
    np.testing.assert_array_equal(np.sort(flagged), np.sort(expected))
