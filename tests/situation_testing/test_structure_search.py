"""The local structure search: the CMH test, the combined test, the search's order,
repair and depth bound, each against a plain reference written here."""

from itertools import combinations
from math import comb

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.situation_testing._selection._citests import ci_test, cmh_test, g_test
from skfair_manifold.situation_testing._selection._parent_search import local_parent_search
from skfair_manifold.utils._sklearn_compat import InvalidParameterError


def cmh_by_loops(x, e, s, nx):
    """Generalized CMH by explicit loops over strata, last level dropped, plain inverse."""
    d = np.zeros(nx - 1)
    V = np.zeros((nx - 1, nx - 1))
    for k in np.unique(s):
        xs, es = x[s == k], e[s == k]
        m = len(xs)
        if m < 2:
            continue
        m1 = es.sum()
        m0 = m - m1
        r = np.array([np.sum(xs == i) for i in range(nx)], dtype=float)[:-1]
        n1 = np.array([np.sum((xs == i) & (es == 1)) for i in range(nx)], dtype=float)[:-1]
        d += n1 - r * m1 / m
        for i in range(nx - 1):
            for j in range(nx - 1):
                V[i, j] += m1 * m0 / (m * m * (m - 1.0)) * (m * r[i] * (i == j) - r[i] * r[j])
    stat = float(d @ np.linalg.inv(V) @ d)
    return stat, stats.chi2.sf(stat, nx - 1)


def stratified(n, n_strata, nx, seed, effect=0.0):
    """x and e both depend on the stratum; e depends on x only through ``effect``."""
    rng = np.random.RandomState(seed)
    s = rng.randint(0, n_strata, n)
    x = (rng.randint(0, nx, n) + (s % 2) * (rng.rand(n) < 0.5)) % nx
    p = 0.2 + 0.5 * (s / max(n_strata - 1, 1)) + effect * (x == 0)
    e = (rng.rand(n) < np.clip(p, 0, 1)).astype(np.intp)
    return x.astype(np.intp), e, s.astype(np.int64)


@pytest.mark.parametrize("nx, n_strata, seed", [(2, 1, 0), (3, 4, 1), (4, 7, 2), (2, 12, 3)])
def test_cmh_agrees_with_a_loop_over_strata(nx, n_strata, seed):
    x, e, s = stratified(600, n_strata, nx, seed, effect=0.1)
    p, stat, dof = cmh_test(x, e, s, (nx, 2))
    ref_stat, ref_p = cmh_by_loops(x, e, s, nx)
    assert dof == nx - 1
    assert stat == pytest.approx(ref_stat, rel=1e-9)
    assert p == pytest.approx(ref_p, rel=1e-7)


def test_cmh_in_one_stratum_is_pearson_times_n_minus_one_over_n():
    rng = np.random.RandomState(4)
    x = rng.randint(0, 3, 300)
    e = (rng.rand(300) < 0.3 + 0.1 * x).astype(np.intp)
    table = np.array([[np.sum((x == i) & (e == j)) for j in range(2)] for i in range(3)])
    pearson = stats.chi2_contingency(table, correction=False).statistic
    _, stat, dof = cmh_test(x, e, None, (3, 2))
    assert dof == 2 and stat == pytest.approx(pearson * 299 / 300, rel=1e-10)


def test_cmh_two_by_two_is_the_mantel_haenszel_statistic():
    x, e, s = stratified(800, 5, 2, 5, effect=0.08)
    num, var = 0.0, 0.0
    for k in np.unique(s):
        a = np.sum((s == k) & (x == 0) & (e == 1))
        r0 = np.sum((s == k) & (x == 0))
        r1 = np.sum((s == k) & (x == 1))
        c1 = np.sum((s == k) & (e == 1))
        c0 = np.sum((s == k) & (e == 0))
        m = r0 + r1
        num += a - r0 * c1 / m
        var += r0 * r1 * c1 * c0 / (m * m * (m - 1))
    _, stat, dof = cmh_test(x, e, s, (2, 2))
    assert dof == 1 and stat == pytest.approx(num * num / var, rel=1e-10)


