"""One shape for the evidence: the report renders its own page, the CLI writes that page."""

import hashlib
import pickle
import re
import warnings

import numpy as np
import pytest

from skfair_manifold.cli import main
from skfair_manifold.situation_testing import SituationTestingAuditor

pd = pytest.importorskip("pandas")
pytest.importorskip("jinja2")


def _frame(n=800, seed=0):
    from skfair_manifold.datasets import make_biased_decisions

    data = make_biased_decisions(n, n_groups=(2, 3), bias=(0.5, 0.0), random_state=seed,
                                 as_frame=True)
    frame = data.frame.copy()
    frame["s0"] = frame["s0"].map({0: "male", 1: "female"})
    frame["decision"] = frame["decision"].map({0: "no", 1: "yes"})
    frame.insert(0, "person", [f"p{i:04d}" for i in range(len(frame))])
    return frame


def _undated(page):
    """The page without its two time stamps (made and computed)."""
    page = re.sub(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?(\+00:00| UTC)?", "DATE", page)
    return page


@pytest.fixture(scope="module")
def audit():
    frame = _frame()
    X, y = frame.drop(columns=["person", "decision"]), frame["decision"]
    auditor = SituationTestingAuditor(protected="s0", protected_value="female", k=10,
                                      positive_label="yes").fit(X, y)
    return frame, X, y, auditor


def test_the_report_renders_without_the_auditor_after_pickling(audit):
    frame, X, y, auditor = audit
    report = auditor.report(X, y)
    ids = frame["person"].to_numpy()
    page = report.to_html(ids=ids)
    copy = pickle.loads(pickle.dumps(report))
    assert _undated(copy.to_html(ids=ids)) == _undated(page)
    # the testers listed on the first sheet are the report's own, with their values
    first = report[0]
    for position in first["testers_unprotected"]:
        assert ids[position] in page
    assert len(report) == page.count('<section class="sheet"')


def test_every_sheet_carries_its_provenance(audit):
    frame, X, y, auditor = audit
    report = auditor.report(X, y)
    page = report.to_html()
    sheets = page.split('<section class="sheet"')[1:]
    assert len(sheets) == len(report) > 0
    version = report.provenance["package"]
    for sheet in sheets:
        assert version in sheet and "CBN-DD, k = 10" in sheet
        assert "causal graph learned" in sheet and 'href="#limitations"' in sheet
    assert 'id="limitations-text"' in page and "not a finding of discrimination in law" in page
    # the interval is printed as what it is
    assert "two-sided 80% Wald interval" in page and "one-sided 90%" in page
    # column kinds and whether they were declared or inferred
    assert "s0: nominal (inferred)" in page


def test_the_deprecated_alias_warns_and_gives_the_same_page(audit):
    from skfair_manifold.reports import evidence_html

    frame, X, y, auditor = audit
    with pytest.warns(FutureWarning, match="report\\(X, y\\).to_html"):
        old = evidence_html(auditor, X, y, max_sheets=3)
    assert _undated(old) == _undated(auditor.report(X, y).to_html(max_sheets=3))


def test_the_command_line_writes_the_reports_page(audit, tmp_path):
    frame, X, y, auditor = audit
    path = tmp_path / "decisions.csv"
    frame.to_csv(path, index=False)
    html = tmp_path / "evidence.html"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["audit", str(path), "--decision", "decision", "--positive-label", "yes",
                     "--protected", "s0", "--protected-value", "female", "--id", "person",
                     "-k", "10", "--quiet", "--html", str(html), "-o",
                     str(tmp_path / "out.csv")]) == 0
    page = html.read_text()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert digest in page and str(path) in page
    report = auditor.report(X, y)
    report.provenance.update(input_file=str(path), input_sha256=digest)
    assert _undated(page) == _undated(report.to_html(ids=frame["person"].to_numpy()))
    # the sheets name the file too
    sheets = page.split('<section class="sheet"')[1:]
    assert sheets and all(digest in sheet for sheet in sheets)


def test_testers_of_data_not_fitted_are_named_by_their_fitted_position(audit):
    frame, X, y, auditor = audit
    rows = np.flatnonzero(auditor.flag(X, y))[:3]
    Xs, ys = X.iloc[rows].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)
    report = auditor.report(Xs, ys)
    assert not report.audited_fitted and len(report) >= 1
    page = report.to_html(ids=["a", "b", "c"][:len(rows)])
    assert "Person a" in page
    with pytest.raises(ValueError, match="ids has 2 values but the fitted data"):
        report.to_html(fitted_ids=["x", "y"])
