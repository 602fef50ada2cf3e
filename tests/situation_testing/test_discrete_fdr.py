"""The discrete step-up procedure [HSU] against a plain reference, and its audits."""

import re
import warnings
from math import comb

import numpy as np
import pytest

from skfair_manifold.datasets import make_planted_bias
from skfair_manifold.datasets._situation_testing import planted_cells
from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.situation_testing._testing import rule_text
from skfair_manifold.situation_testing._stats._pvalue import (
    discrete_step_up, effective_counts, fisher_pvalue, q_values, step_up_on_supports)

TOL = 1e-9  # relative: an attainable value this close to t counts as at most t


# --- a plain reference, written from the definition of Döhler, Durand and Roquain (2018) ---
def _plain_support(m1, m2, s):
    """P(X >= x) for every x the hypergeometric law of the margins allows (exact sums)."""
    n = m1 + m2
    lo, hi = max(0, s - m2), min(s, m1)
    return sorted(sum(comb(s, j) * comb(n - s, m1 - j) for j in range(x, hi + 1)) / comb(n, m1)
                  for x in range(lo, hi + 1))


def _plain_F(support, t):
    return max([v for v in support if v <= t * (1 + TOL)], default=0.0)


def _plain_hsu(p, supports, level):
    """Rejected indices, critical values and q (as defined in discrete_step_up) by loops."""
    m = len(p)
    A = sorted({v for s in supports for v in s})

    def odds_sum(t):
        total = 0.0
        for s in supports:
            f = _plain_F(s, t)
            total += f / (1 - f) if f < 1 else np.inf
        return total

    admissible = [t for t in A if odds_sum(t) <= level * m]
    tau_m = max(admissible) if admissible else 0.0
    f_tau = [_plain_F(s, tau_m) for s in supports]

    def xi(t):  # (1/m) sum_i F_i(t) / (1 - F_i(tau_m))
        return sum(_plain_F(s, t) / (1 - f) for s, f in zip(supports, f_tau)) / m

    crit = []
    for k in range(1, m + 1):
        ok = [t for t in A if t <= tau_m * (1 + TOL) and xi(t) <= level * k / m]
        crit.append(max(ok) if ok else 0.0)
    ranked = sorted(range(m), key=lambda i: p[i])
    k_hat = 0
    for k in range(1, m + 1):
        if p[ranked[k - 1]] <= crit[k - 1] * (1 + TOL):
            k_hat = k
    y = []
    for j in range(1, m + 1):
        t = p[ranked[j - 1]]
        y.append(m * xi(t) / j if t <= tau_m * (1 + TOL) else odds_sum(t) / j)
    q = [0.0] * m
    for j in range(m):
        q[ranked[j]] = min(1.0, min(y[j:]))
    return set(ranked[:k_hat]), (crit[k_hat - 1] if k_hat else 0.0), np.array(q)


def _random_tests(rng, m):
    m1 = rng.randint(1, 13, size=m)
    m2 = rng.randint(1, 13, size=m)
    s = np.array([rng.randint(0, a + b + 1) for a, b in zip(m1, m2)])
    # plant some signal: the positives fall in S+ more often than by chance
    x1 = np.array([min(a, c, max(c - b, rng.binomial(c, 0.8 if rng.rand() < 0.3 else 0.5)))
                   for a, b, c in zip(m1, m2, s)])
    return m1, m2, s, x1


@pytest.mark.parametrize("seed", range(6))
def test_discrete_step_up_matches_the_plain_definition(seed):
    rng = np.random.RandomState(seed)
    m = rng.randint(5, 40)
    m1, m2, s, x1 = _random_tests(rng, m)
    p = fisher_pvalue(x1, m1, s - x1, m2)
    supports = [_plain_support(a, b, c) for a, b, c in zip(m1, m2, s)]
    for level in (0.05, 0.1, 0.2, 0.5):
        q, cutoff = discrete_step_up(p, (m1, m2, s), level=level)
        rejected, plain_cutoff, plain_q = _plain_hsu(p, supports, level)
        assert set(np.flatnonzero(q <= level)) == rejected
        np.testing.assert_allclose(q, plain_q, rtol=1e-7)
        assert cutoff == pytest.approx(plain_cutoff, rel=1e-7)
        # the cut-off tells the rejected p-values from the others
        assert set(np.flatnonzero(p <= cutoff * (1 + TOL))) == rejected