def test_cmh_ignores_strata_without_information():
    x, e, s = stratified(400, 3, 3, 6, effect=0.1)
    # an extra stratum of one row and one where e is constant change nothing
    x2 = np.concatenate([x, [1], [0, 1, 2]]).astype(np.intp)
    e2 = np.concatenate([e, [1], [0, 0, 0]]).astype(np.intp)
    s2 = np.concatenate([s, [10], [11, 11, 11]]).astype(np.int64)
    assert cmh_test(x2, e2, s2, (3, 2))[1] == pytest.approx(cmh_test(x, e, s, (3, 2))[1])
    # a constant x: no information at all
    assert cmh_test(np.zeros(50, np.intp), e[:50], s[:50], (1, 2)) == (1.0, 0.0, 0)


def binomial_band(rate, trials, z=3.5):
    sd = np.sqrt(rate * (1 - rate) / trials)
    return rate - z * sd, rate + z * sd


@pytest.mark.parametrize("test, n, n_strata", [("cmh", 120, 12), ("g+cmh", 120, 12),
                                               ("g+cmh", 600, 4), ("g", 600, 4)])
def test_level_under_conditional_independence(test, n, n_strata):
    # 400 simulated tables: x and e depend on the stratum only (120 rows over 12
    # strata is sparse: "g+cmh" then runs the CMH test alone)
    rejections = []
    for seed in range(400):
        x, e, s = stratified(n, n_strata, 3, 1000 + seed)
        pv, _ = ci_test(x, e, s, (3, 2), test)
        rejections.append(pv <= 0.05)
    low, high = binomial_band(0.05, 400)
    assert low <= np.mean(rejections) <= high, np.mean(rejections)


def test_cmh_has_power_where_the_g_test_has_many_strata():
    # a steady effect of x over 40 strata: CMH's one degree of freedom keeps its power
    hits = np.array([[cmh_test(x, e, s, (2, 2))[0] <= 0.01, g_test(x, e, s, (2, 2))[0] <= 0.01]
                     for x, e, s in (stratified(2000, 40, 2, seed, effect=0.08)
                                     for seed in range(40))])
    power_cmh, power_g = hits.mean(axis=0)
    assert power_cmh >= 0.6 and power_g <= 0.4  # measured 0.80 and 0.175


def test_combined_test_is_bonferroni_of_both():
    x, e, s = stratified(500, 4, 3, 8, effect=0.1)
    pg = g_test(x, e, s, (3, 2))[0]
    pc = cmh_test(x, e, s, (3, 2))[0]
    assert ci_test(x, e, s, (3, 2), "g+cmh")[0] == pytest.approx(min(1.0, 2 * min(pg, pc)))
    assert ci_test(x, e, s, (3, 2), "g")[0] == pg
    assert ci_test(x, e, s, (3, 2), "cmh")[0] == pc


def proxy_data(n=6000, seed=0):
    """E <- a, b, k; v is a near-copy of (a, b, k) (a proxy): PC-simple's trap."""
    rng = np.random.RandomState(seed)
    c = rng.randint(0, 2, n)
    a = rng.randint(0, 2, n)
    b = rng.randint(0, 2, n)
    k = (rng.rand(n) < 0.3).astype(int)
    v = np.where(rng.rand(n) < 0.8, a + b + 2 * k, rng.randint(0, 5, n))
    w = rng.randint(0, 3, n)
    logit = -1.0 + 1.2 * a + 1.0 * b + 0.9 * k
    y = (rng.rand(n) < 1 / (1 + np.exp(-logit))).astype(np.intp)
    return np.column_stack([c, a, b, k, v, w]).astype(np.intp), y


def brute_force_parents(codes, e, alpha, max_depth):
    """Every column tested against every set (up to max_depth) of the others."""
    p = codes.shape[1]
    levels = codes.max(axis=0) + 1
    out = []
    for j in range(p):
        others = [i for i in range(p) if i != j]
        separated = False
        for d in range(max_depth + 1):
            for sub in combinations(others, d):
                s = None
                if sub:
                    s = np.zeros(codes.shape[0], np.int64)
                    for i in sub:
                        s = s * levels[i] + codes[:, i]
                if g_test(codes[:, j], e, s, (levels[j], 2))[0] > alpha:
                    separated = True
                    break
            if separated:
                break
        if not separated:
            out.append(j)
    return out


