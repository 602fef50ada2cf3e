"""Records as users have them: bad columns, identifiers, continuous attributes,
the strata of the structure search, set_output, the bounds and a dask cluster."""

import re
import warnings

import numpy as np
import pytest

from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.situation_testing import _checks as A
from skfair_manifold.situation_testing import _records as R
from skfair_manifold.situation_testing._selection import _structure as S
from skfair_manifold.situation_testing._selection._citests import _strata_code
from skfair_manifold.situation_testing._stats._interval import diff_bounds
from skfair_manifold.datasets import make_planted_bias

pd = pytest.importorskip("pandas")


def msg(template):
    parts = re.split(r"\{[^}]*\}", template)
    return ".*".join(re.escape(p) for p in parts)


def frame(n=300, seed=0):
    rng = np.random.RandomState(seed)
    sex = np.where(rng.rand(n) < 0.5, "f", "m").astype(object)
    a = rng.randint(0, 3, n)
    x = rng.normal(size=n)
    y = (rng.rand(n) < 0.2 + 0.2 * a + 0.1 * (x > 0) - 0.15 * (sex == "f")).astype(int)
    return pd.DataFrame({"sex": sex, "a": a, "x": x}), y


def auditor(**kw):
    base = dict(protected="sex", protected_value="f", k=10)
    base.update(kw)
    return SituationTestingAuditor(**base)


# --- point 8: a clear error for each bad input ------------------------------------------
def test_a_column_mixing_strings_and_numbers():
    X, y = frame()
    X["a"] = X["a"].astype(object)
    X.loc[3, "a"] = "three"
    with pytest.raises(TypeError, match=msg(R.MSG_MIXED_TYPES)) as info:
        auditor().fit(X, y)
    assert "'a'" in str(info.value)
    # and at transform, against a column fitted as numbers
    X2, y2 = frame()
    est = auditor().fit(X2, y2)
    with pytest.raises(TypeError, match=msg(R.MSG_MIXED_TYPES)):
        est.transform(X)


def test_a_datetime_column():
    X, y = frame()
    X["when"] = pd.date_range("2020-01-01", periods=X.shape[0], freq="D")
    with pytest.raises(TypeError, match=msg(R.MSG_DATETIME)) as info:
        auditor().fit(X, y)
    assert "'when'" in str(info.value)
    # all other columns numeric: the frame would otherwise fail in numpy's promotion
    numeric = X.assign(sex=(X["sex"] == "f").astype(int))
    with pytest.raises(TypeError, match=msg(R.MSG_DATETIME)) as info:
        auditor(protected_value=1).fit(numeric, y)
    assert "'when'" in str(info.value)
    est = auditor().fit(X.drop(columns="when"), y)
    with pytest.raises(TypeError, match=msg(R.MSG_DATETIME)):
        est.transform(X.drop(columns="a"))


def test_a_graph_with_a_nested_list():
    X, y = frame()
    with pytest.raises(TypeError, match=msg(S.MSG_GRAPH_NODE_TYPE)):
        auditor(graph={"y": [["a"]]}).fit(X, y)
    with pytest.raises(TypeError, match=msg(S.MSG_GRAPH_NODE_TYPE)):
        auditor(graph=[["a"]]).fit(X, y)


def test_a_decision_not_among_the_fitted_classes():
    X, y = frame()
    est = auditor().fit(X, y)
    y2 = y.copy()
    y2[5] = 7
    for method in (est.flag, est.report):
        with pytest.raises(ValueError, match=msg(A.MSG_UNKNOWN_DECISION)):
            method(X, y2)


@pytest.mark.parametrize("rows", [lambda n: np.full(n, n), lambda n: np.full(n, -2),
                                  lambda n: np.arange(n - 1), lambda n: np.zeros(n) + 0.5])
def test_fitted_rows_out_of_range(rows):
    X, y = frame()
    est = auditor().fit(X, y)
    with pytest.raises(ValueError, match=msg(A.MSG_FITTED_ROWS)):
        est.report(X, y, fitted_rows=rows(X.shape[0]))


@pytest.mark.parametrize("method", ["knn", "cbn"])
def test_a_column_whose_range_overflows(method):
    X, y = frame()
    X["x"] = np.where(np.arange(X.shape[0]) % 2 == 0, 1e308, -1e308)
    with pytest.raises(ValueError, match=msg(R.MSG_RANGE_OVERFLOW)) as info:
        auditor(method=method).fit(X, y)
    assert "'x'" in str(info.value)


