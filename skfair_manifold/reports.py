"""Self-contained HTML pages from Python: the fairness report and the audit's evidence.

:meth:`FairnessReport.to_html <skfair_manifold.metrics.FairnessReport.to_html>`
writes the first; :func:`evidence_html` the second, from a fitted
:class:`~skfair_manifold.situation_testing.SituationTestingAuditor` and the
rows it audits, the same page as ``skfair-manifold audit --html``. Both pages
hold their styles and plots inline and request nothing from the network.
"""

__all__ = ["evidence_html"]


def evidence_html(auditor, X, y, *, ids=None, max_sheets=500,
                  title="Situation testing: evidence"):
    """The HTML evidence page of an audit: a summary, then one sheet per flagged person.

    The summary gives the settings, the flag rule (``auditor.flag_rule_``),
    the causal graph with Q marked (CBN-DD) and every flagged person with
    ``p1``, ``p2``, ``diff`` and its bounds ``diff_lower`` and
    ``diff_upper``. Each sheet shows the claimant, the rule that flagged,
    and the testers of both sides side by side with their attributes,
    decisions and weights (1 for a tester taken for certain; the share taken
    of a tie group of equally similar records otherwise), read from
    ``auditor.report(X, y)``.

    Parameters
    ----------
    auditor : fitted SituationTestingAuditor
    X : DataFrame or array-like of shape (n_samples, n_features)
        The rows to audit, as given to the auditor (the fitted rows, so that
        the testers, which are fitted rows, can be shown).
    y : array-like of shape (n_samples,)
        Their decisions.
    ids : array-like of shape (n_samples,) or None, default=None
        A distinct name per row (its position when None); the sheet of a
        person is found in the page as ``#person-<id>`` (characters other
        than ASCII letters, digits, ``-`` and ``_`` become ``_``, and a
        short hash of the id follows, so that distinct ids never share an
        anchor).
    max_sheets : int, default=500
        Sheets for at most the first ``max_sheets`` flagged people; all are
        listed in the summary.
    title : str, default="Situation testing: evidence"

    Returns
    -------
    html : str

    Examples
    --------
    >>> from skfair_manifold.datasets import make_biased_decisions
    >>> from skfair_manifold.reports import evidence_html
    >>> from skfair_manifold.situation_testing import SituationTestingAuditor
    >>> data = make_biased_decisions(400, random_state=0, as_frame=True)
    >>> X, y = data.frame.drop(columns="decision"), data.frame["decision"]
    >>> auditor = SituationTestingAuditor(protected="s0", protected_value=1, k=10,
    ...                                   method="knn").fit(X, y)
    >>> page = evidence_html(auditor, X, y)
    >>> page.startswith("<!DOCTYPE html>") and 'id="flagged-table"' in page
    True
    """
    import numpy as np
    import pandas as pd
    from sklearn.utils.validation import check_is_fitted

    from ._html import audit_summary, evidence_table, render_evidence

    check_is_fitted(auditor)
    columns = [str(c) for c in getattr(auditor, "feature_names_in_",
                                       range(np.shape(X)[1]))]
    frame = pd.DataFrame(np.asarray(X, dtype=object), columns=columns) \
        if not hasattr(X, "columns") else X.reset_index(drop=True).copy()
    frame.columns = [str(c) for c in frame.columns]
    decision = str(getattr(auditor, "decision_name_", "y"))
    if decision in frame.columns:
        decision = decision + "_decision"
    frame[decision] = np.asarray(y)
    protected = frame.columns[auditor.protected_index_]
    ids = np.arange(frame.shape[0]) if ids is None else np.asarray(ids)
    if ids.shape[0] != frame.shape[0]:
        raise ValueError(f"ids has {ids.shape[0]} values but X has {frame.shape[0]} rows.")
    texts = pd.Series([str(v) for v in ids.tolist()])
    if texts.duplicated().any():
        dup = texts[texts.duplicated()].iloc[0]
        rows = np.flatnonzero(texts.to_numpy() == dup)[:2].tolist()
        raise ValueError(f"ids must name each row once; {dup!r} names rows {rows[0]} and "
                         f"{rows[1]}. Give distinct ids (the command line refuses them too).")
    report = auditor.report(X, y)
    id_column = "id" if "id" not in frame.columns else "row_id"
    frame.insert(0, id_column, ids)
    table = evidence_table(frame, id_column=id_column, protected=protected, decision=decision,
                           auditor=auditor, report=report, scores=None, ids=ids)
    y_arr = np.asarray(y)
    candidates = int(((frame[protected] == auditor.protected_value)
                      & (y_arr != auditor.positive_label_)).sum())
    summary = audit_summary(auditor, file="(data given in Python)", protected=protected,
                            decision=decision, n_rows=frame.shape[0],
                            n_candidates=candidates, n_flagged=len(report))
    summary["provenance"] = report.provenance
    features = [c for c in frame.columns if c not in (id_column, decision)]
    return render_evidence(frame=frame, features=features, id_column=id_column,
                           summary=summary, table=table, auditor=auditor, report=report,
                           ids=ids,
                           max_sheets=max_sheets, title=title)
