"""The exact engine's index path (k-d trees) against a brute force and the pair blocks.

The brute force is written out here: every pair of rows, the label as the
first coordinate, the nearest row of another group per row. The trees must
give the same values to 1e-12 (the brute force rounds differently) and the
pair blocks' values bit for bit, on data with ties, duplicated rows (in the
same and in other groups), both labellings, several attributes, lopsided
groups (the shared tree leaves rows open) and lattices (ties within the
margin: radius queries).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from skfair_manifold.distances import _exact_index
from skfair_manifold.distances._exact import ExactEngine
from skfair_manifold.distances._numerics import min_max
from skfair_manifold.distances._testing import exact_path
from skfair_manifold.metrics import hfm_report


def brute(X, y, a):
    """Distance from each ``(y_i, x_i)`` to the nearest row of another group, all pairs."""
    Z = np.column_stack([np.asarray(y, dtype=float), np.asarray(X, dtype=float)])
    d = np.sqrt(((Z[:, None, :] - Z[None, :, :]) ** 2).sum(axis=-1))
    a = np.asarray(a)
    return np.where(a[:, None] != a[None, :], d, np.inf).min(axis=1)


def tied_data(seed):
    """Ties, duplicates within and across groups, 1 to 3 attributes, two labellings."""
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(2, 260)), int(rng.integers(1, 6))
    kind = seed % 3
    if kind == 0:
        X = rng.integers(0, int(rng.integers(2, 5)), (n, p)).astype(float)  # a lattice
    elif kind == 1:
        X = rng.random((n, p))
    else:
        X = np.round(rng.random((n, p)) * 4) / 4
        X[: n // 3] = rng.random((n // 3, p))
    X[rng.integers(0, n, n // 4)] = X[rng.integers(0, n, n // 4)]  # repeated rows
    n_attr = int(rng.integers(1, 4))
    A = []
    for _ in range(n_attr):
        g = int(rng.integers(2, 6))
        share = rng.dirichlet(np.full(g, 0.3 if seed % 2 else 3.0))  # lopsided or even
        a = rng.choice(g, n, p=share)
        a[: min(g, n)] = np.arange(min(g, n))  # at least two groups present
        A.append(np.unique(a, return_inverse=True)[1])
    y = rng.integers(0, 2, n).astype(float)
    y_pred = np.where(rng.random(n) < 0.2, 1 - y, y)
    if seed % 5 == 0:
        y_pred = rng.integers(0, 3, n).astype(float)  # several classes
    return X, [y, y_pred], A


def both_paths(X, labels, A, minmax=None, **kw):
    engine = ExactEngine(X, labels, A, minmax=minmax)
    layout = engine.layout
    pairs = np.empty((layout.n_labels, layout.n_attr, layout.n_unique))
    for idx, values in engine._run(None, 1):
        pairs[:, :, idx] = values
    index = _exact_index.index_rows(layout, **kw)
    back = layout.row_to_unique
    return index[:, :, back], pairs[:, :, back]


@pytest.mark.parametrize("seed", range(60))
def test_trees_match_the_brute_force_and_the_pair_blocks(seed):
    X, labels, A = tied_data(seed)
    scaled = seed % 4 == 0
    minmax = min_max(X) if scaled else None
    index, pairs = both_paths(X, labels, A, minmax=minmax)
    assert np.array_equal(index, pairs)  # bit for bit
    Xs = (X - minmax[0]) / minmax[1] if scaled else X
    for l, y in enumerate(labels):
        for k, a in enumerate(A):
            assert_allclose(index[l, k], brute(Xs, y, a), rtol=1e-12, atol=1e-15)


def test_duplicates_across_groups_are_at_zero_and_others_are_not():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [3.0, 4.0], [3.0, 4.0]])
    y = np.array([0.0, 0.0, 1.0, 0.0, 0.0])
    a = np.array([0, 1, 1, 0, 0])
    index, pairs = both_paths(X, [y], [a])
    assert np.array_equal(index, pairs)
    # rows 0 and 1 share a point of two groups; row 2 differs by its label; rows 3
    # and 4 are one point of group 0 only
    assert index[0, 0].tolist() == [0.0, 0.0, 1.0, 5.0, 5.0]


def test_open_rows_and_ties_take_the_other_groups_tree_and_the_radius(monkeypatch):
    calls = {"complement": 0, "ball": 0}
    complement, ball = _exact_index._complement_search, _exact_index._ball

    def count_complement(*args):
        calls["complement"] += 1
        return complement(*args)

    def count_ball(*args):
        calls["ball"] += 1
        return ball(*args)

    monkeypatch.setattr(_exact_index, "_complement_search", count_complement)
    monkeypatch.setattr(_exact_index, "_ball", count_ball)
    monkeypatch.setattr(_exact_index, "NEIGHBOURS", 2)  # few neighbours: rows left open
    rng = np.random.default_rng(0)
    n = 400
    X = rng.integers(0, 4, (n, 2)).astype(float)  # a lattice: many ties
    a = (rng.random(n) < 0.9).astype(int)  # a lopsided attribute
    b = rng.integers(0, 3, n)
    y = rng.integers(0, 2, n).astype(float)
    index, pairs = both_paths(X, [y], [a, b])
    assert calls["complement"] > 0 and calls["ball"] > 0
    assert np.array_equal(index, pairs)
    for k, codes in enumerate((a, b)):
        assert_allclose(index[0, k], brute(X, y, codes), rtol=1e-12, atol=1e-15)


def test_blocks_and_workers_do_not_change_a_value():
    X, labels, A = tied_data(7)
    base, _ = both_paths(X, labels, A)
    small, _ = both_paths(X, labels, A, working_memory=1)  # blocks of 64 points
    threads, _ = both_paths(X, labels, A, working_memory=1, n_jobs=2)
    assert np.array_equal(small, base) and np.array_equal(threads, base)


def test_one_point_of_another_group():
    X = np.array([[0.0], [1.0], [2.0], [7.0]])
    y = np.zeros(4)
    a = np.array([0, 0, 0, 1])
    index, pairs = both_paths(X, [y], [a])
    assert index[0, 0].tolist() == [7.0, 6.0, 5.0, 5.0] and np.array_equal(index, pairs)


@pytest.mark.parametrize("factor", [1e-200, 1e200])
def test_scales_beyond_the_margins_fall_back_to_the_pair_blocks(factor):
    rng = np.random.default_rng(1)
    X = rng.random((300, 2)) * factor
    y = rng.integers(0, 2, 300).astype(float)
    engine = ExactEngine(X, [y], [rng.integers(0, 2, 300)])
    assert not _exact_index.index_usable(engine.layout)
    with exact_path("index"):
        assert engine.path == "engine"


def test_hfm_report_by_either_path_is_the_same_bit_for_bit():
    rng = np.random.default_rng(3)
    n = 3000
    X = np.column_stack([rng.integers(0, 30, n), rng.integers(0, 4, n), rng.random(n)])
    A = np.column_stack([rng.integers(0, 2, n), rng.choice(5, n, p=[.6, .2, .1, .05, .05])])
    y = (X[:, 0] > 15).astype(int)
    y_pred = np.where(rng.random(n) < 0.1, 1 - y, y)
    reports = {}
    for path in ("engine", "index"):
        with exact_path(path):
            reports[path] = hfm_report(y, y_pred, X=X, sensitive_features=A, method="exact")
    for key in ("hfm_avg", "hfm_max", "d_avg", "d_max", "d_f_avg", "d_f_max"):
        assert reports["engine"][key] == reports["index"][key]
    for key in ("row_distances_true", "row_distances_pred"):
        assert np.array_equal(reports["engine"][key], reports["index"][key])


def test_the_cost_model_takes_the_trees_on_many_rows_of_few_features():
    rng = np.random.default_rng(2)
    n = 20_000
    X = rng.random((n, 2))
    engine = ExactEngine(X, [rng.integers(0, 2, n).astype(float)], [rng.integers(0, 3, n)])
    assert engine.path == "index"
    wide = ExactEngine(rng.random((2_000, 40)), [np.zeros(2_000)], [rng.integers(0, 3, 2_000)])
    assert wide.path == "engine"  # many features: the pair blocks
