"""The undecided rows of the neighbour lists, answered through the Gram filter, bit for bit."""

import numpy as np
import pytest

from skfair_manifold.distances import _exact_kernel, _neighbour_lists
from skfair_manifold.distances._exact import exact_row_distances
from skfair_manifold.distances._numerics import min_max


def tied_fold(seed, n=1200):
    """Integer codes with heavy ties and repeated rows, on mixed scales."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(-2, 9, (n, 6)), 10_000 * rng.integers(1, 50, (n, 1)),
                         rng.integers(0, 3, (n, 3))]).astype(float)
    X[: n // 5] = X[n // 5: 2 * (n // 5)]  # repeated rows
    codes = [rng.integers(0, 2, n), rng.integers(0, 7, n), rng.integers(0, 4, n)]
    y = (X[:, 0] + rng.integers(0, 4, n) > 5).astype(float)
    return X, codes, y


def labellings(y, seed):
    rng = np.random.default_rng(seed)
    return [y, np.where(rng.random(y.size) < 0.1, 1 - y, y),
            np.where(rng.random(y.size) < 0.4, 1 - y, y), np.zeros(y.size),
            rng.integers(0, 3, y.size).astype(float), -1e6 * y]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("scaled", [False, True])
@pytest.mark.parametrize("length", [2, 8, 32])
def test_filtered_undecided_rows_equal_the_engine(monkeypatch, seed, scaled, length):
    monkeypatch.setattr(_neighbour_lists, "_PLAIN_ROWS", 10 ** 6)  # never the engine
    calls = []
    original = _neighbour_lists._filtered_rows
    monkeypatch.setattr(_neighbour_lists, "_filtered_rows",
                        lambda *a: calls.append(a[3].size) or original(*a))
    X, codes, y = tied_fold(seed)
    minmax = min_max(X) if scaled else None
    lists = _neighbour_lists.NeighbourLists(X, codes, length=length, minmax=minmax)
    for i, y_pred in enumerate(labellings(y, seed)):
        got = _neighbour_lists._answer(lists, X, y_pred, codes, None, minmax)
        ref = exact_row_distances(X, [y_pred], codes, minmax=minmax)[0]
        assert np.array_equal(got, ref), i
    assert sum(calls) > 0 or length == 32  # the filter answered undecided rows


def test_filter_computes_few_direct_pairs(monkeypatch):
    """The filter keeps a fraction of the rows of other groups for the direct distances."""
    monkeypatch.setattr(_neighbour_lists, "_PLAIN_ROWS", 10 ** 6)
    X, codes, y = tied_fold(3, n=3000)
    lists = _neighbour_lists.NeighbourLists(X, codes, length=4)
    sizes = []
    original = _exact_kernel.pair_feature_distances
    monkeypatch.setattr(_neighbour_lists, "pair_feature_distances",
                        lambda q, r: sizes.append(q.shape[0]) or original(q, r))
    y_pred = np.where(np.random.default_rng(3).random(y.size) < 0.2, 1 - y, y)
    undecided = lists.answer(y_pred)[1].sum()
    sizes.clear()
    got = _neighbour_lists._answer(lists, X, y_pred, codes, None, None)
    assert np.array_equal(got, exact_row_distances(X, [y_pred], codes)[0])
    assert undecided > 0
    assert sum(sizes) < 0.5 * undecided * X.shape[0]  # far fewer than all pairs


def test_row_value_order_is_lexsort_of_row_value_column():
    """The selection's one-key sort gives np.lexsort's order of (row, value, column)."""
    rng = np.random.default_rng(0)
    specials = np.array([-1.5, -0.0, 0.0, 2.5, np.inf, -np.inf, 1e-40, -1e-40, 3.0],
                        dtype=np.float32)
    for t in range(100):
        n = int(rng.integers(1, 3000))
        flat = np.unique(rng.integers(0, 50 * 1000, n))  # row-major positions
        q, c = np.divmod(flat, 1000)
        v = (rng.choice(specials, flat.size) if t % 2
             else rng.standard_normal(flat.size).astype(np.float32))
        got = _neighbour_lists._row_value_order(q, v)
        assert np.array_equal(got, np.lexsort((c, v, q))), t
