"""Hostile column names on every path that hands names to an engine: the in-memory answer.

A Parquet file's column names come from whoever wrote it. Every name below
must reach DuckDB, polars or the command line's SQL as one column, never as
SQL: a space, a double quote, SQL keywords, accents, an expression, 1,000
characters. Each case rotates the names over the roles (label, prediction,
sensitive columns, weights, features), so that every name takes every role.
Engines: a DuckDB relation from a DataFrame, a Parquet file written by DuckDB
and read back by it, and a polars ``LazyFrame`` where polars is installed.
"""

import json

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

from _duckdb_cli import duckdb, needs_duckdb  # noqa: E402

from skfair_manifold.cli import EXIT_OK, main  # noqa: E402
from skfair_manifold.cli import _report as cli_report  # noqa: E402
from skfair_manifold.datasets import make_planted_bias  # noqa: E402
from skfair_manifold.metrics import bias_audit, demographic_parity, fairness_report  # noqa: E402
from skfair_manifold.metrics._regression import _frame_ks  # noqa: E402
from skfair_manifold.situation_testing import SituationTestingAuditor, cell_verdicts  # noqa

pytestmark = [needs_duckdb,
              pytest.mark.filterwarnings("ignore:Dask support is moving:FutureWarning")]

HOSTILE = ["a b", 'we"ird', "select", "default", "ünï côdé", "a) OR (1=1", "x" * 1000]
CASES = range(len(HOSTILE))


def roles(case, k):
    """``k`` distinct hostile names, rotated by ``case``."""
    return [HOSTILE[(case + j) % len(HOSTILE)] for j in range(k)]


def engines(frame, tmp_path):
    """The frame as each engine holds it: ``[(name, lazy frame), ...]``."""
    path = tmp_path / "rows.parquet"
    duckdb.connect().from_df(frame).write_parquet(str(path))
    out = [("duckdb", duckdb.connect().from_df(frame)),
           ("parquet", duckdb.connect().read_parquet(str(path)))]
    try:
        import polars as pl

        import pyarrow  # noqa: F401 - polars reads pandas frames through it
    except ImportError:  # pragma: no cover - polars is a dev dependency
        return out
    return out + [("polars", pl.from_pandas(frame).lazy())]


def to_pandas(native):
    if hasattr(native, "df"):
        return native.df()
    return native.collect().to_pandas()


def numbers(frame):
    return frame.select_dtypes("number").to_numpy(dtype=np.float64)


def _binary(case, n=800, seed=0):
    rng = np.random.default_rng(seed + case)
    y, p, s1, s2, w = roles(case, 5)
    frame = pd.DataFrame({s1: rng.choice(["f", "m", "x"], n), s2: rng.integers(0, 3, n),
                          w: rng.uniform(0.5, 2.0, n)})
    frame[y] = (rng.random(n) < 0.4 + 0.2 * (frame[s1] == "m")).astype(int)
    frame[p] = np.where(rng.random(n) < 0.8, frame[y], 1 - frame[y])
    return frame, (y, p, [s1, s2], w)


# ------------------------------------------------------------------ group report and metrics

@pytest.mark.parametrize("case", CASES)
def test_group_report_and_metric(case, tmp_path):
    frame, (y, p, sens, w) = _binary(case)
    want = fairness_report(frame[y], frame[p], sensitive_features=frame[sens],
                           sample_weight=frame[w], intersect=True, min_group_size=5)
    dp = demographic_parity(frame[y], frame[p], sensitive_features=frame[sens])
    for name, data in engines(frame, tmp_path):
        got = fairness_report(y, p, sensitive_features=sens, data=data, sample_weight=w,
                              intersect=True, min_group_size=5)
        assert list(got.by_group.index) == list(want.by_group.index), name
        np.testing.assert_allclose(numbers(got.by_group), numbers(want.by_group), rtol=1e-12)
        np.testing.assert_allclose(numbers(got.gaps), numbers(want.gaps), rtol=1e-12)
        assert got.headline == want.headline, name
        assert demographic_parity(y, p, sensitive_features=sens, data=data) == \
            pytest.approx(dp, rel=1e-12), name


