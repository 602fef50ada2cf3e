"""method="auto"'s cost model: the choice on shapes, the unique rows counted, exact bit for bit."""

import numpy as np
import pytest

from skfair_manifold.distances import _cost
from skfair_manifold.distances._rows import auto_choice
from skfair_manifold.metrics import hfm_report

from .conftest import flipped_uniform


def plain_index(n_unique, p, group_counts, n_labels=2):
    """The index path's seconds written out by hand (groups of equal sizes)."""
    q_a, q_b, q_c = _cost.INDEX_QUERY_NS
    if p > _cost.INDEX_MAX_FEATURES:
        query = n_unique * (p + 1.0)
    else:
        query = min(q_a * q_b ** p * (n_unique / 1e5) ** (q_c * p * p), n_unique * (p + 1.0))
    r_a, r_b, r_c = _cost.INDEX_POINT_NS
    per_point = query + r_a + r_b * p + r_c * len(group_counts)
    for g in group_counts:
        share = 1.0 / g
        left_open = g * share ** _cost.NEIGHBOURS  # the rows of every group left open
        per_point += left_open * 0.5 * query
        if share ** _cost.NEIGHBOURS * n_unique >= 1:
            per_point += g * (1 - share) * _cost.INDEX_TREE_NS
    f_a, f_b = _cost.INDEX_FIXED_S
    return n_labels * (n_unique * per_point * 1e-9 + f_a + f_b * len(group_counts))


def plain_prediction(n, p, group_counts, n_unique_per_joint, m1=5, n_vectors=2, m2=10):
    """The model written out by hand (every unique row distinct): (exact s, approx s)."""
    joint = np.asarray(n_unique_per_joint, float)
    pairs = sum(a * (joint.sum() - a) for a in joint)
    e_a, e_b = _cost.ENGINE_NS
    l_a, l_b = _cost.LAYOUT_NS
    layout = n * (l_a + l_b * p) * 1e-9
    engine = pairs * (e_a + e_b * (p + 1)) * 1e-9 + _cost.JOINT_S * len(joint)
    engine = layout + min(engine, plain_index(joint.sum(), p, group_counts))
    lists = 0.0
    for g in group_counts:
        sizes = np.full(g, n / g)
        lists += float(np.sum(sizes * (n - sizes)))
    li_a, li_b = _cost.LISTS_NS
    lists *= (li_a + li_b * (p + 1)) * 1e-9
    checked = min(_cost.CHECKED_ROWS, joint.sum())
    pr_a, pr_b = _cost.PROJECTION_US
    band = (16 + 2 * m2) / 32
    g_a, g_b = _cost.GROUP_US
    approx = (2 * len(group_counts) * m1 * n_vectors * n * (pr_a + pr_b * p * band) * 1e-6
              + 2 * sum(group_counts) * m1 * n_vectors * n * (g_a + g_b * p) * 1e-6
              + layout + pairs * checked / joint.sum() * (e_a + e_b * (p + 1)) * 1e-9)
    return min(engine, lists), approx


SHAPES = [(n, p, g) for n in (1_000, 10_000, 100_000, 1_000_000) for p in (2, 20, 100)
          for g in (2, 5, 20)]


