"""Extreme but finite inputs against an exact brute force in rational arithmetic."""

from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose

from skfair_manifold.distances import approx_dist, extend_dist, set_distance
from skfair_manifold.distances._numerics import MSG_INTEGER_PRECISION, MSG_RANGE


def rational_rows(X, y, a):
    """Exact distance to the nearest other-group row: Fractions, then a Decimal root."""
    Z = [[Fraction(v) for v in row] for row in np.column_stack([y, X]).tolist()]
    if np.asarray(X).dtype.kind in "iu":  # keep every bit of large integers
        Z = [[Fraction(int(v)) for v in row] for row in
             np.column_stack([np.asarray(y).astype(object), np.asarray(X).astype(object)])]
    a = list(a)
    out = []
    with localcontext() as ctx:
        ctx.prec = 40
        for i, zi in enumerate(Z):
            best = min(sum((p - q) ** 2 for p, q in zip(zi, zj))
                       for j, zj in enumerate(Z) if a[j] != a[i])
            out.append(float(Decimal(best.numerator).sqrt() / Decimal(best.denominator).sqrt()))
    return np.array(out)


def small_data(seed, n=36, p=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 9, (n, p)) / 4.0  # exact binary fractions, many ties
    X += rng.random((n, p)) / 8  # and distinct values
    y = rng.integers(0, 2, n).astype(float)
    a = rng.integers(0, 3, n)
    a[:3] = [0, 1, 2]
    return X, y, a


@pytest.mark.parametrize("factor", [1e200, 1e300, 1e-300, 1e-200])
@pytest.mark.parametrize("seed", range(3))
def test_exact_engine_on_huge_and_tiny_coordinates(factor, seed):
    X, y, a = small_data(seed)
    ref = rational_rows(X * factor, y, a)
    d_max, d_avg, det = set_distance(X * factor, y, a, return_details=True)
    assert np.all(np.isfinite(det.row_distances))
    assert_allclose(det.row_distances[:, 0], ref, rtol=1e-7, atol=0)
    assert_allclose([d_max, d_avg], [ref.max(), ref.mean()], rtol=1e-7)


@pytest.mark.parametrize("factor", [1e200, 1e300, 1e-300])
def test_labels_scaled_with_the_features_change_nothing_but_the_unit(factor):
    X, y, a = small_data(5)
    base = set_distance(X, y, a)
    assert_allclose(set_distance(X * factor, y * factor, a), np.multiply(base, factor),
                    rtol=1e-9)
    # the approximation ranks in single precision of the scaled points: the
    # same candidates at any scale, the same distances in the new unit
    base = approx_dist(X, y, a, m1=3, random_state=0)
    assert_allclose(approx_dist(X * factor, y * factor, a, m1=3, random_state=0),
                    np.multiply(base, factor), rtol=1e-9)


@pytest.mark.parametrize("factor", [1e200, 1e300])
def test_approximation_on_huge_coordinates_against_rationals(factor):
    X, y, a = small_data(2)
    ref = rational_rows(X * factor, y, a)
    # every row compared with every row: the approximation is exact
    full = approx_dist(X * factor, y, a, m1=1, m2=X.shape[0], random_state=0,
                       return_details=True)
    assert_allclose(full[2].row_distances[:, 0], ref, rtol=1e-7)
    some = approx_dist(X * factor, y, a, m1=2, m2=1, random_state=0, return_details=True)
    assert np.all(np.isfinite(some[2].row_distances))
    assert np.all(some[2].row_distances[:, 0] >= ref * (1 - 1e-9))


def test_tiny_features_under_a_unit_label_are_upper_bounds():
    X, y, a = small_data(3)
    ref = rational_rows(X * 1e-300, y, a)
    for reduce in ("row", "total"):
        d_max, d_avg = extend_dist(X * 1e-300, y, a, m1=3, random_state=0, reduce=reduce)
        assert 0 < ref.max() * (1 - 1e-9) <= d_max and ref.mean() * (1 - 1e-9) <= d_avg


def test_large_integers_keep_their_differences():
    X = np.array([[2**62], [2**62 + 1], [2**62 + 3], [2**62 + 7], [2**62 + 8]])
    a = [0, 1, 0, 1, 0]
    y = np.zeros(5)
    ref = rational_rows(X, y.astype(int), a)
    assert_allclose(ref, [1, 1, 2, 1, 1])
    d_max, d_avg, det = set_distance(X, y, a, return_details=True)
    assert_allclose(det.row_distances[:, 0], ref, rtol=0, atol=0)
    assert (d_max, d_avg) == (2.0, 6 / 5)
    # unsigned, and inside a DataFrame next to a float column
    assert set_distance(X.astype(np.uint64), y, a) == (d_max, d_avg)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"id": X[:, 0], "zero": np.zeros(5)})
    assert set_distance(frame, y, a) == (d_max, d_avg)
    assert_allclose(approx_dist(X, y, a, m1=2, m2=5, random_state=0), (d_max, d_avg),
                    rtol=0, atol=0)


