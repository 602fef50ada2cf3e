import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from skfair_manifold.distances import (
    accele_dist,
    approx_dist,
    extend_dist,
    extended_set_distance,
    set_distance,
)

from .conftest import brute_row_distances, make_data


def reference_accele_rows(X, y, a, w, m2):
    """Plain loop over Algorithm 3 as documented: band of m2 positions per side,
    other-group rows in it, else the nearest other-group row on that side."""
    Z = np.column_stack([y, X])
    a = np.asarray(a)
    proj = Z @ w
    order = np.argsort(proj, kind="stable")
    n = len(order)
    rows = np.empty(n)
    for s in range(n):
        i = order[s]
        best = np.inf
        for side in (-1, 1):
            found = False
            for t in range(1, m2 + 1):
                pos = s + side * t
                if 0 <= pos < n and a[order[pos]] != a[i]:
                    best = min(best, np.linalg.norm(Z[i] - Z[order[pos]]))
                    found = True
            if not found:
                pos = s + side
                while 0 <= pos < n and a[order[pos]] == a[i]:
                    pos += side
                if 0 <= pos < n:
                    best = min(best, np.linalg.norm(Z[i] - Z[order[pos]]))
        rows[i] = best
    return rows


@pytest.mark.parametrize("n_groups", [2, 3, 7])
@pytest.mark.parametrize("m2", [1, 3, 8])
def test_accele_dist_matches_plain_loop(n_groups, m2):
    X, y, A = make_data(n_groups + m2, n=90, n_groups=(n_groups,), ties=False)
    w = np.random.default_rng(m2).standard_normal(X.shape[1] + 1)
    rows = reference_accele_rows(X, y, A[:, 0], w, m2)
    d_max, d_sum = accele_dist(X, y, A[:, 0], w, m2=m2)
    assert_allclose(d_max, rows.max(), atol=1e-12, rtol=0)
    assert_allclose(d_sum, rows.sum(), atol=1e-10, rtol=0)


def test_accele_dist_skewed_groups_always_has_a_candidate():
    rng = np.random.default_rng(0)
    X = rng.random((200, 3))
    y = rng.integers(0, 2, 200).astype(float)
    a = np.zeros(200, dtype=int)
    a[:3] = 1  # 3 rows against 197
    w = rng.standard_normal(4)
    d_max, d_sum = accele_dist(X, y, a, w, m2=1)
    assert np.isfinite(d_max) and np.isfinite(d_sum)
    assert_allclose(d_sum, reference_accele_rows(X, y, a, w, 1).sum(), atol=1e-10)


@pytest.mark.parametrize("seed", range(20))
def test_approximation_never_below_exact(seed):
    X, y, A = make_data(seed, n=160, n_groups=(2, 5), ties=seed % 2 == 0)
    m1 = 1 + seed % 4
    exact = extended_set_distance(X, y, A, return_details=True)
    for reduce in ("row", "total"):
        approx = extend_dist(X, y, A, m1=m1, m2=1 + seed % 3, random_state=seed,
                             reduce=reduce, return_details=True)
        assert np.all(approx[2].d_max >= exact[2].d_max - 1e-9)
        assert np.all(approx[2].d_avg >= exact[2].d_avg - 1e-9)
        assert np.all(approx[2].row_distances >= exact[2].row_distances - 1e-9)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(4, 40), p=st.integers(1, 5), g=st.integers(2, 4),
       seed=st.integers(0, 10_000))
def test_property_row_distance_bounds(n, p, g, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, p)).astype(float)  # ties and duplicates are common
    y = rng.integers(0, 2, n).astype(float)
    a = rng.integers(0, g, n)
    a[:2] = [0, 1]
    exact = brute_row_distances(X, y, a)
    _, _, det = approx_dist(X, y, a, m1=2, m2=1, random_state=seed, return_details=True)
    assert np.all(det.row_distances[:, 0] >= exact - 1e-9)
    # m2 >= n - 1: every row is a candidate, the approximation is exact
    full = approx_dist(X, y, a, m1=1, m2=n, random_state=seed, return_details=True)
    assert_allclose(full[2].row_distances[:, 0], exact, atol=1e-9, rtol=0)


@pytest.mark.parametrize("n_groups", [2, 3, 7])
def test_equal_to_exact_when_m2_covers_the_data(n_groups):
    X, y, A = make_data(n_groups, n=70, n_groups=(n_groups,))
    exact = set_distance(X, y, A[:, 0])
    for reduce in ("row", "total"):
        approx = approx_dist(X, y, A[:, 0], m1=2, m2=70, random_state=0, reduce=reduce)
        assert_allclose(approx, exact, atol=1e-9, rtol=0)


def test_row_reduction_is_tighter_than_paper_totals():
    X, y, A = make_data(11, n=300, n_groups=(2, 4), ties=False)
    row = extend_dist(X, y, A, m1=5, random_state=3, reduce="row", return_details=True)
    tot = extend_dist(X, y, A, m1=5, random_state=3, reduce="total", return_details=True)
    assert np.all(row[2].d_max <= tot[2].d_max + 1e-12)
    assert np.all(row[2].d_avg <= tot[2].d_avg + 1e-12)


