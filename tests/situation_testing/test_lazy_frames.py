"""CBN-DD on lazy frames: the GROUP BY path gives the in-memory flags, row for row.

The references are the in-memory auditor on the same rows (pandas) and, for
the counted q-values, the plain procedures on the expanded tests. Backends:
DuckDB, polars lazy and Dask here, a local Spark session behind ``slow``.
"""


import numpy as np
import pandas as pd
import pytest

from skfair_manifold.datasets import make_planted_bias
from skfair_manifold.situation_testing import SituationTestingAuditor, cell_verdicts
from skfair_manifold.situation_testing._selection._cbn import CBNSelector
from skfair_manifold.situation_testing._stats._pvalue import discrete_step_up, q_values

pytestmark = pytest.mark.filterwarnings("ignore:Dask support is moving:FutureWarning")

Q = ["sex", "region", "edu"]


def make_data(n=5000, seed=0, bias_share=0.5):
    X, y, _, _ = make_planted_bias(n, bias_share=bias_share, random_state=seed)
    X = X[["sex", "region", "edu", "colour"]].astype({"edu": int})
    return X, y


def importorskip(name):
    """Skip when ``name`` is missing or does not import here (pyarrow wants NumPy 2)."""
    return pytest.importorskip(name, exc_type=ImportError)


def _duckdb(df):
    duckdb = importorskip("duckdb")
    return duckdb.from_df(df)


def _polars_lazy(df):
    pl = importorskip("polars")
    importorskip("pyarrow")  # polars hands frames to pandas through pyarrow
    return pl.from_pandas(df).lazy()


def _dask(df):
    importorskip("pyarrow")  # dask.dataframe imports pyarrow
    dd = importorskip("dask.dataframe")
    return dd.from_pandas(df, npartitions=3)


def _rows(native, backend):
    """The ``flagged`` column of the returned frame by row id, as numpy."""
    if backend == "duckdb":
        out = native.df()
    elif backend == "polars-lazy":
        out = native.collect().to_pandas()
    elif backend == "dask":
        out = native.compute()
    else:
        out = native.toPandas()
    return out.sort_values("rid")["flagged"].to_numpy(dtype=bool)


BACKENDS = {"duckdb": _duckdb, "polars-lazy": _polars_lazy, "dask": _dask}

SETTINGS = [
    {},
    {"fdr_method": "dbh"},
    {"fdr_method": "by", "causal_effect": "pooled"},
    {"flag_rule": "significant", "bound": "newcombe"},
    {"fdr": None, "k": 80, "smoothing": 0.0},
]


def assert_same_flags(frame_of, backend, X, y, settings, graph=Q):
    params = dict(protected="sex", protected_value="female", graph=graph, k=50)
    params.update(settings)
    memory = SituationTestingAuditor(**params).fit(X, y)
    want = memory.flag(X, y)
    data = X.assign(approved=y, rid=np.arange(len(y)))
    frame = frame_of(data)
    lazy = SituationTestingAuditor(**params).fit(frame, "approved")
    got = _rows(lazy.flag(frame, "approved"), backend)  # the fitted object: fit's cells
    np.testing.assert_array_equal(got, want)
    fresh = _rows(lazy.flag(frame_of(data), "approved"), backend)  # counted by flag
    np.testing.assert_array_equal(fresh, want)
    assert lazy.q_ == memory.q_ and lazy.group_sizes_ == memory.group_sizes_
    return memory, lazy, frame, want


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(s) or "defaults")
def test_flags_equal_in_memory(backend, settings):
    X, y = make_data()
    memory, lazy, frame, want = assert_same_flags(BACKENDS[backend], backend, X, y, settings)
    assert want.sum() > 20  # the bias planted is found: the comparison is not of empty masks
    cells = cell_verdicts(lazy, frame, "approved")
    # every candidate is in one cell, and a cell's rates are those of its people in memory
    candidate = (X["sex"] == "female").to_numpy() & (y == 0)
    assert int(cells["n_people"].sum()) == int(candidate.sum())
    out = memory.transform(X)
    for row in cells.itertuples(index=False):
        rows = candidate & (X["region"] == row.region).to_numpy() & (X["edu"] == row.edu)
        np.testing.assert_array_equal(out[rows, 5], row.p_value)
        np.testing.assert_array_equal(out[rows, 2], row.diff)