def test_callers_arrays_are_not_modified():
    X, y = frame()
    before, ybefore = X.copy(), y.copy()
    est = auditor(interval=["x"]).fit(X, y)
    est.report(X, y)
    pd.testing.assert_frame_equal(X, before)
    np.testing.assert_array_equal(y, ybefore)


# --- identifier-like columns and the strata of the structure search -------------------------
def test_identifier_columns_are_left_out_with_a_warning():
    X, y = frame(n=400)
    X["id"] = np.arange(X.shape[0]) * 7 + 1000
    X["code"] = [f"P{i:05d}" for i in range(X.shape[0])]
    with pytest.warns(UserWarning, match=msg(R.MSG_IDENTIFIER)):
        est = auditor().fit(X, y)
    assert est.identifier_columns_ == ["id", "code"]
    assert est.structure_info_["identifier_columns"] == ["id", "code"]
    assert "id" not in est.q_ and "code" not in est.q_
    with pytest.warns(UserWarning, match=msg(R.MSG_IDENTIFIER)):
        knn = auditor(method="knn").fit(X, y)
    assert knn.q_ == ["a", "x"]
    # declared nominal, still an identifier; declared interval, a measurement
    with pytest.warns(UserWarning, match=msg(R.MSG_IDENTIFIER)):
        assert auditor(nominal=["id"]).fit(X, y).identifier_columns_ == ["id", "code"]
    with pytest.warns(UserWarning, match=msg(R.MSG_IDENTIFIER)):
        assert auditor(interval=["id"]).fit(X, y).identifier_columns_ == ["code"]
    # a continuous measurement (fractional values) is not an identifier
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert auditor().fit(X.drop(columns=["id", "code"]), y).identifier_columns_ == []


def test_too_many_profiles_for_lemma_3_is_a_clear_error(monkeypatch):
    from skfair_manifold.situation_testing._selection import _cbn

    monkeypatch.setattr(_cbn, "_MAX_MIXTURE_CELLS", 1000)
    X, y = frame(n=400)
    X["id"] = np.arange(X.shape[0])
    with pytest.warns(UserWarning), \
            pytest.raises(ValueError, match=msg(_cbn.MSG_TOO_MANY_PROFILES)):
        auditor(graph=["sex", "a", "id"], nominal=["id"]).fit(X, y)


def test_strata_codes_do_not_overflow():
    rng = np.random.RandomState(0)
    n = 2000
    codes = rng.randint(0, 60, size=(n, 12))
    levels = codes.max(axis=0) + 1
    subset = tuple(range(12))  # 60**12 > 2**63
    strata = _strata_code(codes, subset, levels)
    assert strata.min() >= 0
    assert np.unique(strata).shape[0] == np.unique(codes, axis=0).shape[0]
    # equal codes exactly for equal rows
    _, ref = np.unique(codes, axis=0, return_inverse=True)
    _, got = np.unique(strata, return_inverse=True)
    assert (ref.reshape(-1)[:, None] == ref.reshape(-1)[None, :]).sum() == \
        (got[:, None] == got[None, :]).sum()


def test_the_structure_search_runs_on_many_columns():
    rng = np.random.RandomState(1)
    n = 3000
    cols = {f"c{j}": rng.randint(0, 12, n) for j in range(11)}
    sex = rng.randint(0, 2, n)
    y = (rng.rand(n) < 0.2 + 0.05 * cols["c0"] + 0.03 * cols["c1"] - 0.1 * sex).astype(int)
    X = pd.DataFrame({"sex": sex, **cols})
    est = SituationTestingAuditor(protected="sex", protected_value=1, k=10,
                                  alpha=0.01).fit(X, y)
    assert {"c0", "c1"} <= set(est.q_)


# --- continuous attributes ------------------------------------------------------------------
def quantile_bins(x, n_bins):
    edges = np.unique(np.quantile(x, np.linspace(0, 1, n_bins + 1)[1:-1]))
    return np.searchsorted(edges, x, side="right").astype(float)


