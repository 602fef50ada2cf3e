"""Deprecated: the evidence page is the report's own, ``auditor.report(X, y).to_html()``.

:func:`evidence_html` is kept as an alias that warns (``FutureWarning``) and
will be removed. The fairness report's page is
:meth:`FairnessReport.to_html <skfair_manifold.metrics.FairnessReport.to_html>`.
"""

import warnings

__all__ = ["evidence_html"]

MSG_DEPRECATED = (
    "skfair_manifold.reports.evidence_html is deprecated and will be removed; use "
    "auditor.report(X, y).to_html(ids=ids, max_sheets=max_sheets, title=title), the same page."
)


def evidence_html(auditor, X, y, *, ids=None, max_sheets=500,
                  title="Situation testing: evidence"):
    """Deprecated alias of ``auditor.report(X, y).to_html(...)``.

    .. deprecated:: 0.1.0.dev0
       Use :meth:`SituationTestingReport.to_html
       <skfair_manifold.situation_testing.SituationTestingReport.to_html>`:
       ``auditor.report(X, y).to_html(ids=ids, max_sheets=max_sheets, title=title)``.

    Parameters
    ----------
    auditor : fitted SituationTestingAuditor
    X : DataFrame or array-like of shape (n_samples, n_features)
        The rows to audit.
    y : array-like of shape (n_samples,)
        Their decisions.
    ids : array-like of shape (n_samples,) or None, default=None
        A distinct name per row (its position when None).
    max_sheets : int, default=500
    title : str, default="Situation testing: evidence"

    Returns
    -------
    html : str
    """
    from sklearn.utils.validation import check_is_fitted

    warnings.warn(MSG_DEPRECATED, FutureWarning, stacklevel=2)
    check_is_fitted(auditor)
    return auditor.report(X, y).to_html(ids=ids, max_sheets=max_sheets, title=title)
