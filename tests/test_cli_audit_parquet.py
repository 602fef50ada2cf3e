"""``audit`` on a Parquet file: CBN-DD cell by cell through DuckDB, the CSV path's flags."""

import json

import numpy as np
import pytest

from skfair_manifold.cli import main

pd = pytest.importorskip("pandas")

from _duckdb_cli import duckdb, needs_duckdb  # noqa: E402

pytestmark = needs_duckdb

from skfair_manifold.datasets import make_planted_bias  # noqa: E402

ARGS = ["--decision", "approved", "--protected", "sex", "--protected-value", "female",
        "--positive-label", "yes", "-k", "40"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    X, y, _, _ = make_planted_bias(3000, random_state=4)
    frame = X[["sex", "region", "edu", "colour"]].astype({"edu": int})
    frame = frame.assign(approved=np.where(y == 1, "yes", "no"), rid=np.arange(3000))
    folder = tmp_path_factory.mktemp("audit_parquet")
    csv, parquet, graph = (folder / "decisions.csv", folder / "decisions.parquet",
                           folder / "graph.json")
    frame.to_csv(csv, index=False)
    duckdb.from_df(frame).write_parquet(str(parquet))
    graph.write_text(json.dumps(["sex", "region", "edu"]), encoding="utf-8")
    return csv, parquet, graph, folder


def test_parquet_flags_are_the_csv_flags(files, capsys):
    csv, parquet, graph, folder = files
    flagged = folder / "flagged.parquet"
    cells = folder / "cells.csv"
    assert main(["audit", str(parquet), *ARGS, "--graph", str(graph), "--flagged-rows",
                 str(flagged), "-o", str(cells)]) == 0
    err = capsys.readouterr().err
    assert "through DuckDB" in err and "Q = {region, edu}" in err
    rows = folder / "rows.csv"
    assert main(["audit", str(csv), *ARGS, "--graph", str(graph), "--id", "rid",
                 "--features", "region", "edu", "colour", "-q",
                 "-o", str(rows)]) == 0
    want = sorted(pd.read_csv(rows)["rid"].tolist())
    got = sorted(duckdb.sql(f"select rid from '{flagged}'").fetchnumpy()["rid"].tolist())
    assert got == want and len(want) > 20
    table = pd.read_csv(cells)
    assert int(table.loc[table["flagged"], "n_people"].sum()) == len(want)


@pytest.mark.parametrize("option", [["--method", "knn"], ["--html", "x.html"],
                                    ["--all-rows"], ["--id", "rid"]])
def test_what_needs_the_rows_is_refused(files, capsys, option):
    _, parquet, graph, _ = files
    assert main(["audit", str(parquet), *ARGS, "--graph", str(graph), *option]) != 0
    err = capsys.readouterr().err
    assert "needs the rows in memory" in err and "Traceback" not in err


def test_flagged_rows_needs_parquet(files, capsys):
    csv, _, graph, folder = files
    assert main(["audit", str(csv), *ARGS, "--graph", str(graph), "--flagged-rows",
                 str(folder / "f.parquet")]) != 0
    assert "--flagged-rows is for a Parquet input" in capsys.readouterr().err
