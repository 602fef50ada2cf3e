"""The in-memory cell table read block by block (``rows_cell_table``) against the encoded path
(``cell_table`` of ``encode_sensitive``) and against a dictionary loop over the rows, for every
kind of sensitive column; missing values and single groups refused as before."""

import numpy as np
import pytest

from skfair_manifold.metrics import demographic_parity, fairness_report
from skfair_manifold.metrics._groups import _cells
from skfair_manifold.metrics._groups._cells import cell_table, rows_cell_table
from skfair_manifold.utils._validation import encode_column, encode_sensitive, fast_unique

pd = pytest.importorskip("pandas")


def _encoded(A, t, p, w=None):
    codes, names, groups = encode_sensitive(A, len(t))
    return cell_table(codes, names, groups, t, p, w)


def _assert_same(got, expected):
    assert got.attributes == expected.attributes
    assert len(got.groups) == len(expected.groups)
    for a, b in zip(got.groups, expected.groups):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
    np.testing.assert_array_equal(got.codes, expected.codes)
    np.testing.assert_array_equal(got.y_true, expected.y_true)
    np.testing.assert_array_equal(got.y_pred, expected.y_pred)
    np.testing.assert_array_equal(got.count, expected.count)
    np.testing.assert_allclose(got.weight, expected.weight, rtol=1e-12)
    np.testing.assert_allclose(got.weight_sq, expected.weight_sq, rtol=1e-12)
    assert got.weighted == expected.weighted


def _loop(columns, t, p, w):
    """Count, weight and squared weight per (values, t, p) by a dictionary over the rows."""
    out = {}
    for i in range(len(t)):
        key = (*(col[i] for col in columns), bool(t[i]), bool(p[i]))
        c, s, s2 = out.get(key, (0, 0.0, 0.0))
        out[key] = (c + 1, s + w[i], s2 + w[i] ** 2)
    return out


def _columns(rng, n):
    return {
        "int8 with negatives": rng.choice(np.array([-128, -3, 0, 127], dtype=np.int8), n),
        "uint8": rng.integers(0, 5, n).astype(np.uint8),
        "bool": rng.random(n) < 0.3,
        "int64 offset": rng.integers(10**12, 10**12 + 7, n),
        "int64 near its limits": rng.choice(np.array([-2**63, 2**63 - 1]), n),
        "uint64 high": rng.integers(0, 3, n).astype(np.uint64) + np.uint64(2**62),
        "uint16": rng.integers(0, 3, n).astype(np.uint16) * 1000,
        "strings": rng.choice(np.array(["a", "bb", "c"]), n),
        "floats": rng.choice(np.array([0.5, 1.5, -2.0]), n),
    }


@pytest.mark.parametrize("weighted", [False, True])
def test_every_column_kind_equals_the_encoded_table_and_a_loop(weighted, monkeypatch):
    monkeypatch.setattr(_cells, "_BLOCK_ROWS", 97)  # many blocks, a short last one
    rng = np.random.default_rng(3)
    n = 1000
    cols = _columns(rng, n)
    t = rng.random(n) < 0.5
    p = rng.random(n) < 0.4
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    for name, col in cols.items():  # each kind alone, as a 1-D array
        _assert_same(rows_cell_table(col, n, t, p, w), _encoded(col, t, p, w))
    frame = pd.DataFrame(cols)
    frame["category"] = pd.Categorical(rng.choice(["x", "y", "z"], n),
                                       categories=["z", "y", "x"])
    got = rows_cell_table(frame, n, t, p, w)
    _assert_same(got, _encoded(frame, t, p, w))
    # and against plain Python over the rows
    values = [frame[c].tolist() for c in frame.columns]
    expected = _loop(values, t, p, np.ones(n) if w is None else w)
    seen = {}
    for i in range(got.count.shape[0]):
        key = (*(got.groups[k][got.codes[i, k]] for k in range(len(values))),
               bool(got.y_true[i]), bool(got.y_pred[i]))
        seen[key] = (int(got.count[i]), got.weight[i], got.weight_sq[i])
    assert seen.keys() == expected.keys()
    for key, (c, s, s2) in expected.items():
        assert seen[key][0] == c
        assert seen[key][1] == pytest.approx(s, rel=1e-12)
        assert seen[key][2] == pytest.approx(s2, rel=1e-12)


