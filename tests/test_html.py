"""The HTML reports: self-contained (no external URL, images inline), the tables present.

Parsed with the standard library's HTML parser, so no browser is needed here;
``docs/render_reports.py`` renders the same pages in headless Chromium.
"""

import re
from html.parser import HTMLParser

import numpy as np
import pytest

from skfair_manifold.cli import EXIT_OK, main
from skfair_manifold.metrics import fairness_report

pd = pytest.importorskip("pandas")

URL_ATTRIBUTES = {"src", "href", "data", "action", "poster", "srcset", "background"}


class Page(HTMLParser):
    """Tags, ids, URLs and tables of one page."""

    def __init__(self, text):
        super().__init__()
        self.tags, self.ids, self.urls, self.tables = [], set(), [], []
        self.text_parts, self._in_table = [], None
        self._cell, self._section = None, None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for name, value in attrs.items():
            if name in URL_ATTRIBUTES and value is not None:
                self.urls.append((tag, name, value))
        if tag == "section":
            self._section = attrs.get("id")
        if tag == "table":
            self.tables.append({"id": attrs.get("id"), "rows": 0, "class": attrs.get("class"),
                                "section": self._section, "cells": []})
        if tag == "tr" and self.tables:
            self.tables[-1]["rows"] += 1
            self.tables[-1]["cells"].append([])
        if tag in ("td", "th") and self.tables and self.tables[-1]["cells"]:
            self._cell = []
            self.tables[-1]["cells"][-1].append(self._cell)

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._cell = None
        if tag == "section":
            self._section = None

    def handle_data(self, data):
        self.text_parts.append(data)
        if self._cell is not None:
            self._cell.append(data)

    def table_cells(self, table):
        """The rows of ``table`` as lists of cell texts."""
        return [[" ".join("".join(c).split()) for c in row] for row in table["cells"]]

    @property
    def text(self):
        return " ".join(self.text_parts)


def assert_self_contained(text):
    page = Page(text)
    assert "script" not in page.tags  # nothing runs
    assert "link" not in page.tags  # no stylesheet or font fetched
    assert "iframe" not in page.tags
    for tag, name, value in page.urls:
        # only anchors inside the page, or inline data
        assert value.startswith(("#", "data:")), (tag, name, value)
    for tag in page.tags:
        assert tag != "img" or all(u[2].startswith("data:") for u in page.urls if u[0] == "img")
    # no url(...) in styles that leaves the page, no @import
    assert "@import" not in text
    for found in re.findall(r"url\(([^)]*)\)", text):
        assert found.startswith(("#", "data:", "'#", '"#')), found
    # xmlns names a namespace, it is not fetched; nothing else names a host
    hosts = re.findall(r"https?://[^\s\"'<>]+", text)
    assert set(hosts) <= {"http://www.w3.org/2000/svg"}, set(hosts)
    return page


@pytest.fixture(scope="module")
def report():
    rng = np.random.default_rng(0)
    n = 500
    X = pd.DataFrame({"x0": rng.random(n), "x1": rng.random(n),
                      "sex": rng.choice(["female", "male"], n), "race": rng.integers(0, 3, n)})
    y = ((X["x0"] + 0.2 * (X["sex"] == "male")) > 0.6).astype(int)
    y_pred = ((X["x0"] + 0.35 * (X["sex"] == "male")) > 0.6).astype(int)
    return fairness_report(y, y_pred, sensitive_features=["sex", "race"], X=X,
                           n_boot=50, random_state=0, hfm_options={"method": "exact"})


def test_fairness_report_html(report):
    text = report.to_html(title="A <model> & its groups")
    page = assert_self_contained(text)
    assert text.startswith("<!DOCTYPE html>")
    assert "A &lt;model&gt; &amp; its groups" in text  # escaped by the template
    assert {"gaps-table", "groups-table", "hfm-table", "how-to-read-hfm"} <= page.ids
    tables = {t["id"]: t["rows"] for t in page.tables}
    assert tables["groups-table"] == 1 + 2 + 2 + 3 + 1  # header, 2 attributes, 5 groups, all
    assert tables["gaps-table"] == 1 + 3  # header, sex, race, all attributes
    assert page.tags.count("svg") == 2  # one bar chart per attribute, inline
    assert "fails" in page.text  # selection rates differ by sex well beyond 4/5
    assert "exp(HFM)" in page.text
    # the intervals are printed beside the values
    low, high = report.intervals.by_group.loc[("sex", "female"),
                                               ["selection_rate_low", "selection_rate_high"]]
    assert f"[{low:.3f}, {high:.3f}]" in text


