"""The one home of the input checks: frames as users have them, and clear messages."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from skfair_manifold.metrics import (
    demographic_parity,
    equal_opportunity,
    hfm_avg,
    hfm_max,
    predictive_quality_parity,
)
from skfair_manifold.utils import _validation as V
from skfair_manifold.utils._docstring import Substitution
from skfair_manifold.utils._parallel import run_blocks, working_memory_bytes

pl = pytest.importorskip("polars")

RNG = np.random.default_rng(0)
N = 60
X_NUM = RNG.random((N, 3))
Y_TRUE = RNG.integers(0, 2, N)
Y_PRED = RNG.integers(0, 2, N)
SEX = np.array(["f", "m"])[RNG.integers(0, 2, N)]
RACE = RNG.integers(0, 3, N)


# --------------------------------------------------------------------------- features

def test_nullable_frame_equals_numpy():
    frame = pd.DataFrame({
        "a": pd.array(X_NUM[:, 0], dtype="Float64"),
        "b": pd.array((X_NUM[:, 1] * 10).astype(int), dtype="Int64"),
        "c": pd.array(X_NUM[:, 2] > 0.5, dtype="boolean"),
        "d": X_NUM[:, 0],
    })
    expected = np.column_stack([X_NUM[:, 0], (X_NUM[:, 1] * 10).astype(int),
                                X_NUM[:, 2] > 0.5, X_NUM[:, 0]]).astype(float)
    np.testing.assert_array_equal(V.check_features(frame), expected)


def test_polars_frame_equals_numpy():
    frame = pl.DataFrame({"a": X_NUM[:, 0], "b": (X_NUM[:, 1] * 10).astype(int)})
    np.testing.assert_array_equal(
        V.check_features(frame), np.column_stack([X_NUM[:, 0], (X_NUM[:, 1] * 10).astype(int)]))


@pytest.mark.parametrize("missing", [pd.NA, None, np.nan])
def test_missing_feature_names_the_column(missing):
    frame = pd.DataFrame({"ok": pd.array([1, 2, 3, 4], dtype="Int64"),
                          "age": pd.array([1, 2, None, 4], dtype="Int64")})
    frame["age"] = frame["age"].astype(object)
    frame.loc[2, "age"] = missing
    with pytest.raises(ValueError, match=r"missing values .* in column 'age': 1 row\(s\), "
                                         r"first at row 2"):
        V.check_features(frame)


def test_polars_null_feature_names_the_column():
    frame = pl.DataFrame({"ok": [1.0, 2.0, 3.0], "income": [1, None, 3]})
    with pytest.raises(ValueError, match="in column 'income'"):
        V.check_features(frame)


def test_object_column_with_none_among_numbers():
    X = np.array([[1.0, 2], [None, 3], [4.0, 5]], dtype=object)
    with pytest.raises(ValueError, match="missing values .* in column 0"):
        V.check_features(X)
    X_ok = np.array([[1.0, 2], [3, 4]], dtype=object)
    np.testing.assert_array_equal(V.check_features(X_ok), [[1.0, 2.0], [3.0, 4.0]])


def test_text_column_named():
    frame = pd.DataFrame({"x": [1.0, 2.0], "city": ["a", "b"]})
    with pytest.raises(TypeError, match=r"column\(s\) \['city'\] hold non-numeric"):
        V.check_features(frame)
    frame = pl.DataFrame({"x": [1.0, 2.0], "city": ["a", "b"]})
    with pytest.raises(TypeError, match=r"\['city'\]"):
        V.check_features(frame)


def test_complex_features_refused():
    with pytest.raises(TypeError, match="complex"):
        V.check_features(np.ones((3, 2), dtype=complex))


def test_callers_arrays_are_not_modified():
    X = X_NUM.copy()
    frame = pd.DataFrame({"a": pd.array([1, 2, 3], dtype="Int64")})
    before = frame.copy()
    V.check_features(X)
    np.testing.assert_array_equal(X, X_NUM)
    V.check_features(frame)
    pd.testing.assert_frame_equal(frame, before)


# --------------------------------------------------------------------------- labels

def test_label_kinds_must_match():
    with pytest.raises(TypeError, match=V.MSG_LABEL_KINDS.split("{")[0]):
        V.check_pair(np.array(["a", "b", "a"]), [0, 1, 0])
    with pytest.raises(TypeError, match="y_true holds string values and y_pred numeric"):
        hfm_max(["a", "b", "a", "b"], [0, 1, 0, 1], X=X_NUM[:4], sensitive_features=[0, 0, 1, 1],
                method="exact")


def test_nan_prediction_is_an_error_not_a_negative():
    y_pred = np.r_[np.nan, Y_PRED[1:]].astype(float)
    with pytest.raises(ValueError, match=r"y_pred contains NaN or infinity \(1 values\)"):
        demographic_parity(Y_TRUE, y_pred, sensitive_features=SEX, pos_label=1)


def test_none_label_is_missing():
    y = np.array([1, None, 0, 1], dtype=object)
    with pytest.raises(ValueError, match="y_true contains missing values"):
        V.check_pair(y, [1, 1, 0, 1])


def test_nullable_labels_accepted():
    y_true = pd.Series(pd.array(Y_TRUE, dtype="Int64"))
    y_pred = pd.Series(pd.array(Y_PRED.astype(bool), dtype="boolean"))
    a = pd.Series(pd.array(SEX, dtype="string"), name="sex")
    expected = demographic_parity(Y_TRUE, Y_PRED.astype(bool), sensitive_features=SEX,
                                  min_group_size=1)  # 60 rows: every group compared
    assert demographic_parity(y_true, y_pred, sensitive_features=a, min_group_size=1) == expected


def test_nullable_label_with_na_is_missing():
    y_true = pd.Series(pd.array([1, None, 0, 1], dtype="Int64"))
    with pytest.raises(ValueError, match="y_true contains NaN"):
        demographic_parity(y_true, [1, 1, 0, 1], sensitive_features=[0, 0, 1, 1])


@pytest.mark.parametrize("metric", [demographic_parity, equal_opportunity,
                                    predictive_quality_parity])
def test_polars_everywhere_in_group_metrics(metric):
    a = pl.DataFrame({"sex": SEX, "race": RACE})
    every = {"min_group_size": 1}  # 60 rows: every group compared
    expected = metric(Y_TRUE, Y_PRED, sensitive_features=pd.DataFrame({"sex": SEX,
                                                                       "race": RACE}), **every)
    got = metric(pl.Series("y", Y_TRUE), pl.Series("p", Y_PRED), sensitive_features=a, **every)
    assert got == expected
    assert metric(Y_TRUE, Y_PRED, sensitive_features=pl.Series("sex", SEX), **every) == \
        metric(Y_TRUE, Y_PRED, sensitive_features=SEX, **every)


def test_polars_in_hfm():
    X = pl.DataFrame({"a": X_NUM[:, 0], "b": X_NUM[:, 1]})
    a = pl.DataFrame({"sex": SEX, "race": RACE})
    got = hfm_avg(pl.Series(Y_TRUE), pl.Series(Y_PRED), X=X, sensitive_features=a,
                  method="exact")
    expected = hfm_avg(Y_TRUE, Y_PRED, X=X_NUM[:, :2], sensitive_features=np.column_stack(
        [SEX, RACE.astype(str)]), method="exact")
    assert got == pytest.approx(expected, rel=1e-12)


def test_sample_weight_strings():
    with pytest.raises(TypeError, match="sample_weight must hold numbers"):
        demographic_parity(Y_TRUE, Y_PRED, sensitive_features=SEX, sample_weight=["a"] * N)
    with pytest.raises(ValueError, match=r"finite and non-negative; 1 weight\(s\)"):
        demographic_parity(Y_TRUE, Y_PRED, sensitive_features=SEX,
                           sample_weight=np.r_[-1.0, np.ones(N - 1)])


# --------------------------------------------------------------------------- sensitive

@pytest.mark.parametrize("column", [
    np.array([0.0, np.nan, 1.0, 1.0]),
    np.array(["a", None, "b", "b"], dtype=object),
    pd.Series(pd.array([1, None, 2, 2], dtype="Int64"), name="race"),
    pd.Series(pd.array(["a", None, "b", "b"], dtype="string"), name="race"),
    pd.Series(["a", np.nan, "b", "b"], name="race"),
    pl.Series("race", ["a", None, "b", "b"]),
    pl.Series("race", [1, None, 2, 2]),
])
def test_missing_sensitive_value_named(column):
    name = "race" if hasattr(column, "name") and column.name == "race" else 0
    with pytest.raises(ValueError, match=f"sensitive attribute {name!r} contains missing "
                                         r"values \(NaN, None or NA\): 1 row\(s\), first at row 1"):
        V.encode_sensitive(column, 4)


def test_mixed_sensitive_types():
    with pytest.raises(TypeError, match=r"'grp' mixes values of types .*int, str"):
        V.encode_sensitive(pd.DataFrame({"grp": pd.Series(["a", 1, "b", 2], dtype=object)}), 4)


def test_nullable_and_polars_sensitive_equal_numpy():
    expected = V.encode_sensitive(np.column_stack([SEX, RACE.astype(str)]), N)
    frames = [
        pd.DataFrame({"sex": pd.array(SEX, dtype="string"),
                      "race": pd.array(RACE.astype(str), dtype="string")}),
        pl.DataFrame({"sex": SEX, "race": RACE.astype(str)}),
    ]
    for frame in frames:
        codes, names, groups = V.encode_sensitive(frame, N)
        assert names == ["sex", "race"]
        for a, b in zip(codes, expected[0]):
            np.testing.assert_array_equal(a, b)
        for a, b in zip(groups, expected[2]):
            assert [str(v) for v in a] == [str(v) for v in b]


def test_single_group_and_lengths():
    with pytest.raises(ValueError, match="'s' has a single group"):
        V.encode_sensitive(pd.DataFrame({"s": [1, 1, 1]}), 3)
    with pytest.raises(ValueError, match="sensitive_features 0 has 2 rows but X has 3"):
        V.encode_sensitive([0, 1], 3)
    with pytest.raises(ValueError, match="no sensitive column"):
        V.encode_sensitive(np.empty((3, 0)), 3)


# --------------------------------------------------------------------------- columns

def test_resolve_columns_did_you_mean():
    frame = pd.DataFrame({"sex": [0, 1], "race": [1, 0], "age": [3, 4]})
    with pytest.raises(ValueError, match="Did you mean 'race'"):
        V.resolve_columns(frame, ["rase"])
    assert V.resolve_columns(frame, ["age", 0]) == ([2, 0], ["age", "sex"])
    assert V.resolve_columns(pl.from_dict({"sex": [0, 1], "age": [1, 2]}), "age") == \
        ([1], ["age"])
    with pytest.raises(ValueError, match="names column 'sex' twice"):
        V.resolve_columns(frame, ["sex", 0])
    with pytest.raises(ValueError, match="an array with 3 columns"):
        V.resolve_columns(np.zeros((2, 3)), [5])


def test_split_columns_keeps_the_library():
    frame = pl.DataFrame({"sex": [0, 1], "x": [1.0, 2.0]})
    A, rest = V.split_columns(frame, [0], drop=True)
    assert isinstance(A, pl.DataFrame) and A.columns == ["sex"]
    assert rest.columns == ["x"]


def test_column_list_refuses_a_bare_string():
    with pytest.raises(TypeError, match=r"got the string 'abc'.*Write \['abc'\]"):
        V.as_column_list("abc", "numerical_features")
    assert V.as_column_list(("a", "b"), "x") == ["a", "b"]


# --------------------------------------------------------------------------- docstrings

def test_substitution_leaves_other_braces():
    @Substitution(params="    x : int")
    def f():
        """Do.

        {params}

        >>> {"a": 1}
        """

    assert "    x : int" in f.__doc__ and '{"a": 1}' in f.__doc__


def test_substitution_under_no_docstring():
    def f():
        pass

    assert Substitution(params="x")(f).__doc__ is None


def test_import_under_python_OO():
    code = ("import skfair_manifold; import skfair_manifold.metrics; "
            "import skfair_manifold.distances; import skfair_manifold.situation_testing; "
            "import skfair_manifold.scorers; import skfair_manifold.datasets; "
            "from skfair_manifold.datasets import make_biased_decisions; "
            "make_biased_decisions(n_samples=100, random_state=0)")
    result = subprocess.run([sys.executable, "-OO", "-c", code], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr


# --------------------------------------------------------------------------- parallel

@pytest.mark.parametrize("n_jobs", [None, 1, 2, -1])
def test_run_blocks_keeps_the_order(n_jobs):
    tasks = list(range(17))
    assert run_blocks(lambda t: (t, t * t), tasks, n_jobs=n_jobs) == [(t, t * t) for t in tasks]
    assert run_blocks(len, [], n_jobs=n_jobs) == []


def test_working_memory_follows_sklearn():
    import sklearn

    with sklearn.config_context(working_memory=32):
        assert working_memory_bytes() == 32 * 2**20
    assert working_memory_bytes(2) == 2 * 2**20


# --------------------------------------------------------------------------- typing

def test_public_functions_carry_type_hints():
    import typing
    from pathlib import Path

    import skfair_manifold
    from skfair_manifold.datasets import load_ricci, make_biased_decisions

    for func in (demographic_parity, equal_opportunity, predictive_quality_parity,
                 load_ricci, make_biased_decisions):
        hints = typing.get_type_hints(func)
        assert "return" in hints, func.__name__
    assert typing.get_type_hints(demographic_parity)["return"] is float
    assert (Path(skfair_manifold.__file__).parent / "py.typed").is_file()


def test_as_pandas_frame_keeps_kinds_and_missing():
    frame = pl.DataFrame({"n": [1, None, 3], "s": ["a", None, "c"], "b": [True, False, True]})
    out = V.as_pandas_frame(frame)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["n", "s", "b"]
    assert np.isnan(out["n"][1]) and pd.isna(out["s"][1]) and out["b"].dtype == bool
    assert out["s"][0] == "a"
    native = pd.DataFrame({"x": [1]})
    assert V.as_pandas_frame(native) is native
    assert V.as_pandas_frame(X_NUM) is X_NUM


def test_one_rule_for_column_names():
    names = ["sex", "race", 3]
    assert V.locate_column("race", names) == 1
    assert V.locate_column(3, names) == 2  # a name first
    assert V.locate_column(-1, names) == 2 and V.locate_column(0, names) == 0
    assert V.locate_column(True, names) is None and V.locate_column("Race", names) is None
    assert V.locate_column("sex", ["sex"], has_names=False) is None
    assert V.did_you_mean("Rase", names) == " Did you mean 'race'?"
    assert V.did_you_mean("zzz", names) == ""
