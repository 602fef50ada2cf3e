"""``data=``: the cell table computed in a frame's own engine equals the in-memory one.

Every backend installed is checked against the rows in memory (pandas columns
given as arrays): polars eager and lazy, DuckDB, pyarrow, Dask (threads here;
a process cluster below) and, behind the ``slow`` marker, a local Spark
session.
"""

import re

import numpy as np
import pandas as pd
import pytest

from skfair_manifold.metrics import (
    demographic_parity,
    equal_opportunity,
    fairness_report,
    predictive_quality_parity,
)
from skfair_manifold.metrics._groups._cells import cell_table
from skfair_manifold.metrics._groups._frame_cells import frame_cell_table
from skfair_manifold.utils._validation import encode_sensitive

SENSITIVE = ["sex", "region", "age_band"]
METRICS = (demographic_parity, equal_opportunity, predictive_quality_parity)
# Dask's support in narwhals announces its move to another package; not ours to act on
pytestmark = pytest.mark.filterwarnings("ignore:Dask support is moving:FutureWarning")


def make_frame(n=4000, seed=0, labels=(0, 1)):
    rng = np.random.default_rng(seed)
    sex = rng.choice(["female", "male"], n)
    region = rng.integers(0, 5, n)
    age = rng.integers(0, 8, n)
    p_true = 0.3 + 0.3 * (sex == "male") + 0.03 * region
    y = rng.random(n) < p_true
    p = rng.random(n) < np.clip(p_true + 0.1 * (age > 4) - 0.1, 0, 1)
    return pd.DataFrame({
        "y": np.where(y, labels[1], labels[0]), "p": np.where(p, labels[1], labels[0]),
        "sex": sex, "region": region, "age_band": age,
        "w": rng.gamma(2.0, 1.0, n),
    })


def reference(df, **options):
    weights = df["w"] if options.pop("weights", False) else None
    return fairness_report(df["y"], df["p"], sensitive_features=df[SENSITIVE],
                           sample_weight=weights, **options)


def assert_same_report(got, want):
    pd.testing.assert_series_equal(got.overall, want.overall, rtol=1e-12, atol=1e-12)
    for name in ("by_group", "gaps"):
        pd.testing.assert_frame_equal(getattr(got, name), getattr(want, name),
                                      check_index_type=False, rtol=1e-12, atol=1e-12)
    for name in ("by_group", "gaps"):
        a, b = getattr(got.intervals, name), getattr(want.intervals, name)
        pd.testing.assert_frame_equal(a, b, check_index_type=False, rtol=1e-12, atol=1e-12)
    assert got.headline == want.headline
    for key in ("favourable_text", "attributes", "n_samples", "weighted", "summary_label"):
        assert got.options[key] == want.options[key], key


# --------------------------------------------------------------------------- backends

def importorskip(name):
    """The module, or a skip naming why it cannot be imported (not only when absent)."""
    return pytest.importorskip(name, exc_type=ImportError)


_USABLE = {}


def usable(data, name):
    """``data`` once a tiny query through narwhals has run on its backend, else a skip.

    An environment of old versions (``make test-oldest``) may hold a frame library that
    its narwhals, or its NumPy, cannot drive: the skip says which.
    """
    if name not in _USABLE:
        try:
            frame_cell_table(data, y_true="y", y_pred="p", sensitive_features=["sex"])
            _USABLE[name] = None
        except ValueError:  # the data's own error (labels without pos_label): it ran
            _USABLE[name] = None
        except ImportError as exc:
            _USABLE[name] = f"{name} cannot run here: {exc}"
    if _USABLE[name] is not None:
        pytest.skip(_USABLE[name])
    return data


def _pandas(df):
    return df


def _polars_eager(df):
    pl = importorskip("polars")
    importorskip("pyarrow")  # polars reads pandas frames through pyarrow
    return usable(pl.from_pandas(df), "polars")


def _polars_lazy(df):
    pl = importorskip("polars")
    importorskip("pyarrow")
    return usable(pl.from_pandas(df).lazy(), "polars-lazy")


