"""Pages safe for any text: bidirectional isolation, controls, long words, anchors (issue 21, item 4)."""

import re

import numpy as np
import pytest

from skfair_manifold._html._charts import graph_layout
from skfair_manifold._html._text import FSI, PDI, _anchor, safe_text, unique_anchors
from skfair_manifold.metrics import fairness_report
from skfair_manifold.situation_testing import SituationTestingAuditor

pd = pytest.importorskip("pandas")
pytest.importorskip("jinja2")

RLO = "\u202e"


def evidence_html(auditor, X, y, **options):
    """The evidence page of an audit (the report renders itself)."""
    return auditor.report(X, y).to_html(**options)


def unisolated(page, char):
    """Positions of ``char`` in ``page`` that no FSI ... PDI isolate encloses."""
    depth, bad = 0, []
    for i, c in enumerate(page):
        if c == FSI:
            depth += 1
        elif c == PDI:
            depth = max(depth - 1, 0)
        elif c == char and depth == 0:
            bad.append(i)
    return bad


@pytest.fixture(scope="module")
def audit():
    from skfair_manifold.datasets import make_biased_decisions

    data = make_biased_decisions(400, random_state=0, as_frame=True)
    X, y = data.frame.drop(columns="decision"), data.frame["decision"]
    auditor = SituationTestingAuditor(protected="s0", protected_value=1, k=10,
                                      method="knn").fit(X, y)
    flagged = np.asarray(auditor.report(X, y).summary["row"], dtype=int)
    assert flagged.size >= 5
    return X, y, auditor, flagged


def test_safe_text_isolates_and_escapes():
    assert safe_text("plain") == "plain"
    assert safe_text("ab\u202ecd") == FSI + "ab<U+202E>cd" + PDI
    assert safe_text("a\u200bb\ufeff") == "a<U+200B>b<U+FEFF>"
    assert safe_text("\u05e9\u05dc\u05d5\u05dd") == FSI + "\u05e9\u05dc\u05d5\u05dd" + PDI
    assert safe_text("a\x00b\x1bc\x85") == "a\\x00b\\x1bc\\x85"


def test_right_to_left_override_in_a_group_name_cannot_reverse_the_report():
    rng = np.random.default_rng(0)
    n = 200
    region = np.array(["north", f"evil{RLO}name"])[rng.integers(0, 2, n)]
    attributes = pd.DataFrame({f"reg{RLO}ion": region})
    page = fairness_report(rng.integers(0, 2, n), rng.integers(0, 2, n),
                           sensitive_features=attributes).to_html()
    assert RLO not in page
    assert f"{FSI}evil&lt;U+202E&gt;name{PDI}" in page


def test_right_to_left_override_on_the_evidence_page(audit):
    X, y, auditor, flagged = audit
    ids = np.array([f"p{i}" for i in range(len(X))], dtype=object)
    ids[flagged[0]] = f"mal{RLO}lory"
    page = evidence_html(auditor, X, y, ids=ids)
    assert unisolated(page, RLO) == []
    # the page's own sentences stay in reading order around an isolated value
    protected = pd.DataFrame(X).assign(s0=X["s0"].map({0: "m", 1: f"f{RLO}x"}))
    auditor2 = SituationTestingAuditor(protected="s0", protected_value=f"f{RLO}x", k=10,
                                       method="knn").fit(protected, y)
    page = evidence_html(auditor2, protected, y)
    assert RLO not in page
    assert f"{FSI}f&lt;U+202E&gt;x{PDI} (the protected group)" in page


def test_control_characters_are_escaped_not_written_raw(audit):
    X, y, auditor, flagged = audit
    ids = np.array([f"p{i}" for i in range(len(X))], dtype=object)
    ids[flagged[0]] = "nul\x00byte\x07"
    page = evidence_html(auditor, X, y, ids=ids)
    assert "\x00" not in page and "\x07" not in page
    assert "nul\\x00byte\\x07" in page
    page.encode("utf-8")  # nothing that cannot be written


def test_distinct_ids_get_distinct_stable_anchors(audit):
    X, y, auditor, flagged = audit
    hostile = ["a b", "a_b", "a.b", "a/b"]
    ids = np.array([f"p{i}" for i in range(len(X))], dtype=object)
    ids[flagged[:4]] = hostile
    page = evidence_html(auditor, X, y, ids=ids)
    sections = re.findall(r'<section class="sheet" id="([^"]+)"', page)
    assert len(sections) == len(set(sections)) == flagged.size
    links = re.findall(r'<a href="#([^"]+)">([^<]+)</a>', page)
    by_id = {text: anchor for anchor, text in links}
    assert len({by_id[h] for h in hostile}) == 4
    assert by_id["a_b"] == "person-a_b"  # a plain id keeps its plain anchor
    # each link opens the sheet of its own person
    for person in hostile:
        anchor = by_id[person]
        start = page.index(f'id="{anchor}"')
        assert f"<h2>Person {person}</h2>" in page[start:start + 200]
    # stable: the anchor of an id does not depend on the other ids
    assert _anchor("a b") == by_id["a b"]
    assert unique_anchors(["x", "x", "x"]) == ["person-x", "person-x-2", "person-x-3"]


def test_evidence_html_refuses_duplicate_ids(audit):
    X, y, auditor, _ = audit
    with pytest.raises(ValueError, match="ids must name each row once; 'same' names rows 0 "
                                         "and 1"):
        evidence_html(auditor, X, y, ids=["same"] * len(X))


def test_long_words_wrap_and_the_graph_stays_narrow():
    rng = np.random.default_rng(1)
    n = 100
    long_name = "x" * 5000
    page = fairness_report(rng.integers(0, 2, n), rng.integers(0, 2, n),
                           sensitive_features=pd.DataFrame(
                               {long_name: rng.integers(0, 2, n)})).to_html()
    assert "td.text, th.text, .figures td, td.ids, h1, h2, h3, p, li { overflow-wrap: " \
           "anywhere; }" in page
    widths = [int(w) for w in re.findall(r'<svg[^>]* width="(\d+)"', page)]
    assert widths and max(widths) <= 1280
    layout = graph_layout({"decision": [long_name, "b"], long_name: []}, "decision",
                          [long_name], "b")
    assert layout["width"] <= 1280
    assert all(len(node["name"]) <= 30 for node in layout["nodes"])


def test_bar_labels_are_cut_at_label_chars_and_graph_nodes_at_30():
    """The bars keep ``LABEL_CHARS`` characters (the full label is the tooltip); a
    node of the causal graph keeps 30: two limits, each used where it is documented."""
    from skfair_manifold._html._charts import LABEL_CHARS, bar_chart

    label = "x" * 60
    bar = bar_chart("t", [label], [("rate", [0.5], None)])["bars"][0]
    assert len(bar["label"]) == LABEL_CHARS and bar["label"].endswith("\u2026")
    assert bar["full_label"] == label
    graph = graph_layout({"d": ["p" * 50]}, "d", [], None)
    assert {len(n["name"]) for n in graph["nodes"]} == {1, 30}
