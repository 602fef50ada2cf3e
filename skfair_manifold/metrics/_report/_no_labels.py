"""The group report without true labels: the rate sections that need none, the rest left out.

A selection tool's audit often has the decisions and no ground truth.
``fairness_report(None, y_pred, ...)`` then reports what the decisions alone
give (per group the count and the selection rate; demographic parity's
gaps and ratios with their intervals and the four-fifths verdict) and leaves
out, by name, everything that compares them with true labels.
"""

import numpy as np

from ._target_type import resolve_target_type

#: the per-group rates that need true labels
LABEL_RATES = ("base_rate", "true_positive_rate", "false_positive_rate", "precision",
               "accuracy")

#: the gaps that need true labels
LABEL_GAPS = ("equal_opportunity", "predictive_quality_parity", "base_rate")

#: what the report says it left out
LEFT_OUT = ("without true labels the report gives the selection rates, demographic parity "
            "and the four-fifths rule; left out: the base rate, the true and false positive "
            "rates, precision and accuracy by group, equal opportunity and predictive "
            "quality parity (they compare the decisions with true labels)")

MSG_NEEDS_LABELS = (
    "{what} needs the true labels (y_true), which were not given: leave {argument} out, or "
    "pass y_true. For a bias audit of decisions or scores without labels, see "
    "skfair_manifold.metrics.bias_audit."
)

MSG_NOT_DECISIONS = (
    "without true labels the report reads decisions (classes), and y_pred holds a quantity "
    "({source}); for scores, audit them with skfair_manifold.metrics.bias_audit(y_score=...), "
    "or pass y_true and target_type='continuous'."
)


def decisions_as_labels(y_pred, target_type, *, X, estimator, y_score, loss):
    """``(y_true, target_type)`` of a report without labels: the decisions read as both
    (what needs labels is left out afterwards); the options that need them refused."""
    check_without_labels(X=X, estimator=estimator, y_score=y_score, loss=loss)
    if target_type == "continuous":
        raise ValueError(MSG_NOT_DECISIONS.format(source="target_type='continuous'"))
    if target_type == "auto" and not isinstance(y_pred, str) \
            and resolve_target_type("auto", y_pred, y_pred)[0] == "continuous":
        raise ValueError(MSG_NOT_DECISIONS.format(source="numbers, not classes"))
    return y_pred, "binary"


def check_without_labels(*, X, estimator, y_score, loss):
    """The options that need true labels, refused with the reason."""
    for value, what, argument in ((X, "HFM (X=)", "X"),
                                  (estimator, "the discriminative risk (estimator=)",
                                   "estimator"),
                                  (y_score, "the scores' AUC and calibration (y_score=)",
                                   "y_score"),
                                  (loss, "the group loss (loss=)", "loss")):
        if value is not None:
            raise ValueError(MSG_NEEDS_LABELS.format(what=what, argument=argument))


def leave_out_labels(report):
    """The report with every quantity that needs true labels made NaN (in place), the
    messages about them dropped, and what was left out said in the options and headline."""
    frames = [report.by_group, report.intervals.by_group]
    for frame in frames:
        for column in list(frame.columns):
            if any(column == r or column.startswith(r + "_") for r in LABEL_RATES):
                frame[column] = np.nan
    for rate in LABEL_RATES:
        if rate in report.overall.index:
            report.overall[rate] = np.nan
    for frame in (report.gaps, report.intervals.gaps):
        for column in list(frame.columns):
            if any(column.startswith(g + "_") for g in LABEL_GAPS):
                frame[column] = None if frame[column].dtype == object else np.nan
    words = ("true_positive", "false_positive", "precision", "accuracy", "base_rate",
             "equal_opportunity", "predictive_quality_parity", "y_true")
    report["warnings"] = [w for w in report.warnings if not any(x in w for x in words)]
    report.options["labels"] = False
    report.options["left_out"] = LEFT_OUT
    report.options["label_column"] = None
    favourable = report.options["favourable"]
    report.options["favourable_text"] = (
        f"prediction = {favourable!r} in column {report.options['prediction_column']!r} "
        "(no true labels)")
    return report
