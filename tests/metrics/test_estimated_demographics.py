"""The bias audit from estimated demographics (membership=, proxy=), against plain references.

The references: the Frechet bounds summed stratum by stratum in plain Python;
the impact ratio's bounds by bisection over linear programs of the coupling
itself (every stratum's selected split among the categories within their
membership), straight from the definitions; the weighted estimate as
``sum p y / sum p``; the delta method's gradient by finite differences. The
coverage of the interval over many data sets is measured in
``benchmarks/estimated_demographics.py``; here a small simulation checks it
at the edge of the bounds.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linprog

from skfair_manifold.metrics import bias_audit
from skfair_manifold.metrics._audit._frechet import frechet_bounds, stratum_pieces
from skfair_manifold.metrics._audit._pieces import pmax, pmin, ratio, total

CATS = ["a", "b", "c"]


def _population(rng, strata=6, k=3, alpha=0.6):
    share = rng.dirichlet(np.full(strata, 3.0))
    member = rng.dirichlet(np.full(k, alpha), strata)
    return share, member


def _draw(rng, n, share, member, rates):
    z = rng.choice(len(share), n, p=share)
    u = rng.random(n)[:, None]
    g = (u > np.cumsum(member[z], axis=1)).sum(axis=1)
    selected = (rng.random(n) < rates[z, g]).astype(int)
    return z, g, selected


# ----------------------------------------------------------------- plain references


def _strata_sums(z, selected, P):
    strata = np.unique(z)
    N = np.array([np.sum(z == s) for s in strata], dtype=float)
    Y = np.array([np.sum(selected[z == s]) for s in strata], dtype=float)
    m = np.array([P[z == s].sum(axis=0) for s in strata])
    return N, Y, m


def _frechet_plain(N, Y, m):
    low = np.zeros(m.shape[1])
    high = np.zeros(m.shape[1])
    for s in range(len(N)):
        for k in range(m.shape[1]):
            low[k] += max(0.0, m[s, k] + Y[s] - N[s])
            high[k] += min(m[s, k], Y[s])
    return low / m.sum(axis=0), high / m.sum(axis=0)


def _feasible(Y, m, rows):
    """Whether some coupling x (Z, K) meets ``sum_k x_zk = Y_z``, ``0 <= x <= m`` and every
    ``a . x <= 0`` in ``rows``."""
    Z, K = m.shape
    A_eq = np.zeros((Z, Z * K))
    for s in range(Z):
        A_eq[s, s * K:(s + 1) * K] = 1.0
    res = linprog(np.zeros(Z * K), A_ub=np.array(rows) if rows else None,
                  b_ub=np.zeros(len(rows)) if rows else None, A_eq=A_eq, b_eq=Y,
                  bounds=list(zip(np.zeros(Z * K), m.reshape(-1))), method="highs")
    return res.status == 0


def _rate_row(m, c, weight):
    """The row of ``weight * X_c / m_c`` over the flattened coupling."""
    Z, K = m.shape
    row = np.zeros(Z * K)
    row[c::K] = weight / m[:, c].sum()
    return row


def _bisect(test, lo=0.0, hi=1.0, steps=60):
    """The boundary of a monotone property on [lo, hi]: ``test(t)`` true above it."""
    for _ in range(steps):
        mid = (lo + hi) / 2
        if test(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _ratio_bounds_lp(Y, m, c, eligible, named=None):
    """The least and largest ``r_c / max_{k in E} r_k`` (or ``r_c / r_g``) over couplings."""
    others = [j for j in eligible if j != c] if named is None else [named]
    # least: some j with r_c - t r_j <= 0
    low = min(_bisect(lambda t, j=j: _feasible(Y, m, [_rate_row(m, c, 1.0) -
                                                       _rate_row(m, j, t)]), hi=50.0)
              for j in others)
    # largest: r_c - t r_k >= 0 for every k (t <= 1 with c eligible)
    top = 1.0 if named is None else 50.0
    high = _bisect(lambda t: not _feasible(Y, m, [_rate_row(m, k, t) - _rate_row(m, c, 1.0)
                                                  for k in others]), hi=top)
    return min(low, 1.0) if named is None else low, high


# ----------------------------------------------------------------- the bounds


@pytest.mark.parametrize("seed", range(6))
def test_rate_bounds_are_the_strata_frechet_bounds(seed):
    rng = np.random.default_rng(seed)
    share, member = _population(rng)
    rates = rng.uniform(0.1, 0.9, member.shape)
    z, _, selected = _draw(rng, 400, share, member, rates)
    P = member[z]
    t = bias_audit(selected, membership={"race": pd.DataFrame(P, columns=CATS)}, proxy=z,
                   min_share=0.0).table.set_index("category").loc[CATS]
    low, high = _frechet_plain(*_strata_sums(z, selected, P))
    np.testing.assert_allclose(t["rate_low"], low, atol=1e-12)
    np.testing.assert_allclose(t["rate_high"], high, atol=1e-12)
    # the weighted estimate, within them
    weighted = (P * selected[:, None]).sum(axis=0) / P.sum(axis=0)
    np.testing.assert_allclose(t["rate"], weighted, atol=1e-12)
    np.testing.assert_allclose(t["n"], P.sum(axis=0), atol=1e-9)
    assert np.all(low <= weighted + 1e-12) and np.all(weighted <= high + 1e-12)
    assert (t["estimate"] == "weighted").all()


@pytest.mark.parametrize("seed", range(8))
def test_ratio_bounds_match_linear_programs_of_the_coupling(seed):
    rng = np.random.default_rng(100 + seed)
    Z, K = rng.integers(2, 6), rng.integers(2, 5)
    N = rng.integers(5, 40, Z).astype(float)
    member = rng.dirichlet(np.full(K, 0.7), Z)
    m = member * N[:, None]
    Y = np.floor(rng.uniform(0, 1, Z) * N)
    # split each stratum's people into selected and not at the stratum's membership
    m1 = member * Y[:, None]
    m0 = m - m1
    eligible = np.ones(K, dtype=bool)
    if K > 2 and seed % 2:
        eligible[-1] = False  # a category left out of the comparator (min_share)
    out = frechet_bounds(N - Y, Y, m0, m1, eligible=eligible, rated=eligible.copy(),
                         comparator=None, confidence=0.95)
    for c in np.flatnonzero(eligible):
        low, high = _ratio_bounds_lp(Y, m, c, list(np.flatnonzero(eligible)))
        assert out["low"][c] == pytest.approx(low, abs=1e-6)
        assert out["high"][c] == pytest.approx(high, abs=1e-6)
        assert out["ci_low"][c] <= out["low"][c] + 1e-12
        assert out["ci_high"][c] >= out["high"][c] - 1e-12
    named = 0
    out = frechet_bounds(N - Y, Y, m0, m1, eligible=np.ones(K, bool),
                         rated=np.ones(K, bool), comparator=named, confidence=0.95)
    for c in range(1, K):
        low, high = _ratio_bounds_lp(Y, m, c, None, named=named)
        assert out["low"][c] == pytest.approx(low, abs=1e-6)
        if np.isfinite(out["high"][c]) and high < 49:
            assert out["high"][c] == pytest.approx(high, abs=1e-6)


def test_the_linear_program_agrees_with_the_sets_beyond_twelve_categories():
    from skfair_manifold.metrics._audit import _frechet

    rng = np.random.default_rng(3)
    Z, K = 7, 6
    N = rng.integers(10, 40, Z).astype(float)
    member = rng.dirichlet(np.full(K, 0.5), Z)
    Y = np.floor(rng.uniform(0.2, 0.9, Z) * N)
    m1 = member * Y[:, None]
    m0 = member * N[:, None] - m1
    kw = dict(eligible=np.ones(K, bool), rated=np.ones(K, bool), comparator=None,
              confidence=0.95)
    by_sets = frechet_bounds(N - Y, Y, m0, m1, **kw)
    old = _frechet.ENUMERATE
    try:
        _frechet.ENUMERATE = 2  # force the linear program
        by_lp = frechet_bounds(N - Y, Y, m0, m1, **kw)
    finally:
        _frechet.ENUMERATE = old
    np.testing.assert_allclose(by_lp["high"], by_sets["high"], atol=1e-7)
    assert np.all(by_lp["ci_high"] >= by_lp["high"] - 1e-12)


def test_the_delta_method_gradient_is_the_finite_difference():
    rng = np.random.default_rng(5)
    Z, K = 5, 3
    n0 = rng.integers(5, 30, Z).astype(float)
    n1 = rng.integers(5, 30, Z).astype(float)
    p0 = rng.dirichlet(np.ones(K), Z)
    p1 = rng.dirichlet(np.ones(K), Z)

    def stat(n0, n1):
        N, Y, m = stratum_pieces(n0, n1, p0 * n0[:, None], p1 * n1[:, None])
        low_c = pmax(0.0, m[0] + Y - N)
        x_j = pmin(m[1], Y - low_c)
        return ratio(ratio(total(low_c), total(m[0])), ratio(total(x_j), total(m[1])))

    s = stat(n0, n1)
    h = 1e-6
    for z in range(Z):
        for which, grad in ((0, s.g0), (1, s.g1)):
            a0, a1 = n0.copy(), n1.copy()
            (a0 if which == 0 else a1)[z] += h
            assert (stat(a0, a1).value - s.value) / h == pytest.approx(grad[z], rel=1e-4,
                                                                        abs=1e-7)
    # the statistic does not move when every count is doubled (degree 0)
    assert stat(2 * n0, 2 * n1).value == pytest.approx(s.value, rel=1e-12)


# ----------------------------------------------------------------- one-hot, labels, lazy


def test_one_hot_membership_is_exactly_the_hard_label_table():
    rng = np.random.default_rng(0)
    race = rng.choice(CATS, 500)
    sex = rng.choice(["f", "m"], 500)
    selected = rng.integers(0, 2, 500)
    one_hot = pd.get_dummies(pd.Series(race)).astype(float)
    a = bias_audit(selected, sensitive_features={"sex": sex}, membership={"race": one_hot})
    b = bias_audit(selected, sensitive_features={"sex": sex, "race": race})
    pd.testing.assert_frame_equal(a.table, b.table)


def test_labelled_rows_are_strata_of_their_own_and_tighten_the_bounds():
    rng = np.random.default_rng(2)
    share, member = _population(rng, strata=5)
    rates = rng.uniform(0.1, 0.9, member.shape)
    z, g, selected = _draw(rng, 1500, share, member, rates)
    P = member[z].copy()
    known = rng.random(1500) < 0.3
    P_lab = P.copy()
    P_lab[known] = np.eye(3)[g[known]]
    frame = pd.DataFrame(P_lab, columns=CATS)
    with_labels = bias_audit(selected, membership={"race": frame}, proxy=z).table
    # the same as strata split by the known category
    split = np.where(known, z * 10 + g, z * 10 + 9)
    by_split = bias_audit(selected, membership={"race": frame}, proxy=split).table
    pd.testing.assert_frame_equal(with_labels, by_split)
    # the labelled rows' people in their own strata: the bounds never wider than when the
    # same rows count as their stratum's probabilities spread over the others
    N, Y, m = _strata_sums(split, selected, P_lab)
    low, high = _frechet_plain(N, Y, m)
    np.testing.assert_allclose(with_labels["rate_low"], low, atol=1e-12)
    np.testing.assert_allclose(with_labels["rate_high"], high, atol=1e-12)


def test_a_duckdb_relation_gives_the_table_in_memory():
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(4)
    share, member = _population(rng, strata=8)
    rates = rng.uniform(0.2, 0.7, member.shape)
    z, _, selected = _draw(rng, 2000, share, member, rates)
    sex = rng.choice(["f", "m"], 2000)
    P = member[z]
    memory = bias_audit(selected, sensitive_features={"sex": sex},
                        membership={"race": pd.DataFrame(P, columns=CATS)}, proxy=z)
    df = pd.DataFrame({"selected": selected, "sex": sex, "zone": z, "p_a": P[:, 0],
                       "p_b": P[:, 1], "p_c": P[:, 2]})
    relation = duckdb.connect().from_df(df)
    lazy = bias_audit("selected", data=relation, sensitive_features="sex",
                      membership={"race": {"a": "p_a", "b": "p_b", "c": "p_c"}},
                      proxy="zone")
    pd.testing.assert_frame_equal(memory.table, lazy.table, rtol=1e-9, atol=1e-9)
    for name, said in memory.options["estimated"].items():
        other = lazy.options["estimated"][name]
        assert {k: v for k, v in said.items() if k not in ("strata", "assumption")} == \
            {k: v for k, v in other.items() if k not in ("strata", "assumption")}
        assert other["strata"] == "the cells of proxy 'zone'"


def test_intersection_multiplies_the_probabilities():
    rng = np.random.default_rng(6)
    n = 800
    P = rng.dirichlet([1, 1, 1], 4)[rng.integers(0, 4, n)]
    Q = rng.dirichlet([1, 1], 3)[rng.integers(0, 3, n)]
    selected = rng.integers(0, 2, n)
    audit = bias_audit(selected, membership={"race": pd.DataFrame(P, columns=CATS),
                                             "age": pd.DataFrame(Q, columns=["y", "o"])})
    t = audit.table[audit.table.characteristic == "intersectional"].set_index("category")
    for i, r in enumerate(CATS):
        for j, a in enumerate(["y", "o"]):
            w = P[:, i] * Q[:, j]
            assert t.loc[f"{r} & {a}", "n"] == pytest.approx(w.sum())
            assert t.loc[f"{r} & {a}", "rate"] == pytest.approx((w * selected).sum() / w.sum())


def test_the_shortcut_warns_and_counts_the_most_likely_category():
    rng = np.random.default_rng(7)
    P = rng.dirichlet([1, 1, 1], 6)[rng.integers(0, 6, 300)]
    selected = rng.integers(0, 2, 300)
    with pytest.warns(UserWarning, match="biases the rates"):
        t = bias_audit(selected, membership={"race": pd.DataFrame(P, columns=CATS)},
                       estimate="most_likely").table
    likely = P.argmax(axis=1)
    np.testing.assert_allclose(t["n"], np.bincount(likely, minlength=3))
    np.testing.assert_allclose(t["n_selected"], np.bincount(likely, weights=selected,
                                                            minlength=3))
    assert (t["estimate"] == "most likely").all()
    with pytest.warns(UserWarning):
        t = bias_audit(selected, membership={"race": pd.DataFrame(P, columns=CATS)},
                       estimate=0.6).table
    assert t["n"].sum() == np.sum(P.max(axis=1) >= 0.6)


def test_no_proxy_takes_each_distinct_probability_row_and_warns_when_strata_are_small():
    rng = np.random.default_rng(8)
    member = rng.dirichlet([1, 1, 1], 5)
    z = rng.integers(0, 5, 1000)
    selected = rng.integers(0, 2, 1000)
    P = pd.DataFrame(member[z], columns=CATS)
    a = bias_audit(selected, membership={"race": P}).table
    b = bias_audit(selected, membership={"race": P}, proxy=z).table
    pd.testing.assert_frame_equal(a, b)
    P_each = pd.DataFrame(rng.dirichlet([1, 1, 1], 1000), columns=CATS)
    with pytest.warns(UserWarning, match="strata with a median of 1 people"):
        bias_audit(selected, membership={"race": P_each})


# ----------------------------------------------------------------- coverage at the edge


def test_the_interval_covers_the_true_ratio_at_the_edge_of_the_bounds():
    """Within each stratum the selected are b first, then a, then c: the true ratio of c
    is the population's lower bound; 60 data sets (the benchmark runs 150 and more)."""
    rng = np.random.default_rng(11)
    share, member = _population(rng, strata=10, alpha=0.5)
    stratum_rate = rng.uniform(0.2, 0.6, 10)
    q = np.zeros_like(member)
    left = stratum_rate.copy()
    for k in (1, 0, 2):
        take = np.minimum(member[:, k], left)
        q[:, k] = np.where(member[:, k] > 0, take / member[:, k], 0)
        left -= take
    rates = (share[:, None] * member * q).sum(axis=0) / (share @ member)
    truth = rates / rates.max()
    hits = np.zeros(3)
    for _ in range(60):
        z, _, selected = _draw(rng, 1500, share, member, q)
        t = bias_audit(selected, membership={"race": pd.DataFrame(member[z], columns=CATS)},
                       proxy=z, min_share=0.0).table.set_index("category").loc[CATS]
        hits += (t["impact_ratio_ci_low"] <= truth + 1e-12).to_numpy() & \
            (truth <= t["impact_ratio_ci_high"] + 1e-12).to_numpy()
    assert np.all(hits / 60 >= 0.9), hits / 60


