"""The one reader of a column's kind: a table of inputs and the kind each one is read as."""

import datetime
import decimal

import numpy as np
import pandas as pd
import pytest

from skfair_manifold.utils._column_kind import KINDS, column_kind, value_kind


def objects(*values):
    """An object array of exactly these values (numpy would not nest lists or promote)."""
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


TABLE = [
    # numpy dtypes, read from the array
    (np.array([1, 2]), "int"),
    (np.array([1, 2], dtype=np.uint8), "int"),
    (np.array([1.5, np.nan]), "float"),
    (np.array([True, False]), "bool"),
    (np.array([1 + 2j]), "complex"),
    (np.array(["a", "b"]), "text"),
    (np.array([b"a"]), "text"),
    (np.array(["2020-01-01"], dtype="datetime64[ns]"), "datetime"),
    (np.array([3], dtype="timedelta64[s]"), "datetime"),
    (np.zeros(2, dtype=[("a", int)]), "other"),
    # object arrays, read value by value
    (objects(1, 2), "int"),
    (objects(np.int64(1), 2), "int"),
    (objects(1, 2.5), "float"),
    (objects(True, 2), "float"),
    (objects(True, np.bool_(False)), "bool"),
    (objects(decimal.Decimal("1.5")), "other"),
    (objects("a", np.str_("b")), "text"),
    (objects("a", 1), "mixed"),
    (objects(1, None), "mixed"),
    (objects(None, None), "other"),
    (objects(datetime.date(2020, 1, 1), pd.Timestamp("2021-01-01")), "datetime"),
    (objects(pd.Timestamp("2020-01-01", tz="UTC"), pd.NaT), "datetime"),
    (objects(datetime.datetime(2020, 1, 1), 5), "mixed"),
    (objects(1 + 2j), "complex"),
    (objects(), "empty"),
    # numpy and pandas dtypes
    (np.dtype("int32"), "int"),
    (np.dtype(object), "other"),
    (np.dtype("datetime64[us]"), "datetime"),
    (pd.Int64Dtype(), "int"),
    (pd.Float64Dtype(), "float"),
    (pd.BooleanDtype(), "bool"),
    (pd.StringDtype(), "text"),
    (pd.CategoricalDtype([1, 2]), "text"),
    (pd.DatetimeTZDtype(tz="UTC"), "datetime"),
    (pd.PeriodDtype("D"), "other"),
    # pandas Series: by their dtype, or their values for dtype object
    (pd.Series([1, 2], dtype="Int64"), "int"),
    (pd.Series(pd.date_range("2020-01-01", periods=2, tz="Europe/Paris")), "datetime"),
    (pd.Series(["a", "b"], dtype="category"), "text"),
    (pd.Series([1, "a"], dtype=object), "mixed"),
]


@pytest.mark.parametrize("values, kind", TABLE, ids=[f"{i}-{k}" for i, (_, k) in
                                                     enumerate(TABLE)])
def test_the_kind_of_each_input(values, kind):
    assert column_kind(values) == kind
    assert kind in KINDS


def test_polars_and_narwhals_dtypes_are_read_by_their_class():
    pl = pytest.importorskip("polars")
    nw = pytest.importorskip("narwhals")
    table = [
        (pl.Int8, "int"), (pl.UInt64(), "int"), (pl.Float32, "float"), (pl.Decimal(10, 2), "float"),
        (pl.Boolean, "bool"), (pl.String, "text"), (pl.Categorical, "text"),
        (pl.Enum(["update", "time"]), "text"),  # the categories' words are not the dtype
        (pl.Date, "datetime"), (pl.Datetime("us", "UTC"), "datetime"), (pl.Time, "datetime"),
        (pl.Duration("ms"), "datetime"), (pl.Object, "other"), (pl.List(pl.Int64), "other"),
        (nw.Int64, "int"), (nw.Int128(), "int"), (nw.Float64, "float"), (nw.Boolean, "bool"),
        (nw.String, "text"), (nw.Categorical, "text"), (nw.Datetime, "datetime"),
        (nw.Object, "other"), (nw.Unknown, "other"),
    ]
    for dtype, kind in table:
        assert column_kind(dtype) == kind, dtype
    assert column_kind(pl.Series([1, None])) == "int"
    assert column_kind(pl.Series(["a", None])) == "text"
    assert column_kind(pl.Series([datetime.date(2020, 1, 1)])) == "datetime"


def test_a_value_has_the_kind_its_column_would_have():
    assert [value_kind(v) for v in (True, 1, 1.5, 2j, "a", datetime.date(2020, 1, 1), None,
                                    b"a")] == ["bool", "int", "float", "complex", "text",
                                               "datetime", "other", "other"]
    assert value_kind(pd.NaT) == "datetime"  # a missing date is a date: the datetime rule