def test_many_tests_sharing_margins_and_nan():
    rng = np.random.RandomState(7)
    m1, m2, s, x1 = _random_tests(rng, 12)
    idx = rng.randint(0, 12, size=60)  # 60 tests on 12 margins: grouped by the procedure
    m1, m2, s, x1 = m1[idx], m2[idx], s[idx], x1[idx]
    x1 = np.array([min(a, c, max(c - b, v + rng.randint(-1, 2)))
                   for a, b, c, v in zip(m1, m2, s, x1)])
    p = fisher_pvalue(x1, m1, s - x1, m2)
    p_nan = np.r_[p, np.nan]
    margins = tuple(np.r_[a, np.nan] for a in (m1, m2, s))
    q, _ = discrete_step_up(p_nan, margins, level=0.2)
    assert np.isnan(q[-1])
    supports = [_plain_support(a, b, c) for a, b, c in zip(m1, m2, s)]
    rejected, _, plain_q = _plain_hsu(p, supports, 0.2)
    np.testing.assert_allclose(q[:-1], plain_q, rtol=1e-7)
    assert set(np.flatnonzero(q <= 0.2)) == rejected
    empty, cut = discrete_step_up(np.array([np.nan]), ([np.nan],) * 3, level=0.1)
    assert np.isnan(empty).all() and cut == 0.0