@pytest.mark.parametrize("binning", ["quantile", "mdlp"])
def test_cbn_dd_on_interval_columns_equals_the_reference_on_their_bins(binning):
    from test_discretize import mdlp_reference
    from test_references import cbn_reference, comparable_rows

    rng = np.random.RandomState(3)
    n = 300
    c = rng.randint(0, 2, n).astype(float)
    income = rng.lognormal(10, 0.6, n)
    a = rng.randint(0, 3, n).astype(float)
    y = (rng.rand(n) < 0.1 + 0.15 * a + 0.4 * (income > np.median(income)) - 0.1 * c)
    y = y.astype(int)
    X = np.column_stack([c, income, a])
    est = SituationTestingAuditor(protected=0, protected_value=1, k=7, graph=[0, 1, 2],
                                  interval=[1], ordinal=[2], n_bins=4,
                                  binning=binning).fit(X, y)
    assert est.attribute_kinds_[1] == "interval"
    if binning == "quantile":
        expected = np.quantile(income, [0.25, 0.5, 0.75])
        bins = quantile_bins(income, 4)
    else:
        expected = mdlp_reference(income, y, 4)
        bins = np.searchsorted(expected, income, side="right").astype(float)
        assert len(expected) >= 1
    np.testing.assert_allclose(est.bin_edges_[1], expected)
    got = est.transform(X)
    Xb = np.column_stack([c, bins, a])
    ref = cbn_reference(Xb, y, 7, [1, 2], 1.0, "max_over_groups")
    rows = comparable_rows(X, y)
    np.testing.assert_allclose(got[rows, :2], ref[rows])
    assert np.isfinite(got).all()


@pytest.mark.parametrize("method", ["cbn", "knn"])
def test_mixed_data_with_planted_bias_is_found(method):
    X, y, discriminated, clean = make_planted_bias(2500, bias_share=1.0, random_state=1)
    est = SituationTestingAuditor(protected="sex", protected_value="female", method=method,
                                  k=30).fit(X, y)
    assert est.attribute_kinds_["income"] == "interval"
    assert est.attribute_kinds_["region"] == "nominal"
    out = est.transform(X)
    assert np.isfinite(out).all()
    flags = est.flag(X, y)
    assert flags[discriminated].mean() > 0.6
    assert (~flags[clean]).mean() > 0.85
    if method == "cbn":
        assert "income" in est.q_ and "noise" not in est.q_
        rep = est.report(X.iloc[:300], y[:300])
        assert len(rep) == flags[:300].sum()
        labels = set(rep.testers["income"])
        assert all(label.startswith("[") for label in labels)  # the bins, shown


def test_interval_columns_are_inferred_and_declared():
    X, y = frame()
    est = auditor().fit(X, y)
    assert est.attribute_kinds_ == {"sex": "nominal", "a": "ordinal", "x": "interval"}
    est = auditor(nominal=["a"], ordinal=["x"]).fit(X, y)
    assert est.attribute_kinds_ == {"sex": "nominal", "a": "nominal", "x": "ordinal"}
    assert est.bin_edges_ == {}
    with pytest.raises(ValueError, match=msg(R.MSG_STRING_ORDINAL)):
        auditor(ordinal=["g"]).fit(X.assign(g=X["sex"] + "x"), y)


# --- set_output -----------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["cbn", "knn"])
def test_set_output_pandas(method):
    X, y = frame()
    plain = auditor(method=method).fit(X, y)
    est = auditor(method=method).set_output(transform="pandas").fit(X, y)
    out = est.transform(X)
    assert list(out.columns) == ["p1", "p2", "diff", "diff_lower", "diff_upper", "p_value"]
    assert (out.index == X.index).all()
    np.testing.assert_array_equal(out.to_numpy(), plain.transform(X))
    np.testing.assert_array_equal(est.flag(X, y), plain.flag(X, y))
    assert est.report(X, y).summary["row"].tolist() == \
        plain.report(X, y).summary["row"].tolist()


def test_set_output_polars():
    pl = pytest.importorskip("polars")
    X, y = frame()
    est = auditor().set_output(transform="polars").fit(X, y)
    assert isinstance(est.transform(X), pl.DataFrame)
    assert est.flag(X, y).dtype == bool
    est.report(X, y)
    # a polars frame as input: the same kinds and rates as pandas
    plain = auditor().fit(X, y)
    Xp = pl.DataFrame({"sex": X["sex"].to_numpy().astype(str), "a": X["a"].to_numpy(),
                       "x": X["x"].to_numpy()})
    on_polars = auditor().fit(Xp, y)
    assert on_polars.attribute_kinds_ == plain.attribute_kinds_
    np.testing.assert_array_equal(on_polars.transform(Xp), plain.transform(X))