# ------------------------------------------------------------------ continuous report and KS

def _continuous(case, n=600):
    rng = np.random.default_rng(case)
    y, p, s, w = roles(case, 4)
    frame = pd.DataFrame({s: rng.choice(["f", "m"], n), w: rng.uniform(0.5, 2.0, n)})
    frame[y] = rng.lognormal(3.0, 0.3, n)
    frame[p] = frame[y] * rng.lognormal(0.0, 0.1, n) * np.where(frame[s] == "f", 0.9, 1.0)
    return frame, (y, p, s, w)


@pytest.mark.parametrize("case", CASES)
def test_continuous_report_and_ks_refinement(case, tmp_path, monkeypatch):
    frame, (y, p, s, w) = _continuous(case)
    want = fairness_report(frame[y], frame[p], sensitive_features=frame[[s]],
                           sample_weight=frame[w], min_group_size=5)
    # small bins: the KS distance is refined over several passes, each naming the columns
    for name, value in (("LEVEL_BITS", 3), ("MAX_LEVEL", 16), ("EXACT_ROWS", 50)):
        monkeypatch.setattr(_frame_ks, name, value)
    passes = []
    count = _frame_ks._count
    monkeypatch.setattr(_frame_ks, "_count", lambda *a: passes.append(a[6]) or count(*a))
    for name, data in engines(frame, tmp_path):
        passes.clear()
        got = fairness_report(y, p, sensitive_features=s, data=data, sample_weight=w,
                              target_type="continuous", min_group_size=5)
        assert len(passes) > 1, name
        np.testing.assert_allclose(numbers(got.by_group), numbers(want.by_group), rtol=1e-9)
        np.testing.assert_allclose(got.gaps["ks_distance"], want.gaps["ks_distance"],
                                   rtol=1e-12, err_msg=name)
        assert got.headline == want.headline, name


@pytest.mark.parametrize("sensitive", ["w", "d0", "p_min", "w2"])
def test_a_sensitive_column_named_like_a_helper_column(sensitive, tmp_path):
    frame, (y, p, s, w) = _continuous(0)
    frame = frame.rename(columns={s: sensitive})
    want = fairness_report(frame[y], frame[p], sensitive_features=frame[[sensitive]],
                           sample_weight=frame[w], min_group_size=5)
    for name, data in engines(frame, tmp_path):
        got = fairness_report(y, p, sensitive_features=sensitive, data=data, sample_weight=w,
                              target_type="continuous", min_group_size=5)
        np.testing.assert_allclose(numbers(got.by_group), numbers(want.by_group), rtol=1e-9,
                                   err_msg=name)


def test_the_helper_columns_prefix_is_refused_by_name():
    frame, (y, p, sens, w) = _binary(0)
    frame = frame.rename(columns={sens[0]: "__skfm_n"})
    with pytest.raises(ValueError, match="'__skfm_n'.*rename the column"):
        fairness_report(y, p, sensitive_features="__skfm_n", data=duckdb.from_df(frame))


# ------------------------------------------------------------------ bias audit

