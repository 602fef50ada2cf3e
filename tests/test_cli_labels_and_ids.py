"""The command line's labels, its favourable outcome and its identifier columns.

* ``report`` and ``hfm`` take labels of any kind with ``--pos-label`` (yes/no,
  text, codes), as the Python API does, from CSV and Parquet alike;
* whenever ``--pos-label`` is not given, standard error names the favourable
  outcome taken by default;
* a column that looks like an identifier (a distinct integer or text on every
  row, or a name such as ``id`` or ``candidate_id``) is never an HFM feature
  without a word: left out with a note on standard error, used when named in
  ``--features``.
"""

import json

import numpy as np
import pytest

from skfair_manifold.cli import EXIT_DATA, EXIT_OK, main
from skfair_manifold.metrics import fairness_report

pd = pytest.importorskip("pandas")

LABELS = ["--label", "label", "--prediction", "pred", "--sensitive", "sex"]
DEFAULT_NOTE = "favourable outcome (by default, --pos-label not given)"


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(3)
    n = 400
    sex = rng.choice(["f", "m"], n)
    y = rng.random(n) < np.where(sex == "m", 0.6, 0.4)
    p = np.where(rng.random(n) < 0.8, y, ~y)
    return pd.DataFrame({"candidate_id": rng.permutation(n) + 10_000,
                         "label": np.where(y, "yes", "no"), "pred": np.where(p, "yes", "no"),
                         "sex": sex, "age": rng.integers(20, 60, n),
                         "income": rng.lognormal(10, 0.4, n)})


@pytest.fixture
def files(table, tmp_path):
    csv = tmp_path / "yes_no.csv"
    table.to_csv(csv, index=False)
    coded = table.assign(label=(table["label"] == "yes").astype(int),
                         pred=(table["pred"] == "yes").astype(int))
    csv01 = tmp_path / "coded.csv"
    coded.to_csv(csv01, index=False)
    return csv, csv01


# --- labels of any kind with --pos-label ----------------------------------------------


def test_report_takes_yes_no_labels_with_pos_label(capsys, table, files, tmp_path):
    csv, _ = files
    out = tmp_path / "r.html"
    code, _, err = cli(capsys, "report", csv, *LABELS, "--pos-label", "yes", "--no-hfm",
                       "-o", out)
    assert code == EXIT_OK, err
    page = out.read_text(encoding="utf-8")
    assert "prediction = &#39;yes&#39;" in page or "prediction = 'yes'" in page
    want = fairness_report(table["label"], table["pred"], sensitive_features=table[["sex"]],
                           pos_label="yes")
    assert want.headline[0].replace("'", "&#39;") in page
    assert DEFAULT_NOTE not in err


def test_report_with_hfm_and_hfm_take_yes_no_labels(capsys, table, files, tmp_path):
    csv, csv01 = files
    code, _, err = cli(capsys, "report", csv, *LABELS, "--pos-label", "yes",
                       "--features", "age", "income", "-o", tmp_path / "r.html")
    assert code == EXIT_OK, err
    results = []
    for path, pos in ((csv, "yes"), (csv01, "1")):
        code, out, err = cli(capsys, "hfm", path, *LABELS, "--pos-label", pos,
                             "--features", "age", "income", "--format", "json")
        assert code == EXIT_OK, err
        results.append(json.loads(out))
    text, coded = results
    assert text["hfm_avg"] == pytest.approx(coded["hfm_avg"], rel=1e-12)
    for key, value in coded["baselines"].items():
        assert text["baselines"][key] == (pytest.approx(value, rel=1e-12)
                                          if isinstance(value, float) else value), key
    assert "'yes'" in text["favourable"]