# ----------------------------------------------------------------- bad input


@pytest.mark.parametrize("bad, match", [
    (lambda P: P * 0.9, "sums to 0.9"),
    (lambda P: np.where(np.arange(len(P))[:, None] == 3, np.nan, P), "row 3: it holds a missing"),
    (lambda P: P[:, :1], "K >= 2"),
    (lambda P: P[:10], r"\(100, K\)"),
])
def test_bad_membership_is_refused_with_the_row_and_the_fix(bad, match):
    rng = np.random.default_rng(0)
    P = rng.dirichlet([1, 1, 1], 100)
    with pytest.raises(ValueError, match=match):
        bias_audit(rng.integers(0, 2, 100), membership={"race": bad(P)})


def test_other_bad_input_is_refused_by_name():
    rng = np.random.default_rng(0)
    P = pd.DataFrame(rng.dirichlet([1, 1], 50), columns=["x", "y"])
    y = rng.integers(0, 2, 50)
    with pytest.raises(ValueError, match="proxy has 10 rows"):
        bias_audit(y, membership={"race": P}, proxy=np.arange(10))
    with pytest.raises(ValueError, match="proxy has 1 missing"):
        bias_audit(y, membership={"race": P}, proxy=[None] + [1] * 49)
    with pytest.raises(ValueError, match="proxy= gives the strata of membership="):
        bias_audit(y, sensitive_features={"s": ["a"] * 50}, proxy=np.arange(50))
    with pytest.raises(ValueError, match="either observed"):
        bias_audit(y, sensitive_features={"race": ["a"] * 50}, membership={"race": P})
    with pytest.raises(ValueError, match="estimate must be"):
        bias_audit(y, membership={"race": P}, estimate="argmax")
    with pytest.raises(ValueError, match="not a table of counts"):
        bias_audit(counts=pd.DataFrame({"race": ["x"], "n": [3], "n_selected": [1]}),
                   membership={"race": P})
    with pytest.raises(TypeError, match="membership must be a dict"):
        bias_audit(y, membership={"race": "x"}) if False else \
            bias_audit("selected", data=pd.DataFrame({"selected": y}), membership={"race": 3})
    sex = np.array(["f", None] * 25, dtype=object)
    with pytest.raises(ValueError, match="sex has 25 assessed of unknown category"):
        bias_audit(y, sensitive_features={"sex": sex}, membership={"race": P})
    df = pd.DataFrame({"selected": y, "px": P["x"] * 0.5, "py": P["y"]})
    with pytest.raises(ValueError, match="not a row of probabilities"):
        bias_audit("selected", data=df, membership={"race": ["px", "py"]})
    with pytest.raises(ValueError, match="'pz' is not a column of data"):
        bias_audit("selected", data=df, membership={"race": ["px", "pz"]})


