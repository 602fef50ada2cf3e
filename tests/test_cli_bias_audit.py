"""The ``bias-audit`` command: the table the Python API gives, on CSV and Parquet, in its words."""

import json

import numpy as np
import pandas as pd
import pytest

from skfair_manifold.cli import main
from skfair_manifold.metrics import bias_audit


def _frame(n=1500, seed=0):
    rng = np.random.RandomState(seed)
    sex = rng.choice(["female", "male"], n).astype(object)
    race = rng.choice(["Asian", "Black", "White"], n, p=[0.2, 0.3, 0.5]).astype(object)
    hired = (rng.rand(n) < 0.3 - 0.08 * (sex == "female")).astype(int)
    sex[rng.rand(n) < 0.05] = None
    race[rng.rand(n) < 0.05] = "Unknown"
    stage = np.where(hired == 1, "top", rng.choice(["middle", "low"], n))
    return pd.DataFrame({"sex": sex, "race": race, "hired": hired, "stage": stage,
                         "score": rng.rand(n) + 0.2 * hired})


@pytest.fixture
def csv_file(tmp_path):
    path = tmp_path / "decisions.csv"
    _frame().to_csv(path, index=False)
    return path


def test_the_table_of_a_csv_is_the_api_s(csv_file, tmp_path, capsys):
    out = tmp_path / "table.csv"
    code = main(["bias-audit", str(csv_file), "--decision", "hired", "--sensitive", "sex",
                 "race", "--unknown", "Unknown", "-o", str(out), "--json",
                 str(tmp_path / "a.json"), "--html", str(tmp_path / "a.html")])
    assert code == 0
    frame = pd.read_csv(csv_file, keep_default_na=False, na_values=[""])
    want = bias_audit(frame["hired"], sensitive_features=frame[["sex", "race"]],
                      unknown="Unknown").table
    got = pd.read_csv(out)
    np.testing.assert_allclose(got["rate"], want["rate"])
    np.testing.assert_allclose(got["impact_ratio_low"], want["impact_ratio_low"])
    stdout = capsys.readouterr().out
    # the terminal states the unknown counts and each table's comparator
    unknown_sex = int(frame["sex"].isna().sum())
    assert f"sex (unknown: {unknown_sex}; comparator: most selected: male)" in stdout
    assert "intersectional (unknown:" in stdout
    data = json.loads((tmp_path / "a.json").read_text())
    assert data["unknown"]["sex"] == unknown_sex
    assert (tmp_path / "a.html").read_text().startswith("<!DOCTYPE html>")


def test_scores_of_a_parquet_file_through_duckdb(tmp_path, capsys):
    duckdb = pytest.importorskip("duckdb")
    frame = _frame(seed=1)
    path = tmp_path / "scores.parquet"
    duckdb.from_df(frame).write_parquet(str(path))
    out = tmp_path / "table.csv"
    assert main(["bias-audit", str(path), "--score", "score", "--sensitive", "sex",
                 "--unknown", "Unknown", "-q", "-o", str(out)]) == 0
    assert capsys.readouterr().out == ""
    want = bias_audit(y_score=frame["score"], sensitive_features=frame[["sex"]]).table
    np.testing.assert_allclose(pd.read_csv(out)["n_selected"], want["n_selected"])