def test_reproducible_and_identical_for_any_n_jobs():
    X, y, A = make_data(5, n=400, n_groups=(2, 5), ties=False)
    one = extend_dist(X, y, A, m1=6, random_state=42, return_details=True)
    again = extend_dist(X, y, A, m1=6, random_state=42, return_details=True)
    two = extend_dist(X, y, A, m1=6, random_state=42, n_jobs=2, return_details=True)
    assert one[:2] == again[:2] == two[:2]
    assert np.array_equal(one[2].row_distances, two[2].row_distances)
    other = extend_dist(X, y, A, m1=6, random_state=43)
    assert other != one[:2]


def test_extend_dist_is_approx_dist_per_attribute():
    X, y, A = make_data(8, n=250, n_groups=(3, 4), ties=False)
    ext = extend_dist(X, y, A, m1=4, random_state=1, return_details=True)
    for k in range(2):
        single = approx_dist(X, y, A[:, k], m1=4, random_state=1)
        assert_allclose([ext[2].d_max[k], ext[2].d_avg[k]], single, atol=0, rtol=0)
    assert ext[0] == ext[2].d_max.max()
    assert_allclose(ext[1], ext[2].d_avg.mean())


def test_default_m2_is_the_papers():
    X, y, A = make_data(0, n=1000, n_groups=(2,), ties=False)
    _, _, det = approx_dist(X, y, A[:, 0], m1=1, random_state=0, return_details=True)
    assert det.m2 == 6  # ceil(2 * log10(1000))


def test_approximation_is_close_on_structured_data():
    """Clustered data: neighbours in the projection are neighbours in space."""
    rng = np.random.default_rng(0)
    centres = rng.random((20, 10)) * 10
    lab = rng.integers(0, 20, 2000)
    X = centres[lab] + 0.05 * rng.standard_normal((2000, 10))
    y = (lab % 2).astype(float)
    a = rng.integers(0, 3, 2000)
    exact = set_distance(X, y, a)
    approx = approx_dist(X, y, a, random_state=0)
    assert approx[1] >= exact[1] - 1e-12
    assert approx[1] <= 1.25 * exact[1]


def reference_accele_others(X, y, a, w, m2):
    """Plain loop for candidates="others": the m2 other-group rows nearest in
    projected order on each side (no band limit)."""
    Z = np.column_stack([y, X])
    a = np.asarray(a)
    order = np.argsort(Z @ w, kind="stable")
    n = len(order)
    rows = np.empty(n)
    for s in range(n):
        i = order[s]
        best = np.inf
        for side in (-1, 1):
            taken, pos = 0, s + side
            while 0 <= pos < n and taken < m2:
                if a[order[pos]] != a[i]:
                    best = min(best, np.linalg.norm(Z[i] - Z[order[pos]]))
                    taken += 1
                pos += side
        rows[i] = best
    return rows


@pytest.mark.parametrize("n_groups", [2, 3, 7])
@pytest.mark.parametrize("m2", [1, 3, 8])
def test_accele_dist_others_matches_plain_loop(n_groups, m2):
    # 40 rows: the widened band covers the whole data, so nothing is cut.
    X, y, A = make_data(n_groups * 10 + m2, n=40, n_groups=(n_groups,), ties=False)
    w = np.random.default_rng(m2).standard_normal(X.shape[1] + 1)
    rows = reference_accele_others(X, y, A[:, 0], w, m2)
    d_max, d_sum = accele_dist(X, y, A[:, 0], w, m2=m2, candidates="others")
    assert_allclose(d_max, rows.max(), atol=1e-12, rtol=0)
    assert_allclose(d_sum, rows.sum(), atol=1e-10, rtol=0)


def test_others_is_tighter_on_a_dominant_group():
    rng = np.random.default_rng(0)
    X = rng.random((3000, 10))
    y = rng.integers(0, 2, 3000).astype(float)
    a = (rng.random(3000) < 0.1).astype(int)  # 90% / 10%
    exact = set_distance(X, y, a)[1]
    pos = approx_dist(X, y, a, random_state=0)[1]
    oth = approx_dist(X, y, a, random_state=0, candidates="others")[1]
    assert exact - 1e-12 <= oth < pos
    assert oth / exact - 1 < 0.5 * (pos / exact - 1)


@pytest.mark.parametrize("share", [0.5, 0.9, 0.98])
@pytest.mark.parametrize("m2", [1, 4])
def test_accele_dist_others_matches_plain_loop_far_in_projected_order(share, m2):
    """A dominant group: the other-group candidates lie far away in projected order."""
    rng = np.random.default_rng(int(share * 100) + m2)
    n = 400
    X = rng.random((n, 3))
    y = rng.integers(0, 2, n).astype(float)
    a = (rng.random(n) > share).astype(int)
    a[:2] = [0, 1]
    w = rng.standard_normal(4)
    rows = reference_accele_others(X, y, a, w, m2)
    d_max, d_sum = accele_dist(X, y, a, w, m2=m2, candidates="others")
    assert_allclose(d_max, rows.max(), atol=1e-12, rtol=0)
    assert_allclose(d_sum, rows.sum(), atol=1e-10, rtol=0)