def test_the_callers_arrays_are_left_as_they_are():
    rng = np.random.default_rng(1)
    P = pd.DataFrame(rng.dirichlet([1, 1], 60), columns=["x", "y"])
    before = P.copy()
    z = np.repeat(np.arange(3), 20)
    y = rng.integers(0, 2, 60)
    y0, z0 = y.copy(), z.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bias_audit(y, membership={"race": P}, proxy=z)
    pd.testing.assert_frame_equal(P, before)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(z, z0)


# ----------------------------------------------------------------- fairness_report


def _report_data(n=1200, seed=9):
    rng = np.random.default_rng(seed)
    member = rng.dirichlet([0.6, 0.5, 0.4], 10)
    z = rng.integers(0, 10, n)
    y_pred = rng.integers(0, 2, n)
    y_true = rng.integers(0, 2, n)
    sex = rng.choice(["f", "m"], n)
    return z, y_true, y_pred, sex, pd.DataFrame(member[z], columns=CATS)


def test_the_report_gives_the_weighted_rates_and_the_bounds():
    from skfair_manifold.metrics import fairness_report

    z, y_true, y_pred, sex, P = _report_data()
    report = fairness_report(y_true, y_pred, sensitive_features={"sex": sex},
                             membership={"race": P}, proxy=z)
    race = report.by_group.loc["race"]
    for k in CATS:
        p = P[k].to_numpy()
        assert race.loc[k, "count"] == pytest.approx(p.sum())
        assert race.loc[k, "selection_rate"] == pytest.approx((p * y_pred).sum() / p.sum())
        positives = y_true == 1
        assert race.loc[k, "true_positive_rate"] == pytest.approx(
            (p * y_pred)[positives].sum() / p[positives].sum())
    sex_rows = report.by_group.loc["sex"]
    assert sex_rows.loc["f", "count"] == pytest.approx(np.sum(sex == "f"))
    audit = bias_audit(y_pred, membership={"race": P}, proxy=z, sensitive_features={"sex": sex},
                       min_share=0.0, intersect=False).table  # the report's default
    want = audit[audit.characteristic == "race"].reset_index(drop=True)
    pd.testing.assert_frame_equal(report.bounds, want)
    assert any("race is estimated" in s for s in report.headline)
    assert report.options["membership"]["race"]["n_strata"] == 10
    # without labels: the same weighted selection rates
    bare = fairness_report(None, y_pred, membership={"race": P}, proxy=z)
    np.testing.assert_allclose(bare.by_group.loc["race", "selection_rate"],
                               race["selection_rate"])


