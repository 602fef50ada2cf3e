"""The smallest detectable gap: exact power, checked by simulation and a plain reference."""

import warnings

import numpy as np
import pytest
from scipy import stats

from skfair_manifold.situation_testing._stats._power import (
    POWER,
    STEP,
    _region,
    detectable_gaps,
    next_flag_threshold,
    power_curve,
)
from skfair_manifold.situation_testing._stats._pvalue import fisher_pvalue


def _power_by_loops(m1, m2, p2, delta, tau, threshold):
    """The same probability, summed outcome by outcome."""
    total = 0.0
    for x1 in range(m1 + 1):
        for x2 in range(m2 + 1):
            p = fisher_pvalue(np.array([x1]), np.array([m1]), np.array([x2]), np.array([m2]))[0]
            if x1 / m1 - x2 / m2 - tau > 1e-12 and p <= threshold:
                total += stats.binom.pmf(x1, m1, p2 + delta) * stats.binom.pmf(x2, m2, p2)
    return total


def _region_by_cells(m1, m2, tau, threshold):
    """The outcomes the rule flags, one p-value per outcome."""
    x1, x2 = np.meshgrid(np.arange(m1 + 1), np.arange(m2 + 1), indexing="ij")
    diff = x1 / m1 - x2 / m2
    p = fisher_pvalue(x1.ravel(), np.full(x1.size, m1), x2.ravel(), np.full(x1.size, m2))
    return (diff - tau > 1e-12) & (p.reshape(x1.shape) <= threshold)


@pytest.mark.parametrize("m1, m2, tau, threshold", [
    (1, 1, 0.05, 0.5), (3, 7, 0.0, 0.2), (50, 50, 0.05, 0.01), (37, 120, 0.05, 1e-4),
    (200, 90, 0.1, 0.05), (400, 400, 0.05, 2e-5), (20, 20, 0.05, 0.0), (20, 30, 0.05, 1.0)])
def test_the_flagged_outcomes_found_by_bisection_are_those_of_every_outcome(
        m1, m2, tau, threshold):
    np.testing.assert_array_equal(_region(m1, m2, tau, threshold),
                                  _region_by_cells(m1, m2, tau, threshold))


def test_the_flagged_outcomes_equal_every_outcomes_at_random_and_attained_thresholds():
    rng = np.random.default_rng(7)
    for _ in range(30):
        m1, m2 = (int(v) for v in rng.integers(1, 120, 2))
        tau = float(rng.choice([0.0, 0.05, 0.1]))
        threshold = float(10 ** rng.uniform(-6, -0.3))
        if rng.random() < 0.5:  # a threshold equal to some outcome's own p-value
            x1, x2 = int(rng.integers(0, m1 + 1)), int(rng.integers(0, m2 + 1))
            threshold = float(fisher_pvalue(np.array([x1]), np.array([m1]), np.array([x2]),
                                            np.array([m2]))[0])
        np.testing.assert_array_equal(_region(m1, m2, tau, threshold),
                                      _region_by_cells(m1, m2, tau, threshold),
                                      err_msg=f"{m1}, {m2}, {tau}, {threshold}")


def test_the_power_curve_is_the_sum_over_every_outcome():
    for m1, m2, p2 in ((12, 9, 0.25), (20, 20, 0.5)):
        gaps = np.array([0.0, 0.1, 0.3])
        got = power_curve(m1, m2, p2, 0.05, 0.05, gaps)
        ref = [_power_by_loops(m1, m2, p2, d, 0.05, 0.05) for d in gaps]
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("m1, m2, p2, threshold", [
    (50, 50, 0.3, 0.01), (50, 50, 0.6, 0.1), (30, 80, 0.2, 0.002), (150, 150, 0.4, 0.01),
    (3000, 2500, 0.4, 1e-3)])  # the last by the region's boundary (large sides)
def test_a_gap_at_the_stated_value_is_found_at_least_80_percent_of_the_time(
        m1, m2, p2, threshold):
    """Simulated situations with a known gap: at the stated smallest detectable gap (and
    above) the rule flags at least 80% of 4,000 draws, within their Monte Carlo error
    (0.006); a step below it, the exact power is under 0.8."""
    gap = detectable_gaps(np.array([p2]), np.array([m1]), np.array([p2]), np.array([m2]),
                          tau=0.05, threshold=threshold)[0]
    assert np.isfinite(gap) and 0 < gap < 1 - p2
    rng = np.random.default_rng(0)
    for delta in (gap, min(gap + 0.05, 1 - p2)):
        x1 = rng.binomial(m1, p2 + delta, 4000)
        x2 = rng.binomial(m2, p2, 4000)
        p = fisher_pvalue(x1, np.full(4000, m1), x2, np.full(4000, m2))
        found = np.mean((x1 / m1 - x2 / m2 - 0.05 > 1e-12) & (p <= threshold))
        assert found >= POWER - 0.02, (delta, found)
    below = power_curve(m1, m2, p2, 0.05, threshold, [gap - STEP])[0]
    assert below < POWER