@pytest.mark.parametrize("level", [0.05, 0.1, 0.2])
def test_with_continuous_p_values_it_is_benjamini_hochberg_at_level_over_one_plus_level(level):
    # F_i(t) = t on a grid of 1/N: every grid point is attainable, so the laws are uniform
    # there; the procedure is Benjamini-Hochberg at level / (1 + level)
    rng = np.random.RandomState(0)
    N = 200_000
    grid = np.arange(1, N + 1) / N
    for _ in range(5):
        p = np.r_[rng.randint(1, N // 5, size=40), rng.randint(1, N // 200, size=10)] / N
        q, cutoff = step_up_on_supports(p, grid, np.zeros(N, dtype=int), np.array([p.size]),
                                        level=level)
        bh = q_values(p)
        expected = set(np.flatnonzero(bh <= level / (1 + level)))
        assert set(np.flatnonzero(q <= level)) == expected
        below = np.flatnonzero(p <= level / (1 + level) - 1e-3)
        # below tau_m the q-value is Benjamini-Hochberg's times 1 + level (grid error 1/N)
        assert np.all(np.abs(q[below] - np.minimum((1 + level) * bh[below], 1.0)) <= 1e-3)


def test_discrete_tests_that_cannot_reach_small_p_values_do_not_count_fully():
    # 50 tests with a strong signal among 500 tests that cannot go below 0.5: BH counts all
    # 550 in m; the discrete procedure weighs the weak ones by F_i(t) = 0 below 0.5
    strong = fisher_pvalue(np.full(50, 6.0), 10, np.full(50, 1.0), 10)  # 0.029
    weak_m = (np.ones(500), np.ones(500), np.ones(500))  # one tester a side, one positive
    weak = fisher_pvalue(np.ones(500), 1, np.zeros(500), 1)  # 0.5
    p = np.r_[strong, weak]
    margins = tuple(np.r_[np.full(50, a), b] for a, b in zip((10, 10, 7), weak_m))
    q, _ = discrete_step_up(p, margins, level=0.1)
    assert (q[:50] <= 0.1).all()
    assert not (q_values(p)[:50] <= 0.1).any()


# --- audits where the truth is known --------------------------------------------------------
@pytest.mark.parametrize("method", ["knn", "cbn"])
def test_a_null_audit_flags_at_most_one_percent_with_the_discrete_procedure(method):
    X, y, _, _ = make_planted_bias(3000, bias_share=0.0, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the learned graph has no arc sex -> decision
        est = SituationTestingAuditor(protected="sex", protected_value="female", method=method,
                                      fdr_method="dbh").fit(X, y)
    candidates = (X["sex"] == "female").to_numpy() & (y == 0)
    flags = est.flag(X, y)
    assert flags.sum() <= 0.01 * candidates.sum()
    assert "discrete Benjamini-Hochberg" in est.flag_rule_


def test_the_audit_uses_the_discrete_procedure_and_its_cutoff():
    X, y, _, _ = make_planted_bias(3000, bias_share=0.5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SituationTestingAuditor(protected="sex", protected_value="female", method="cbn",
                                      k=200, fdr_method="dbh").fit(X, y)
    flags = est.flag(X, y)
    out, _, n_eff = est._fitted.rate_cache.value
    cand = (X["sex"] == "female").to_numpy() & (y == 0)
    x1, m1, x2, m2 = effective_counts(out[cand, 0], n_eff[cand, 0], out[cand, 1], n_eff[cand, 1])
    q, cutoff = discrete_step_up(out[cand, 5], (m1, m2, x1 + x2), level=est.fdr)
    significant = np.zeros(len(y), dtype=bool)
    significant[np.flatnonzero(cand)[q <= est.fdr]] = True
    np.testing.assert_array_equal(flags, significant & (out[:, 2] > est.tau + 1e-12))
    assert flags.sum() > 0
    rep = est.report(X, y)
    np.testing.assert_allclose(rep.audit["q_value"][cand], q)
    assert (rep.summary["q_value"] <= est.fdr).all()
    assert (rep.summary["p_value"] <= cutoff).all()
    # the cut-off separates: every candidate at most it is significant, none above
    with np.errstate(invalid="ignore"):
        assert not (cand & (out[:, 5] > cutoff) & significant).any()
        assert (significant[cand & (out[:, 5] <= cutoff)]).all()
    assert "discrete Benjamini-Hochberg" in rep.to_html()


def test_the_page_names_the_procedure_and_rule_of_the_audit_not_of_fit():
    X, y, _, _ = make_planted_bias(3000, bias_share=0.5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SituationTestingAuditor(protected="sex", protected_value="female", method="cbn",
                                      k=200).fit(X, y)
    est.set_params(fdr_method="dbh")  # after fit: flag_rule_ still names Benjamini-Hochberg
    rep = est.report(X, y)
    assert len(rep) > 0
    assert rep.settings["rule"] == rep.rule == rule_text(est) != est.flag_rule_
    assert rep.settings["fdr_name"].startswith("discrete Benjamini-Hochberg")
    page = rep.to_html()
    test_row = re.search(r"q_value: (.*?) false discovery rate across", page).group(1)
    assert test_row == rep.settings["fdr_name"]
    assert "Yekutieli" not in page


@pytest.mark.parametrize("fdr_method", ["bh", "dbh"])
@pytest.mark.parametrize("method", ["cbn", "knn"])
def test_the_false_discovery_rate_across_planted_bias_audits_is_at_most_the_level(
        method, fdr_method):
    # 30 audits with a planted bias: the mean share of clean people among the flagged (the
    # false discovery proportion) is at most fdr = 0.1 (measured 0.056 bh, 0.072 dbh over
    # 40 audits), and 30 audits without bias flag at most 1% of the candidates
    fdp, recall, null = [], [], []
    kw = {"graph": ["sex", "region", "edu"]} if method == "cbn" else {}
    for r in range(30):
        X, y, flipped, clean = planted_cells(2000, np.random.RandomState(r), 0.5)
        est = SituationTestingAuditor(protected="sex", protected_value="f", method=method,
                                      fdr_method=fdr_method, **kw).fit(X, y)
        flags = est.flag(X, y)
        tp, fp = int((flags & flipped).sum()), int((flags & clean).sum())
        fdp.append(fp / max(tp + fp, 1))
        recall.append(tp / flipped.sum())
        X0, y0, _, _ = planted_cells(2000, np.random.RandomState(100 + r), 0.0)
        est0 = SituationTestingAuditor(protected="sex", protected_value="f", method=method,
                                       fdr_method=fdr_method, **kw).fit(X0, y0)
        candidates = (X0["sex"] == "f").to_numpy() & (y0 == 0)
        null.append(est0.flag(X0, y0)[candidates].mean())
    assert np.mean(fdp) <= 0.1
    assert np.mean(null) <= 0.01
    assert np.mean(recall) >= 0.8  # the audits do find the bias (measured about 0.9)
