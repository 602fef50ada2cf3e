"""Self-contained HTML pages from Jinja2 templates: the fairness report and the audit evidence.

One file each, styles inline, plots as inline SVG (also drawn by templates),
no script and no request to the network; printable (one sheet per page).
Python computes the numbers and the geometry; the templates in
``templates/`` lay them out. The modules:

``_environment``
    the templates' Jinja2 environment, its filters and its finalizer;
``_text``
    numbers, p-values and percentages for people; safe text; anchors;
``_charts``
    the geometry of the bar charts and of the causal graph;
``_report_page``
    the fairness report's page (``FairnessReport.to_html``);
``_regression_page``
    the continuous report's page (``RegressionReport.to_html``);
``_witnesses``
    HFM's witnesses laid out for the report page;
``_audit_page``
    the bias audit's page (``BiasAudit.to_html``);
``_evidence_page``
    the evidence page of situation testing: it renders a
    ``SituationTestingReport``, read by ``report.to_html()`` and the command
    line alike.
"""

from ._audit_page import render_bias_audit
from ._evidence_page import render_evidence
from ._regression_page import render_regression_report
from ._report_page import render_fairness_report

__all__ = ["render_bias_audit", "render_evidence", "render_fairness_report", "render_regression_report"]