def test_integers_without_a_float64_result_name_the_column():
    X = np.array([[0, 2**62], [1, 2**62 + 1], [2, 0], [3, 1]])
    with pytest.raises(ValueError, match="column 1 of X holds integers"):
        set_distance(X, [0, 0, 0, 0], [0, 1, 0, 1])
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"age": X[:, 0], "account": X[:, 1]})
    with pytest.raises(ValueError, match="column account of X"):
        approx_dist(frame, [0, 0, 0, 0], [0, 1, 0, 1])
    assert "2**53" in MSG_INTEGER_PRECISION


def test_a_range_beyond_float64_names_the_column():
    X = np.array([[0.0, -1.5e308], [1.0, 1.5e308], [2.0, 0.0], [3.0, 1.0]])
    with pytest.raises(ValueError, match="column 1 of X spans more than"):
        set_distance(X, [0, 0, 0, 0], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="column 1 of X spans more than"):
        approx_dist(X, [0, 0, 0, 0], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="column the label of the data"):
        approx_dist(X[:, :1], [-1.5e308, 1.5e308, 0, 0], [0, 1, 0, 1])
    assert "float64 range" in MSG_RANGE


def test_inputs_are_not_modified_by_the_centring():
    X = np.array([[2**62], [2**62 + 1], [2**62 + 5], [2**62 + 9]])
    X0 = X.copy()
    set_distance(X, [0.0] * 4, [0, 1, 0, 1])
    assert np.array_equal(X, X0) and X.dtype == X0.dtype


def _large_integer_frame(n=60, seed=0):
    """Integers near 2**60 (ties and small differences) beside a float column."""
    rng = np.random.default_rng(seed)
    ids = 2**60 + rng.integers(0, 40, n) * 3 + rng.integers(0, 2, n)
    score = rng.integers(0, 5, n) / 4.0
    y = rng.integers(0, 2, n)
    a = rng.integers(0, 3, n)
    a[:3] = [0, 1, 2]
    return ids, score, y, a


def test_every_container_gives_the_same_distances_with_large_integers():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    from skfair_manifold.metrics import hfm_report

    ids, score, y, a = _large_integer_frame()
    ref = rational_rows(np.column_stack([ids.astype(object), score.astype(object)]), y, a)
    containers = {
        "numpy int64 (one integer column)": np.column_stack([ids, np.zeros_like(ids)]),
        "pandas": pd.DataFrame({"id": ids, "score": score}),
        "pandas nullable Int64": pd.DataFrame({"id": pd.array(ids, dtype="Int64"),
                                               "score": score}),
        "polars": pl.DataFrame({"id": ids, "score": score}),
        "object array": np.column_stack([ids.astype(object), score.astype(object)]),
        "list of rows": [[int(i), float(s)] for i, s in zip(ids, score)],
    }
    numpy_ints = containers.pop("numpy int64 (one integer column)")
    got_ids = set_distance(numpy_ints, y, a, return_details=True)[2].row_distances[:, 0]
    assert_allclose(got_ids, rational_rows(numpy_ints.astype(object), y, a), rtol=1e-12)
    results = {}
    for name, X in containers.items():
        rows = set_distance(X, y, a, return_details=True)[2].row_distances[:, 0]
        assert_allclose(rows, ref, rtol=1e-12, atol=0, err_msg=name)
        r = hfm_report(y, y, X=X, sensitive_features=a, method="exact", scale=False)
        results[name] = (r.d_max, r.d_avg)
    assert len(set(results.values())) == 1, results
    assert results["pandas"][0] == pytest.approx(ref.max(), rel=1e-12)


def test_object_columns_of_python_integers_beyond_64_bits():
    X = np.array([[2**70], [2**70 + 1], [2**70 + 3], [2**70 + 7]], dtype=object)
    d_max, d_avg = set_distance(X, [0, 0, 0, 0], [0, 1, 0, 1])
    assert (d_max, d_avg) == (4.0, (1 + 1 + 2 + 4) / 4)
    wide = np.array([[0], [2**64]], dtype=object)
    with pytest.raises(ValueError, match="column 0 of X holds integers"):
        set_distance(wide, [0, 0], [0, 1])