# --- the bounds -----------------------------------------------------------------------------
def test_newcombe_interval_matches_the_published_example():
    # Newcombe (1998), Table II, example (a): 56/70 - 48/80, method 10: 0.0524 to 0.3339
    low, high = diff_bounds(np.array([56 / 70]), 70, np.array([48 / 80]), 80, alpha=0.025,
                            method="newcombe")
    assert low[0] == pytest.approx(0.0524, abs=5e-5)
    assert high[0] == pytest.approx(0.3339, abs=5e-5)
    # at rates 0 and 1 the Wald bound has no width, Newcombe's has
    low, high = diff_bounds(np.array([1.0]), 50, np.array([0.0]), 50, alpha=0.05,
                            method="wald")
    assert low[0] == high[0] == 1.0
    low, high = diff_bounds(np.array([1.0]), 50, np.array([0.0]), 50, alpha=0.05,
                            method="newcombe")
    assert low[0] < 0.95 and high[0] == pytest.approx(1.0)


def test_report_holds_the_interval_and_the_rule():
    X, y = frame(n=500)
    est = auditor(k=20, tau=0.0, graph=["sex", "a", "x"], flag_rule="significant").fit(X, y)
    out = est.transform(X)
    rep = est.report(X, y)
    assert len(rep) > 0
    entry = rep[0]
    i = entry["row"]
    assert entry["diff_lower"] == out[i, 3] and entry["diff_upper"] == out[i, 4]
    assert entry["rule"] == est.flag_rule_ == "diff > 0 and diff_lower > 0 (wald, one-sided 90%)"
    assert entry["diff_lower"] > 0
    assert entry["claimant"]["sex"] == "f" and entry["decision"] == 0
    long = rep.frame()
    assert {"row", "side", "certain", "distance", "n_records", "n_positive", "weight",
            "testers", "positives", "cell", "a", "x"} <= set(long.columns)
    summary = rep.summary_frame()
    assert list(summary["row"]) == list(np.flatnonzero(est.flag(X, y)))


# --- blocks on a dask cluster ---------------------------------------------------------------
@pytest.mark.parametrize("method", ["knn", "cbn"])
def test_local_cluster_gives_the_results_of_one_job(method, monkeypatch):
    distributed = pytest.importorskip("distributed")
    import joblib

    from skfair_manifold.situation_testing._selection import _cbn_selection
    from skfair_manifold.situation_testing._selection import _knn

    monkeypatch.setattr(_knn, "_CHUNK_CELLS", 2000)  # many blocks
    monkeypatch.setattr(_cbn_selection, "_CHUNK_CELLS", 200)
    X, y = frame(n=400)
    one = auditor(method=method, n_jobs=1).fit(X, y)
    ref_out, ref_rep = one.transform(X), one.report(X, y)
    est = auditor(method=method, n_jobs=2).fit(X, y)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        with joblib.parallel_config(backend="dask"):
            out = est.transform(X)
            rep = est.report(X, y)
        assert client.run(lambda: 1)  # the workers answered
    np.testing.assert_array_equal(out, ref_out)
    for name in ref_rep.testers:
        np.testing.assert_array_equal(rep.testers[name], ref_rep.testers[name])


def test_units_lookup_matches_a_plain_search():
    """Units.lookup (codes combined column by column) against a row-by-row search."""
    from skfair_manifold.situation_testing._records import Units

    rng = np.random.RandomState(0)
    for _ in range(5):
        Z = rng.randint(0, 3, (400, 3)).astype(float)
        Z[:, 2] += rng.rand(400).round(1)
        positive = rng.rand(400) < 0.5
        units = Units(Z, positive)
        uniq = np.unique(np.column_stack([Z, positive.astype(float)]), axis=0)
        Q = np.vstack([Z[:80], rng.randint(0, 4, (50, 3)).astype(float), -0.0 * Z[:5]])
        want = []
        for q in Q:
            neg = np.flatnonzero((uniq == np.append(q, 0.0)).all(axis=1))
            pos = np.flatnonzero((uniq == np.append(q, 1.0)).all(axis=1))
            want.append(neg[0] if neg.size else pos[0] if pos.size else -1)
        got = units.lookup(Q)
        np.testing.assert_array_equal(got, want)
        assert (got == -1).any() and (got >= 0).any()