def test_more_testers_see_smaller_gaps_and_too_few_see_none():
    gaps = detectable_gaps(np.full(4, 0.3), np.array([10, 50, 150, 3]), np.full(4, 0.3),
                           np.array([10, 50, 150, 3]), tau=0.05, threshold=0.01)
    assert gaps[2] < gaps[1] < gaps[0]
    assert np.isnan(gaps[3])  # three testers a side cannot reach p <= 0.01 at 80%
    assert np.isnan(detectable_gaps(np.array([0.3]), np.array([50]), np.array([0.3]),
                                    np.array([50]), tau=0.05, threshold=None)).all()


def test_the_next_flags_threshold_follows_the_procedure():
    kw = dict(flag_rule="exact", fdr=0.1, alpha_test=0.1, n_candidates=1000)
    assert next_flag_threshold(fdr_method="bh", n_flagged=9, **kw) == pytest.approx(1e-3)
    by = next_flag_threshold(fdr_method="by", n_flagged=9, **kw)
    assert by == pytest.approx(1e-3 / np.sum(1 / np.arange(1, 1001)))
    assert next_flag_threshold(fdr_method="bh", n_flagged=0, flag_rule="exact", fdr=None,
                               alpha_test=0.1, n_candidates=1000) == 0.1
    assert next_flag_threshold(fdr_method="bh", n_flagged=0, flag_rule="tau", fdr=0.1,
                               alpha_test=0.1, n_candidates=10) is None


def test_the_audit_states_a_gap_for_every_candidate():
    from skfair_manifold.datasets import make_planted_bias
    from skfair_manifold.situation_testing import SituationTestingAuditor

    X, y, _, _ = make_planted_bias(2000, bias_share=0.5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the learned graph's own notes, not under test
        auditor = SituationTestingAuditor(protected="sex", protected_value="female").fit(X, y)
        report = auditor.report(X, y)
    gaps, candidate = report.audit["detectable_gap"], report.audit["candidate"]
    assert np.isnan(gaps[~candidate]).all()
    shown = gaps[candidate & np.isfinite(gaps)]
    assert shown.size > 0.9 * candidate.sum() and ((shown > 0) & (shown < 1)).all()
    assert len(report.summary["detectable_gap"]) == len(report)
    page = report.to_html()
    assert 'id="not-flagged"' in page and "could not have been seen" in page


def test_the_not_flagged_summary_is_the_median_over_people():
    """Per row it is numpy's median of the defined gaps; per cell, the median of the
    people, each cell repeated as many times as its people."""
    from skfair_manifold.situation_testing._stats._power import not_flagged_gaps

    rng = np.random.default_rng(0)
    for n in (5, 6, 9, 10):
        gaps = rng.random(n)
        gaps[0] = np.nan
        flagged = np.zeros(n, dtype=bool)
        flagged[1] = True
        got = not_flagged_gaps(gaps, np.ones(n, dtype=bool), flagged)
        quiet = gaps[2:]
        assert got["median"] == np.median(quiet) and got["n"] == n - 1
        assert got["n_undefined"] == 1 and got["low"] == quiet.min()
        counts = rng.integers(1, 5, n)
        cells = not_flagged_gaps(gaps, np.ones(n, dtype=bool), flagged, counts=counts)
        assert cells["median"] == pytest.approx(np.median(np.repeat(quiet, counts[2:])),
                                                abs=1e-15)
        assert cells["n"] == counts[[0, *range(2, n)]].sum()


def test_every_region_is_an_upper_set_in_x1():
    """The boundary path's premise: for each x2, the flagged x1 are all those above one
    value (diff grows with x1, Fisher's one-sided p-value falls with it)."""
    rng = np.random.default_rng(3)
    for _ in range(40):
        m1, m2 = (int(v) for v in rng.integers(1, 160, 2))
        threshold = float(10 ** rng.uniform(-5, -0.5))
        region = _region(m1, m2, 0.05, threshold)
        assert np.all(region[1:] >= region[:-1]), (m1, m2, threshold)


@pytest.mark.parametrize("threshold", [0.1, 0.01, 1e-4])
def test_the_boundary_gives_the_gaps_of_the_table(monkeypatch, threshold):
    from skfair_manifold.situation_testing._stats import _power

    rng = np.random.default_rng(4)
    n = 60
    m1 = rng.integers(2, 300, n).astype(float)
    m2 = rng.integers(2, 300, n).astype(float)
    p2 = rng.integers(0, 1000, n) / 1000.0
    table = detectable_gaps(p2, m1, p2, m2, tau=0.05, threshold=threshold)
    monkeypatch.setattr(_power, "TABLE_LIMIT", 0)  # every region by its boundary
    boundary = detectable_gaps(p2, m1, p2, m2, tau=0.05, threshold=threshold)
    np.testing.assert_array_equal(boundary, table)
    assert np.isfinite(table).sum() > n / 2


def test_thousands_of_effective_testers_are_measured_in_little_memory():
    import tracemalloc

    tracemalloc.start()
    gap = detectable_gaps(np.array([0.4]), np.array([6000.0]), np.array([0.4]),
                          np.array([5000.0]), tau=0.05, threshold=1e-3)[0]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # a table of 6001 x 11001 outcomes would hold 528 MB a copy
    assert peak < 50 * 2 ** 20 and 0.05 < gap < 0.1
