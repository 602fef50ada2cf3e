"""The fairness report's page: its rows, gaps, HFM, charts and settings read from to_dict()."""

import math

from ._witnesses import witness_cards
from ._charts import bar_chart
from ._environment import _environment
from ._text import _neutral


RATE_LABELS = {
    "base_rate": "base rate",
    "selection_rate": "selection rate",
    "true_positive_rate": "true positive rate",
    "false_positive_rate": "false positive rate",
    "precision": "precision",
    "accuracy": "accuracy",
}

GAP_LABELS = {
    "demographic_parity": "DP (selection rate)",
    "equal_opportunity": "EO (true positive rate)",
    "predictive_quality_parity": "PQP (precision)",
}

HFM_READING = (
    "HFM is log(D_f / D), natural logarithm: D is the distance between groups with the true "
    "labels, D_f with the model's predictions. exp(HFM) is their ratio, so 0.01, 0.1 and 1 "
    "mean 1%, 10.5% and 172% more distance between the groups; negative values mean the "
    "model brings the groups closer than the labels do. HFM measures what the model adds "
    "to the disparity already in the labels, not the disparity itself: a model that copies "
    "biased labels has HFM 0. Read it beside the selection rates above. HFM max follows the "
    "single most distant row, HFM avg all of them: prefer avg to compare models."
)


def settings_rows(data):
    """The settings box: (name, value) pairs of what a second reader needs to redo the report.

    ``data`` is :meth:`FairnessReport.to_dict`'s output.
    """
    options, source = data["options"], data.get("provenance") or {}
    iv = data["intervals"]
    method = ("Wilson score with continuity correction (rates); simultaneous intervals "
              "(gaps and ratios)" if iv["method"] == "score"
              else f"score (rates); percentile bootstrap of {iv['n_boot']} replicates drawn "
                   f"from the cell counts (gaps and ratios)")
    rows = [("package", options["package"]), ("made", options["created"])]
    if source.get("file"):
        rows.append(("input file", source["file"]))
    if source.get("sha256"):
        rows.append(("input SHA-256", source["sha256"]))
    rows += [
        ("label column", options["label_column"]),
        ("prediction column", options["prediction_column"]),
        ("favourable outcome", options["favourable_text"]),
        ("sensitive columns", ", ".join(options["attributes"])
         + (" (combinations as groups)" if options["intersect"] else "")),
        ("rows used", str(options["n_samples"])),
    ]
    if source.get("rows_dropped") is not None:
        rows.append(("rows dropped", str(source["rows_dropped"])))
    rows.append(("groups compared", f"at least {options['min_group_size']} rows "
                                    "(min_group_size)"))
    rows.append(("intervals", f"{100 * iv['confidence']:g}%: {method}"))
    if options.get("hfm_features") is not None:
        hfm = options["hfm_options"]
        rows.append(("HFM features", ", ".join(str(f) for f in options["hfm_features"])))
        rows.append(("HFM method", str(hfm.get("method", "auto"))))
    rows.append(("random seed", "none" if options.get("random_state") is None
                 else str(options["random_state"])))
    if options["weighted"]:
        rows.append(("weights", "rates weighted by the sample weights"))
    for key, value in source.items():
        if key not in ("file", "sha256", "rows_dropped"):
            rows.append((key.replace("_", " "), str(value)))
    return rows


