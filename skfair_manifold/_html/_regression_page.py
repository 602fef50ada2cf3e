"""The continuous report's page: gaps, means by group, charts and settings read from to_dict()."""

import math

from ._charts import bar_chart
from ._environment import _environment
from ._text import _neutral

#: the columns of the groups' table, with their labels
COLUMN_LABELS = {
    "mean_prediction": "mean prediction",
    "mean_target": "mean target",
    "mean_absolute_error": "MAE",
    "root_mean_squared_error": "RMSE",
    "mean_residual": "mean residual",
}


def render_regression_report(report, *, title="Fairness report", plots=True,
                             fragment=False):
    """The HTML page of a :class:`~skfair_manifold.metrics.RegressionReport`."""
    data = report.to_dict()
    options, iv = data["options"], data["intervals"]
    shown = dict(COLUMN_LABELS)
    if options.get("loss") is not None:  # the user's loss, after the package's columns
        shown["mean_loss"] = f"mean loss ({options['loss']})"
    groups = []
    for attr, members in data["by_group"].items():
        for group, row in members.items():
            bounds = iv["by_group"][attr][group]
            groups.append({"attribute": attr, "group": group, "count": row["count"],
                           "compared": row["compared"],
                           "cells": [{"value": row[c], "interval": (
                               bounds.get(f"{c}_low"), bounds.get(f"{c}_high"))}
                               for c in shown]})
    gaps = []
    for attr, row in data["gaps"].items():
        bounds = iv["gaps"][attr]
        metrics = [{"label": label, "difference": row[f"{c}_difference"],
                    "difference_iv": (bounds.get(f"{c}_difference_low"),
                                      bounds.get(f"{c}_difference_high")),
                    "high": row[f"{c}_group_high"], "low": row[f"{c}_group_low"]}
                   for c, label in shown.items()]
        gaps.append({"attribute": attr, "metrics": metrics,
                     "loss": row["bounded_group_loss"],
                     "loss_high": bounds.get("bounded_group_loss_high"),
                     "loss_group": row["bounded_group_loss_group"],
                     "ks": row["ks_distance"], "wasserstein": row["wasserstein_distance"],
                     "ks_group": row["ks_distance_group"],
                     "left_out": row["groups_left_out"], "rows_left_out": row["rows_left_out"]})
    charts = []
    if plots:
        for attr, members in data["by_group"].items():
            labels = list(members)
            values = [[members[g][c] for g in labels] for c in ("mean_prediction",
                                                                "mean_target")]
            top = max((v for series in values for v in series if v is not None), default=1.0)
            top = top if top and top > 0 else 1.0
            series = [(COLUMN_LABELS[c], [math.nan if v is None else v for v in vs],
                       [(iv["by_group"][attr][g].get(f"{c}_low"),
                         iv["by_group"][attr][g].get(f"{c}_high")) for g in labels])
                      for c, vs in zip(("mean_prediction", "mean_target"), values)]
            charts.append(bar_chart(f"{attr}: mean prediction and mean target by group",
                                    labels, series, unit_max=top * 1.05))
    settings = [("package", options["package"]), ("made", options["created"]),
                ("target", f"continuous ({options['target_type_source']})"),
                ("label column", options["label_column"]),
                ("prediction column", options["prediction_column"]),
                ("favourable", f"{options['favourable']} predictions"),
                ("sensitive columns", ", ".join(options["attributes"])
                 + (" (combinations as groups)" if options["intersect"] else "")),
                ("rows used", str(options["n_samples"])),
                ("groups compared", f"at least {options['min_group_size']} rows "
                                    "(min_group_size)"),
                ("intervals", f"{100 * options['confidence']:g}%: Student's t of each "
                              "group's mean; simultaneous over the groups for the gaps")]
    if options["weighted"]:
        settings.append(("weights", "means weighted by the sample weights"))
    if options.get("loss") is not None:
        settings.append(("loss", f"{options['loss']}, the user's; the bounded group loss is "
                                 "its largest group mean"))
    context = {
        "title": title, "generated": options["created"], "options": options,
        "groups": groups, "gaps": gaps, "charts": charts, "overall": data["overall"],
        "headline": data["headline"], "columns": list(shown),
        "column_labels": list(shown.values()),
        "loss_label": ("MAE" if options.get("loss") is None
                       else f"mean loss ({options['loss']})"),
        "warnings": [_neutral(w) for w in data["warnings"]], "settings": settings,
        "fragment": fragment,
    }
    return _environment().get_template("regression.html.j2").render(**context)
