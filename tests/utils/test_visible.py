"""Bidirectional and invisible format characters in names, in every output: the HTML report,
the evidence page, the CLI's CSV, JSON and terminal (``utils/_visible.visible_text``)."""

import json
import unicodedata

import numpy as np
import pytest

from skfair_manifold.utils._visible import FORMAT_CHARACTERS, visible_text

pd = pytest.importorskip("pandas")

#: the bidirectional controls, the invisible ones the issue names, and a few more of category Cf
CHARS = [chr(c) for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A),
                          *range(0x200B, 0x2010), 0xFEFF, *range(0x2060, 0x2065), 0x00AD,
                          0x061C, 0xE0041]]
FSI, PDI = "\u2068", "\u2069"


def escaped(char):
    return f"<U+{ord(char):04X}>"


def no_raw(text, chars=CHARS, *, isolates_allowed=False):
    """No char of ``chars`` raw in ``text``; the page's own FSI ... PDI pairs balanced."""
    depth = 0
    for c in text:
        if isolates_allowed and c == FSI:
            depth += 1
        elif isolates_allowed and c == PDI and depth > 0:
            depth -= 1
        else:
            assert c not in chars, f"raw U+{ord(c):04X} in the output"
    assert depth == 0


def test_the_list_is_category_cf():
    listed = [chr(c) for c in range(0x110000) if FORMAT_CHARACTERS.fullmatch(chr(c))]
    assert {unicodedata.category(c) for c in listed} <= {"Cf", "Cn"}
    if unicodedata.unidata_version == "14.0.0":  # the database the list was written from
        assert listed == [chr(c) for c in range(0x110000)
                          if unicodedata.category(chr(c)) == "Cf"]
    for c in CHARS:
        assert visible_text(f"a{c}b") == f"a{escaped(c)}b"
    assert visible_text("plain é 名前 שלום") == "plain é 名前 שלום"  # letters are not touched


@pytest.mark.parametrize("char", CHARS, ids=lambda c: f"U+{ord(c):04X}")
def test_html_report_shows_the_character_escaped(char):
    from skfair_manifold import fairness_report

    rng = np.random.default_rng(0)
    n = 120
    groups = np.array(["north", f"evil{char}name"])[rng.integers(0, 2, n)]
    page = fairness_report(rng.integers(0, 2, n), rng.integers(0, 2, n),
                           sensitive_features=pd.DataFrame({f"reg{char}ion": groups}),
                           min_group_size=1).to_html()
    no_raw(page, [char], isolates_allowed=True)
    assert f"evil&lt;U+{ord(char):04X}&gt;name" in page
    assert f"reg&lt;U+{ord(char):04X}&gt;ion" in page


@pytest.fixture(scope="module")
def hostile_audit():
    from skfair_manifold import SituationTestingAuditor
    from skfair_manifold.datasets import make_biased_decisions

    data = make_biased_decisions(300, random_state=0, as_frame=True)
    X, y = data.frame.drop(columns="decision"), data.frame["decision"]
    rename = {c: f"{c}{CHARS[i]}" for i, c in enumerate(X.columns) if c != "s0"}
    X = X.rename(columns=rename)
    X["s0"] = X["s0"].map({0: f"m{CHARS[0]}", 1: f"f{CHARS[4]}x"})
    auditor = SituationTestingAuditor(protected="s0", protected_value=f"f{CHARS[4]}x", k=10,
                                      method="knn").fit(X, y)
    return X, y, auditor


def test_evidence_page_shows_every_name_escaped(hostile_audit):
    X, y, auditor = hostile_audit
    ids = np.array([f"p{CHARS[i % len(CHARS)]}{i}" for i in range(len(X))], dtype=object)
    page = auditor.report(X, y).to_html(ids=ids)
    no_raw(page, isolates_allowed=True)
    assert "f&lt;U+202E&gt;x" in page
    assert sum(f"&lt;U+{ord(c):04X}&gt;" in page for c in CHARS) >= 5


@pytest.fixture(scope="module")
def hostile_files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("visible")
    rng = np.random.default_rng(0)
    n = 200
    frame = pd.DataFrame({
        f"sex{CHARS[4]}": rng.choice([f"F{CHARS[5]}", f"M{CHARS[9]}"], n),
        f"inc{CHARS[13]}ome": rng.random(n),
        "age": rng.integers(18, 70, n),
    })
    frame["y"] = (frame.iloc[:, 1] + 0.3 * rng.standard_normal(n) > 0.5).astype(int)
    frame["y_pred"] = np.where(rng.random(n) < 0.8, frame["y"], 1 - frame["y"])
    frame["id"] = [f"p{CHARS[i % len(CHARS)]}{i}" for i in range(n)]
    path = tmp / "hostile.csv"
    frame.to_csv(path, index=False)
    return tmp, path, frame


def _cli(capsys, *args):
    from skfair_manifold.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_json_is_faithful_and_escaped(hostile_files, capsys):
    tmp, path, frame = hostile_files
    sex = frame.columns[0]
    code, out, err = _cli(capsys, "hfm", path, "--label", "y", "--prediction", "y_pred",
                          "--sensitive", sex, "--features", frame.columns[1], "age",
                          "--format", "json", "--quiet")
    assert code == 0, err
    no_raw(out)
    assert "\\u202e" in out  # the JSON escape of U+202E
    assert sex in json.dumps(json.loads(out), ensure_ascii=False)  # read back: the data


def test_cli_table_and_messages_show_the_characters_escaped(hostile_files, capsys):
    tmp, path, frame = hostile_files
    sex = frame.columns[0]
    code, out, err = _cli(capsys, "hfm", path, "--label", "y", "--prediction", "y_pred",
                          "--sensitive", sex, "--features", frame.columns[1], "age")
    assert code == 0, err
    no_raw(out)
    no_raw(err)
    assert "sex<U+202E>" in out
    code, out, err = _cli(capsys, "hfm", path, "--label", f"nope{CHARS[3]}", "--prediction",
                          "y_pred", "--sensitive", sex, "--features", "age")
    assert code == 1
    no_raw(err)
    # a quoted name is its repr (``\u202d``) or its visible escape: never raw
    assert f"nope{escaped(CHARS[3])}" in err or "nope\\u202d" in err


def test_cli_csv_shows_the_characters_escaped(hostile_files, capsys):
    tmp, path, frame = hostile_files
    sex = frame.columns[0]
    out_csv, page = tmp / "audit.csv", tmp / "audit.html"
    code, out, err = _cli(capsys, "audit", path, "--decision", "y", "--positive-label", "1",
                          "--protected", sex, "--protected-value", frame[sex].iloc[0],
                          "--features", frame.columns[1], "age", "--id", "id", "-k", "10",
                          "--method", "knn", "--all-rows", "-o", out_csv, "--html", page)
    assert code == 0, err
    no_raw(err)
    text = out_csv.read_text(encoding="utf-8")
    no_raw(text)
    assert "<U+" in text
    no_raw(page.read_text(encoding="utf-8"), isolates_allowed=True)
    # --no-csv-escape: the raw data, for programs
    code, out, err = _cli(capsys, "audit", path, "--decision", "y", "--positive-label", "1",
                          "--protected", sex, "--protected-value", frame[sex].iloc[0],
                          "--features", frame.columns[1], "age", "--id", "id", "-k", "10",
                          "--method", "knn", "--all-rows", "--no-csv-escape")
    assert code == 0, err
    assert frame["id"].iloc[1] in out