def test_small_integer_columns_take_the_blocked_path_and_a_2d_array_works(monkeypatch):
    """Three int8 columns of 2, 5 and 8 values as one 2-D array (the benchmark's shape):
    counted without encoding; many combinations fall back to the encoded keys."""
    rng = np.random.default_rng(0)
    n = 5000
    A = np.column_stack([rng.integers(0, k, n) for k in (2, 5, 8)]).astype(np.int8)
    t, p = rng.random(n) < 0.5, rng.random(n) < 0.5
    calls = []
    real = _cells.cell_table
    monkeypatch.setattr(_cells, "cell_table", lambda *a, **k: calls.append(1) or real(*a, **k))
    _assert_same(rows_cell_table(A, n, t, p), _encoded(A, t, p))
    assert calls == []  # the blocked path
    wide = rng.integers(-1000, 1000, (n, 3)).astype(np.int16)  # 8e9 combinations
    _assert_same(rows_cell_table(wide, n, t, p), _encoded(wide, t, p))
    assert calls == [1]


def test_values_absent_from_a_range_are_not_groups():
    t = np.array([True, False, True, False])
    p = np.array([True, True, False, False])
    col = np.array([2, 9, 9, 2], dtype=np.int32)  # 3..8 never occur
    table = rows_cell_table(col, 4, t, p)
    np.testing.assert_array_equal(table.groups[0], [2, 9])
    assert table.groups[0].dtype == np.int32
    assert set(table.codes[:, 0].tolist()) == {0, 1}


def test_missing_values_and_a_single_group_are_refused_as_before():
    n = 6
    t = np.array([1, 0, 1, 0, 1, 0], dtype=bool)
    with pytest.raises(ValueError, match="missing"):
        rows_cell_table(np.array([0.0, 1.0, np.nan, 1.0, 0.0, 1.0]), n, t, t)
    with pytest.raises(ValueError, match="missing"):
        rows_cell_table(pd.Series([1, 2, None, 1, 2, 1], dtype="Int64"), n, t, t)
    with pytest.raises(ValueError, match="single group"):
        rows_cell_table(np.full(n, 3, dtype=np.int8), n, t, t)
    with pytest.raises(ValueError, match="single group"):
        rows_cell_table(np.column_stack([np.arange(n) % 2, np.zeros(n)]).astype(np.int8),
                        n, t, t)


def test_full_range_int8_is_counted_without_wrapping():
    """An int8 column from -128 to 127 (the subtraction of the minimum overflowed int8)."""
    y = np.array([-128, 127, 0, 127, -128], dtype=np.int8)
    np.testing.assert_array_equal(fast_unique(y), [-128, 0, 127])
    codes, values = encode_column(y, "a")
    np.testing.assert_array_equal(values[codes], y)
    a = np.array([-128, 127, 0, 127, -128, 0], dtype=np.int8)
    t = np.array([1, 0, 1, 1, 0, 0])
    p = np.array([1, 1, 1, 1, 0, 1])
    report = fairness_report(t, p, sensitive_features=a, min_group_size=1)
    assert report.by_group["count"].tolist() == [2, 2, 2]
    assert report.by_group["selection_rate"].tolist() == [0.5, 1.0, 1.0]
    assert demographic_parity(t, p, sensitive_features=a, min_group_size=1) == 0.5


def test_report_on_int8_columns_equals_the_report_on_strings():
    rng = np.random.default_rng(1)
    n = 3000
    A = np.column_stack([rng.integers(0, k, n) for k in (2, 5)]).astype(np.int8)
    y = (rng.random(n) < 0.4).astype(np.int8)
    p = (rng.random(n) < 0.5).astype(np.int8)
    w = rng.uniform(0.2, 3.0, n)
    small = fairness_report(y, p, sensitive_features=A, sample_weight=w, intersect=True)
    text = fairness_report(y, p, sensitive_features=A.astype(str), sample_weight=w,
                           intersect=True)
    np.testing.assert_allclose(small.by_group["selection_rate"].to_numpy(),
                               text.by_group["selection_rate"].to_numpy())
    np.testing.assert_allclose(small.gaps["demographic_parity_difference"].to_numpy(),
                               text.gaps["demographic_parity_difference"].to_numpy())


@pytest.mark.parametrize("values,expected", [
    ([0, 0, 0], [0]), ([1, 0, 1], [0, 1]), ([5, 7, 5], [5, 7]), ([-1, 1, -1], [-1, 1]),
    ([True, False], [False, True]), ([3, 4, 6, 4], [3, 4, 6])])
def test_fast_unique_of_small_integers(values, expected):
    for dtype in ({np.bool_} if isinstance(values[0], bool) else {np.int8, np.int64}):
        got = fast_unique(np.asarray(values, dtype=dtype))
        np.testing.assert_array_equal(got, np.asarray(expected, dtype=dtype))
        assert got.dtype == np.dtype(dtype)