def test_tiers_on_the_command_line(csv_file, tmp_path, capsys):
    out = tmp_path / "t.csv"
    assert main(["bias-audit", str(csv_file), "--decision", "stage", "--sensitive", "sex",
                 "--tiers", "top", "top,middle", "-o", str(out)]) == 0
    table = pd.read_csv(out)
    assert list(table["tier"].unique()) == ["top", "top | middle"]
    assert "tier top: sex" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["--decision", "race", "--sensitive", "sex"], "--decision holds"),
    (["--decision", "hired", "--sensitive", "sexx"], "Did you mean 'sex'"),
    (["--sensitive", "sex"], "one of the two"),
    (["--decision", "hired", "--score", "score", "--sensitive", "sex"], "one of the two"),
    (["--decision", "hired", "--sensitive", "sex", "--comparator", "nobody"],
     "--comparator 'nobody' is not a category"),
    (["--decision", "stage", "--sensitive", "sex", "--tiers", "top", "best"],
     "--tiers names 'best'"),
])
def test_bad_input_is_one_line_in_the_command_line_s_words(csv_file, capsys, args, message):
    assert main(["bias-audit", str(csv_file), *args]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "y_pred" not in err and "tiers=" not in err


def _estimated_frame(n=2000, seed=3):
    rng = np.random.default_rng(seed)
    member = rng.dirichlet([0.6, 0.5, 0.4], 12)
    tract = rng.integers(0, 12, n)
    hired = (rng.random(n) < 0.3).astype(int)
    return pd.DataFrame({"hired": hired, "sex": rng.choice(["female", "male"], n),
                         "tract": tract, "p_white": member[tract, 0],
                         "p_black": member[tract, 1], "p_hispanic": member[tract, 2]})


def test_estimated_race_from_csv_and_parquet_is_the_api_s(tmp_path, capsys):
    duckdb = pytest.importorskip("duckdb")
    frame = _estimated_frame()
    csv_path, parquet_path = tmp_path / "est.csv", tmp_path / "est.parquet"
    frame.to_csv(csv_path, index=False)
    duckdb.from_df(frame).write_parquet(str(parquet_path))
    spec = "race=white:p_white,black:p_black,hispanic:p_hispanic"
    outs = []
    for path in (csv_path, parquet_path):
        out = tmp_path / f"{path.suffix[1:]}.csv"
        assert main(["bias-audit", str(path), "--decision", "hired", "--sensitive", "sex",
                     "--membership-columns", spec, "--proxy", "tract", "-o", str(out)]) == 0
        outs.append(pd.read_csv(out))
    stdout = capsys.readouterr().out
    assert "race (estimated: weighted over 12 strata; comparator:" in stdout
    P = frame[["p_white", "p_black", "p_hispanic"]].set_axis(["white", "black", "hispanic"],
                                                               axis=1)
    want = bias_audit(frame["hired"], sensitive_features=frame[["sex"]],
                      membership={"race": P}, proxy=frame["tract"]).table
    for got in outs:
        np.testing.assert_allclose(got["rate_low"], want["rate_low"], atol=1e-9)
        np.testing.assert_allclose(got["impact_ratio_ci_low"], want["impact_ratio_ci_low"],
                                   atol=1e-9)
        assert list(got["estimate"]) == list(want["estimate"])


@pytest.mark.parametrize("args, message", [
    (["--membership-columns", "race"], "write NAME=COLUMN,COLUMN"),
    (["--membership-columns", "race=p_white,p_blak"], "Did you mean 'p_black'"),
    (["--sensitive", "sex", "--proxy", "tract"], "--proxy gives the strata"),
    ([], "give the sensitive columns"),
    (["--membership-columns", "race=p_white,p_black"], "--membership-columns race row 0: it "
                                                        "sums to"),
    (["--membership-columns", "race=p_white,p_black,p_hispanic", "--estimate", "mode"],
     "--estimate must be"),
])
def test_estimated_input_errors_are_one_line_in_its_words(tmp_path, capsys, args, message):
    path = tmp_path / "est.csv"
    _estimated_frame(n=200).to_csv(path, index=False)
    assert main(["bias-audit", str(path), "--decision", "hired", *args]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_the_shortcut_warns_on_stderr(tmp_path, capsys):
    path = tmp_path / "est.csv"
    _estimated_frame(n=300).to_csv(path, index=False)
    assert main(["bias-audit", str(path), "--decision", "hired", "--membership-columns",
                 "race=p_white,p_black,p_hispanic", "--proxy", "tract", "--estimate",
                 "most_likely", "-q"]) == 0
    assert "warning: --estimate 'most_likely'" in capsys.readouterr().err
