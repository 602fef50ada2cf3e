"""The command line, called in-process through ``main(argv)``; one subprocess smoke test."""

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from skfair_manifold.cli import EXIT_DATA, EXIT_OK, EXIT_USAGE, build_parser, main
from skfair_manifold.cli import _io
from skfair_manifold.cli._audit import Progress
from skfair_manifold.cli._demo import MIN_SAMPLES

pd = pytest.importorskip("pandas")

ROOT = Path(__file__).resolve().parents[1]


def cli(capsys, *args, stdin=None, monkeypatch=None):
    """``main(args)`` in-process: (exit code, stdout, stderr)."""
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def error_line(result):
    """The one line of a data error (exit 1, nothing on stdout, no traceback)."""
    code, out, err = result
    assert code == EXIT_DATA, err
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture(scope="module")
def predictions_csv(tmp_path_factory):
    """Labels, predictions, two sensitive columns (one text) and features."""
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame({
        "income": rng.random(n) * 1000,
        "age": rng.integers(18, 70, n),
        "city": rng.choice(["north", "south", "east"], n),
        "sex": rng.choice(["F", "M"], n),
        "race": rng.integers(0, 4, n),
    })
    frame["y"] = (frame["income"] / 1000 + 0.2 * rng.standard_normal(n) > 0.5).astype(int)
    frame["y_pred"] = np.where(rng.random(n) < 0.85, frame["y"], 1 - frame["y"])
    path = tmp_path_factory.mktemp("hfm") / "predictions.csv"
    frame.to_csv(path, index=False)
    return path, frame


@pytest.fixture(scope="module")
def decisions_csv(tmp_path_factory):
    from skfair_manifold.datasets import make_biased_decisions

    data = make_biased_decisions(1500, n_groups=(2, 3), bias=(0.5, 0.0), random_state=0,
                                 as_frame=True)
    frame = data.frame.copy()
    frame["s0"] = frame["s0"].map({0: "male", 1: "female"})
    frame["decision"] = frame["decision"].map({0: "no", 1: "yes"})
    frame.insert(0, "person", [f"p{i:04d}" for i in range(len(frame))])
    path = tmp_path_factory.mktemp("audit") / "decisions.csv"
    frame.to_csv(path, index=False)
    return path, frame, data


HFM_ARGS = ["--label", "y", "--prediction", "y_pred", "--sensitive", "sex", "race"]
AUDIT_ARGS = ["--decision", "decision", "--positive-label", "yes", "--protected", "s0",
              "--protected-value", "female", "--id", "person", "--quiet"]


# --- help and usage ----------------------------------------------------------


def test_every_option_has_help():
    parser = build_parser()
    subparsers = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"][0]
    assert set(subparsers.choices) == {"hfm", "report", "audit", "bias-audit", "demo"}
    for name, sub in subparsers.choices.items():
        for action in sub._actions:
            assert action.help, f"{name}: option {action.option_strings or action.dest} has no help"
        assert sub.description


@pytest.mark.parametrize("command", [[], ["hfm"], ["report"], ["audit"], ["demo"]])
def test_help_explains_options(command, capsys):
    code, text, _ = cli(capsys, *command, "--help")
    assert code == EXIT_OK
    assert "usage: skfair-manifold" in text and "exit codes" in text
    if command == ["hfm"]:
        for option in ("--label", "--prediction", "--sensitive", "--features", "--method",
                       "--m1", "--m2", "--no-scale", "--pos-label", "--format", "--output",
                       "--max-categories", "--n-boot", "--intersect", "--debug"):
            assert option in text
    if command == ["audit"]:
        for option in ("--decision", "--positive-label", "--protected", "--protected-value",
                       "--method", "-k", "--tau", "--graph", "--alpha", "--alpha-test",
                       "--quiet", "--all-rows", "--id", "--seed", "--html",
                       "--no-csv-escape"):
            assert option in text


def test_version_and_usage_errors(capsys, tmp_path):
    code, out, _ = cli(capsys, "--version")
    assert code == EXIT_OK and "skfair-manifold" in out
    code, _, err = cli(capsys)
    assert code == EXIT_USAGE and "required" in err
    code, _, err = cli(capsys, "hfm", "x.csv", "--label", "y")
    assert code == EXIT_USAGE and "--prediction" in err
    code, _, err = cli(capsys, "hfm", "x.csv", *HFM_ARGS, "--m1", "0")
    assert code == EXIT_USAGE and "at least 1" in err
    code, _, err = cli(capsys, "audit", "x.csv", "--decision", "d", "--positive-label", "1",
                       "--protected", "s", "--protected-value", "1", "--tau", "2")
    assert code == EXIT_USAGE and "[0, 1]" in err


def test_empty_separator_is_a_usage_error(capsys, predictions_csv):
    path, _ = predictions_csv
    code, _, err = cli(capsys, "hfm", path, *HFM_ARGS, "--sep", "")
    assert code == EXIT_USAGE
    assert "argument --sep: the separator is empty" in err


def test_output_equal_to_input_is_refused(capsys, predictions_csv, tmp_path):
    path, _ = predictions_csv
    before = Path(path).read_bytes()
    same = Path(path).parent / ".." / Path(path).parent.name / Path(path).name
    code, _, err = cli(capsys, "hfm", path, *HFM_ARGS, "-o", same)
    assert code == EXIT_USAGE
    assert "is the input file" in err
    link = tmp_path / "link.csv"
    link.symlink_to(path)
    code, _, err = cli(capsys, "hfm", path, *HFM_ARGS, "-o", link)
    assert code == EXIT_USAGE and "is the input file" in err
    assert Path(path).read_bytes() == before