def test_search_agrees_with_brute_force_on_a_clear_graph():
    codes, y = proxy_data(seed=1)
    parents, _ = local_parent_search(codes, y, alpha=0.01, protected_idx=0)
    assert parents == [1, 2, 3]
    assert brute_force_parents(codes, y, 0.01, 3) == [1, 2, 3]


def test_search_does_not_depend_on_the_column_order():
    codes, y = proxy_data(seed=2)
    base, _ = local_parent_search(codes, y, alpha=0.01, protected_idx=0)
    perm = np.array([5, 4, 3, 0, 2, 1])
    got, _ = local_parent_search(codes[:, perm], y, alpha=0.01, protected_idx=3)
    assert sorted(perm[got].tolist()) == base


def test_repair_readmits_a_parent_screened_off_by_a_proxy():
    # a -> y with an effect that shows only given b (xor-like); a's marginal test fails
    rng = np.random.RandomState(3)
    n = 6000
    a = rng.randint(0, 2, n)
    b = rng.randint(0, 2, n)
    noise = rng.randint(0, 3, (n, 3))
    p = np.where(a == b, 0.3, 0.6)
    p = p + 0.15 * b
    y = (rng.rand(n) < p).astype(np.intp)
    codes = np.column_stack([rng.randint(0, 2, n), a, b, noise]).astype(np.intp)
    assert g_test(a, y, None, (2, 2))[0] > 0.01  # marginally invisible
    without, _ = local_parent_search(codes, y, alpha=0.01, protected_idx=0, repair=False)
    with_, log = local_parent_search(codes, y, alpha=0.01, protected_idx=0)
    assert 1 not in without
    assert with_ == [1, 2] and log["re_added"] == [1]


def test_cost_is_within_the_stated_bound_and_recorded():
    codes, y = proxy_data(seed=4)
    p = codes.shape[1]
    for depth in (0, 1, 2, None):
        parents, log = local_parent_search(codes, y, alpha=0.01, protected_idx=0,
                                           max_depth=depth)
        c = p  # every column passes the marginal test at most
        D = c - 1 if depth is None else depth
        k = p
        bound = 2 * p + c * sum(comb(c - 1, d) for d in range(1, D + 1)) + k * (k + 1) // 2
        assert 0 < log["n_tests"] <= bound
        assert log["depth"] <= D
        if depth is None:
            assert not log["depth_bound_hit"]


def test_depth_bound_cuts_the_search():
    codes, y = proxy_data(seed=5)
    _, log0 = local_parent_search(codes, y, alpha=0.01, protected_idx=0, max_depth=0,
                                  repair=False)
    assert log0["depth"] == 0 and log0["depth_bound_hit"]
    _, log = local_parent_search(codes, y, alpha=0.01, protected_idx=0, max_depth=None)
    assert log["depth"] >= 1 and not log["depth_bound_hit"]


@pytest.mark.filterwarnings("ignore:the causal graph has no arc")
def test_auditor_records_the_search_and_validates_its_options():
    codes, y = proxy_data(n=3000, seed=6)
    X = codes.astype(float)
    a = SituationTestingAuditor(protected=0, protected_value=1, k=5).fit(X, y)
    info = a.structure_info_
    for key in ("n_tests", "depth", "depth_bound_hit", "max_depth", "test"):
        assert key in info
    assert info["max_depth"] == a.max_depth and info["test"] == a.structure_test
    b = SituationTestingAuditor(protected=0, protected_value=1, k=5, max_depth=1,
                                structure_test="cmh").fit(X, y)
    assert b.structure_info_["depth"] <= 1
    with pytest.raises(InvalidParameterError, match="max_depth"):
        SituationTestingAuditor(protected=0, protected_value=1, max_depth=-1).fit(X, y)
    with pytest.raises(InvalidParameterError, match="structure_test"):
        SituationTestingAuditor(protected=0, protected_value=1, structure_test="z").fit(X, y)


