"""``report`` on a Parquet file: aggregated in DuckDB, the same page as from the CSV file."""

import re

import numpy as np
import pytest

from skfair_manifold.cli import EXIT_DATA, EXIT_OK, main

pd = pytest.importorskip("pandas")

from _duckdb_cli import duckdb, needs_duckdb  # noqa: E402

pytestmark = needs_duckdb

ARGS = ["--label", "y", "--prediction", "y_pred", "--sensitive", "sex", "race"]


def run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    rng = np.random.default_rng(1)
    n = 600
    frame = pd.DataFrame({
        "income": rng.random(n),
        "sex": rng.choice(["F", "M", "NA"], n),  # "NA" is a group, not a missing value
        "race": rng.integers(0, 4, n),
    })
    frame["y"] = (frame["income"] + 0.3 * rng.standard_normal(n) > 0.5).astype(int)
    frame["y_pred"] = np.where(rng.random(n) < 0.8, frame["y"], 1 - frame["y"])
    folder = tmp_path_factory.mktemp("parquet")
    csv, parquet = folder / "decisions.csv", folder / "decisions.parquet"
    frame.to_csv(csv, index=False)
    duckdb.from_df(frame).write_parquet(str(parquet))
    return csv, parquet, frame


def _page(path, source):
    """The page's text without its own file name, digest and creation time."""
    text = path.read_text(encoding="utf-8")
    text = text.replace(source.name, "FILE").replace(str(source), "FILE")
    text = re.sub(r"\b[0-9a-f]{64}\b", "DIGEST", text)
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "TIME", text)


@pytest.mark.parametrize("extra", [[], ["--intersect", "--n-boot", "200", "--seed", "3"]])
def test_parquet_report_is_the_csv_report(capsys, tmp_path, files, extra):
    csv, parquet, _ = files
    out_csv, out_parquet = tmp_path / "csv.html", tmp_path / "parquet.html"
    code, _, err = run(capsys, "report", csv, *ARGS, "--no-hfm", *extra, "-o", out_csv)
    assert code == EXIT_OK, err
    code, _, err = run(capsys, "report", parquet, *ARGS, "--no-hfm", *extra,
                       "-o", out_parquet)
    assert code == EXIT_OK, err
    assert "Parquet" not in err  # --no-hfm: nothing to say
    page = _page(out_parquet, parquet)
    assert page == _page(out_csv, csv)
    assert "NA" in page  # the group "NA" survived both readers


def test_parquet_report_says_hfm_is_left_out(capsys, tmp_path, files):
    _, parquet, _ = files
    code, _, err = run(capsys, "report", parquet, *ARGS, "-o", tmp_path / "r.html")
    assert code == EXIT_OK
    assert "reported out of core through DuckDB" in err and "HFM" in err
    assert "Fairness report" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_parquet_pos_label_on_text_labels(capsys, tmp_path, files):
    _, _, frame = files
    text = frame.assign(y=np.where(frame["y"] == 1, "grant", "deny"),
                        y_pred=np.where(frame["y_pred"] == 1, "grant", "deny"))
    path = tmp_path / "text.parquet"
    duckdb.from_df(text).write_parquet(str(path))
    code, _, err = run(capsys, "report", path, *ARGS, "--no-hfm", "-o", tmp_path / "t.html")
    assert code == EXIT_DATA and "Pass --pos-label " in err and "Traceback" not in err
    code, _, err = run(capsys, "report", path, *ARGS, "--no-hfm", "--pos-label", "grant",
                       "-o", tmp_path / "t.html")
    assert code == EXIT_OK, err
    assert "&#39;grant&#39;" in (tmp_path / "t.html").read_text(encoding="utf-8") or \
        "'grant'" in (tmp_path / "t.html").read_text(encoding="utf-8")
    code, _, err = run(capsys, "report", path, *ARGS, "--no-hfm", "--pos-label", "yes",
                       "-o", tmp_path / "t.html")
    assert code == EXIT_DATA and "--pos-label 'yes' is not a value of column 'y'" in err


def test_parquet_errors_are_one_line(capsys, tmp_path, files):
    _, parquet, frame = files
    code, out, err = run(capsys, "report", parquet, "--label", "y", "--prediction", "y_pred",
                         "--sensitive", "sexe", "-o", tmp_path / "x.html")
    assert code == EXIT_DATA and out == ""
    assert "column 'sexe' (--sensitive) is not in" in err and "Did you mean 'sex'" in err
    assert len(err.strip().splitlines()) == 2  # the HFM note, then the error

    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 not really")
    code, _, err = run(capsys, "report", broken, *ARGS, "--no-hfm", "-o", tmp_path / "x.html")
    assert code == EXIT_DATA and "is not a readable Parquet file" in err
    assert "Traceback" not in err

    missing = frame.astype({"sex": object}).copy()
    missing.loc[7, "sex"] = None
    path = tmp_path / "missing.parquet"
    duckdb.from_df(missing).write_parquet(str(path))
    code, _, err = run(capsys, "report", path, *ARGS, "--no-hfm", "-o", tmp_path / "x.html")
    assert code == EXIT_DATA
    assert "sensitive attribute 'sex' contains missing values (null or NaN) in 1 row" in err


def test_hfm_points_a_parquet_file_to_report(capsys, files):
    _, parquet, _ = files
    code, out, err = run(capsys, "hfm", parquet, *ARGS)
    assert code == EXIT_DATA and out == ""
    assert "is a Parquet file: hfm measures distances between rows" in err
    assert "skfair-manifold report" in err and "Traceback" not in err


@pytest.mark.parametrize("values, text, expected", [
    ([0.0, 1.0], "1", 1.0),
    ([0, 1], "1.0", 1),
    (["no", "yes"], "yes", "yes"),
    ([False, True], "True", True),
])
def test_command_line_value_matched_alike_from_parquet_and_csv(values, text, expected):
    """The Parquet and the in-memory readers name a column's value by the same rule."""
    import duckdb
    import pandas as pd

    from skfair_manifold.cli._io import parquet_value, parse_value_like

    frame = pd.DataFrame({"label": values})
    relation = duckdb.connect().from_df(frame)
    assert parse_value_like(frame, "label", text, "--pos-label") == expected
    assert parquet_value(relation, "label", text, "--pos-label") == expected


def test_command_line_number_never_names_a_boolean():
    import duckdb
    import pandas as pd

    from skfair_manifold.cli._io import CLIError, parquet_value, parse_value_like

    frame = pd.DataFrame({"label": [False, True]})
    relation = duckdb.connect().from_df(frame)
    for read in (lambda: parse_value_like(frame, "label", "1", "--pos-label"),
                 lambda: parquet_value(relation, "label", "1", "--pos-label")):
        with pytest.raises(CLIError, match="False, True"):
            read()