def test_report_command_writes_the_page(tmp_path):
    rng = np.random.default_rng(1)
    n = 300
    frame = pd.DataFrame({"x": rng.random(n), "sex": rng.choice(["f", "m"], n)})
    frame["y"] = (frame["x"] > 0.5).astype(int)
    frame["y_pred"] = (frame["x"] + 0.1 * (frame["sex"] == "m") > 0.5).astype(int)
    path = tmp_path / "predictions.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "report.html"
    assert main(["report", str(path), "--label", "y", "--prediction", "y_pred",
                 "--sensitive", "sex", "--method", "exact", "-o", str(out), "-q"]) == EXIT_OK
    page = assert_self_contained(out.read_text())
    assert {"gaps-table", "groups-table", "hfm-table"} <= page.ids
    out = tmp_path / "no_hfm.html"
    assert main(["report", str(path), "--label", "y", "--prediction", "y_pred",
                 "--sensitive", "sex", "--no-hfm", "-o", str(out), "-q"]) == EXIT_OK
    page = assert_self_contained(out.read_text())
    assert "hfm-table" not in page.ids


def test_audit_evidence_html(tmp_path):
    from skfair_manifold.datasets import make_biased_decisions

    data = make_biased_decisions(800, n_groups=(2, 3), bias=(0.5, 0.0), random_state=0,
                                 as_frame=True)
    frame = data.frame.copy()
    frame["s0"] = frame["s0"].map({0: "male", 1: "female"})
    frame["decision"] = frame["decision"].map({0: "no", 1: "yes"})
    frame.insert(0, "person", [f"p{i:04d}" for i in range(len(frame))])
    path = tmp_path / "decisions.csv"
    frame.to_csv(path, index=False)
    html_file, csv_file = tmp_path / "evidence.html", tmp_path / "flagged.csv"
    assert main(["audit", str(path), "--decision", "decision", "--positive-label", "yes",
                 "--protected", "s0", "--protected-value", "female", "--id", "person",
                 "-k", "10", "--quiet", "--html", str(html_file), "-o", str(csv_file)]) == 0
    flagged = pd.read_csv(csv_file)
    assert len(flagged) > 0
    page = assert_self_contained(html_file.read_text())
    assert {"summary-table", "flagged-table"} <= page.ids
    tables = {t["id"]: t["rows"] for t in page.tables if t["id"]}
    assert tables["flagged-table"] == 1 + len(flagged)
    # one sheet per flagged person, findable by the person's id
    for person in flagged["person"]:
        assert f"person-{person}" in page.ids
        assert f"Person {person}" in page.text
    # the sheets show both sides' testers, k of each, and the causal graph marks Q
    assert "Testers with s0 \u2260 female" in page.text and "Testers with s0 = female" in \
        page.text
    # every record with a positive weight is listed (a tie group at the k-th distance
    # can hold more than k records)
    from skfair_manifold.situation_testing import SituationTestingAuditor

    X, y = frame.drop(columns=["person", "decision"]), frame["decision"]
    report = SituationTestingAuditor(protected="s0", protected_value="female", k=10,
                                     positive_label="yes").fit(X, y).report(X, y)
    testers = frame["person"].to_numpy()[report[0]["testers_unprotected"]]
    assert len(testers) >= 10 and all(t in page.text for t in testers)
    assert "(Q)" in page.text
    assert page.tags.count("section") == len(flagged)


def test_evidence_html_from_python():
    from skfair_manifold.datasets import make_biased_decisions
    from skfair_manifold.situation_testing import SituationTestingAuditor

    data = make_biased_decisions(600, n_groups=(2, 3), bias=(0.5, 0.0), random_state=1,
                                 as_frame=True)
    X, y = data.frame.drop(columns="decision"), data.frame["decision"]
    auditor = SituationTestingAuditor(protected="s0", protected_value=1, k=10,
                                      random_state=0).fit(X, y)
    flagged = np.flatnonzero(auditor.flag(X, y))
    assert flagged.size > 0
    ids = [f"id-{i}" for i in range(len(X))]
    report = auditor.report(X, y)
    page = assert_self_contained(report.to_html(ids=ids, max_sheets=5))
    assert page.tags.count("section") == 5  # the sheet cap
    tables = {t["id"]: t["rows"] for t in page.tables if t["id"]}
    assert tables["flagged-table"] == 1 + flagged.size  # every flagged person listed
    for i in flagged[:5]:
        assert f"person-id-{i}" in page.ids
    cells = page.table_cells(next(t for t in page.tables if t["id"] == "flagged-table"))
    assert [c[4] for c in cells[1:]] == [f"{v:.3f}" for v in report.summary["diff_lower"]]
    assert auditor.flag_rule_ in page.text
    with pytest.raises(ValueError, match="ids has 3 values"):
        report.to_html(ids=[1, 2, 3])


