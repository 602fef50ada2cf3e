"""End-to-end tests of the command line, run as a subprocess on files the tests write."""

import importlib.util
import io
import json
import re
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from skfair_manifold import _cli
from skfair_manifold._cli import EXIT_DATA, EXIT_OK, EXIT_USAGE, Progress, build_parser

pd = pytest.importorskip("pandas")

ROOT = Path(__file__).resolve().parents[1]
HAS_METRICS = importlib.util.find_spec("skfair_manifold.metrics") is not None
HAS_AUDITOR = importlib.util.find_spec("skfair_manifold.situation_testing") is not None
needs_metrics = pytest.mark.skipif(not HAS_METRICS, reason="skfair_manifold.metrics missing")
needs_auditor = pytest.mark.skipif(not HAS_AUDITOR,
                                   reason="skfair_manifold.situation_testing missing")


def run(*args, cwd=None, stdin=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "skfair_manifold", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, env=env, input=stdin,
                          timeout=300)


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


# --- help and usage ----------------------------------------------------------


def test_every_option_has_help():
    parser = build_parser()
    subparsers = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"][0]
    assert set(subparsers.choices) == {"hfm", "audit", "demo"}
    for name, sub in subparsers.choices.items():
        for action in sub._actions:
            assert action.help, f"{name}: option {action.option_strings or action.dest} has no help"
        assert sub.description


def _help(command, capsys):
    """``--help`` in-process: argparse prints and exits 0."""
    with pytest.raises(SystemExit) as excinfo:
        _cli.main([*command, "--help"])
    assert excinfo.value.code == EXIT_OK
    return capsys.readouterr().out


def test_help_through_python_dash_m():
    out = run("--help")
    assert out.returncode == EXIT_OK
    assert "usage: skfair-manifold" in out.stdout and "exit codes" in out.stdout


@pytest.mark.parametrize("command", [[], ["hfm"], ["audit"], ["demo"]])
def test_help_explains_options(command, capsys):
    text = _help(command, capsys)
    assert "usage: skfair-manifold" in text
    assert "exit codes" in text
    if command == ["hfm"]:
        for option in ("--label", "--prediction", "--sensitive", "--features", "--method",
                       "--m1", "--m2", "--no-scale", "--pos-label", "--format", "--output"):
            assert option in text
    if command == ["audit"]:
        for option in ("--decision", "--positive-label", "--protected", "--protected-value",
                       "--method", "-k", "--tau", "--graph", "--alpha", "--alpha-test",
                       "--quiet", "--all-rows", "--id", "--seed"):
            assert option in text


def test_version_and_usage_errors():
    out = run("--version")
    assert out.returncode == EXIT_OK and "skfair-manifold" in out.stdout
    out = run()
    assert out.returncode == EXIT_USAGE and "required" in out.stderr
    out = run("hfm", "x.csv", "--label", "y")
    assert out.returncode == EXIT_USAGE and "--prediction" in out.stderr
    out = run("hfm", "x.csv", "--label", "y", "--prediction", "p", "--sensitive", "s",
              "--m1", "0")
    assert out.returncode == EXIT_USAGE and "at least 1" in out.stderr
    out = run("audit", "x.csv", "--decision", "d", "--positive-label", "1", "--protected",
              "s", "--protected-value", "1", "--tau", "2")
    assert out.returncode == EXIT_USAGE and "[0, 1]" in out.stderr


# --- bad files ---------------------------------------------------------------

HFM_ARGS = ["--label", "y", "--prediction", "y_pred", "--sensitive", "sex", "race"]


def _error(out):
    assert out.returncode == EXIT_DATA, out.stderr
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr  # one clear line, no traceback
    return lines[0]


def test_missing_file(tmp_path):
    line = _error(run("hfm", tmp_path / "nope.csv", *HFM_ARGS))
    assert line == f"skfair-manifold hfm: error: {_cli.MSG_NO_FILE.format(path=tmp_path / 'nope.csv')}"


def test_missing_column_suggests_a_close_name(predictions_csv):
    path, _ = predictions_csv
    line = _error(run("hfm", path, "--label", "y", "--prediction", "y_pred",
                      "--sensitive", "sexe"))
    assert "column 'sexe' (--sensitive) is not in" in line
    assert "Did you mean 'sex'?" in line
    assert "income, age, city, sex, race, y, y_pred" in line