def test_the_g_test_gives_way_to_cmh_where_cochrans_rule_fails():
    # many small strata of unequal size: the G-test's chi-squared approximation is
    # liberal there, so "g" hands such tables to the CMH test, which keeps its level
    from skfair_manifold.situation_testing._selection._citests import ci_test, g_is_reliable, g_test

    rng = np.random.RandomState(5)
    n, n_strata = 6000, 400
    s = np.minimum(rng.geometric(0.01, n) - 1, n_strata - 1)
    rate = 0.1 + 0.6 * rng.rand(n_strata)
    raw, used = [], []
    for _ in range(200):
        e = (rng.rand(n) < rate[s]).astype(np.intp)
        x = rng.randint(0, 3, n)  # independent of e given s
        assert not g_is_reliable(x, e, s, (3, 2))
        raw.append(g_test(x, e, s, (3, 2))[0])
        used.append(ci_test(x, e, s, (3, 2), "g")[0])
    raw, used = np.array(raw), np.array(used)
    assert (raw <= 0.05).mean() > 0.2  # the bare G-test is liberal here
    assert (used <= 0.05).mean() <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 200)
    # a dense table keeps the G-test
    x, e = rng.randint(0, 3, 5000), rng.randint(0, 2, 5000)
    s = rng.randint(0, 4, 5000)
    assert g_is_reliable(x, e, s, (3, 2))
    assert ci_test(x, e, s, (3, 2), "g")[0] == g_test(x, e, s, (3, 2))[0]


def test_an_irrelevant_column_stays_out_of_q_on_many_rows():
    from skfair_manifold.datasets import make_planted_bias

    X, y, _, _ = make_planted_bias(20000, bias_share=0.5, random_state=0)
    est = SituationTestingAuditor(protected="sex", protected_value="female", k=10).fit(X, y)
    assert set(est.q_) == {"income", "age", "edu", "region"}


def test_a_weak_parent_is_marked_for_its_effect_at_large_n():
    # w moves the decision's rate by 0.02 (significant at 60,000 rows, far below tau);
    # s by 0.3; the protected column c by 0.03 is kept whatever its effect
    rng = np.random.RandomState(0)
    n = 60000
    c, s, w = rng.randint(0, 2, n), rng.randint(0, 3, n), rng.randint(0, 2, n)
    noise = rng.randint(0, 3, n)
    y = (rng.rand(n) < 0.2 + 0.15 * s + 0.02 * w - 0.03 * c).astype(np.intp)
    codes = np.column_stack([c, s, w, noise]).astype(np.intp)
    tests_only, log0 = local_parent_search(codes, y, alpha=0.01, protected_idx=0,
                                           min_effect=0.0)
    assert tests_only == [0, 1, 2] and log0["weak_parents"] == []
    got, log = local_parent_search(codes, y, alpha=0.01, protected_idx=0)
    assert got == [0, 1, 2] and log["weak_parents"] == [2]  # without k: a parent, not in Q
    assert log["effects"][1] > 0.1 > 0.05 > log["effects"][2]
    assert log["effects"][0] < 0.05  # c is weak too, and stays


def _two_weak_parents(n=40000, seed=0):
    """A protected 10% (column 0), a strong parent s of 3 levels (column 1) and two weak
    parents of 6 levels (columns 2 and 3, effects about 0.04 and 0.03): 108 subgroups of
    about 37 protected rows each, 18 of about 220 without the weakest, 3 with neither."""
    rng = np.random.RandomState(seed)
    c, s = (rng.rand(n) < 0.1).astype(int), rng.randint(0, 3, n)
    w1, w2 = rng.randint(0, 6, n), rng.randint(0, 6, n)
    p = 0.2 + 0.15 * s + 0.06 * (w1 >= 3) + 0.04 * (w2 >= 3) - 0.1 * c
    y = (rng.rand(n) < p).astype(np.intp)
    return np.column_stack([c, s, w1, w2]).astype(np.intp), y