def _mixed_decisions(n=1500, seed=0):
    """Generated decisions (s0 protected) with a continuous column, income."""
    from skfair_manifold.datasets import make_biased_decisions

    data = make_biased_decisions(n, n_groups=(2, 3), bias=(0.5, 0.0), random_state=seed,
                                 as_frame=True)
    frame = data.frame.copy()
    frame["s0"] = frame["s0"].map({0: "male", 1: "female"})
    frame["decision"] = frame["decision"].map({0: "no", 1: "yes"})
    frame.insert(0, "person", [f"p{i:04d}" for i in range(len(frame))])
    rng = np.random.default_rng(seed)
    frame.insert(4, "income", frame["x0"] * 1000 + rng.normal(0, 300, len(frame)))
    return frame


AUDIT = ["--decision", "decision", "--positive-label", "yes", "--protected", "s0",
         "--protected-value", "female", "--id", "person", "-k", "20", "--quiet"]


def _audit_page(tmp_path, frame, *args, **options):
    """The page and JSON of the CLI, and the report of the same audit run in Python."""
    import json

    from skfair_manifold.situation_testing import SituationTestingAuditor

    path = tmp_path / "decisions.csv"
    frame.to_csv(path, index=False)
    html_file, json_file = tmp_path / "evidence.html", tmp_path / "flagged.json"
    assert main(["audit", str(path), *AUDIT, "--html", str(html_file), "--format", "json",
                 "-o", str(json_file), *args]) == EXIT_OK
    X, y = frame.drop(columns=["person", "decision"]), frame["decision"]
    report = SituationTestingAuditor(protected="s0", protected_value="female", k=20,
                                     positive_label="yes", **options).fit(X, y).report(X, y)
    return (assert_self_contained(html_file.read_text()), json.loads(json_file.read_text()),
            report)


def test_evidence_page_interval_rule_and_weights(tmp_path):
    # without x0, income (x0 times 1000 plus noise) is the parent that carries it
    frame = _mixed_decisions().drop(columns=["x0"])
    page, result, report = _audit_page(tmp_path, frame, "--interval", "income", "--binning",
                                       "quantile", interval=["income"], binning="quantile")
    rows = result["rows"]
    assert [r["row"] for r in rows] == report.summary["row"].tolist()
    assert rows and "income" in result["q"]
    # the summary: the rule, and the bins of the interval attribute of Q
    assert result["rule"] in page.text and "flag-rule" in page.ids
    bins = next(t for t in page.tables if t["id"] == "bins-table")
    assert page.table_cells(bins)[1][0] == "income"
    assert page.table_cells(bins)[1][1].count("[") == len(result["bin_edges"]["income"]) - 1
    # every flagged person with p1, p2, diff and its bounds, as the auditor gives them
    flagged = page.table_cells(next(t for t in page.tables if t["id"] == "flagged-table"))
    assert flagged[0][:6] == ["person", "p1", "p2", "diff", "diff_lower", "diff_upper"]
    for shown, row in zip(flagged[1:], rows):
        assert shown[0] == row["person"]
        # (the JSON holds 6 significant digits, the page 3 decimals)
        np.testing.assert_allclose([float(v) for v in shown[1:6]],
                                   [row[c] for c in ("p1", "p2", "diff", "diff_lower",
                                                     "diff_upper")], atol=5e-4 + 1e-9)
    # the sheets: the claimant, the rule, both sides' testers with weights that add up to n
    ties = id_lines = 0
    for i, row in enumerate(rows[:10]):
        evidence = report[i]
        anchor = f"person-{row['person']}"
        assert anchor in page.ids
        tables = [t for t in page.tables if t["section"] == anchor]
        claimant = page.table_cells(next(t for t in tables if t["class"] == "claimant"))
        assert claimant[1][0] == row["person"] and claimant[1][-1] == "no"
        assert "bin " in " ".join(claimant[1])  # income shown with its bin
        sides = [t for t in tables if t["class"] == "testers"]
        assert len(sides) == 2
        for table, side, n in zip(sides, ("unprotected", "protected"), ("n1", "n2")):
            cells = page.table_cells(table)
            header = cells[0]
            lines = [line for line in cells[1:] if len(line) == len(header)]
            assert header[-3:] == ["decision", "weight", "counts as"]
            assert "income" in header and "s0" in header  # Q and the protected column
            # the ids: in a line's first cell, or on the full-width line after it
            listed = re.findall(r"p\d{4}", " ".join(" ".join(line) for line in cells[1:]))
            expected = frame["person"].to_numpy()[evidence[f"testers_{side}"]]
            assert sorted(listed) == sorted(expected)
            assert sum(float(line[-1]) for line in lines) == pytest.approx(row[n], abs=0.01)
            np.testing.assert_allclose(sorted({float(line[-2]) for line in lines}),
                                       sorted({round(w, 3) for w in evidence[f"weights_{side}"]}),
                                       atol=1e-3)
            ties += sum(float(line[-2]) < 1 for line in lines)
            id_lines += sum(len(line) == 1 for line in cells[1:])
            assert all(line[header.index("income")].startswith(("[", "<", ">="))
                       for line in lines)  # the testers' income as the bin matched on
    assert ties > 0 and id_lines > 0  # tie groups, and groups too large to name inline
    sheet_text = " ".join(" ".join(c) for t in page.tables if t["section"] ==
                          f"person-{rows[0]['person']}" for c in page.table_cells(t))
    assert result["rule"] in sheet_text
    assert re.search(r"diff = p1 - p2 = 0\.\d{3} > tau = 0\.05", page.text)
    assert re.search(r"q_value = [\d.e-]+ <= 0\.1 \(p_value = [\d.e-]+\): the exact "
                     r"one-sided test", page.text)
    # the interval as what it is, the provenance and the limits of the method
    assert "a two-sided 80% Wald confidence interval" in page.text
    assert "two-sided 80% Wald interval (lower end: a one-sided 90% lower bound)" in page.text
    assert "provenance-table" in {t["id"] for t in page.tables}
    assert "limitations-text" in page.ids and "not a finding of discrimination in law" in \
        page.text
    assert re.search(r"income: interval \(declared\)", page.text)
    assert re.search(r"s0: nominal \(inferred\)", page.text)
    assert re.search(r"[0-9a-f]{64}", page.text) and result["sha256"] in page.text
    assert {r["verdict"] for r in rows} <= {"discriminated", "fragile", "insufficient"}
    assert "(Q)" in page.text  # the causal graph, Q marked