def render_fairness_report(report, *, title="Fairness report", plots=True, fragment=False):
    """The HTML page of a :class:`~skfair_manifold.metrics.FairnessReport`.

    Everything shown is read from ``report.to_dict()``; ``fragment`` gives the
    page without its document shell (for a notebook cell).
    """
    data = report.to_dict()
    options, iv = data["options"], data["intervals"]
    summary = options["summary_label"]
    groups = []
    for attr, members in data["by_group"].items():
        for group, row in members.items():
            bounds = iv["by_group"][attr][group]
            groups.append({"attribute": attr, "group": group, "count": row["count"],
                           "compared": row["compared"],
                           "cells": [{"value": row[rate], "interval": bounds.get(rate)}
                                     for rate in RATE_LABELS]})
    gaps = []
    for attr, row in data["gaps"].items():
        bounds = iv["gaps"][attr]
        metrics = []
        for metric, label in GAP_LABELS.items():
            metrics.append({
                "label": label,
                "difference": row[f"{metric}_difference"],
                "difference_iv": bounds.get(f"{metric}_difference"),
                "ratio": row[f"{metric}_ratio"],
                "ratio_iv": bounds.get(f"{metric}_ratio"),
                "high": row[f"{metric}_group_high"], "low": row[f"{metric}_group_low"],
                "detectable": row[f"{metric}_detectable_difference"],
            })
        gaps.append({"attribute": attr, "metrics": metrics, "verdict": row["four_fifths"],
                     "ratio": row["demographic_parity_ratio"],
                     "ratio_iv": bounds.get("demographic_parity_ratio"),
                     "label_ratio": row["base_rate_ratio"],
                     "label_ratio_iv": bounds.get("base_rate_ratio"),
                     "label_difference": row["base_rate_difference"],
                     "left_out": row["groups_left_out"], "rows_left_out": row["rows_left_out"],
                     "summary": attr == summary and len(data["gaps"]) > 1})
    hfm = []
    if data["hfm"] is not None:
        for attr, row in data["hfm"].items():
            item = {"attribute": attr}
            for q in ("hfm_max", "hfm_avg"):
                value = row[q]
                item[q] = value
                item[f"{q}_added"] = math.expm1(value) if value is not None else None
                low, high = row.get(f"{q}_low"), row.get(f"{q}_high")
                # the exact engine's zero-width interval says nothing: not shown
                item[f"{q}_iv"] = None if low is None or high is None or low == high \
                    else (low, high)
                low, high = row.get(f"{q}_rows_low"), row.get(f"{q}_rows_high")
                item[f"{q}_rows_iv"] = None if low is None or high is None else (low, high)
            hfm.append(item)
    dr = [] if data["dr"] is None else [{"attribute": a, "value": v}
                                        for a, v in data["dr"].items()]
    charts = []
    if plots:
        for attr, members in data["by_group"].items():
            labels = list(members)
            series = []
            for rate in ("selection_rate", "true_positive_rate"):
                values = [members[g][rate] for g in labels]
                series.append((RATE_LABELS[rate],
                               [math.nan if v is None else v for v in values],
                               [iv["by_group"][attr][g].get(rate) for g in labels]))
            charts.append(bar_chart(f"{attr}: rates by group", labels, series))
    context = {
        "title": title, "generated": options["created"], "options": options, "groups": groups,
        "rate_labels": list(RATE_LABELS.values()), "gaps": gaps, "hfm": hfm, "dr": dr,
        "charts": charts, "hfm_reading": HFM_READING,
        "hfm_intervals": {"approx": any(h["hfm_max_iv"] or h["hfm_avg_iv"] for h in hfm),
                          "rows": any(h["hfm_avg_rows_iv"] for h in hfm)},
        "warnings": [_neutral(w) for w in data["warnings"]],
        "intervals": iv, "overall": data["overall"], "headline": data["headline"],
        "any_fails": any(g["verdict"] in ("fails", "inconclusive", "undefined")
                         for g in gaps if not g["summary"]),
        "settings": settings_rows(data), "fragment": fragment,
        "scores": _score_rows(data.get("scores")),
        "witnesses": witness_cards(data),
    }
    return _environment().get_template("report.html.j2").render(**context)


def _score_rows(scores):
    """The page's table of the scores by group (``y_score``), None without scores."""
    if scores is None:
        return None
    rows = []
    for attr, members in scores["by_group"].items():
        gap = scores["gaps"].get(attr, {})
        for group, row in members.items():
            rows.append({"attribute": attr, "group": group, "count": int(row["count"]),
                         "auc": row["auc"], "auc_iv": (row["auc_low"], row["auc_high"]),
                         "mean_score": row["mean_score"], "ece": row["ece"],
                         "gap": gap})
    return rows