@pytest.mark.parametrize("n, p, g", SHAPES)
def test_choice_on_shapes_follows_the_model(n, p, g):
    sizes = [np.full(2, n // 2), np.full(g, n // g)]
    joint = np.full(2 * g, n // (2 * g))
    c = _cost.choose(n_samples=n, n_features=p, n_unique=int(joint.sum()), joint_sizes=joint,
                     group_sizes=sizes, m1=5, n_vectors=2, m2=10)
    exact_s, approx_s = plain_prediction(n, p, [2, g], joint)
    assert c.exact_s == pytest.approx(exact_s, rel=1e-9)
    assert c.approx_s == pytest.approx(approx_s, rel=1e-9)
    assert c.method == ("exact" if exact_s <= approx_s else "approx")
    if n == 1_000:
        assert c.method == "exact"  # every row is cheaper to compare than to project
    if n == 1_000_000 and p >= 20:
        assert c.method == "approx"
    if p == 2 and n >= 100_000:  # few features: the trees, far beyond the pairs' crossover
        assert c.method == "exact" and c.exact_path == "index"


def test_duplicated_rows_go_exact_far_beyond_the_continuous_crossover():
    n = 1_000_000
    kw = dict(n_samples=n, group_sizes=[[n // 8] * 8, [n // 2] * 2], m1=5, n_vectors=2, m2=12)
    cont = _cost.choose(n_features=12, n_unique=n, joint_sizes=[n // 16] * 16, **kw)
    dup = _cost.choose(n_features=12, n_unique=4000, joint_sizes=[250] * 16, **kw)
    assert cont.method == "approx" and dup.method == "exact" and dup.exact_path == "engine"
    # with few features the trees take continuous data too
    few = _cost.choose(n_features=3, n_unique=n, joint_sizes=[n // 16] * 16, **kw)
    assert few.method == "exact" and few.exact_path == "index"


def test_the_index_path_where_the_trees_cannot_run():
    n = 1_000_000
    kw = dict(n_samples=n, n_features=3, n_unique=n, joint_sizes=[n // 16] * 16,
              group_sizes=[[n // 8] * 8, [n // 2] * 2], m1=5, n_vectors=2, m2=12)
    assert _cost.choose(**kw).exact_path == "index"
    assert _cost.choose(index=False, **kw).method == "approx"
    # beyond the features of the fitted law a query is a visit of every point
    assert _cost.index_query_ns(n, _cost.INDEX_MAX_FEATURES + 1) == n * (
        _cost.INDEX_MAX_FEATURES + 2.0)
    assert _cost.index_query_ns(1_000, 16) <= 1_000 * 17.0


def test_cached_lists_make_exact_the_choice():
    n = 200_000
    c = _cost.choose(n_samples=n, n_features=20, n_unique=n, joint_sizes=[n // 4] * 4,
                     group_sizes=[[n // 2] * 2, [n // 2] * 2], m1=5, n_vectors=2, m2=11,
                     cache_state="lists")
    assert c.method == "exact" and c.exact_path == "cached lists"


def law_like(n=20_000, seed=0):
    rng = np.random.default_rng(seed)
    race = rng.choice(4, n, p=[.7, .15, .1, .05])
    sex = rng.integers(0, 2, n)
    X = np.column_stack([np.clip(np.round(rng.normal(36, 5, n)), 11, 48),
                         np.clip(np.round(rng.normal(3.2, .4, n), 1), 1.5, 4.0),
                         (rng.random(n) < .9).astype(float)])
    y = (0.1 * X[:, 0] + X[:, 1] + rng.normal(0, 1, n) > 7.0).astype(int)
    pred = np.where(rng.random(n) < 0.1, 1 - y, y)
    return X, y, pred, np.column_stack([race, sex])


def test_unique_rows_counted_as_a_plain_unique():
    X, y, pred, A = law_like(3000)
    labels = [y.astype(float), pred.astype(float)]
    codes = [A[:, 0], A[:, 1]]
    choice, engine = auto_choice(X, labels, codes, minmax=None, m1=5, m2=8, n_vectors=2,
                                 sample_size="auto")
    full = np.column_stack([X, y, pred, A])
    assert choice.n_unique == np.unique(full, axis=0).shape[0] < 3000
    joint = np.unique(A, axis=0)
    per_joint = [np.unique(full[(A == j).all(axis=1)], axis=0).shape[0] for j in joint]
    pairs = sum(a * (sum(per_joint) - a) for a in per_joint)
    assert choice.pairs == pairs


def test_auto_on_a_duplicated_table_is_exact_bit_for_bit():
    X, y, pred, A = law_like()  # 20,000 rows beyond any crossover of continuous data
    auto = hfm_report(y, pred, X=X, sensitive_features=A)
    exact = hfm_report(y, pred, X=X, sensitive_features=A, method="exact")
    assert auto.method == "exact" and auto.auto.method == "exact"
    assert auto.auto.n_unique < 8000
    for key in ("hfm_avg", "hfm_max", "d_avg", "d_max", "d_f_avg", "d_f_max"):
        assert auto[key] == exact[key]
    np.testing.assert_array_equal(auto.row_distances_true, exact.row_distances_true)
    np.testing.assert_array_equal(auto.row_distances_pred, exact.row_distances_pred)


def test_pilot_turns_auto_to_exact_when_the_sample_is_large(monkeypatch):
    import functools

    n = 3000
    X, A, y, pred = flipped_uniform(n, 2, groups=(2, 2), seed=3)
    from skfair_manifold.distances import _rows

    # an error target of 1e-6: a sample of every row
    monkeypatch.setattr(_rows, "adaptive_sample", functools.partial(
        _rows.adaptive_sample, target=1e-6))

    def approx_first(**kw):  # the choice beforehand made the approximation
        c = _cost.choose(**kw)
        c.method = "approx"
        return c

    monkeypatch.setattr(_rows, "choose", approx_first)
    auto = hfm_report(y, pred, X=X, sensitive_features=A, random_state=0)
    approx = hfm_report(y, pred, X=X, sensitive_features=A, random_state=0,
                        method="approx")
    assert approx.sample_size - 1000 + min(max(approx.sample_size, 4000),
                                           _cost.EXPECTED_MAX_CHECKS) >= n
    assert auto.method == "exact" and auto.auto.switched
    exact = hfm_report(y, pred, X=X, sensitive_features=A, method="exact")
    for key in ("hfm_avg", "hfm_max", "d_avg", "d_max"):
        assert auto[key] == exact[key]


def test_switch_rule_counts_rows():
    kw = dict(n_unique=10_000, pilot_size=1000)
    assert _cost.switch_after_pilot(sample_size=10_000, max_checks=10_000, **kw)
    assert not _cost.switch_after_pilot(sample_size=2000, max_checks=4000, **kw)
    # the maxima's check is counted at what it takes, not at its budget
    assert not _cost.switch_after_pilot(sample_size=5000, max_checks=6000, **kw)


def test_the_maxima_check_far_fewer_rows_than_their_budget():
    """The premise of the switch rule, on a table of continuous features: the
    maxima's check beyond the sample stays under EXPECTED_MAX_CHECKS."""
    X, A, y, pred = flipped_uniform(8000, 6, groups=(2, 3), seed=4)
    r = hfm_report(y, pred, X=X, sensitive_features=A, method="approx", random_state=0)
    assert r.max_check.n_checked < _cost.EXPECTED_MAX_CHECKS < r.max_check.budget