def test_empty_and_header_only_files(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert "is empty" in _error(run("hfm", empty, *HFM_ARGS))
    header = tmp_path / "header.csv"
    header.write_text("y,y_pred,sex,race\n")
    assert "has 0 data row(s); at least 2 are needed" in _error(run("hfm", header, *HFM_ARGS))


def test_malformed_csv(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("y,y_pred,sex,race,x\n1,0,F,1,0.5\n0,1,M,2,0.1,9,9\n1,1,F,0,0.3\n")
    line = _error(run("hfm", bad, *HFM_ARGS))
    assert "is not a well-formed CSV file" in line
    assert "line 3" in line


def test_binary_file(tmp_path):
    binary = tmp_path / "data.csv"
    binary.write_bytes(b"\xff\xfe\x00\x01\x80\x81" * 50)
    line = _error(run("hfm", binary, *HFM_ARGS))
    assert "not a UTF-8 text file" in line or "not a well-formed CSV" in line


def test_bad_values(tmp_path, predictions_csv):
    _, frame = predictions_csv
    bad = frame.head(20).copy()
    bad["y"] = bad["y"].astype(object)
    bad.loc[7, "y"] = "maybe"
    path = tmp_path / "bad_label.csv"
    bad.to_csv(path, index=False)
    line = _error(run("hfm", path, *HFM_ARGS))
    assert line.endswith(_cli.MSG_NOT_NUMERIC.format(column="y", role="--label",
                                                     value="maybe", row=7, line=9))

    bad = frame.head(20).copy()
    bad["income"] = bad["income"].astype(object)
    bad.loc[3, "income"] = "12,5k"
    path = tmp_path / "bad_feature.csv"
    bad.to_csv(path, index=False)
    assert "column 'income' (a feature) must be numeric; the value '12,5k' at row 3" in \
        _error(run("hfm", path, *HFM_ARGS))

    gaps = frame.head(20).copy()
    gaps.loc[[2, 5], "sex"] = None
    path = tmp_path / "gaps.csv"
    gaps.to_csv(path, index=False)
    line = _error(run("hfm", path, *HFM_ARGS))
    assert "column 'sex' has missing values at row(s) 2, 5 (line(s) 4, 7 of the file)" in line

    single = frame.head(20).copy()
    single["sex"] = "F"
    path = tmp_path / "single.csv"
    single.to_csv(path, index=False)
    assert "has a single value" in _error(run("hfm", path, *HFM_ARGS))


def test_same_column_for_two_roles(predictions_csv):
    path, _ = predictions_csv
    line = _error(run("hfm", path, "--label", "y", "--prediction", "y", "--sensitive", "sex"))
    assert "column 'y' is given to both --label and --prediction" in line


AUDIT_ARGS = ["--decision", "decision", "--positive-label", "yes", "--protected", "s0",
              "--protected-value", "female", "--id", "person", "--quiet"]


def test_audit_bad_values(tmp_path, decisions_csv):
    path, frame, _ = decisions_csv
    args = [a if a != "female" else "woman" for a in AUDIT_ARGS]
    line = _error(run("audit", path, *args))
    assert line.endswith(_cli.MSG_BAD_CHOICE.format(
        option="--protected-value", value="woman", column="s0", values="female, male"))
    args = [a if a != "yes" else "approved" for a in AUDIT_ARGS]
    assert "--positive-label 'approved' is not a value of column 'decision'" in \
        _error(run("audit", path, *args))
    three = frame.head(50).copy()
    three.loc[0, "decision"] = "maybe"
    bad = tmp_path / "three.csv"
    three.to_csv(bad, index=False)
    assert "must hold exactly 2 values" in _error(run("audit", bad, *AUDIT_ARGS))
    dup = frame.head(50).copy()
    dup.loc[1, "person"] = dup.loc[0, "person"]
    bad = tmp_path / "dup.csv"
    dup.to_csv(bad, index=False)
    assert "must identify rows; 'p0000' appears twice" in _error(run("audit", bad, *AUDIT_ARGS))


def test_audit_bad_graph_file(tmp_path, decisions_csv):
    path, _, _ = decisions_csv
    graph = tmp_path / "graph.json"
    graph.write_text("{not json")
    assert "is not valid JSON" in _error(run("audit", path, *AUDIT_ARGS, "--graph", graph))
    graph.write_text('{"decision": "x0"}')
    assert "must hold a JSON object mapping each node" in \
        _error(run("audit", path, *AUDIT_ARGS, "--graph", graph))
    assert "no such file" in _error(run("audit", path, *AUDIT_ARGS, "--graph",
                                        tmp_path / "none.json"))


# --- the progress bar ----------------------------------------------------------


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


# --- hfm, end to end -------------------------------------------------------------


@needs_metrics
def test_hfm_json_matches_the_library(predictions_csv, tmp_path):
    from skfair_manifold.metrics import demographic_parity, hfm_report

    path, frame = predictions_csv
    out_file = tmp_path / "measures.json"
    out = run("hfm", path, *HFM_ARGS, "--method", "exact", "--format", "json",
              "-o", out_file)
    assert out.returncode == EXIT_OK, out.stderr
    assert "one-hot encoded the text column(s) city" in out.stderr
    result = json.loads(out_file.read_text())
    features = np.column_stack([frame["income"], frame["age"],
                                pd.get_dummies(frame["city"], dtype=float).to_numpy()])
    report = hfm_report(frame["y"], frame["y_pred"], X=features,
                        sensitive_features=frame[["sex", "race"]], method="exact")
    assert result["hfm_max"] == pytest.approx(report.hfm_max, rel=1e-9)
    assert result["hfm_avg"] == pytest.approx(report.hfm_avg, rel=1e-9)
    assert set(result["per_attribute"]) == {"sex", "race"}
    assert result["per_attribute"]["race"]["hfm_avg"] == pytest.approx(
        report.per_attribute.hfm_avg[1], rel=1e-9)
    assert result["baselines"]["demographic_parity"] == pytest.approx(
        demographic_parity(frame["y"], frame["y_pred"],
                           sensitive_features=frame[["sex", "race"]]))
    assert result["info"]["n_rows"] == len(frame)
    assert result["info"]["features"] == ["income", "age", "city"]


@needs_metrics
def test_hfm_table_reproducible_and_from_stdin(predictions_csv):
    path, _ = predictions_csv
    first = run("hfm", path, *HFM_ARGS, "--seed", "3", "--features", "income", "age")
    second = run("hfm", "-", *HFM_ARGS, "--seed", "3", "--features", "income", "age",
                 stdin=Path(path).read_text())
    assert first.returncode == second.returncode == EXIT_OK, first.stderr + second.stderr
    assert first.stdout == second.stdout
    lines = first.stdout.splitlines()
    assert lines[0].split() == ["attribute", "HFM", "max", "HFM", "avg", "DP", "EO", "PQP"]
    assert [line.split()[0] for line in lines[2:5]] == ["sex", "race", "all"]
    assert "natural logarithm" in first.stdout


# --- audit, end to end -------------------------------------------------------------


@needs_auditor
def test_audit_csv_and_json(decisions_csv, tmp_path):
    path, frame, data = decisions_csv
    out_csv = tmp_path / "flagged.csv"
    out = run("audit", path, *AUDIT_ARGS, "-k", "20", "-o", out_csv)
    assert out.returncode == EXIT_OK, out.stderr
    assert out.stderr == ""  # --quiet
    # diff read exactly as written: pandas < 3 parses 0.05000000000000002 as 0.05
    flagged = pd.read_csv(out_csv, converters={"diff": float})
    assert {"row", "person", "p1", "p2", "diff"} <= set(flagged.columns)
    assert len(flagged) > 0
    # flagged rows are protected, with a negative decision, and diff > tau
    rows = frame.iloc[flagged["row"]]
    assert (rows["s0"] == "female").all() and (rows["decision"] == "no").all()
    assert (flagged["diff"] > 0.05).all()
    assert (flagged["person"] == rows["person"].to_numpy()).all()
    # most flagged rows are planted cases
    assert data.discriminated[flagged["row"]].mean() > 0.5

    out = run("audit", path, *AUDIT_ARGS, "-k", "20", "--format", "json", "--all-rows")
    assert out.returncode == EXIT_OK, out.stderr
    payload = json.loads(out.stdout)
    assert payload["n_rows"] == len(frame) == len(payload["rows"])
    assert payload["n_flagged"] == len(flagged)


@needs_auditor
def test_audit_summary_on_stderr_without_progress_bar_when_piped(decisions_csv):
    path, _, _ = decisions_csv
    args = [a for a in AUDIT_ARGS if a != "--quiet"]
    out = run("audit", path, *args, "-k", "20")
    assert out.returncode == EXIT_OK, out.stderr
    assert "\r" not in out.stderr  # stderr is a pipe here: no progress bar
    assert "flagged as discriminated" in out.stderr


@needs_auditor
@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_audit_progress_bar_on_a_terminal(decisions_csv, tmp_path):
    import pty

    path, _, _ = decisions_csv
    args = [a for a in AUDIT_ARGS if a != "--quiet"]
    leader, follower = pty.openpty()
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "skfair_manifold", "audit", str(path), *args, "-k", "20",
             "--batch-size", "500", "-o", str(tmp_path / "out.csv")],
            stderr=follower, stdout=subprocess.PIPE, env=env, timeout=300)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    assert proc.returncode == EXIT_OK
    text = b"".join(chunks).decode()
    assert text.count("\rauditing [") == 3  # 1500 rows in batches of 500
    assert "1500/1500 rows" in text