def test_the_report_of_an_eager_frame_is_the_rows_report():
    from skfair_manifold.metrics import fairness_report

    z, y_true, y_pred, sex, P = _report_data(n=600)
    df = pd.DataFrame({"t": y_true, "p": y_pred, "sex": sex, "zone": z,
                       "pa": P["a"], "pb": P["b"], "pc": P["c"]})
    a = fairness_report("t", "p", data=df, sensitive_features="sex",
                        membership={"race": {"a": "pa", "b": "pb", "c": "pc"}}, proxy="zone")
    b = fairness_report(y_true, y_pred, sensitive_features=pd.DataFrame({"sex": sex}),
                        membership={"race": P}, proxy=z)
    pd.testing.assert_frame_equal(a.by_group, b.by_group)
    pd.testing.assert_frame_equal(a.bounds, b.bounds)


@pytest.mark.parametrize("extra, match", [
    ({"X": np.zeros((1200, 2))}, "HFM"),
    ({"n_boot": 100}, "n_boot"),
    ({"target_type": "continuous"}, "binary report"),
])
def test_the_report_refuses_what_needs_observed_groups(extra, match):
    from skfair_manifold.metrics import fairness_report

    z, y_true, y_pred, _, P = _report_data()
    with pytest.raises(ValueError, match=match):
        fairness_report(y_true, y_pred, membership={"race": P}, proxy=z, **extra)
