"""Self-contained HTML pages from Jinja2 templates: the fairness report and the audit evidence.

One file each, styles inline, plots as inline SVG (also drawn by templates),
no script and no request to the network; printable (one sheet per page).
Python computes the numbers and the geometry; the templates in
``templates/`` lay them out. The evidence page reads the auditor's
``report()`` entries as the command line tabulates them (one row per
flagged person, with the testers' ids and decisions); columns that a newer
auditor adds (an interval of ``diff``, the rule that flagged) are shown when
present.
"""

import datetime
import math

import numpy as np

__all__ = ["evidence_table", "render_evidence", "render_fairness_report"]

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


def _environment():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("skfair_manifold._html", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2", "svg"]),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = _num
    env.filters["pct"] = _pct
    env.filters["anchor"] = _anchor
    return env


def _num(value, digits=3):
    """A number for people: ``n/a`` when undefined, else ``digits`` decimals."""
    if value is None:
        return "n/a"
    try:
        value = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(value):
        return "n/a"
    if abs(value) < 1e-12:
        value = 0.0
    return f"{value:.{digits}f}"


def _pct(value):
    if value is None or not math.isfinite(float(value)):
        return "n/a"
    return f"{100 * float(value):+.1f}%"


def _anchor(value):
    """A safe HTML id for a person: letters, digits, ``-`` and ``_`` kept."""
    text = "".join(c if c.isalnum() or c in "-_" else "_" for c in str(value))
    return f"person-{text}"


def _interval(iv, key, column):
    if iv is None or f"{column}_low" not in iv.columns:
        return None
    low, high = iv.loc[key, f"{column}_low"], iv.loc[key, f"{column}_high"]
    return (float(low), float(high))


# ----------------------------------------------------------------------------- plots

def bar_chart(title, labels, series, *, width=520, bar_height=16, unit_max=1.0):
    """Geometry of a horizontal grouped bar chart drawn by ``_bars.svg.j2``.

    ``series``: list of (name, values, intervals or None); values in [0, unit_max].
    """
    n_series = len(series)
    left, right, top = 150, 20, 28
    row = bar_height * n_series + 10
    height = top + row * len(labels) + 30
    span = width - left - right
    colours = ["#3b6ea8", "#d08c32", "#5b9e5b"]
    bars = []
    for i, label in enumerate(labels):
        for s, (name, values, intervals) in enumerate(series):
            value = values[i]
            y = top + i * row + s * bar_height
            bar = {"y": y, "height": bar_height - 3, "colour": colours[s % len(colours)],
                   "label": label if s == 0 else "", "series": name,
                   "value": value, "width": 0.0, "x": left, "interval": None}
            if value is not None and math.isfinite(value):
                bar["width"] = max(span * min(value / unit_max, 1.0), 0.0)
            if intervals is not None and intervals[i] is not None \
                    and all(math.isfinite(v) for v in intervals[i]):
                lo, hi = intervals[i]
                bar["interval"] = (left + span * max(lo, 0) / unit_max,
                                   left + span * min(hi, unit_max) / unit_max)
            bars.append(bar)
    ticks = [{"x": left + span * t, "label": f"{t * unit_max:.2g}"} for t in (0, .25, .5, .75, 1)]
    legend = [{"name": name, "colour": colours[s % len(colours)], "x": left + 150 * s}
              for s, (name, _, _) in enumerate(series)]
    return {"title": title, "width": width, "height": height, "bars": bars, "ticks": ticks,
            "legend": legend, "top": top, "bottom": height - 24, "left": left,
            "label_x": left - 6}


def graph_layout(parents, decision, q, protected, *, width=640):
    """Geometry of the causal graph around ``decision`` (layers of ancestors), Q marked."""
    from skfair_manifold.plotting._graph import _layers, _parents_mapping

    mapping = _parents_mapping(parents)
    if decision not in mapping:
        return None
    layers = _layers(mapping, decision, depth=3)
    longest = max(len(str(node)) for layer in layers for node in layer) + 4
    node_width = max(90, 7 * longest + 16)
    width = max(width, (node_width + 20) * max(len(layer) for layer in layers) + 20)
    layer_gap, top = 90, 40
    height = top + layer_gap * (len(layers) - 1) + 50
    position = {}
    for depth, layer in enumerate(reversed(layers)):
        for i, node in enumerate(layer):
            x = width * (i + 1) / (len(layer) + 1)
            position[node] = (x, top + depth * layer_gap)
    edges = []
    for child, ps in mapping.items():
        for p in ps:
            if child in position and p in position:
                (x1, y1), (x2, y2) = position[p], position[child]
                edges.append({"x1": x1, "y1": y1 + 14, "x2": x2, "y2": y2 - 16})
    nodes = [{"name": str(node), "x": x, "y": y,
              "kind": ("decision" if node == decision else "q" if node in q
                       else "protected" if node == protected else "other")}
             for node, (x, y) in position.items()]
    return {"width": width, "height": height, "nodes": nodes, "edges": edges,
            "node_width": node_width}


# ----------------------------------------------------------------------------- report

HFM_READING = (
    "HFM is log(D_f / D), natural logarithm: D is the distance between groups with the true "
    "labels, D_f with the model's predictions. exp(HFM) is their ratio, so 0.01, 0.1 and 1 "
    "mean 1%, 10.5% and 172% more distance between the groups; negative values mean the "
    "model brings the groups closer than the labels do. HFM measures what the model adds "
    "to the disparity already in the labels, not the disparity itself: a model that copies "
    "biased labels has HFM 0. Read it beside the selection rates above. HFM max follows the "
    "single most distant row, HFM avg all of them: prefer avg to compare models."
)


def render_fairness_report(report, *, title="Fairness report", plots=True):
    """The HTML page of a :class:`~skfair_manifold.metrics.FairnessReport`."""
    by_group, iv = report.by_group, report.intervals
    groups = []
    for key, row in by_group.iterrows():
        cells = []
        for rate in RATE_LABELS:
            cells.append({"value": row[rate],
                          "interval": _interval(None if iv is None else iv.by_group, key,
                                                rate)})
        groups.append({"attribute": str(key[0]), "group": str(key[1]),
                       "count": int(row["count"]), "cells": cells})
    gaps = []
    for attr, row in report.gaps.iterrows():
        metrics = []
        for metric, label in GAP_LABELS.items():
            metrics.append({
                "label": label,
                "difference": row[f"{metric}_difference"],
                "difference_iv": _interval(None if iv is None else iv.gaps, attr,
                                           f"{metric}_difference"),
                "ratio": row[f"{metric}_ratio"],
                "ratio_iv": _interval(None if iv is None else iv.gaps, attr,
                                      f"{metric}_ratio"),
            })
        gaps.append({"attribute": str(attr), "metrics": metrics,
                     "passes": bool(row["passes_four_fifths"]),
                     "ratio": row["demographic_parity_ratio"]})
    hfm = []
    if report.hfm is not None:
        for attr, row in report.hfm.iterrows():
            item = {"attribute": str(attr)}
            for q in ("hfm_max", "hfm_avg"):
                value = float(row[q])
                item[q] = value
                item[f"{q}_added"] = math.expm1(value) if math.isfinite(value) else None
                low, high = row.get(f"{q}_low"), row.get(f"{q}_high")
                item[f"{q}_iv"] = None if low is None or high is None \
                    or not (math.isfinite(low) and math.isfinite(high)) else (low, high)
            hfm.append(item)
    dr = [] if report.dr is None else [{"attribute": str(a), "value": float(v)}
                                       for a, v in report.dr.items()]
    charts = []
    if plots:
        for attr in dict.fromkeys(by_group.index.get_level_values(0)):
            part = by_group.loc[attr]
            labels = [str(g) for g in part.index]
            series = []
            for rate in ("selection_rate", "true_positive_rate"):
                intervals = None
                if iv is not None:
                    intervals = [_interval(iv.by_group, (attr, g), rate) for g in part.index]
                series.append((RATE_LABELS[rate], [float(v) for v in part[rate]], intervals))
            charts.append(bar_chart(f"{attr}: rates by group", labels, series))
    options = report.options
    context = {
        "title": title, "generated": _now(), "options": options, "groups": groups,
        "rate_labels": list(RATE_LABELS.values()), "gaps": gaps, "hfm": hfm, "dr": dr,
        "charts": charts, "hfm_reading": HFM_READING, "warnings": report.warnings,
        "intervals": None if iv is None else {"n_boot": iv.n_boot,
                                              "confidence": iv.confidence},
        "overall": report.overall.to_dict(),
    }
    return _environment().get_template("report.html.j2").render(**context)


# ----------------------------------------------------------------------------- evidence

TESTER_COLUMNS = ("testers_unprotected", "decisions_unprotected", "testers_protected",
                  "decisions_protected")


def evidence_table(frame, *, id_column, protected, decision, auditor, evidence, scores, ids):
    """One row per audited person: the flag, the rates and the testers (as lists of ids).

    ``evidence`` is the auditor's ``report()`` (rows renumbered in ``frame``);
    ``scores`` its ``transform`` output for every row, or None for the
    flagged rows only.
    """
    import pandas as pd

    score_names = [str(n) for n in auditor.get_feature_names_out()]
    if scores is None:
        rows = np.array([e["row"] for e in evidence], dtype=np.intp)
        table = pd.DataFrame({name: [e[name] for e in evidence] for name in score_names})
        table.insert(0, "flagged", True)
    else:
        rows = np.arange(frame.shape[0])
        table = pd.DataFrame(scores, columns=score_names)
        flagged = np.zeros(frame.shape[0], dtype=bool)
        flagged[[e["row"] for e in evidence]] = True
        table.insert(0, "flagged", flagged)
    table.insert(0, "row", rows)
    if id_column:
        table.insert(1, id_column, ids[rows])
    table.insert(table.columns.get_loc("flagged"), protected, frame[protected].to_numpy()[rows])
    table.insert(table.columns.get_loc("flagged"), decision, frame[decision].to_numpy()[rows])
    by_row = {e["row"]: e for e in evidence}
    for column in TESTER_COLUMNS:
        values = []
        for r in rows:
            entry = by_row.get(int(r))
            if entry is None:
                values.append([])
            elif column.startswith("testers"):
                values.append(ids[np.asarray(entry[column], dtype=np.intp)].tolist())
            else:
                values.append(np.asarray(entry[column]).tolist())
        table[column] = values
    return table



def _diff_interval(row, k):
    """The interval of ``diff`` that the auditor gives, else a 95% Wald interval.

    Returns ``(low, high, how)``.
    """
    for low, high in (("diff_low", "diff_high"), ("diff_ci_low", "diff_ci_high")):
        if low in row and high in row:
            return float(row[low]), float(row[high]), "the auditor's interval"
    p1, p2 = float(row["p1"]), float(row["p2"])
    se = math.sqrt(max(p1 * (1 - p1), 0) / k + max(p2 * (1 - p2), 0) / k)
    diff = float(row["diff"])
    return diff - 1.96 * se, diff + 1.96 * se, f"95% Wald interval over k={k} testers a side"


def render_evidence(*, frame, features, id_column, summary, table, auditor, ids,
                    max_sheets=500, title="Situation testing: evidence"):
    """The HTML evidence page of an audit: a summary, then one sheet per flagged person.

    ``table`` holds one row per flagged person as the command line builds it
    (``row``, the id, ``p1``, ``p2``, ``diff`` [, ``diff_lower``], the
    testers' ids and decisions of both sides).
    """
    decision, protected = summary["decision"], summary["protected"]
    q = [str(v) for v in summary["q"]]
    position = {value: i for i, value in enumerate(np.asarray(ids).tolist())}
    shown_features = [c for c in features if c != decision]
    # testers side by side: the columns they are matched on (Q) and the protected one
    tester_columns = [c for c in shown_features if c in q or c == protected] \
        if q else shown_features
    sheets = []
    flagged = []
    k = int(summary["k"])
    for n_sheet, (_, row) in enumerate(table.iterrows()):
        person = row[id_column] if id_column else row["row"]
        low, high, how = _diff_interval(row, k)
        entry = {"id": str(person), "anchor": _anchor(person), "p1": row["p1"],
                 "p2": row["p2"], "diff": row["diff"], "low": low, "high": high,
                 "interval_how": how, "sheet": n_sheet < max_sheets}
        flagged.append(entry)
        if n_sheet >= max_sheets:
            continue
        claimant = frame.iloc[int(row["row"])]
        sides = []
        for side, label in (("unprotected", f"{protected} \u2260 {summary['protected_value']}"),
                            ("protected", f"{protected} = {summary['protected_value']}")):
            testers = []
            for tester_id, dec in zip(row[f"testers_{side}"], row[f"decisions_{side}"]):
                tester = frame.iloc[position[tester_id]]
                testers.append({"id": str(tester_id), "decision": str(dec),
                                "positive": dec == summary["positive_label"],
                                "values": [str(tester[c]) for c in tester_columns]})
            sides.append({"label": label, "testers": testers,
                          "rate": row["p1"] if side == "unprotected" else row["p2"]})
        rule = [f"{protected} = {summary['protected_value']} (the protected group)",
                f"{decision} = {claimant[decision]} (a negative decision)",
                f"diff = p1 - p2 = {_num(row['diff'])} > tau = {summary['tau']}"]
        if "diff_lower" in row and summary.get("alpha_test") is not None:
            rule.append(f"the lower confidence bound of diff, {_num(row['diff_lower'])}, "
                        f"> tau (alpha_test = {summary['alpha_test']})")
        sheets.append({**entry, "rule": rule, "sides": sides,
                       "claimant": [{"name": c, "value": str(claimant[c]), "q": c in q}
                                    for c in shown_features],
                       "decision": str(claimant[decision])})
    graph = None
    parents = getattr(auditor, "graph_", None)
    if parents:
        graph = graph_layout(parents, getattr(auditor, "decision_name_", decision), q,
                             protected)
    context = {"title": title, "generated": _now(), "summary": summary, "q": q,
               "flagged": flagged, "sheets": sheets, "features": tester_columns,
               "all_features": len(tester_columns) == len(shown_features),
               "graph": graph, "max_sheets": max_sheets,
               "n_without_sheet": max(len(flagged) - max_sheets, 0)}
    return _environment().get_template("evidence.html.j2").render(**context)


def _now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