def test_weak_parents_leave_q_weakest_first_only_while_the_subgroups_are_small():
    from skfair_manifold.situation_testing._selection._weak_parents import MIN_OWN_SUBGROUP_SHARE

    codes, y = _two_weak_parents()
    group = codes[:, 0] == 1
    runs = {k: local_parent_search(codes, y, alpha=0.01, protected_idx=0, group=group, k=k)
            for k in (None, 1, 50, 300)}
    eff = runs[None][1]["effects"]
    assert eff[1] > 0.1 and 0.05 > eff[2] > eff[3]  # 3, the weakest, leaves first
    for k, (par, log) in runs.items():
        assert par == [0, 1, 2, 3]  # the graph keeps every parent the tests found
    assert runs[None][1]["weak_parents"] == [2, 3]  # without k: every weak parent out
    assert runs[None][1]["own_subgroup_share"] is None
    # K = 1: every protected row has a tester a side in its own subgroup: both weak stay
    assert runs[1][1]["weak_parents"] == [] and runs[1][1]["own_subgroup_share"] == 1.0
    # K = 50: 37 protected rows a subgroup are too few; without 3, about 220 are enough
    assert runs[50][1]["weak_parents"] == [3]
    assert runs[50][1]["own_subgroup_share"] >= MIN_OWN_SUBGROUP_SHARE
    # K = 300: only the strong parent's 3 subgroups hold 300 protected rows
    assert runs[300][1]["weak_parents"] == [2, 3]


def test_own_subgroup_share_against_a_brute_force_count():
    from skfair_manifold.situation_testing._selection._weak_parents import own_subgroup_share

    rng = np.random.RandomState(3)
    codes = rng.randint(0, 3, (500, 3)).astype(np.intp)
    group = rng.rand(500) < 0.3
    levels = codes.max(axis=0) + 1
    for q, k in [([0], 20), ([0, 2], 5), ([1, 2], 12), ([], 150)]:
        hits = []
        for i in np.flatnonzero(group):
            same = np.all(codes[:, q] == codes[i, q], axis=1)
            hits.append(min((same & group).sum(), (same & ~group).sum()) >= k)
        assert own_subgroup_share(codes, q, group, k, levels) == pytest.approx(np.mean(hits))
    assert own_subgroup_share(codes, [0], np.zeros(500, dtype=bool), 5, levels) == 1.0


def test_level_shift_reads_the_rate_shift_of_one_level():
    from skfair_manifold.situation_testing._selection._citests import _stratified_counts, level_shift

    # one stratum; level 1 of x (half the rows) has rate 0.7, level 0 rate 0.3: each level
    # is 0.2 from the stratum's 0.5 (the m-estimate pulls a little towards it)
    x = np.repeat([0, 1], 1000)
    e = np.r_[np.repeat([1, 0], [300, 700]), np.repeat([1, 0], [700, 300])]
    got = level_shift(_stratified_counts(x, e, None, 2, 2))
    assert abs(got - 0.2 * 1000 / 1005) < 1e-9
    # a level under 5% of the rows does not count
    x2 = np.r_[np.zeros(1990, dtype=int), np.ones(10, dtype=int)]
    e2 = np.r_[np.tile([0, 1], 995), np.ones(10, dtype=int)]
    assert level_shift(_stratified_counts(x2, e2, None, 2, 2)) < 0.01


def test_the_auditor_leaves_out_of_q_only_the_weak_parents_that_split_its_subgroups():
    # must keep: a weak parent of 2 levels leaves 6 subgroups of about 3,300 women each
    rng = np.random.RandomState(1)
    n = 40000
    sex = np.where(rng.rand(n) < 0.5, "f", "m").astype(object)
    s, w = rng.randint(0, 3, n), rng.randint(0, 2, n)
    y = (rng.rand(n) < 0.2 + 0.15 * s + 0.02 * w - 0.1 * (sex == "f")).astype(int)
    X = pd.DataFrame({"sex": sex, "s": s, "w": w})
    est = SituationTestingAuditor(protected="sex", protected_value="f", k=10).fit(X, y)
    assert set(est.graph_["y"]) == {"sex", "s", "w"}
    assert est.structure_info_["effects"][2] < 0.05  # weak, but costs no tester
    assert est.q_ == ["s", "w"] and est.structure_info_["weak_parents"] == []
    # must drop: two weak parents of 6 levels leave about 37 protected rows a subgroup
    codes, y = _two_weak_parents()
    X = pd.DataFrame(codes, columns=["c", "s", "w1", "w2"])
    est = SituationTestingAuditor(protected="c", protected_value=1, k=50).fit(X, y)
    assert set(est.graph_["y"]) == {"c", "s", "w1", "w2"}
    assert est.q_ == ["s", "w1"] and est.structure_info_["weak_parents"] == [3]
    assert est.structure_info_["own_subgroup_share"] >= 0.5