@pytest.mark.parametrize("case", CASES)
def test_bias_audit(case, tmp_path):
    rng = np.random.default_rng(case)
    n = 900
    d, score, s, zone, pa, pb = roles(case, 6)
    share = rng.dirichlet(np.ones(2), size=4)
    z = rng.integers(0, 4, n)
    frame = pd.DataFrame({s: rng.choice(["f", "m", "u"], n), d: rng.integers(0, 2, n),
                          score: rng.normal(size=n), zone: z, pa: share[z, 0], pb: share[z, 1]})
    decisions = bias_audit(frame[d], sensitive_features=frame[[s]], unknown="u").table
    scores = bias_audit(y_score=frame[score], sensitive_features=frame[[s]], unknown="u").table
    estimated = bias_audit(frame[d], sensitive_features={s: frame[s]}, unknown="u",
                           membership={"race": frame[[pa, pb]].set_axis(["a", "b"], axis=1)},
                           proxy=frame[zone], intersect=False).table
    for name, data in engines(frame, tmp_path):
        pd.testing.assert_frame_equal(
            bias_audit(d, sensitive_features=[s], data=data, unknown="u").table, decisions,
            check_dtype=False, obj=name)
        pd.testing.assert_frame_equal(
            bias_audit(y_score=score, sensitive_features=[s], data=data, unknown="u").table,
            scores, check_dtype=False, obj=name)
        pd.testing.assert_frame_equal(
            bias_audit(d, sensitive_features=s, data=data, unknown="u",
                       membership={"race": {"a": pa, "b": pb}}, proxy=zone,
                       intersect=False).table,
            estimated, check_dtype=False, rtol=1e-9, obj=name)


# ------------------------------------------------------------------ situation testing

@pytest.fixture(scope="module")
def planted():
    X, y, _, _ = make_planted_bias(2500, bias_share=0.5, random_state=0)
    return X[["sex", "region", "edu"]].astype({"edu": int}), y


@pytest.mark.filterwarnings("ignore:the causal graph has no arc:UserWarning")
@pytest.mark.parametrize("case", CASES)
def test_auditor_on_frames(case, planted, tmp_path):
    X, y = planted
    sex, region, edu, decision = roles(case, 4)
    X = X.rename(columns={"sex": sex, "region": region, "edu": edu})
    params = dict(protected=sex, protected_value="female", k=50)
    memory = SituationTestingAuditor(graph=[sex, region, edu], **params).fit(X, y)
    want = memory.flag(X, y)
    learned = SituationTestingAuditor(graph=None, **params).fit(X, y)
    data = X.assign(**{decision: y, "rid": np.arange(len(y))})
    for name, frame in engines(data, tmp_path):
        lazy = SituationTestingAuditor(graph=[sex, region, edu], **params).fit(frame, decision)
        out = to_pandas(lazy.flag(frame, decision)).sort_values("rid")
        np.testing.assert_array_equal(out["flagged"].to_numpy(dtype=bool), want, err_msg=name)
        cells = cell_verdicts(lazy, frame, decision)
        assert int(cells.loc[cells["flagged"], "n_people"].sum()) == int(want.sum()), name
        assert {region, edu} <= set(cells.columns), name
        # CBN-DD with the graph learned on the frame (a sample of it, counted in the engine)
        graph = SituationTestingAuditor(graph=None, **params).fit(frame, decision)
        assert graph.q_ == learned.q_, name


# ------------------------------------------------------------------ the command line

def run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _page(path, source):
    import re

    text = path.read_text(encoding="utf-8").replace(str(source), "FILE")
    text = text.replace(source.name, "FILE")
    text = re.sub(r"\b[0-9a-f]{64}\b", "DIGEST", text)
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "TIME", text)


