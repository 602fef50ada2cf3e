"""The engines' work in chunks of rows gives the values of one pass, bit for bit.

The approximation's band, its float32 casts and its final distances, the
exact engine's scaled layout and the witnesses' search all run in chunks
bounded by the working memory; the chunking must not move any value.
"""

import numpy as np
import pytest
import sklearn

from skfair_manifold.distances import _approx, _approx_points, _exact_kernel
from skfair_manifold.distances._approx import approx_row_distances
from skfair_manifold.distances._exact import ExactEngine, nearest_scaled
from skfair_manifold.distances._exact_layout import _identical_rows
from skfair_manifold.distances._numerics import (
    feature_scaling,
    min_max,
    scale_of_top,
    scale_rows,
    scaled_features,
)


def _data(n=700, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 5))
    X[:, 1] = np.round(X[:, 1] * 3)  # ties
    X[:, 4] = X[:, 4] * 1e9 + 3e12  # a wide column far from zero
    X[: n // 7] = X[n // 7: 2 * (n // 7)]  # identical rows
    y = (X[:, 0] > 0.4).astype(float)
    # Two groups, and a dominant group (runs longer than the band).
    codes = [rng.integers(0, 2, n), (rng.random(n) < 0.9).astype(int)]
    return X, y, codes


@pytest.mark.parametrize("candidates", ["positions", "others"])
@pytest.mark.parametrize("scale", [True, False])
def test_approx_chunked_equals_one_pass(candidates, scale, monkeypatch):
    X, y, codes = _data()
    kwargs = dict(m1=3, m2=3, n_vectors=2, random_state=0, reduce="total",
                  candidates=candidates, minmax=min_max(X) if scale else None)
    rows, totals = approx_row_distances(X, y, codes, working_memory=64, **kwargs)
    # A few rows per chunk everywhere: the band (one tile per chunk), the
    # float32 casts and the final distances.
    monkeypatch.setattr(_approx_points, "CAST_ROWS", 7)
    rows_c, totals_c = approx_row_distances(X, y, codes, working_memory=1e-4, **kwargs)
    points = _approx._Points(np.zeros((700, 5)), np.zeros(700), None, codes, 3, 1e-4)
    assert points.tiles_per_chunk * points.tile < 700  # several chunks indeed
    np.testing.assert_array_equal(rows_c, rows)
    np.testing.assert_array_equal(totals_c, totals)


@pytest.mark.parametrize("scale", [True, False])
def test_approx_points_are_a_scaled_copy_bit_for_bit(scale):
    """The approximation scales rows as it needs them: a copy's values, its projections."""
    from threadpoolctl import threadpool_info

    X, y, codes = _data(n=40_000)
    minmax = min_max(X) if scale else None
    Z = np.column_stack([y, X])
    if scale:
        Z[:, 1:] = (Z[:, 1:] - minmax[0]) / minmax[1]
    Z -= Z.min(axis=0) / 2 + Z.max(axis=0) / 2
    Z /= scale_of_top(float(np.abs(Z).max()))  # the engines' power of two
    points = _approx._Points(X, y, minmax, codes, 3, 64)
    rows = np.random.default_rng(0).permutation(40_000)[:5000]
    np.testing.assert_array_equal(points.rows(rows), Z[rows])
    np.testing.assert_array_equal(points.rows(slice(None)), Z)
    w = np.random.default_rng(1).standard_normal(Z.shape[1])
    if any(lib.get("internal_api") == "openblas" for lib in threadpool_info()):
        np.testing.assert_array_equal(points.project(w), Z @ w)  # chunks: one product
    else:
        np.testing.assert_allclose(points.project(w), Z @ w, rtol=1e-12)


@pytest.mark.parametrize("scale", [True, False])
def test_streamed_scaling_equals_scaled_copy(scale):
    X, _, _ = _data()
    minmax = min_max(X) if scale else None
    Z, s = scaled_features(X, minmax)
    mid, s_c = feature_scaling(X, minmax, rows=11)
    assert s_c == s
    np.testing.assert_array_equal(scale_rows(X.copy(), minmax, mid, s_c), Z)
    np.testing.assert_array_equal(_identical_rows(X, (minmax, mid, s_c)), _identical_rows(Z))


def test_exact_engine_scales_its_own_layout():
    X, y, codes = _data()
    minmax = min_max(X)
    engine = ExactEngine(X, [y, 1 - y], codes, minmax=minmax)
    Z, scale = scaled_features(X, minmax)
    # The layout's rows are the scaled rows of X (one copy, scaled in chunks).
    first = np.empty(engine.layout.n_unique, dtype=np.intp)
    first[engine.layout.row_to_unique[::-1]] = np.arange(X.shape[0])[::-1]
    np.testing.assert_array_equal(engine.layout.X, Z[first])
    assert engine.layout.scale == scale


def test_witness_search_chunked_equals_one_pass():
    X, y, codes = _data(n=3000)
    Z, scale = scaled_features(X, min_max(X))
    rows = [0, 5, 2999]
    with sklearn.config_context(working_memory=64):
        one = nearest_scaled(Z, scale, y, codes[1], rows)
    with sklearn.config_context(working_memory=1e-3):  # chunks of 1,024 rows
        chunked = nearest_scaled(Z, scale, y, codes[1], rows)
    np.testing.assert_array_equal(one[0], chunked[0])
    np.testing.assert_array_equal(one[1], chunked[1])
    # Against a plain search over all rows of other groups.
    for i, j, dist in zip(rows, *chunked):
        others = np.flatnonzero(codes[1] != codes[1][i])
        total = np.hypot(_exact_kernel.pair_feature_distances(Z[i][None, :], Z[others]) * scale,
                         y[i] - y[others])
        assert j == others[np.argmin(total)] and dist == total.min()
