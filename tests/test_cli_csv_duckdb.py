"""``report FILE.csv --no-hfm`` read out of core by DuckDB: the same page as the pandas path.

Every case is run twice, once as the command runs it and once with the
out-of-core reader turned off (the pandas path of ``report`` with HFM), and
the pages (or the error lines) must be equal.
"""

import re

import numpy as np
import pytest

from skfair_manifold.cli import EXIT_DATA, EXIT_OK, main

pd = pytest.importorskip("pandas")

from _duckdb_cli import needs_duckdb  # noqa: E402

from skfair_manifold.cli import _report  # noqa: E402

pytestmark = needs_duckdb


def _page(path):
    """The page's text without its creation time."""
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "TIME", path.read_text(encoding="utf-8"))


def _both(capsys, monkeypatch, tmp_path, csv, *args):
    """Run ``report csv args --no-hfm`` out of core, then through pandas.

    Returns ``(duckdb, pandas, used)``: each ``(code, page or None, stderr)``;
    ``used`` is True when the out-of-core reader gave the data (pandas was not called).
    """
    calls = []
    real = _report.load_predictions

    def spy(**kwargs):
        calls.append(kwargs)
        return real(**kwargs)

    results = []
    for name in ("duckdb", "pandas"):
        with monkeypatch.context() as patch:
            patch.setattr(_report, "load_predictions", spy)
            if name == "pandas":
                patch.setattr(_report, "load_csv_out_of_core", lambda **kwargs: None)
            out = tmp_path / f"{name}.html"
            code = main(["report", str(csv), *map(str, args), "--no-hfm", "-o", str(out)])
            err = capsys.readouterr().err
            results.append((code, _page(out) if out.exists() else None, err))
        if name == "duckdb":
            used = not calls
    return results[0], results[1], used


@pytest.fixture
def frame():
    rng = np.random.default_rng(2)
    n = 400
    out = pd.DataFrame({
        "income": rng.random(n),
        "sex": rng.choice(["F", "M", "NA", "None"], n),  # text, "NA" a group
        "race": rng.integers(0, 3, n),  # integers
        "citizen": rng.choice(["True", "False"], n),  # booleans to pandas
        "band": rng.choice([0.5, 1.0, 2.25], n),  # floats ("1.0" is a group name)
        "code": rng.choice(["01", "2", "x"], n),  # mixed: text to both
    })
    out["y"] = (out["income"] + 0.3 * rng.standard_normal(n) > 0.5).astype(int)
    out["y_pred"] = np.where(rng.random(n) < 0.8, out["y"], 1 - out["y"])
    return out


LABELS = ["--label", "y", "--prediction", "y_pred"]


@pytest.mark.parametrize("sensitive, extra", [
    (["race"], []),
    (["sex"], []),
    (["citizen"], []),
    (["band", "code"], []),
    (["sex", "race", "citizen"], ["--intersect", "--n-boot", "100", "--seed", "3",
                                  "--min-group-size", "5"]),
])
def test_csv_page_out_of_core_is_the_pandas_page(capsys, monkeypatch, tmp_path, frame,
                                                 sensitive, extra):
    csv = tmp_path / "d.csv"
    frame.to_csv(csv, index=False)
    fast, slow, used = _both(capsys, monkeypatch, tmp_path, csv, *LABELS,
                             "--sensitive", *sensitive, *extra)
    assert used
    assert fast[0] == slow[0] == EXIT_OK, (fast[2], slow[2])
    assert fast[1] == slow[1] and fast[2] == slow[2]


@pytest.mark.parametrize("labels, pos", [
    (("True", "False"), "True"),  # boolean labels
    ((1, 0), "1"),
    ((1, 0), "1.0"),
    ((1.0, 0.0), "1"),
    ((2, 1), "2"),
    ((1, 0), "yes"),  # not a value: the same error
])
def test_csv_pos_label_out_of_core(capsys, monkeypatch, tmp_path, frame, labels, pos):
    good, bad = labels
    data = frame.assign(y=np.where(frame["y"] == 1, good, bad),
                        y_pred=np.where(frame["y_pred"] == 1, good, bad))
    csv = tmp_path / "d.csv"
    data.to_csv(csv, index=False)
    fast, slow, used = _both(capsys, monkeypatch, tmp_path, csv, *LABELS,
                             "--sensitive", "sex", "--pos-label", pos)
    assert used
    assert fast == slow
    if pos == "yes":
        assert fast[0] == EXIT_DATA
        assert "--pos-label 'yes' is not a value of column 'y'" in fast[2]
    else:
        assert fast[0] == EXIT_OK, fast[2]