def _duckdb(df):
    duckdb = importorskip("duckdb")
    return usable(duckdb.from_df(df), "duckdb")


def _pyarrow(df):
    pa = importorskip("pyarrow")
    return usable(pa.Table.from_pandas(df, preserve_index=False), "pyarrow")


def _dask(df):
    dd = importorskip("dask.dataframe")
    return usable(dd.from_pandas(df, npartitions=3), "dask")


BACKENDS = {"pandas": _pandas, "polars": _polars_eager, "polars-lazy": _polars_lazy,
            "duckdb": _duckdb, "pyarrow": _pyarrow, "dask": _dask}


@pytest.fixture(scope="module")
def frame():
    return make_frame()


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("intersect", [False, True])
def test_report_equals_in_memory(frame, backend, weights, intersect):
    data = BACKENDS[backend](frame)
    want = reference(frame, weights=weights, intersect=intersect, min_group_size=20)
    got = fairness_report("y", "p", sensitive_features=SENSITIVE, data=data,
                          sample_weight="w" if weights else None, intersect=intersect,
                          min_group_size=20)
    assert_same_report(got, want)


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb", "dask"])
def test_cell_table_is_the_in_memory_table_cell_for_cell(frame, backend):
    data = BACKENDS[backend](frame)
    got, favourable, _ = frame_cell_table(data, y_true="y", y_pred="p",
                                          sensitive_features=SENSITIVE, sample_weight="w")
    codes, names, groups = encode_sensitive(frame[SENSITIVE], frame.shape[0])
    want = cell_table(codes, names, groups, frame["y"].to_numpy() == 1,
                      frame["p"].to_numpy() == 1, frame["w"].to_numpy())
    assert favourable == 1 and got.weighted
    for name in ("codes", "y_true", "y_pred", "count"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
    np.testing.assert_allclose(got.weight, want.weight, rtol=1e-12)
    np.testing.assert_allclose(got.weight_sq, want.weight_sq, rtol=1e-12)
    for a, b in zip(got.groups, want.groups):
        assert a.tolist() == b.tolist()


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb"])
@pytest.mark.parametrize("intersect", [False, True])
def test_bootstrap_from_cells_is_identical_for_the_same_seed(frame, backend, intersect):
    data = BACKENDS[backend](frame)
    options = dict(n_boot=300, random_state=7, intersect=intersect, min_group_size=20)
    want = reference(frame, **options)
    got = fairness_report("y", "p", sensitive_features=SENSITIVE, data=data, **options)
    assert got.intervals.method == want.intervals.method
    pd.testing.assert_frame_equal(got.intervals.gaps, want.intervals.gaps,
                                  check_index_type=False, rtol=0, atol=0)
    # and a different seed draws other replicates
    other = fairness_report("y", "p", sensitive_features=SENSITIVE, data=data,
                            **{**options, "random_state": 8})
    assert not other.intervals.gaps.equals(got.intervals.gaps)


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb"])
def test_weighted_bootstrap_from_cells_agrees_between_paths(frame, backend):
    """With weights the replicates also draw each cell's spread of weights (from its sum of
    squared weights, summed in another order by the engine): equal up to rounding."""
    data = BACKENDS[backend](frame)
    options = dict(n_boot=300, random_state=7, min_group_size=20)
    want = reference(frame, weights=True, **options)
    got = fairness_report("y", "p", sensitive_features=SENSITIVE, data=data,
                          sample_weight="w", **options)
    assert want.intervals.method == got.intervals.method == "bootstrap"
    pd.testing.assert_frame_equal(got.intervals.gaps, want.intervals.gaps,
                                  check_index_type=False, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb", "dask", "pandas"])
@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("options", [{}, {"intersect": True}, {"kind": "ratio"},
                                     {"method": "to_overall", "aggregate": "mean"}])
def test_group_metrics_equal_in_memory(frame, backend, metric, options):
    data = BACKENDS[backend](frame)
    want = metric(frame["y"], frame["p"], sensitive_features=frame[SENSITIVE],
                  sample_weight=frame["w"], **options)
    got = metric("y", "p", sensitive_features=SENSITIVE, data=data, sample_weight="w",
                 **options)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-14)


def test_text_labels_with_pos_label(frame):
    text = make_frame(labels=("deny", "grant"))
    want = reference(text, pos_label="grant", min_group_size=20)
    got = fairness_report("y", "p", sensitive_features=SENSITIVE, pos_label="grant",
                          data=_duckdb(text), min_group_size=20)
    assert_same_report(got, want)
    assert "'grant'" in got.options["favourable_text"]


def test_boolean_labels(frame):
    booleans = frame.assign(y=frame["y"] == 1, p=frame["p"] == 1)
    want = reference(booleans, min_group_size=20)
    got = fairness_report("y", "p", sensitive_features=SENSITIVE,
                          data=_polars_lazy(booleans), min_group_size=20)
    assert_same_report(got, want)


# ----------------------------------------------------------------------------- errors

@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb"])
def test_missing_column_is_named(frame, backend):
    data = BACKENDS[backend](frame)
    with pytest.raises(ValueError, match=r"sensitive_features column 'regoin' is not a column"
                                         r".*Did you mean 'region'"):
        fairness_report("y", "p", sensitive_features=["sex", "regoin"], data=data)
    with pytest.raises(ValueError, match="sample_weight column 'weight' is not a column"):
        demographic_parity("y", "p", sensitive_features="sex", data=data,
                           sample_weight="weight")
    with pytest.raises(ValueError, match="y_pred column 'pred' is not a column"):
        equal_opportunity("y", "pred", sensitive_features="sex", data=data)


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb"])
def test_non_binary_label_without_pos_label_has_the_in_memory_message(backend):
    df = make_frame(n=300)
    df["y"] = df["y"] + np.arange(300) % 3  # classes 0, 1, 2, 3
    with pytest.raises(ValueError) as in_memory:
        fairness_report(df["y"], df["p"], sensitive_features=df["sex"])
    with pytest.raises(ValueError) as lazy_error:
        fairness_report("y", "p", sensitive_features="sex", data=BACKENDS[backend](df))
    assert "Pass pos_label=" in str(lazy_error.value)
    assert str(lazy_error.value) == str(in_memory.value)
    with pytest.raises(ValueError, match=re.escape("pos_label=7 occurs neither")):
        demographic_parity("y", "p", sensitive_features="sex", pos_label=7,
                           data=BACKENDS[backend](df))


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb", "dask"])
def test_methods_that_need_rows_are_refused_on_a_lazy_frame(frame, backend):
    from sklearn.linear_model import LogisticRegression

    data = BACKENDS[backend](frame)
    with pytest.raises(ValueError, match=r"HFM \(X=\) needs the rows in memory"):
        fairness_report("y", "p", sensitive_features=SENSITIVE, data=data,
                        X=frame[["region", "age_band"]])
    model = LogisticRegression().fit(frame[["region", "age_band"]], frame["y"])
    with pytest.raises(ValueError, match=r"discriminative risk \(estimator=\) needs the rows"):
        fairness_report("y", "p", sensitive_features=SENSITIVE, data=data, estimator=model)


def test_an_eager_frame_keeps_hfm(frame):
    small = frame.iloc[:300]
    X = small[["region", "age_band", "w"]].to_numpy(dtype=float)
    got = fairness_report("y", "p", sensitive_features=["sex"], data=_polars_eager(small),
                          X=X, min_group_size=20, random_state=0)
    want = fairness_report(small["y"], small["p"], sensitive_features=small[["sex"]], X=X,
                           min_group_size=20, random_state=0)
    pd.testing.assert_frame_equal(got.hfm, want.hfm)
    assert_same_report(got, want)


def test_column_names_without_data_are_explained(frame):
    with pytest.raises(ValueError, match=r"y_true='y' is a column name, which needs data="):
        fairness_report("y", "p", sensitive_features=frame["sex"])
    with pytest.raises(ValueError, match=r"sample_weight='w' is a column name"):
        demographic_parity(frame["y"], frame["p"], sensitive_features=frame["sex"],
                           sample_weight="w")


def test_data_must_be_a_frame_and_names_strings(frame):
    from skfair_manifold.utils._sklearn_compat import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="'data' parameter"):
        fairness_report("y", "p", sensitive_features="sex", data={"y": [1, 0]})
    with pytest.raises(TypeError, match="with data= given, sensitive_features must be a column"):
        demographic_parity("y", "p", sensitive_features=[0, 1], data=_polars_lazy(frame))


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb"])
def test_missing_values_are_refused(frame, backend):
    df = frame.astype({"sex": object}).copy()
    df.loc[5, "sex"] = None
    with pytest.raises(ValueError, match="sensitive attribute 'sex' contains missing values"
                                         r" \(null or NaN\) in 1 row"):
        fairness_report("y", "p", sensitive_features=SENSITIVE, data=BACKENDS[backend](df))
    df = frame.copy()
    df["w"] = df["w"].astype(float)
    df.loc[3, "w"] = -1.0
    with pytest.raises(ValueError, match="sample_weight column 'w' must be finite and "
                                         "non-negative"):
        demographic_parity("y", "p", sensitive_features="sex", sample_weight="w",
                           data=BACKENDS[backend](df))
    df = frame.astype({"y": float}).copy()
    df.loc[2, "y"] = np.nan
    with pytest.raises(ValueError, match="y_true column 'y' contains missing values"):
        demographic_parity("y", "p", sensitive_features="sex", data=BACKENDS[backend](df))