@pytest.mark.parametrize("case", CASES)
def test_cli_report_parquet_csv_duckdb_and_pandas(case, tmp_path, capsys, monkeypatch):
    frame, (y, p, sens, _) = _binary(case, n=400)
    csv, parquet = tmp_path / "d.csv", tmp_path / "d.parquet"
    frame.to_csv(csv, index=False)
    duckdb.connect().from_df(frame).write_parquet(str(parquet))
    args = ["--label", y, "--prediction", p, "--sensitive", *sens, "--no-hfm",
            "--intersect", "--min-group-size", "5"]
    pages = {}
    read_by_pandas = []
    real = cli_report.load_predictions
    monkeypatch.setattr(cli_report, "load_predictions",
                        lambda **kw: read_by_pandas.append(1) or real(**kw))
    for name, source in (("parquet", parquet), ("csv-duckdb", csv)):
        code, _, err = run(capsys, "report", source, *args, "-o", tmp_path / f"{name}.html")
        assert code == EXIT_OK, err
        pages[name] = _page(tmp_path / f"{name}.html", source)
    assert not read_by_pandas  # both read through DuckDB
    monkeypatch.setattr(cli_report, "load_csv_out_of_core", lambda **kw: None)
    code, _, err = run(capsys, "report", csv, *args, "-o", tmp_path / "pandas.html")
    assert code == EXIT_OK, err
    pages["pandas"] = _page(tmp_path / "pandas.html", csv)
    assert pages["parquet"] == pages["pandas"] == pages["csv-duckdb"]
    # --pos-label: the label column's values read from the Parquet file by their name
    code, _, err = run(capsys, "report", parquet, *args, "--pos-label", "1",
                       "-o", tmp_path / "named.html")
    assert code == EXIT_OK, err
    assert _page(tmp_path / "named.html", parquet) == pages["parquet"]


@pytest.mark.parametrize("case", CASES)
def test_cli_bias_audit_parquet_is_the_csv_table(case, tmp_path, capsys):
    rng = np.random.default_rng(case)
    n = 500
    d, score, s = roles(case, 3)
    frame = pd.DataFrame({s: rng.choice(["f", "m", "u"], n), d: rng.integers(0, 2, n),
                          score: rng.normal(size=n)})
    csv, parquet = tmp_path / "d.csv", tmp_path / "d.parquet"
    frame.to_csv(csv, index=False)
    duckdb.connect().from_df(frame).write_parquet(str(parquet))
    for option, column in (("--decision", d), ("--score", score)):
        tables = []
        for source in (csv, parquet):
            out = tmp_path / f"{source.suffix}.csv"
            code, _, err = run(capsys, "bias-audit", source, option, column, "--sensitive", s,
                               "--unknown", "u", "-q", "-o", out)
            assert code == EXIT_OK, err
            tables.append(pd.read_csv(out))
        pd.testing.assert_frame_equal(tables[0], tables[1])


@pytest.mark.parametrize("case", CASES)
def test_cli_audit_parquet_flags_the_csv_rows(case, planted, tmp_path, capsys):
    X, y = planted
    sex, region, edu, decision, rid = roles(case, 5)
    frame = X.rename(columns={"sex": sex, "region": region, "edu": edu}).assign(
        **{decision: np.where(y == 1, "yes", "no"), rid: np.arange(len(y))})
    csv, parquet, graph = tmp_path / "d.csv", tmp_path / "d.parquet", tmp_path / "g.json"
    frame.to_csv(csv, index=False)
    duckdb.connect().from_df(frame).write_parquet(str(parquet))
    graph.write_text(json.dumps([sex, region, edu]), encoding="utf-8")
    args = ["--decision", decision, "--protected", sex, "--protected-value", "female",
            "--positive-label", "yes", "-k", "40", "--graph", graph, "-q"]
    rows = tmp_path / "rows.csv"
    code, _, err = run(capsys, "audit", csv, *args, "--id", rid, "--features", region, edu,
                       "-o", rows)
    assert code == EXIT_OK, err
    want = sorted(pd.read_csv(rows)[rid].tolist())
    assert len(want) > 20
    tables = []
    for features in ([], ["--features", region, edu]):  # --features: a projection first
        flagged, cells = tmp_path / "flagged.parquet", tmp_path / "cells.csv"
        code, _, err = run(capsys, "audit", parquet, *args, *features, "--flagged-rows", flagged,
                           "-o", cells)
        assert code == EXIT_OK, err
        got = duckdb.connect().read_parquet(str(flagged)).df()
        if not features:
            assert sorted(got[rid].tolist()) == want
        assert len(got) == len(want)
        tables.append(pd.read_csv(cells))
    pd.testing.assert_frame_equal(tables[0], tables[1])
