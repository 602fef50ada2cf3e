"""Pages name rows by the caller's index (and say "position" otherwise); their words match
the verdicts; the evidence graph marks the decision's parents outside Q and says why."""

import re

import numpy as np
import pandas as pd
import pytest

from skfair_manifold.cli import main
from skfair_manifold.datasets import make_biased_decisions, make_planted_bias
from skfair_manifold.metrics import fairness_report
from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.situation_testing._selection import _weak_parents


def _decisions(n=400):
    data = make_biased_decisions(n, random_state=0, as_frame=True)
    X, y = data.frame.drop(columns=["decision"]), data.frame["decision"]
    return X[[c for c in X.columns if c.startswith(("x", "s"))]], y


def _audit(X, y):
    auditor = SituationTestingAuditor(protected="s0", protected_value=1, k=10, method="knn")
    return auditor.fit(X, y).report(X, y)


# --- item 5: rows named by the caller's index ------------------------------------------


def test_the_evidence_page_names_rows_by_the_frame_s_index():
    X, y = _decisions()
    labels = np.array([f"student-{i}" for i in np.random.default_rng(0).permutation(
        10_000)[:len(y)]])
    X, y = X.set_axis(labels), y.set_axis(labels)
    report = _audit(X, y)
    assert len(report) > 0
    page = report.to_html()
    assert "person (index of X)" in page and "position" not in page.split("Flagged")[1][:400]
    rows = np.asarray(report.summary["row"])
    for row in rows[:5]:
        assert f"<h2>Person {labels[row]}</h2>" in page
    # the testers, fitted on the same rows, by their index too
    first = report[0]
    tester = first["testers_unprotected"][0]
    sheet = page[page.index(f"<h2>Person {labels[rows[0]]}</h2>"):]
    assert labels[tester] in sheet[:sheet.find("</section>")]
    # the table and the dict carry the index beside the position
    frame = report.to_frame()
    assert frame["index"].tolist() == labels[rows].tolist()
    assert report.to_dict()["flagged"][0]["index"] == labels[rows[0]]


def test_without_an_index_the_page_says_position():
    X, y = _decisions()
    report = _audit(X, y)
    page = report.to_html()
    assert "person (position among the rows audited, from 0)" in page
    row = int(report.summary["row"][0])
    assert f"<h2>Person at position {row}</h2>" in page
    assert "index" not in report.to_frame().columns
    # ids given by the caller: their names, no word of position
    ids = np.array([f"p{i}" for i in range(len(y))])
    named = report.to_html(ids=ids)
    assert f"<h2>Person p{row}</h2>" in named and "Person at position" not in named


def test_the_command_line_without_id_says_position(tmp_path, capsys):
    X, y = _decisions()
    path = tmp_path / "d.csv"
    X.assign(decision=np.where(y == 1, "yes", "no")).to_csv(path, index=False)
    page = tmp_path / "e.html"
    assert main(["audit", str(path), "--decision", "decision", "--positive-label", "yes",
                 "--protected", "s0", "--protected-value", "1", "--method", "knn", "-k", "10",
                 "-q", "--html", str(page), "-o", str(tmp_path / "o.csv")]) == 0
    assert "(position among the rows audited, from 0)" in page.read_text(encoding="utf-8")


@pytest.mark.parametrize("where", ["X", "labels"])
def test_hfm_witnesses_name_rows_by_the_caller_s_index(where):
    rng = np.random.default_rng(2)
    n = 120
    X = pd.DataFrame(rng.random((n, 3)), columns=["a", "b", "c"])
    sex = rng.choice(["f", "m"], n)
    y = (X["a"] + 0.2 * rng.standard_normal(n) > 0.5).astype(int).to_numpy()
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    index = pd.Index(3000 + 7 * np.arange(n))
    if where == "X":
        X = X.set_axis(index)
    else:
        y = pd.Series(y, index=index)
    report = fairness_report(y, pred, sensitive_features=sex, X=X, min_group_size=1,
                             hfm_options={"method": "exact"})
    page = report.to_html()
    person = report.hfm_witnesses["maxima"][0]["people"][0]
    assert person["index"] == index[person["row"]]
    assert f"index {person['index']} (position {person['row']})" in page
    plain = fairness_report(np.asarray(y), pred, sensitive_features=sex,
                            X=X.reset_index(drop=True), min_group_size=1,
                            hfm_options={"method": "exact"})
    first = plain.hfm_witnesses["maxima"][0]["people"][0]
    assert first["index"] is None
    assert f"position {first['row']}" in plain.to_html()
    assert not re.search(r"\brow \d", plain.to_html())


# --- item 6: words that match the verdicts ---------------------------------------------


def test_flagged_is_counted_by_verdict_on_the_page_and_in_the_headline():
    X, y = _decisions()
    report = _audit(X, y)
    verdicts = pd.Series(np.asarray(report.summary["verdict"], dtype=str)).value_counts()
    counts = report.verdict_counts()
    assert sum(counts.values()) == len(report) > 0
    for verdict, count in counts.items():
        assert verdicts.get(verdict, 0) == count
    page = report.to_html()
    assert "flagged as discriminated" not in page
    cell = re.search(r'<td id="n-flagged">(.*?)</td>', page).group(1)
    assert cell.startswith(f"{len(report)} (verdicts: ")
    for verdict, count in counts.items():
        assert f"{verdict} {count}" in cell
        assert f"{verdict} {count}" in report.headline[0]
    assert "flagged by the rule" in report.headline[0]


@pytest.fixture
def weak_parent_rule(monkeypatch):
    """A rule under which a parent of the planted data is weak and leaves Q."""
    monkeypatch.setattr(_weak_parents, "MIN_PARENT_EFFECT", 0.1)
    monkeypatch.setattr(_weak_parents, "MIN_OWN_SUBGROUP_SHARE", 1.0)


def test_the_evidence_graph_marks_the_parents_outside_q_and_says_why(weak_parent_rule):
    X, y, _, _ = make_planted_bias(5000, bias_share=0.5, random_state=0)
    auditor = SituationTestingAuditor(protected="sex", protected_value="female", k=50)
    report = auditor.fit(X, y).report(X, y)
    parents = set(auditor.graph_["y"])
    outside = parents - set(auditor.q_) - {"sex"}
    assert outside  # the rule left a parent out of Q
    weak = report.provenance["weak_parents"]
    assert set(weak) == outside
    effects = auditor.structure_info_["effects"]
    columns = list(X.columns)
    for name, effect in weak.items():
        assert effect == effects[columns.index(name)] < 0.1
    page = report.to_html()
    for name in outside:
        assert f"{name} (weak)</text>" in page
        assert re.search(rf"{name} \(effect 0\.\d+\)", page)
    assert 'stroke-dasharray="4 3"' in page
    note = re.search(r'<p class="note" id="weak-parents">(.*?)</p>', page, re.S).group(1)
    assert "weak-parent rule" in note and "below 0.100" in note and "stay in the graph" in note
    assert "left out of Q as weak parents" in page  # the provenance row says it too


def test_a_given_graph_has_no_weak_parents_to_mark():
    X, y, _, _ = make_planted_bias(2000, bias_share=0.5, random_state=0)
    X = X[["sex", "region", "edu"]]
    report = SituationTestingAuditor(protected="sex", protected_value="female", k=50,
                                     graph=["sex", "region", "edu"]).fit(X, y).report(X, y)
    assert report.provenance["weak_parents"] == {}
    page = report.to_html()
    assert "(weak)" not in page and 'id="weak-parents"' not in page