def test_evidence_page_knn_and_tau_rule(tmp_path):
    frame = _mixed_decisions(800, seed=2)
    page, result, _ = _audit_page(tmp_path, frame, "--method", "knn", "--flag-rule", "tau",
                                  method="knn", flag_rule="tau")
    assert result["rule"] == "diff > 0.05" and result["rows"]
    assert "(Q)" not in page.text and "svg" not in page.tags  # no causal graph for KNN-DD
    first = result["rows"][0]
    assert re.search(r"diff = p1 - p2 = -?\d\.\d{3} > tau = 0\.05", page.text)
    tables = [t for t in page.tables if t["section"] == f"person-{first['person']}"]
    header = page.table_cells(next(t for t in tables if t["class"] == "testers"))[0]
    # KNN-DD compares every attribute: the testers are shown on all of them
    assert {"x0", "x3", "x5", "income", "s1"} <= set(header)


def test_report_command_names_its_inputs_and_skips_prediction_columns(tmp_path, capsys):
    import hashlib
    import html

    rng = np.random.default_rng(2)
    n = 300
    frame = pd.DataFrame({"x": rng.random(n), "sex": rng.choice(["f", "m"], n)})
    frame["y"] = (frame["x"] > 0.5).astype(int)
    frame["y_pred"] = (frame["x"] + 0.1 * (frame["sex"] == "m") > 0.5).astype(int)
    frame["other_model_score"] = rng.random(n)  # another model's output, not a feature
    path = tmp_path / "predictions.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "report.html"
    assert main(["report", str(path), "--label", "y", "--prediction", "y_pred",
                 "--sensitive", "sex", "--method", "exact", "--pos-label", "0",
                 "-o", str(out)]) == EXIT_OK
    err = capsys.readouterr().err
    assert "left out column(s) other_model_score" in err and "HFM features: x " in err
    text = html.unescape(out.read_text())
    settings = text[text.index('id="settings-table"'):]
    assert hashlib.sha256(path.read_bytes()).hexdigest() in settings
    assert str(path) in settings
    assert "<th>HFM features</th><td><bdi>x</bdi>" in settings
    assert "prediction = 0.0 in column 'y_pred'" in text  # the favourable outcome, named


def test_confidence_level_written_as_a_reader_writes_it():
    from skfair_manifold._html._text import _level

    assert _level(0.95) == "95%"
    assert _level(0.975) == "97.5%"
    assert _level(0.9) == "90%"


@pytest.mark.parametrize("k", [3, 6, 10])
def test_a_causal_graph_of_long_names_stays_within_the_page(k):
    """Three parents of 3,000-character names (one weak, marked) made a graph 1,328 px
    wide; the names are shortened so that the figure keeps to the page's 1,280 px."""
    from skfair_manifold._html._charts import MAX_FIGURE_WIDTH, graph_layout

    names = [chr(97 + i) * 3000 for i in range(k)]
    layout = graph_layout({"y": tuple(names)}, "y", names[:1], names[1],
                          weak={names[2]: 0.01})
    assert layout["width"] <= MAX_FIGURE_WIDTH == 1280
    assert all(len(node["name"]) <= 30 and node["name"].endswith("\u2026")
               for node in layout["nodes"] if node["name"] != "y")
    assert {node["kind"] for node in layout["nodes"]} >= {"decision", "q", "protected",
                                                         "weak"}