@needs_auditor
def test_audit_with_a_given_graph(decisions_csv, tmp_path):
    path, _, _ = decisions_csv
    graph = tmp_path / "graph.json"
    graph.write_text(json.dumps({"decision": ["s0", "x0", "x1", "x2"], "x5": ["s0"]}))
    out = run("audit", path, *AUDIT_ARGS, "-k", "20", "--graph", graph, "--format", "json")
    assert out.returncode == EXIT_OK, out.stderr
    assert json.loads(out.stdout)["q"] == ["x0", "x1", "x2"]
    graph.write_text(json.dumps(["s0", "x0", "x1"]))
    out = run("audit", path, *AUDIT_ARGS, "-k", "20", "--graph", graph, "--format", "json")
    assert out.returncode == EXIT_OK, out.stderr
    assert json.loads(out.stdout)["q"] == ["x0", "x1"]


# --- demo ------------------------------------------------------------------------


@needs_metrics
@needs_auditor
def test_demo_runs_and_names_the_planted_cases():
    out = run("demo", "--n-samples", "2000")
    assert out.returncode == EXIT_OK, out.stderr
    assert "planted cases" in out.stdout
    assert "Best trade-off" in out.stdout
    assert re.search(r"Found \d+ of the \d+ planted cases with CBN-DD", out.stdout)