def test_report_of_a_parquet_file_takes_yes_no_labels(capsys, table, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "yes_no.parquet"
    duckdb.connect().from_df(table).write_parquet(str(path))
    code, _, err = cli(capsys, "report", path, *LABELS, "--pos-label", "yes", "--no-hfm",
                       "-o", tmp_path / "p.html")
    assert code == EXIT_OK, err


def test_yes_no_labels_without_pos_label_name_the_option(capsys, files, tmp_path):
    csv, _ = files
    for command in (["report", "--no-hfm", "-o", tmp_path / "r.html"], ["hfm"]):
        code, out, err = cli(capsys, command[0], csv, *LABELS, *command[1:])
        assert code == EXIT_DATA and out == ""
        assert "column 'label' (--label) must be numeric" in err
        assert "need --pos-label VALUE" in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1 or command[0] == "hfm"


def test_a_pos_label_that_is_not_a_label_is_refused(capsys, files, tmp_path):
    csv, _ = files
    code, _, err = cli(capsys, "report", csv, *LABELS, "--pos-label", "maybe", "--no-hfm",
                       "-o", tmp_path / "r.html")
    assert code == EXIT_DATA
    assert "--pos-label 'maybe' is not a value of column 'label'; its values are: no, yes" in err


# --- the favourable outcome named when --pos-label is not given -----------------------


@pytest.mark.parametrize("fmt", ["report", "report-parquet", "report-csv-duckdb", "hfm-json",
                                 "hfm-file"])
def test_the_default_favourable_outcome_is_named(capsys, files, tmp_path, fmt):
    _, csv01 = files
    source = csv01
    if fmt == "report-parquet":
        duckdb = pytest.importorskip("duckdb")
        source = tmp_path / "coded.parquet"
        duckdb.connect().from_df(pd.read_csv(csv01)).write_parquet(str(source))
    args = {"report": ["report", "--features", "age", "-o", tmp_path / "r.html"],
            "report-parquet": ["report", "--no-hfm", "-o", tmp_path / "r.html"],
            "report-csv-duckdb": ["report", "--no-hfm", "-o", tmp_path / "r.html"],
            "hfm-json": ["hfm", "--features", "age", "--format", "json"],
            "hfm-file": ["hfm", "--features", "age", "-o", tmp_path / "t.txt"]}[fmt]
    code, _, err = cli(capsys, args[0], source, *LABELS, *args[1:])
    assert code == EXIT_OK, err
    assert DEFAULT_NOTE + ": prediction = 1 in column 'pred'" in err
    assert "--pos-label VALUE names another" in err
    code, _, err = cli(capsys, args[0], source, *LABELS, *args[1:], "--pos-label", "0")
    assert code == EXIT_OK, err
    assert DEFAULT_NOTE not in err
    code, _, err = cli(capsys, args[0], source, *LABELS, *args[1:], "-q")
    assert code == EXIT_OK and err == ""


def test_the_text_table_names_it_on_the_terminal(capsys, files):
    _, csv01 = files
    code, out, err = cli(capsys, "hfm", csv01, *LABELS, "--features", "age")
    assert code == EXIT_OK, err
    assert "Favourable outcome: prediction = 1 in column 'pred'" in out


# --- identifier-like columns ----------------------------------------------------------


def _features(capsys, path, *extra):
    code, out, err = cli(capsys, "hfm", path, *LABELS, "--format", "json", *extra)
    assert code == EXIT_OK, err
    return json.loads(out)["info"]["features"], err


def test_a_distinct_integer_on_every_row_is_left_out_with_a_note(capsys, table, tmp_path):
    path = tmp_path / "c.csv"
    table.rename(columns={"candidate_id": "cand"}).to_csv(path, index=False)
    features, err = _features(capsys, path, "--pos-label", "yes")
    assert features == ["age", "income"]  # income: floats, distinct, a measurement
    assert "left out column(s) cand (a distinct value on every row) from the HFM " \
           "features: they look like identifiers" in err
    assert "name them in --features to use them" in err
    # named, it is used
    features, err = _features(capsys, path, "--pos-label", "yes", "--features", "cand", "age")
    assert features == ["cand", "age"] and "left out" not in err


@pytest.mark.parametrize("name", ["id", "candidate_id", "ID number", "personId"])
def test_a_column_named_like_an_identifier_is_left_out_with_a_note(capsys, table, tmp_path,
                                                                   name):
    path = tmp_path / "c.csv"
    # repeated values: only the name says identifier
    table.assign(candidate_id=table["candidate_id"] % 7).rename(
        columns={"candidate_id": name}).to_csv(path, index=False)
    features, err = _features(capsys, path, "--pos-label", "yes")
    assert features == ["age", "income"]
    assert f"left out column(s) {name} (named like an identifier)" in err


def test_report_leaves_an_identifier_out_of_hfm_too(capsys, table, files, tmp_path):
    csv, _ = files
    code, _, err = cli(capsys, "report", csv, *LABELS, "--pos-label", "yes",
                       "-o", tmp_path / "r.html")
    assert code == EXIT_OK, err
    assert "left out column(s) candidate_id (named like an identifier)" in err
    assert "HFM features: age, income" in err