def test_csv_non_binary_label_without_pos_label(capsys, monkeypatch, tmp_path, frame):
    data = frame.assign(y=frame["y"] + frame["race"], y_pred=frame["y_pred"] * 2)
    csv = tmp_path / "d.csv"
    data.to_csv(csv, index=False)
    fast, slow, used = _both(capsys, monkeypatch, tmp_path, csv, *LABELS, "--sensitive", "sex")
    assert used
    assert fast == slow and fast[0] == EXIT_DATA
    assert "Pass --pos-label " in fast[2] and "Traceback" not in fast[2]


def test_csv_missing_column_out_of_core(capsys, monkeypatch, tmp_path, frame):
    csv = tmp_path / "d.csv"
    frame.to_csv(csv, index=False)
    fast, slow, _ = _both(capsys, monkeypatch, tmp_path, csv, *LABELS, "--sensitive", "sexe")
    assert fast == slow and fast[0] == EXIT_DATA
    assert "column 'sexe' (--sensitive) is not in" in fast[2] and "Did you mean 'sex'" in fast[2]


@pytest.mark.parametrize("case", ["missing", "text_label", "single", "spaces", "bom",
                                  "quoted", "two_rows", "one_row", "empty", "latin1",
                                  "ragged", "blank_line", "long_int", "duplicate_header",
                                  "leading_zero", "exponent"])
def test_csv_checks_give_the_pandas_message(capsys, monkeypatch, tmp_path, frame, case):
    """Where the readers could differ, or a check names rows, the file goes to pandas."""
    csv = tmp_path / "d.csv"
    small = frame[["y", "y_pred", "sex", "race"]].head(40)
    text = small.to_csv(index=False)
    lines = text.splitlines(keepends=True)
    if case == "missing":
        lines[8] = lines[8].replace(",F,", ",,").replace(",M,", ",,") \
            .replace(",NA,", ",,").replace(",None,", ",,")
    elif case == "text_label":
        lines[5] = "maybe" + lines[5][1:]
    elif case == "single":
        lines = [lines[0]] + [re.sub(r"^([^,]*,[^,]*,)[^,]*,", r"\1F,", line) for line in lines[1:]]
    elif case == "spaces":
        lines = [line.replace(",M,", ", M,") for line in lines]
    elif case == "bom":
        lines[0] = "\ufeff" + lines[0]
    elif case == "quoted":
        lines = [line.replace(",F,", ',"F",').replace(",M,", ',"M, Jr",') for line in lines]
    elif case == "two_rows":
        lines = lines[:3]
    elif case == "one_row":
        lines = lines[:2]
    elif case == "empty":
        lines = []
    elif case == "ragged":
        lines[4] = lines[4].rstrip("\n") + ",extra\n"
    elif case == "blank_line":
        lines.insert(6, "\n")
    elif case == "long_int":
        lines = [lines[0]] + [re.sub(r",(\d)$", r",1234567890123456789\1", line.rstrip("\n"))
                              + "\n" for line in lines[1:]]
    elif case == "leading_zero":  # "02" is the integer 2 to pandas
        lines = [re.sub(r",2$", ",02", line.rstrip("\n")) + "\n" for line in lines]
    elif case == "exponent":  # "2e0" is the float 2.0 to pandas
        lines = [re.sub(r",2$", ",2e0", line.rstrip("\n")) + "\n" for line in lines]
    elif case == "duplicate_header":
        lines[0] = "y,y_pred,sex,sex\n"
    if case == "latin1":
        csv.write_bytes(("".join(lines)).replace("F", "\xe9").encode("latin-1"))
    else:
        csv.write_text("".join(lines), encoding="utf-8")
    sensitive = ["race"] if case in ("long_int", "leading_zero", "exponent") else ["sex"]
    fast, slow, used = _both(capsys, monkeypatch, tmp_path, csv, *LABELS, "--sensitive",
                             *sensitive)
    # out of core where DuckDB reads as pandas does; the rest read by pandas
    assert used == (case in {"bom", "quoted", "two_rows", "blank_line", "leading_zero"})
    assert fast == slow
    assert "Traceback" not in fast[2]
    expected = {
        "missing": "column 'sex' has missing values at row(s) 7",
        "text_label": "column 'y' (--label) must be numeric; the value 'maybe'",
        "single": "sensitive column 'sex' has a single value",
        "one_row": "has 1 data row(s); at least 2 are needed",
        "empty": "is empty",
        "latin1": "is not a UTF-8 text file",
        "ragged": "is not a well-formed CSV file",
    }
    if case in expected:
        assert fast[0] == EXIT_DATA and expected[case] in fast[2], fast[2]