def test_null_data_flags_nobody_on_either_path():
    X, y = make_data(4000, seed=3, bias_share=0.0)
    _, _, _, want = assert_same_flags(_duckdb, "duckdb", X, y, {})
    assert want.sum() <= 10


def test_graph_learned_on_a_sample_equals_in_memory():
    X, y = make_data(4000, seed=1)
    memory, lazy, _, _ = assert_same_flags(_duckdb, "duckdb", X, y, {}, graph=None)
    assert lazy.structure_info_["sample_rows"] == 4000  # below STRUCTURE_SAMPLE: every row
    assert set(lazy.q_) == {"region", "edu"}


def test_multiclass_decisions_with_positive_label():
    X, y = make_data(4000, seed=2)
    rng = np.random.default_rng(0)
    y3 = np.where(y == 1, "yes", rng.choice(["no", "later"], len(y)))
    assert_same_flags(_duckdb, "duckdb", X, y3, {"positive_label": "yes"})


def test_counted_q_values_equal_the_expanded_ones():
    rng = np.random.default_rng(0)
    p = np.round(rng.random(60), 2)  # ties within and across cells
    p[[3, 17]] = np.nan
    counts = rng.integers(1, 6, 60)
    expanded = np.repeat(p, counts)
    for method in ("bh", "by"):
        q = q_values(p, method=method, counts=counts)
        np.testing.assert_array_equal(np.repeat(q, counts), q_values(expanded, method=method))
    m1, m2 = rng.integers(5, 40, 60), rng.integers(5, 40, 60)
    s = np.minimum(rng.integers(0, 30, 60), m1 + m2)
    from skfair_manifold.situation_testing._stats._pvalue import fisher_pvalue
    x1 = np.minimum(s, m1) // 2 + np.maximum(0, s - m2)
    x1 = np.clip(x1, np.maximum(0, s - m2), np.minimum(s, m1))
    pv = fisher_pvalue(x1, m1, s - x1, m2)
    q, cut = discrete_step_up(pv, (m1, m2, s), level=0.2, counts=counts)
    qe, cute = discrete_step_up(np.repeat(pv, counts), tuple(np.repeat(a, counts) for a in
                                                              (m1, m2, s)), level=0.2)
    np.testing.assert_array_equal(np.repeat(q, counts), qe)
    assert cut == cute


def test_counted_selector_equals_the_expanded_one():
    rng = np.random.default_rng(1)
    Qv = rng.integers(0, 3, (40, 2)).astype(float)
    group, positive = rng.random(40) < 0.5, rng.random(40) < 0.4
    counts = rng.integers(1, 5, 40)
    nominal, ranges = np.array([True, False]), np.array([2.0, 2.0])
    counted = CBNSelector(Qv, np.arange(40), group, positive, nominal, ranges, 1.0,
                          count=counts)
    rows = np.repeat(np.arange(40), counts)
    plain = CBNSelector(Qv[rows], rows, group[rows], positive[rows], nominal, ranges, 1.0)
    for name in ("n", "npos", "p_c", "p_e_c"):
        np.testing.assert_array_equal(getattr(counted, name), getattr(plain, name))
    for a, b in zip(counted.rates(Qv, np.arange(40), 6), plain.rates(Qv, np.arange(40), 6)):
        np.testing.assert_array_equal(a, b)


