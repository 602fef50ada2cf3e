"""The exact engine keeps the full dynamic range of the columns.

A column spanning 1e8 or more beside small ones, with rows tied on it, is the
case where the Gram form ``|a|^2 + |b|^2 - 2 a.b`` alone loses every digit of
the small columns; each test compares with a plain brute force by coordinate
differences.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from skfair_manifold.distances import extended_set_distance, set_distance
from skfair_manifold.distances._exact import exact_row_distances
from skfair_manifold.metrics import hfm_report

# every test by the pair blocks and by the k-d trees (the engine's two paths)
pytestmark = pytest.mark.usefixtures("engine_path")


def brute_rows(X, y, a):
    """Distance from each (y_i, x_i) to the nearest row of another group, one row at a time."""
    Z = np.column_stack([np.asarray(y, dtype=float), np.asarray(X, dtype=float)])
    a = np.asarray(a)
    out = np.empty(Z.shape[0])
    for i in range(Z.shape[0]):
        d = np.sqrt(((Z - Z[i]) ** 2).sum(axis=1))
        out[i] = d[a != a[i]].min()
    return out


def brute_rows_hypot(X, y, a):
    """The same with ``math.hypot`` per pair (no square overflows): small data only."""
    Z = np.column_stack([np.asarray(y, dtype=float), np.asarray(X, dtype=float)])
    a = np.asarray(a)
    n = Z.shape[0]
    return np.array([min(math.hypot(*(Z[i] - Z[j])) for j in range(n) if a[j] != a[i])
                     for i in range(n)])


def date_data(n=2000, seed=0):
    """A date in Unix milliseconds (30 distinct days) beside 3 binary features."""
    rng = np.random.default_rng(seed)
    date = 1.7e12 + rng.integers(0, 30, n) * 86_400_000.0
    X = np.column_stack([date, rng.integers(0, 2, (n, 3)).astype(float)])
    y = rng.integers(0, 2, n).astype(float)
    a = rng.integers(0, 2, n)
    return X, y, a


def test_set_distance_date_in_milliseconds():
    X, y, a = date_data()
    rows = brute_rows(X, y, a)
    d_max, d_avg, details = set_distance(X, y, a, return_details=True)
    assert_allclose(details.row_distances[:, 0], rows, rtol=1e-12, atol=0)
    assert_allclose([d_max, d_avg], [rows.max(), rows.mean()], rtol=1e-12, atol=0)
    assert d_max == pytest.approx(math.sqrt(2))  # not the 1.0 of the Gram form alone


def test_extended_set_distance_integer_code_times_1e9():
    rng = np.random.default_rng(1)
    n = 1500
    code = rng.integers(0, 40, n) * 1e9
    X = np.column_stack([code, rng.random((n, 2)), rng.integers(0, 2, n)])
    y = rng.integers(0, 2, n).astype(float)
    A = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 3, n)])
    ref = np.array([brute_rows(X, y, A[:, k]) for k in range(2)])
    d_max, d_avg, details = extended_set_distance(X, y, A, return_details=True)
    assert_allclose(details.row_distances, ref.T, rtol=1e-12, atol=0)
    assert_allclose(d_max, ref.max(), rtol=1e-12)
    assert_allclose(d_avg, ref.mean(axis=1).mean(), rtol=1e-12)


def test_hfm_report_exact_unscaled_date():
    X, y, a = date_data(n=1200, seed=2)
    rng = np.random.default_rng(3)
    y_pred = np.where(rng.random(y.size) < 0.2, 1 - y, y)
    r = hfm_report(y, y_pred, X=X, sensitive_features=a, method="exact", scale=False)
    d, d_f = brute_rows(X, y, a), brute_rows(X, y_pred, a)
    assert_allclose(r.row_distances_true[:, 0], d, rtol=1e-12)
    assert_allclose(r.row_distances_pred[:, 0], d_f, rtol=1e-12)
    assert_allclose(r.hfm_max, math.log(d_f.max() / d.max()), rtol=1e-12, atol=1e-15)
    assert_allclose(r.hfm_avg, math.log(d_f.mean() / d.mean()), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("span", [1e8, 1e10, 1e12, 1e15])
@pytest.mark.parametrize("centre", [0.0, 1e15])
def test_spans_with_ties_match_brute_force(span, centre):
    rng = np.random.default_rng(int(math.log10(span)))
    n = 400
    big = centre + rng.integers(0, 6, n) * (span / 5)
    X = np.column_stack([rng.random(n), big, rng.integers(0, 3, n) / 7.0])
    y = rng.integers(0, 2, n).astype(float)
    a = rng.integers(0, 3, n)
    got = exact_row_distances(X, [y], [a])[0, 0]
    assert_allclose(got, brute_rows(X, y, a), rtol=1e-12, atol=0)


def test_feature_times_1e300_keeps_the_small_columns():
    rng = np.random.default_rng(4)
    n = 120
    X = np.column_stack([rng.integers(0, 3, n) * 1e300, rng.random(n)])
    y = rng.integers(0, 2, n).astype(float)
    a = rng.integers(0, 2, n)
    r = hfm_report(y, y, X=X, sensitive_features=a, method="exact", scale=False)
    ref = brute_rows_hypot(X, y, a)
    assert r.d_avg > 0
    assert_allclose(r.row_distances_true[:, 0], ref, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    exponent=st.integers(0, 15),
    offset_exponent=st.integers(0, 15),
    n_levels=st.integers(1, 6),
    seed=st.integers(0, 2 ** 32 - 1),
)
def test_dynamic_range_property(exponent, offset_exponent, n_levels, seed):
    """Any span 1..1e15 and offset, few levels (ties), small columns: equal to brute force."""
    rng = np.random.default_rng(seed)
    n = 80
    big = 10.0 ** offset_exponent + rng.integers(0, n_levels, n) * 10.0 ** exponent
    small = rng.integers(0, 4, (n, 2)) / 4.0 + rng.random((n, 2)) * 1e-3
    X = np.column_stack([small[:, 0], big, small[:, 1]])
    y = rng.integers(0, 2, n).astype(float)
    A = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 3, n)])
    A[:3, 1] = [0, 1, 2]
    A[:2, 0] = [0, 1]
    got = exact_row_distances(X, [y, 1 - y], [A[:, 0], A[:, 1]])
    # the engine centres each column first: (a - c) - (b - c) differs from a - b by the rounding
    # of the centring, a few ulps of the small columns' magnitude (rows tied on the large
    # column differ by exactly 0 there)
    atol = 16 * np.finfo(np.float64).eps * np.abs(small).max()
    for l, lab in enumerate((y, 1 - y)):
        for k in range(2):
            assert_allclose(got[l, k], brute_rows(X, lab, A[:, k]), rtol=1e-12, atol=atol)


def test_values_do_not_depend_on_blocks_labels_or_subsets():
    """Every value is a direct distance: bit for bit the same however it is computed."""
    rng = np.random.default_rng(5)
    n = 700
    X = np.column_stack([rng.random((n, 6)), 1e9 * rng.integers(0, 4, n)])
    y1 = rng.integers(0, 2, n).astype(float)
    y2 = rng.integers(0, 3, n).astype(float)
    A = [rng.integers(0, 2, n), rng.integers(0, 3, n)]
    joint = exact_row_distances(X, [y1, y2], A)
    assert np.array_equal(joint[0], exact_row_distances(X, [y1], A)[0])
    assert np.array_equal(joint[1], exact_row_distances(X, [y2], A)[0])
    small = exact_row_distances(X, [y1, y2], A, working_memory=0.05)
    assert np.array_equal(small, joint)
    threads = exact_row_distances(X, [y1, y2], A, n_jobs=2, working_memory=0.05)
    assert np.array_equal(threads, joint)
    from skfair_manifold.distances._exact import ExactEngine

    rows = np.sort(rng.choice(n, 37, replace=False))
    engine = ExactEngine(X, [y1, y2], A)
    assert np.array_equal(engine.rows(rows), joint[:, :, rows])