def test_the_callers_frame_is_not_modified(frame):
    before = frame.copy()
    fairness_report("y", "p", sensitive_features=SENSITIVE, data=frame, sample_weight="w")
    pd.testing.assert_frame_equal(frame, before)


# ------------------------------------------------------------------------------ clusters

def test_dask_on_a_process_cluster_equals_in_memory(frame):
    distributed = importorskip("distributed")
    dd = importorskip("dask.dataframe")
    _dask(frame)  # skips where this environment cannot run Dask through narwhals
    want = reference(frame, weights=True, intersect=True, min_group_size=20)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        data = dd.from_pandas(frame, npartitions=4)
        got = fairness_report("y", "p", sensitive_features=SENSITIVE, data=data,
                              sample_weight="w", intersect=True, min_group_size=20)
        gap = demographic_parity("y", "p", sensitive_features=SENSITIVE, data=data)
    assert_same_report(got, want)
    assert gap == pytest.approx(demographic_parity(frame["y"], frame["p"],
                                                   sensitive_features=frame[SENSITIVE]))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
@pytest.mark.parametrize("weights", [False, True])
def test_spark_equals_in_memory(frame, spark, weights):
    data = spark.createDataFrame(frame)
    for intersect in (False, True):
        want = reference(frame, weights=weights, intersect=intersect, min_group_size=20,
                         n_boot=0 if weights else 200, random_state=3)
        got = fairness_report("y", "p", sensitive_features=SENSITIVE, data=data,
                              sample_weight="w" if weights else None, intersect=intersect,
                              min_group_size=20, n_boot=0 if weights else 200,
                              random_state=3)
        assert_same_report(got, want)
    with pytest.raises(ValueError, match="y_true column 'label' is not a column"):
        demographic_parity("label", "p", sensitive_features="sex", data=data)


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb"])
def test_float_labels_take_the_indicator_query(frame, backend):
    """Float labels are grouped as indicators, checked by each cell's smallest and largest."""
    floats = frame.astype({"y": float, "p": float})
    want = reference(floats, weights=True, min_group_size=20)
    got = fairness_report("y", "p", sensitive_features=SENSITIVE, sample_weight="w",
                          data=BACKENDS[backend](floats), min_group_size=20)
    assert_same_report(got, want)
    floats.loc[3, "y"] = 0.5
    with pytest.raises(ValueError) as in_memory:
        demographic_parity(floats["y"], floats["p"], sensitive_features=floats["sex"])
    with pytest.raises(ValueError) as lazy_error:
        demographic_parity("y", "p", sensitive_features="sex", data=BACKENDS[backend](floats))
    assert str(lazy_error.value) == str(in_memory.value)