def test_refusals():
    X, y = make_data(1000)
    relation = _duckdb(X.assign(approved=y, income=np.linspace(1, 2, 1000)))
    base = dict(protected="sex", protected_value="female", k=20)
    with pytest.raises(ValueError, match="only method='cbn' runs"):
        SituationTestingAuditor(method="knn", **base).fit(relation, "approved")
    with pytest.raises(TypeError, match="y must be the name of its decision column"):
        SituationTestingAuditor(graph=Q, **base).fit(relation, y)
    with pytest.raises(ValueError, match="'income' of Q is continuous"):
        SituationTestingAuditor(graph=[*Q, "income"], **base).fit(relation, "approved")
    with pytest.raises(ValueError, match="decision column 'approvd' is not a column"):
        SituationTestingAuditor(graph=Q, **base).fit(relation, "approvd")
    lazy = SituationTestingAuditor(graph=Q, **base).fit(relation, "approved")
    with pytest.raises(ValueError, match="fitted on a lazy frame"):
        lazy.transform(X)
    memory = SituationTestingAuditor(graph=Q, **base).fit(X, y)
    with pytest.raises(ValueError, match="fitted on rows in memory"):
        memory.flag(relation, "approved")
    with_null = _duckdb(X.assign(approved=y, edu=X["edu"].where(X["edu"] > 0)))
    with pytest.raises(ValueError, match="column 'edu' has missing values"):
        SituationTestingAuditor(graph=Q, **base).fit(with_null, "approved")


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
@pytest.mark.parametrize("settings", SETTINGS[:2], ids=lambda s: ",".join(s) or "defaults")
def test_spark_flags_equal_in_memory(spark, settings):
    X, y = make_data(3000)
    assert_same_flags(lambda df: spark.createDataFrame(df), "spark", X, y, settings)


def test_the_fitted_frame_object_is_scanned_once(monkeypatch):
    import pickle

    from skfair_manifold.situation_testing._lazy import _fit as _lazy

    X, y = make_data(2000)
    data = X.assign(approved=y)
    relation = _duckdb(data)
    calls = []
    real = _lazy._cells
    monkeypatch.setattr(_lazy, "_cells", lambda *a: calls.append(1) or real(*a))
    auditor = SituationTestingAuditor(protected="sex", protected_value="female", graph=Q,
                                      k=40).fit(relation, "approved")
    first = cell_verdicts(auditor, relation, "approved")
    auditor.flag(relation, "approved")
    assert len(calls) == 1  # fit's cells reused for the same object
    other = _duckdb(data)
    pd.testing.assert_frame_equal(cell_verdicts(auditor, other, "approved"), first)
    assert len(calls) == 2  # another object is counted again
    copy = pickle.loads(pickle.dumps(auditor))
    pd.testing.assert_frame_equal(cell_verdicts(copy, relation, "approved"), first)
    assert len(calls) == 3


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_structure_on_a_sample_drawn_by_the_engine(backend, monkeypatch):
    from skfair_manifold.situation_testing._lazy import _fit as _lazy

    monkeypatch.setattr(_lazy, "STRUCTURE_SAMPLE", 3000)
    X, y = make_data(6000, seed=5)
    frame = BACKENDS[backend](X.assign(approved=y))
    auditor = SituationTestingAuditor(protected="sex", protected_value="female", k=40,
                                      random_state=0).fit(frame, "approved")
    assert 0 < auditor.structure_info_["sample_rows"] <= 3000
    assert set(auditor.q_) == {"region", "edu"}  # the parents of the generator
    assert auditor.group_sizes_[0] + auditor.group_sizes_[1] == 6000  # counts: every row


@pytest.mark.parametrize("settings", [{}, {"fdr_method": "dbh"}, {"fdr": None}],
                         ids=["bh", "dbh", "alone"])
def test_the_cells_detectable_gap_is_the_in_memory_audits(settings):
    """On a lazy frame each cell states the smallest detectable gap that the in-memory
    report states for each of its people (same testers, same threshold)."""
    X, y = make_data()
    memory, lazy, frame, _ = assert_same_flags(_duckdb, "duckdb", X, y, settings)
    gaps = memory.report(X, y).audit["detectable_gap"]
    cells = cell_verdicts(lazy, frame, "approved")
    candidate = (X["sex"] == "female").to_numpy() & (y == 0)
    assert cells["detectable_gap"].notna().any()
    for row in cells.itertuples(index=False):
        rows = candidate & (X["region"] == row.region).to_numpy() & (X["edu"] == row.edu)
        np.testing.assert_array_equal(gaps[rows], row.detectable_gap)