# --- bad files ---------------------------------------------------------------


def test_missing_file(capsys, tmp_path):
    line = error_line(cli(capsys, "hfm", tmp_path / "nope.csv", *HFM_ARGS))
    assert line == ("skfair-manifold hfm: error: "
                    + _io.MSG_NO_FILE.format(path=tmp_path / "nope.csv"))


def test_missing_column_suggests_a_close_name(capsys, predictions_csv):
    path, _ = predictions_csv
    line = error_line(cli(capsys, "hfm", path, "--label", "y", "--prediction", "y_pred",
                          "--sensitive", "sexe"))
    assert "column 'sexe' (--sensitive) is not in" in line
    assert "Did you mean 'sex'?" in line
    assert "income, age, city, sex, race, y, y_pred" in line


def test_empty_and_header_only_files(capsys, tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert "is empty" in error_line(cli(capsys, "hfm", empty, *HFM_ARGS))
    header = tmp_path / "header.csv"
    header.write_text("y,y_pred,sex,race\n")
    assert "has 0 data row(s); at least 2 are needed" in error_line(
        cli(capsys, "hfm", header, *HFM_ARGS))


def test_malformed_csv(capsys, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("y,y_pred,sex,race,x\n1,0,F,1,0.5\n0,1,M,2,0.1,9,9\n1,1,F,0,0.3\n")
    line = error_line(cli(capsys, "hfm", bad, *HFM_ARGS))
    assert "is not a well-formed CSV file" in line and "line 3" in line


def test_binary_file(capsys, tmp_path):
    binary = tmp_path / "data.csv"
    binary.write_bytes(b"\xff\xfe\x00\x01\x80\x81" * 50)
    line = error_line(cli(capsys, "hfm", binary, *HFM_ARGS))
    assert "not a UTF-8 text file" in line or "not a well-formed CSV" in line


def test_input_is_a_folder(capsys, tmp_path):
    line = error_line(cli(capsys, "hfm", tmp_path, *HFM_ARGS))
    assert "It is a folder" in line


def test_bad_values(capsys, tmp_path, predictions_csv):
    _, frame = predictions_csv
    bad = frame.head(20).copy()
    bad["y"] = bad["y"].astype(object)
    bad.loc[7, "y"] = "maybe"
    path = tmp_path / "bad_label.csv"
    bad.to_csv(path, index=False)
    line = error_line(cli(capsys, "hfm", path, *HFM_ARGS))
    assert _io.MSG_NOT_NUMERIC.format(column="y", role="--label", value="maybe", row=7,
                                      line=9).rstrip(".") in line
    assert line.endswith("need --pos-label VALUE, the favourable one.")
    bad = frame.head(20).copy()
    bad["income"] = bad["income"].astype(object)
    bad.loc[3, "income"] = "12,5k"
    path = tmp_path / "bad_feature.csv"
    bad.to_csv(path, index=False)
    assert "column 'income' (a feature) must be numeric; the value '12,5k' at row 3" in \
        error_line(cli(capsys, "hfm", path, *HFM_ARGS))
    gaps = frame.head(20).copy()
    gaps.loc[[2, 5], "sex"] = None
    path = tmp_path / "gaps.csv"
    gaps.to_csv(path, index=False)
    assert "column 'sex' has missing values at row(s) 2, 5 (line(s) 4, 7 of the file)" in \
        error_line(cli(capsys, "hfm", path, *HFM_ARGS))
    single = frame.head(20).copy()
    single["sex"] = "F"
    path = tmp_path / "single.csv"
    single.to_csv(path, index=False)
    assert "has a single value" in error_line(cli(capsys, "hfm", path, *HFM_ARGS))


def test_same_column_for_two_roles(capsys, predictions_csv):
    path, _ = predictions_csv
    line = error_line(cli(capsys, "hfm", path, "--label", "y", "--prediction", "y",
                          "--sensitive", "sex"))
    assert "column 'y' is given to both --label and --prediction" in line


def test_identifier_text_columns_are_refused_and_others_capped(capsys, tmp_path,
                                                               predictions_csv):
    _, frame = predictions_csv
    named = frame.copy()
    named["name"] = [f"person {i}" for i in range(len(named))]
    path = tmp_path / "named.csv"
    named.to_csv(path, index=False)
    # by default a distinct text on every row is left out of the features, with a note
    code, _, err = cli(capsys, "hfm", path, *HFM_ARGS)
    assert code == EXIT_OK, err
    assert "left out column(s) name (a distinct value on every row)" in err
    # named in --features, it is refused
    line = error_line(cli(capsys, "hfm", path, *HFM_ARGS, "--features", "income", "name"))
    assert "text column(s) 'name' look like identifiers" in line
    assert "--features" in line
    # the same file works once the features are listed
    code, _, err = cli(capsys, "hfm", path, *HFM_ARGS, "--features", "income", "age")
    assert code == EXIT_OK, err
    # a text column with many values, not an identifier: the rare values are merged
    many = frame.copy()
    many["zip"] = [f"z{i % 80}" for i in range(len(many))]  # 80 values, 5 rows each
    path = tmp_path / "many.csv"
    many.to_csv(path, index=False)
    code, out, err = cli(capsys, "hfm", path, *HFM_ARGS, "--max-categories", "10",
                         "--format", "json")
    assert code == EXIT_OK, err
    assert "zip have more than 10 values: the 9 most frequent are kept" in err
    # 2 numeric + city (3) + zip (9 + other) = 15 columns
    assert json.loads(out)["info"]["n_features"] == 2 + 3 + 10


# --- outputs: atomic, one-line errors ----------------------------------------------


@pytest.mark.parametrize("target", ["/dev/full", "folder", "missing/out.json"])
def test_every_output_error_is_one_line(capsys, tmp_path, predictions_csv, target):
    path, _ = predictions_csv
    if target == "/dev/full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    output = target if target.startswith("/") else tmp_path / target
    if target == "folder":
        output.mkdir()
    line = error_line(cli(capsys, "hfm", path, *HFM_ARGS, "--quiet", "-o", output))
    assert line.startswith("skfair-manifold hfm: error: cannot write")
    if target == "/dev/full":
        assert "no space left on device" in line
        assert Path("/dev/full").is_char_device()  # written to, never replaced


def test_graph_pointing_at_a_folder(capsys, tmp_path, decisions_csv):
    path, _, _ = decisions_csv
    line = error_line(cli(capsys, "audit", path, *AUDIT_ARGS, "--graph", tmp_path))
    assert line.startswith("skfair-manifold audit: error: cannot read")


def test_atomic_output_keeps_the_old_file_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "result.json"
    target.write_text("old content\n")
    real_replace = os.replace

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _io.write_text(str(target), "new content\n" * 1000)
    assert target.read_text() == "old content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json"]  # no temp left
    monkeypatch.setattr(os, "replace", real_replace)
    _io.write_text(str(target), "new\n")
    assert target.read_text() == "new\n"


def test_a_full_disk_leaves_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "result.csv"
    target.write_text("old\n")

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(_io.CLIError, match="no space left on device"):
        _io.write_text(str(target), "x" * 10000)
    assert target.read_text() == "old\n"
    assert len(list(tmp_path.iterdir())) == 1


def test_unexpected_errors_show_no_traceback_unless_debug(capsys, predictions_csv,
                                                          monkeypatch):
    from skfair_manifold.cli import _hfm

    def broken(*args, **kwargs):
        raise RuntimeError("something\nbroke")

    monkeypatch.setattr(_hfm, "result_dict", broken)
    path, _ = predictions_csv
    line = error_line(cli(capsys, "hfm", path, *HFM_ARGS, "--quiet"))
    assert "unexpected RuntimeError: something broke" in line and "--debug" in line
    with pytest.raises(RuntimeError):
        main(["hfm", str(path), *HFM_ARGS, "--quiet", "--debug"])
    with pytest.raises(RuntimeError):
        main(["--debug", "hfm", str(path), *HFM_ARGS, "--quiet"])


def test_demo_too_small_names_the_smallest_size(capsys):
    line = error_line(cli(capsys, "demo", "--n-samples", "10"))
    assert f"at least {MIN_SAMPLES} rows" in line
    assert f"--n-samples {MIN_SAMPLES}" in line


# --- CSV injection -------------------------------------------------------------------


@pytest.mark.parametrize("cell, expected", [
    ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"),
    ("+1+2", "'+1+2"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\tx", "'\tx"), ("\rx", "'\rx"), ("-0.25", "-0.25"), ("plain", "plain"), (3, 3),
])
def test_escape_cell(cell, expected):
    assert _io.escape_cell(cell) == expected


def test_audit_csv_escapes_formulas_unless_told_not_to(capsys, tmp_path, decisions_csv):
    path, frame, _ = decisions_csv
    evil = frame.copy()
    evil["person"] = [f"=HYPERLINK(\"http://e/{i}\")" if i % 2 else f"@p{i}"
                      for i in range(len(evil))]
    evil["s0"] = evil["s0"].map({"female": "-female", "male": "male"})
    bad = tmp_path / "evil.csv"
    evil.to_csv(bad, index=False)
    at = AUDIT_ARGS.index("--protected-value")
    args = AUDIT_ARGS[:at] + ["--protected-value=-female"] + AUDIT_ARGS[at + 2:]
    out_csv, cells_csv = tmp_path / "flagged.csv", tmp_path / "testers.csv"
    code, _, err = cli(capsys, "audit", bad, *args, "-k", "10", "-o", out_csv,
                       "--testers", cells_csv)
    assert code == EXIT_OK, err
    written = pd.read_csv(out_csv, keep_default_na=False)
    assert len(written) > 0
    assert written["person"].str.startswith("'").all()
    assert (written["s0"] == "'-female").all()
    listed = [item for cell in written["testers_unprotected"] for item in cell.split(";")
              if item]
    assert listed and all(item.startswith("'") for item in listed)
    cells = pd.read_csv(cells_csv)
    assert cells["person"].str.startswith("'").all()
    raw = tmp_path / "raw.csv"
    code, _, err = cli(capsys, "audit", bad, *args, "-k", "10", "-o", raw, "--no-csv-escape")
    assert code == EXIT_OK, err
    unescaped = pd.read_csv(raw)
    assert unescaped["person"].str.startswith(("=", "@")).all()
    assert (unescaped["s0"] == "-female").all()


# --- the progress bar ------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal():
    tty = _Terminal()
    bar = Progress(10, label="auditing", stream=tty)
    bar.update(4)
    bar.update(6)
    bar.close()
    text = tty.getvalue()
    assert text.count("\r") == 2 and "100%" in text and "10/10 rows" in text
    assert text.endswith("\n")
    pipe = io.StringIO()
    bar = Progress(10, label="auditing", stream=pipe)
    bar.update(10)
    bar.close()
    assert pipe.getvalue() == ""
    quiet = _Terminal()
    bar = Progress(10, label="auditing", stream=quiet, enabled=False)
    bar.update(10)
    bar.close()
    assert quiet.getvalue() == ""


def test_audit_progress_bar_and_deprecated_options(capsys, decisions_csv, tmp_path,
                                                   monkeypatch):
    tty = _Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    path, _, _ = decisions_csv
    args = [a for a in AUDIT_ARGS if a != "--quiet"]
    out_old = tmp_path / "old.csv"
    # an old command line (--seed, --batch-size) still runs, with a note for each
    code = main(["audit", str(path), *args, "-k", "20", "--batch-size", "500", "--seed",
                 "3", "-o", str(out_old)])
    assert code == EXIT_OK
    text = tty.getvalue()
    assert text.count("\rauditing [") == 1  # one pass over the 1500 rows
    assert "1500/1500 rows" in text
    assert "note: --seed no longer changes anything" in text
    assert "note: --batch-size no longer changes anything" in text
    # and gives the same output as without them
    out_new = tmp_path / "new.csv"
    assert main(["audit", str(path), *AUDIT_ARGS, "-k", "20", "-o", str(out_new)]) == EXIT_OK
    assert out_old.read_text() == out_new.read_text()


# --- hfm, end to end -------------------------------------------------------------------


def test_hfm_default_method_is_auto_and_says_which_engine(capsys, predictions_csv):
    from skfair_manifold.metrics import hfm_report

    path, frame = predictions_csv
    code, out, err = cli(capsys, "hfm", path, *HFM_ARGS, "--format", "json")
    assert code == EXIT_OK, err
    result = json.loads(out)
    assert result["info"]["method"] == "auto"
    assert result["info"]["engine"] == "exact"  # a small file: below the crossover
    features = np.column_stack([frame["income"], frame["age"],
                                pd.get_dummies(frame["city"], dtype=float).to_numpy()])
    report = hfm_report(frame["y"], frame["y_pred"], X=features,
                        sensitive_features=frame[["sex", "race"]], method="exact")
    assert result["hfm_avg"] == pytest.approx(report.hfm_avg, rel=1e-5)
    code, out, _ = cli(capsys, "hfm", path, *HFM_ARGS)
    assert "method 'auto' (exact distances)." in out


def test_hfm_json_matches_the_library(capsys, predictions_csv, tmp_path):
    from skfair_manifold.metrics import demographic_parity, hfm_report

    path, frame = predictions_csv
    out_file = tmp_path / "measures.json"
    code, _, err = cli(capsys, "hfm", path, *HFM_ARGS, "--method", "exact", "--format",
                       "json", "-o", out_file)
    assert code == EXIT_OK, err
    assert "one-hot encoded the text column(s) city" in err
    text = out_file.read_text()
    assert "NaN" not in text and "Infinity" not in text
    result = json.loads(text)
    features = np.column_stack([frame["income"], frame["age"],
                                pd.get_dummies(frame["city"], dtype=float).to_numpy()])
    report = hfm_report(frame["y"], frame["y_pred"], X=features,
                        sensitive_features=frame[["sex", "race"]], method="exact")
    assert result["hfm_max"] == pytest.approx(report.hfm_max, rel=1e-5)
    assert result["hfm_avg"] == pytest.approx(report.hfm_avg, rel=1e-5)
    assert set(result["per_attribute"]) == {"sex", "race"}
    assert result["per_attribute"]["race"]["hfm_avg"] == pytest.approx(
        report.per_attribute.hfm_avg[1], rel=1e-5)
    assert result["baselines"]["demographic_parity"] == pytest.approx(
        demographic_parity(frame["y"], frame["y_pred"],
                           sensitive_features=frame[["sex", "race"]]), rel=1e-5)
    assert result["by_group"]["sex"]["F"]["count"] == int((frame["sex"] == "F").sum())
    assert result["info"]["n_rows"] == len(frame)
    assert result["info"]["features"] == ["income", "age", "city"]
    assert result["digits"] == 6
    # floats are rounded to 6 significant digits
    for value in (result["hfm_max"], result["distances"]["D_avg"]):
        assert value == float(f"{value:.6g}")


def test_json_has_no_nan_token_and_explains_undefined_values(capsys, tmp_path):
    # group b has no positive label: EO is undefined for it
    frame = pd.DataFrame({"y": [1, 0, 1, 0, 0, 0, 1, 0], "y_pred": [1, 0, 0, 1, 0, 1, 1, 0],
                          "g": ["a", "a", "a", "a", "b", "b", "c", "c"],
                          "x": [0.1, 0.5, 0.3, 0.9, 0.2, 0.7, 0.4, 0.6]})
    path = tmp_path / "small.csv"
    frame.to_csv(path, index=False)
    code, out, err = cli(capsys, "hfm", path, "--label", "y", "--prediction", "y_pred",
                         "--sensitive", "g", "--format", "json", "--method", "exact",
                         "--min-group-size", "1")
    assert code == EXIT_OK, err
    assert "NaN" not in out
    result = json.loads(out)
    assert result["by_group"]["g"]["b"]["true_positive_rate"] is None
    reason = result["undefined"]["by_group.g.b.true_positive_rate"]
    assert "0/0" in reason


def test_json_rounds_round_off_to_zero():
    assert _io.round_significant(-2.220446049250313e-16) == 0.0
    assert _io.round_significant(0.123456789) == 0.123457
    text = _io.dump_json({"a": float("nan"), "b": float("inf"), "c": np.float64(1 / 3)})
    assert json.loads(text) == {"a": None, "b": None, "c": 0.333333, "digits": 6,
                                "undefined": {"a": "undefined on the data given",
                                              "b": "undefined on the data given"}}


def test_hfm_table_reproducible_and_from_stdin(capsys, predictions_csv, monkeypatch):
    path, _ = predictions_csv
    first = cli(capsys, "hfm", path, *HFM_ARGS, "--seed", "3", "--features", "income", "age")
    second = cli(capsys, "hfm", "-", *HFM_ARGS, "--seed", "3", "--features", "income", "age",
                 stdin=Path(path).read_text(), monkeypatch=monkeypatch)
    assert first[0] == second[0] == EXIT_OK, first[2] + second[2]
    assert first[1] == second[1]
    lines = first[1].splitlines()
    assert lines[0].split() == ["attribute", "HFM", "max", "HFM", "avg", "DP", "EO", "PQP"]
    assert [line.split()[0] for line in lines[2:5]] == ["sex", "race", "all"]
    assert "natural logarithm" in first[1]
    assert "four-fifths rule" in first[1]


def test_hfm_bootstrap_and_intersect(capsys, predictions_csv):
    path, _ = predictions_csv
    code, out, err = cli(capsys, "hfm", path, *HFM_ARGS, "--format", "json", "--n-boot",
                         "30", "--intersect", "--quiet")
    assert code == EXIT_OK, err
    result = json.loads(out)
    assert list(result["gaps"]) == ["sex & race"]
    low, high = result["intervals"]["gaps"]["sex & race"]["demographic_parity_difference"]
    assert 0 <= low < high <= 1
    low, high = result["intervals"]["by_group"]["sex & race"]["F & 0"]["selection_rate"]
    assert low <= result["by_group"]["sex & race"]["F & 0"]["selection_rate"] <= high


# --- audit, end to end -----------------------------------------------------------------


def test_audit_csv_and_json(capsys, decisions_csv, tmp_path):
    path, frame, data = decisions_csv
    out_csv = tmp_path / "flagged.csv"
    code, _, err = cli(capsys, "audit", path, *AUDIT_ARGS, "-k", "20", "-o", out_csv)
    assert code == EXIT_OK, err
    assert err == ""  # --quiet
    # diff read exactly as written: pandas < 3 parses 0.05000000000000002 as 0.05
    flagged = pd.read_csv(out_csv, converters={"diff": float})
    assert {"row", "person", "p1", "p2", "diff"} <= set(flagged.columns)
    assert len(flagged) > 0
    rows = frame.iloc[flagged["row"]]
    assert (rows["s0"] == "female").all() and (rows["decision"] == "no").all()
    assert (flagged["diff"] > 0.05).all()
    assert (flagged["person"] == rows["person"].to_numpy()).all()
    assert data.discriminated[flagged["row"]].mean() > 0.5
    code, out, err = cli(capsys, "audit", path, *AUDIT_ARGS, "-k", "20", "--format", "json",
                         "--all-rows")
    assert code == EXIT_OK, err
    payload = json.loads(out)
    assert payload["n_rows"] == len(frame) == len(payload["rows"])
    assert payload["n_flagged"] == len(flagged)


def test_audit_summary_on_stderr(capsys, decisions_csv):
    path, _, _ = decisions_csv
    args = [a for a in AUDIT_ARGS if a != "--quiet"]
    code, _, err = cli(capsys, "audit", path, *args, "-k", "20")
    assert code == EXIT_OK, err
    assert "\r" not in err  # not a terminal: no progress bar
    assert "flagged by the rule" in err and "flagged as discriminated" not in err
    line = next(x for x in err.splitlines() if "flagged by the rule" in x)
    if "; verdicts: " in line:  # every verdict a flag can have, counted beside "flagged"
        assert all(f"{v} " in line for v in ("discriminated", "fragile", "insufficient"))


def test_audit_bad_values(capsys, tmp_path, decisions_csv):
    path, frame, _ = decisions_csv
    args = [a if a != "female" else "woman" for a in AUDIT_ARGS]
    line = error_line(cli(capsys, "audit", path, *args))
    assert line.endswith(_io.MSG_BAD_CHOICE.format(
        option="--protected-value", value="woman", column="s0", values="female, male"))
    args = [a if a != "yes" else "approved" for a in AUDIT_ARGS]
    assert "--positive-label 'approved' is not a value of column 'decision'" in \
        error_line(cli(capsys, "audit", path, *args))
    three = frame.head(50).copy()
    three.loc[0, "decision"] = "maybe"
    bad = tmp_path / "three.csv"
    three.to_csv(bad, index=False)
    assert "must hold exactly 2 values" in error_line(cli(capsys, "audit", bad, *AUDIT_ARGS))
    dup = frame.head(50).copy()
    dup.loc[1, "person"] = dup.loc[0, "person"]
    bad = tmp_path / "dup.csv"
    dup.to_csv(bad, index=False)
    assert "must identify rows; 'p0000' appears twice" in \
        error_line(cli(capsys, "audit", bad, *AUDIT_ARGS))


def test_audit_graph_files(capsys, tmp_path, decisions_csv):
    path, _, _ = decisions_csv
    graph = tmp_path / "graph.json"
    graph.write_text("{not json")
    assert "is not valid JSON" in error_line(
        cli(capsys, "audit", path, *AUDIT_ARGS, "--graph", graph))
    graph.write_text('{"decision": "x0"}')
    assert "must hold a JSON object mapping each node" in error_line(
        cli(capsys, "audit", path, *AUDIT_ARGS, "--graph", graph))
    assert "no such file" in error_line(
        cli(capsys, "audit", path, *AUDIT_ARGS, "--graph", tmp_path / "none.json"))
    graph.write_text(json.dumps({"decision": ["s0", "x0", "x1", "x2"], "x5": ["s0"]}))
    code, out, err = cli(capsys, "audit", path, *AUDIT_ARGS, "-k", "20", "--graph", graph,
                         "--format", "json")
    assert code == EXIT_OK, err
    assert json.loads(out)["q"] == ["x0", "x1", "x2"]
    graph.write_text(json.dumps(["s0", "x0", "x1"]))
    code, out, err = cli(capsys, "audit", path, *AUDIT_ARGS, "-k", "20", "--graph", graph,
                         "--format", "json")
    assert code == EXIT_OK, err
    assert json.loads(out)["q"] == ["x0", "x1"]


# --- demo, and one real subprocess ---------------------------------------------------------


def test_demo_runs_and_names_the_planted_cases(capsys):
    code, out, err = cli(capsys, "demo", "--n-samples", "600")
    assert code == EXIT_OK, err
    assert "planted cases" in out and "Best trade-off" in out
    assert re.search(r"Found \d+ of the \d+ planted cases with CBN-DD", out)


def test_smoke_subprocess(predictions_csv):
    """The installed entry point: ``python -m skfair_manifold`` in a real process."""
    path, _ = predictions_csv
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-m", "skfair_manifold", "--version"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == EXIT_OK and out.stdout.startswith("skfair-manifold ")
    out = subprocess.run([sys.executable, "-m", "skfair_manifold", "hfm", str(path),
                          *HFM_ARGS, "-o", "/nonexistent-folder/x.json"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == EXIT_DATA
    assert "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines()[-1].startswith("skfair-manifold hfm: error:")


def test_import_of_the_root_is_lazy():
    """``import skfair_manifold`` and the parser load neither scikit-learn nor pandas."""
    code = ("import sys, skfair_manifold, skfair_manifold.cli;"
            "skfair_manifold.cli.build_parser();"
            "print(sorted(m for m in ('sklearn', 'pandas', 'scipy') if m in sys.modules))")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.stdout.strip() == "[]", out.stderr


# --- audit: attribute kinds, flag rules, bounds, and the evidence written -------------------


@pytest.fixture(scope="module")
def mixed_csv(tmp_path_factory, decisions_csv):
    """The decisions with a continuous column (income) and a numeric code (region)."""
    _, frame, _ = decisions_csv
    rng = np.random.default_rng(0)
    mixed = frame.copy()
    mixed.insert(7, "income", mixed["x0"] * 1000 + rng.normal(0, 300, len(mixed)))
    mixed.insert(8, "region", rng.choice([11, 23, 31, 47], len(mixed)))
    path = tmp_path_factory.mktemp("mixed") / "mixed.csv"
    mixed.to_csv(path, index=False)
    return path, mixed


def audit_json(capsys, path, *args):
    code, out, err = cli(capsys, "audit", path, *AUDIT_ARGS, "--format", "json", *args)
    assert code == EXIT_OK, err
    return json.loads(out)


def python_report(frame, **options):
    """The same audit run on the auditor directly: the reference of the CLI's output."""
    from skfair_manifold.situation_testing import SituationTestingAuditor

    X = frame.drop(columns=["person", "decision"])
    y = frame["decision"]
    auditor = SituationTestingAuditor(protected="s0", protected_value="female",
                                      positive_label="yes", **options).fit(X, y)
    return auditor, auditor.report(X, y)


def test_audit_attribute_kinds_reach_the_auditor(capsys, mixed_csv):
    path, frame = mixed_csv
    default = audit_json(capsys, path, "-k", "20")
    assert default["attribute_kinds"]["region"] == "ordinal"  # 4 integer codes
    assert default["attribute_kinds"]["income"] == "interval"
    declared = audit_json(capsys, path, "-k", "20", "--nominal", "region", "x1",
                          "--ordinal", "x2", "--interval", "x0", "income", "--n-bins", "3")
    kinds = declared["attribute_kinds"]
    assert kinds["region"] == kinds["x1"] == "nominal"
    assert kinds["x2"] == "ordinal" and kinds["x0"] == kinds["income"] == "interval"
    assert set(declared["bin_edges"]) == {"x0", "income"}
    assert all(len(edges) <= 2 for edges in declared["bin_edges"].values())  # 3 bins
    assert 1 <= len(default["bin_edges"]["income"]) <= 4  # at most the auditor's 5 bins
    quantile = audit_json(capsys, path, "-k", "20", "--binning", "quantile")
    assert len(quantile["bin_edges"]["income"]) == 4  # 5 quantile bins
    # the CLI's rows are the auditor's, for the same declaration
    _, report = python_report(frame, k=20, nominal=["region", "x1"], ordinal=["x2"],
                              interval=["x0", "income"], n_bins=3)
    assert [r["row"] for r in declared["rows"]] == report.summary["row"].tolist()
    np.testing.assert_allclose([r["diff_lower"] for r in declared["rows"]],
                               report.summary["diff_lower"], rtol=1e-5, atol=1e-6)


def test_audit_bad_attribute_kinds(capsys, mixed_csv):
    path, _ = mixed_csv
    line = error_line(cli(capsys, "audit", path, *AUDIT_ARGS, "--interval", "incme"))
    assert "column 'incme' (--interval) is not in" in line and "Did you mean 'income'?" in line
    line = error_line(cli(capsys, "audit", path, *AUDIT_ARGS, "--nominal", "person"))
    assert "'person' (--nominal) is not among the audited attributes (it is the --id column)" \
        in line
    line = error_line(cli(capsys, "audit", path, *AUDIT_ARGS, "--features", "x0", "x1",
                          "--ordinal", "x2"))
    assert "add it to --features or drop it from --ordinal" in line
    line = error_line(cli(capsys, "audit", path, *AUDIT_ARGS, "--nominal", "x1",
                          "--interval", "x1"))
    assert "column 'x1' is given to both --nominal and --interval" in line
    line = error_line(cli(capsys, "audit", path, *AUDIT_ARGS, "--ordinal", "s0"))
    assert "protected column 's0' cannot be declared ordinal" in line
    code, _, err = cli(capsys, "audit", path, *AUDIT_ARGS, "--n-bins", "1")
    assert code == EXIT_USAGE and "at least 2" in err


def test_audit_flag_rules_and_bounds(capsys, decisions_csv):
    path, frame, _ = decisions_csv
    bound = audit_json(capsys, path, "-k", "20", "--flag-rule", "bound")
    tau = audit_json(capsys, path, "-k", "20", "--flag-rule", "tau")
    default = audit_json(capsys, path, "-k", "20", "--flag-rule", "significant")
    exact = audit_json(capsys, path, "-k", "20")
    assert exact["rule"].startswith("diff > 0.05 and q_value <= 0.1 (exact test")
    assert all(r["diff"] > 0.05 and r["q_value"] <= 0.1 and r["p_value"] <= r["q_value"]
               and r["verdict"] in ("discriminated", "fragile", "insufficient")
               for r in exact["rows"])
    assert {r["row"] for r in exact["rows"]} <= {r["row"] for r in tau["rows"]}
    # the provenance: the input's SHA-256, the version, the graph's source, the kinds
    import hashlib

    assert exact["sha256"] == hashlib.sha256(Path(path).read_bytes()).hexdigest()
    assert exact["provenance"]["package"].startswith("skfair_manifold ")
    assert exact["provenance"]["graph_source"] in ("given", "learned")
    assert all(v["how"] in ("declared", "inferred")
               for v in exact["provenance"]["column_kinds"].values())
    by = audit_json(capsys, path, "-k", "20", "--fdr-method", "by")
    assert {r["row"] for r in by["rows"]} <= {r["row"] for r in exact["rows"]}
    dbh = audit_json(capsys, path, "-k", "20", "--fdr-method", "dbh")
    assert "discrete Benjamini-Hochberg step-up" in dbh["rule"]
    assert all(r["q_value"] <= 0.1 and r["diff"] > 0.05 for r in dbh["rows"])
    _, report = python_report(frame, k=20, fdr_method="dbh")
    assert [r["row"] for r in dbh["rows"]] == report.summary["row"].tolist()
    pooled = audit_json(capsys, path, "-k", "20", "--causal-effect", "pooled")
    assert pooled["provenance"]["options"]["causal_effect"] == "'pooled'"
    _, report = python_report(frame, k=20, causal_effect="pooled")
    assert [r["row"] for r in pooled["rows"]] == report.summary["row"].tolist()
    alone = audit_json(capsys, path, "-k", "20", "--fdr", "none")
    assert {r["row"] for r in exact["rows"]} <= {r["row"] for r in alone["rows"]}
    assert bound["rule"] == "diff_lower > 0.05 (wald, one-sided 90%)"
    assert tau["rule"] == "diff > 0.05"
    assert default["rule"] == "diff > 0.05 and diff_lower > 0 (wald, one-sided 90%)"
    assert all(r["diff"] > 0.05 and r["diff_lower"] > 0 for r in default["rows"])
    assert ({r["row"] for r in bound["rows"]} <= {r["row"] for r in default["rows"]}
            <= {r["row"] for r in tau["rows"]})
    assert all(r["rule"] == bound["rule"] and r["diff_lower"] > 0.05 for r in bound["rows"])
    assert all(r["rule"] == tau["rule"] and r["diff"] > 0.05 for r in tau["rows"])
    assert any(r["diff_lower"] <= 0.05 for r in tau["rows"])  # the bound is stricter
    assert {r["row"] for r in bound["rows"]} < {r["row"] for r in tau["rows"]}
    # every flagged person's interval holds its diff
    assert all(r["diff_lower"] <= r["diff"] <= r["diff_upper"] for r in bound["rows"])
    newcombe = audit_json(capsys, path, "-k", "20", "--bound", "newcombe",
                          "--alpha-test", "0.2", "--flag-rule", "bound")
    assert newcombe["rule"] == "diff_lower > 0.05 (newcombe, one-sided 80%)"
    assert newcombe["bound"] == "newcombe" and newcombe["alpha_test"] == 0.2
    _, report = python_report(frame, k=20, bound="newcombe", alpha_test=0.2,
                              flag_rule="bound")
    assert [r["row"] for r in newcombe["rows"]] == report.summary["row"].tolist()
    np.testing.assert_allclose([r["diff_upper"] for r in newcombe["rows"]],
                               report.summary["diff_upper"], rtol=1e-5, atol=1e-6)
    wald = {r["row"]: r["diff_lower"] for r in bound["rows"]}
    assert any(abs(wald[r["row"]] - r["diff_lower"]) > 1e-3
               for r in newcombe["rows"] if r["row"] in wald)


def test_audit_alpha_follows_the_auditor(capsys, decisions_csv):
    import inspect

    from skfair_manifold.situation_testing import SituationTestingAuditor

    path, _, _ = decisions_csv
    default = inspect.signature(SituationTestingAuditor).parameters["alpha"].default
    assert audit_json(capsys, path, "-k", "20")["alpha"] == default
    assert audit_json(capsys, path, "-k", "20", "--alpha", "0.05")["alpha"] == 0.05
    _, text, _ = cli(capsys, "audit", "--help")
    assert f"(default: the auditor's, {default})" in " ".join(text.split())
    for option in ("--nominal", "--ordinal", "--interval", "--flag-rule", "--bound",
                   "--n-bins", "--batch-size"):
        assert option in text


def test_audit_writes_the_testers_with_their_weights(capsys, decisions_csv, tmp_path):
    path, frame, _ = decisions_csv
    out_csv, cells_csv = tmp_path / "flagged.csv", tmp_path / "testers.csv"
    decision_of = dict(zip(frame["person"], frame["decision"]))
    for method in ("cbn", "knn"):
        code, _, err = cli(capsys, "audit", path, *AUDIT_ARGS, "-k", "20", "--method", method,
                           "-o", out_csv, "--testers", cells_csv)
        assert code == EXIT_OK, err
        flagged = pd.read_csv(out_csv, keep_default_na=False)
        cells = pd.read_csv(cells_csv)
        assert {"diff_lower", "diff_upper", "n1", "n2", "rule", "tie_groups_unprotected",
                "tie_groups_protected"} <= set(flagged.columns)
        assert {"row", "person", "side", "certain", "distance", "n_records", "n_positive",
                "weight", "testers", "positives", "cell"} <= set(cells.columns)
        assert set(cells["person"]) == set(flagged["person"])
        ties = 0
        for _, row in flagged.iterrows():
            for side, n, p in (("unprotected", "n1", "p1"), ("protected", "n2", "p2")):
                ids = [t for t in row[f"testers_{side}"].split(";") if t]
                decisions = [d for d in row[f"decisions_{side}"].split(";") if d]
                assert len(ids) == len(decisions) and len(set(ids)) == len(ids)
                assert row["person"] not in ids  # never one's own tester
                assert decisions == [decision_of[t] for t in ids]
                groups = [re.fullmatch(r"cell (\d+): (\S+) records, (\S+) positive, "
                                       r"weight (\S+)", g).groups()
                          for g in row[f"tie_groups_{side}"].split(";") if g]
                groups = np.array(groups, dtype=float).reshape(-1, 4)
                assert ((groups[:, 3] > 0) & (groups[:, 3] < 1)).all()
                ties += len(groups)
                # certain testers count 1, a tie group weight x records: they add up to n
                expected = len(ids) + (groups[:, 3] * groups[:, 1]).sum()
                assert expected == pytest.approx(row[n], abs=1e-4)
                positives = decisions.count("yes") + (groups[:, 3] * groups[:, 2]).sum()
                assert positives / expected == pytest.approx(row[p], abs=1e-4)
                # the long table holds the same cells, with their values
                mine = cells[(cells["person"] == row["person"]) & (cells["side"] == side)]
                assert mine["testers"].sum() == pytest.approx(row[n], abs=1e-4)
                assert sorted(mine.loc[~mine["certain"], "cell"]) == sorted(groups[:, 0])
        assert ties > 0  # the data have tie groups, and they are written
    code, out, err = cli(capsys, "audit", path, *AUDIT_ARGS, "-k", "20", "--format", "json",
                         "--testers", cells_csv)
    assert code == EXIT_OK, err
    first = json.loads(out)["rows"][0]
    assert isinstance(first["testers_unprotected"], list)
    assert all(set(g) == {"cell", "n_records", "n_positive", "weight", "distance"}
               for g in first["tie_groups_unprotected"] + first["tie_groups_protected"])
    long = json.loads(cells_csv.read_text())["rows"]
    assert {r["person"] for r in long} >= {first["person"]}


def test_audit_notes_of_fit_on_stderr(capsys, decisions_csv):
    path, _, _ = decisions_csv
    # without --id, the person column is a feature: identifier-like, left out with a note
    args = [a for a in AUDIT_ARGS if a not in ("--id", "person")]
    code, out, err = cli(capsys, "audit", path, *[a for a in args if a != "--quiet"],
                         "-k", "20", "--format", "json")
    assert code == EXIT_OK
    assert "skfair-manifold audit: note: column(s) 'person' look like identifiers" in err
    payload = json.loads(out)
    assert payload["identifier_columns"] == ["person"] and len(payload["notes"]) == 1
    code, _, err = cli(capsys, "audit", path, *args, "-k", "20", "-o", os.devnull)
    assert code == EXIT_OK and err == ""  # --quiet


def test_the_audit_options_of_the_auditor_are_its_parameters_with_its_defaults():
    """Each audit option marked ``auditor=True`` is a parameter of the auditor, has no
    default of its own (the auditor's applies), offers only values the auditor accepts,
    and reaches it only when given."""
    import inspect

    from skfair_manifold.cli._audit_options import AUDIT_OPTIONS, auditor_options
    from skfair_manifold.cli._options import _dest
    from skfair_manifold.situation_testing import SituationTestingAuditor
    from skfair_manifold.situation_testing._params import PARAMETER_CONSTRAINTS

    params = inspect.signature(SituationTestingAuditor).parameters
    forwarded = [item for item in AUDIT_OPTIONS if item.auditor]
    assert {_dest(item) for item in forwarded} >= {"method", "k", "tau", "flag_rule", "fdr",
                                                   "fdr_method", "bound", "alpha_test"}
    for item in forwarded:
        name = _dest(item)
        assert name in params and "default" not in item.settings
        checks = [c for c in PARAMETER_CONSTRAINTS[name] if hasattr(c, "is_satisfied_by")]
        for choice in item.settings.get("choices", []):
            assert any(c.is_satisfied_by(choice) for c in checks), (name, choice)
    base = ["audit", "x.csv", "--decision", "d", "--positive-label", "1", "--protected", "s",
            "--protected-value", "f"]
    args = vars(build_parser().parse_args(base))
    assert auditor_options(args) == {} and "k" not in args
    args = vars(build_parser().parse_args(base + ["-k", "20", "--fdr", "none"]))
    assert auditor_options(args) == {"k": 20, "fdr": None}
