"""Self-contained HTML pages from Jinja2 templates: the fairness report and the audit evidence.

One file each, styles inline, plots as inline SVG (also drawn by templates),
no script and no request to the network; printable (one sheet per page).
Python computes the numbers and the geometry; the templates in
``templates/`` lay them out. This module holds the shared helpers (the
templates' environment and filters, safe text, anchors, the charts' and the
causal graph's geometry) and the fairness report's page; the evidence page
of situation testing is ``_evidence_page`` (it renders a
``SituationTestingReport``, read by ``report.to_html()`` and the command
line alike).
"""

import hashlib
import math
import re

import numpy as np

from ..utils._visible import visible_text
from ._witnesses import witness_cards

__all__ = ["render_evidence", "render_fairness_report"]

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
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
        finalize=_finalize)
    env.filters["join"] = _join
    env.filters["num"] = _num
    env.filters["pct"] = _pct
    env.filters["level"] = _level
    env.filters["pval"] = _pval
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


def _pval(value):
    """A p-value or q-value: 4 decimals, or two significant digits below 0.001."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return "n/a"
    if not math.isfinite(value):
        return "n/a"
    return f"{value:.4f}" if value >= 1e-3 else f"{value:.1e}"


def _pct(value):
    if value is None or not math.isfinite(float(value)):
        return "n/a"
    return f"{100 * float(value):+.1f}%"


def _level(confidence):
    """A confidence level as a reader writes it: 0.95 -> "95%", 0.975 -> "97.5%"."""
    return f"{100 * float(confidence):.10g}%"


# ----------------------------------------------------------------------------- any text

#: control characters (C0 but tab and line ends, DEL, C1) and lone surrogates: escaped
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
#: right-to-left letters (Hebrew, Arabic, Syriac, Thaana, NKo, ... and their presentation
#: forms) and the explicit directional marks, embeddings, overrides and isolates
_BIDI = re.compile("[\u0590-\u08ff\u200f\u202a-\u202e\u2066-\u2069\ufb1d-\ufdff"
                   "\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff]")
#: first strong isolate ... pop directional isolate: the plain-text form of <bdi>
FSI, PDI = "\u2068", "\u2069"


class SafeText(str):
    """Text already made safe by :func:`safe_text` (not processed again)."""


def _escape_control(match):
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(value):
    """``value`` as text any page can show: controls escaped, bidirectional text isolated.

    A control character (NUL, ESC, DEL, C1 controls) or a lone surrogate is
    written as its escape (``\\x00``), so that it is neither written raw nor
    lost. A format character (Unicode category Cf: the directional
    embeddings, overrides and isolates such as U+202E, the right-to-left
    override, and the invisible ones such as U+200B or U+FEFF) is written as
    its visible escape ``<U+202E>`` (:func:`~skfair_manifold.utils._visible.visible_text`),
    so it can neither reverse the text nor hide. Text with right-to-left
    letters (or that held a directional character) is put between U+2068
    FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE, the plain-text
    form of ``<bdi>``: it cannot reorder the text around it, in HTML text,
    attributes and SVG alike.
    """
    if isinstance(value, SafeText):
        return value
    text = _CONTROL.sub(_escape_control, str(value))
    isolate = _BIDI.search(text) is not None
    text = visible_text(text)
    return SafeText(FSI + text + PDI if isolate else text)


def _finalize(value):
    """Every ``{{ value }}`` of the templates: text through :func:`safe_text`."""
    import markupsafe

    if isinstance(value, str) and not isinstance(value, markupsafe.Markup):
        return safe_text(value)
    return value


def _neutral(sentence):
    """A sentence of the package that quotes names: their directional embeddings,
    overrides and isolates escaped (``<U+202E>``), so that none reorders the sentence."""
    return SafeText(safe_text(visible_text(sentence)))


def _join(items, separator=""):
    """The templates' ``join``: each item made safe alone, so that one cannot reorder the next."""
    return SafeText(separator.join(safe_text(item) for item in items))


def _anchor(value):
    """A stable HTML id for a person, derived from the id.

    ASCII letters, digits, ``-`` and ``_`` are kept (at most 40 of them),
    other characters become ``_``; when that changed the id (``a b`` and
    ``a/b`` both give ``a_b``), eight hexadecimal digits of the id's SHA-1
    follow, so that distinct ids give distinct anchors. Ids in the page are
    made unique by :func:`unique_anchors`.
    """
    text = str(value)
    slug = re.sub("[^A-Za-z0-9_-]", "_", text)[:40]
    if slug != text:
        slug += "-" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"person-{slug}"


def unique_anchors(values):
    """One anchor per value, :func:`_anchor` with ``-2``, ``-3``, ... on a collision."""
    used, anchors = set(), []
    for value in values:
        anchor = base = _anchor(value)
        n = 1
        while anchor in used:
            n += 1
            anchor = f"{base}-{n}"
        used.add(anchor)
        anchors.append(anchor)
    return anchors


def _interval(iv, key, column):
    if iv is None or f"{column}_low" not in iv.columns:
        return None
    low, high = iv.loc[key, f"{column}_low"], iv.loc[key, f"{column}_high"]
    return (float(low), float(high))


# ----------------------------------------------------------------------------- plots

#: a bar label longer than this is cut with an ellipsis (the full text is its tooltip)
LABEL_CHARS = 40
#: the width of one character of the charts' 11 px font, a little generous
CHAR_PX = 6.6


def _short(text, limit=LABEL_CHARS):
    text = str(text)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def bar_chart(title, labels, series, *, width=520, bar_height=16, unit_max=1.0):
    """Geometry of a horizontal grouped bar chart drawn by ``_svg.html.j2``.

    ``series``: list of (name, values, intervals or None); values in [0, unit_max].
    The label column is as wide as the longest label (cut at ``LABEL_CHARS``
    characters) and the chart widens to keep a 300 px plot area; the title
    takes its own line above, cut to the chart's width.
    """
    n_series = len(series)
    shown = [_short(label) for label in labels]
    left = int(max(60, CHAR_PX * max((len(t) for t in shown), default=4) + 14))
    right, top = 20, 34
    width = max(width, left + 300 + right)
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
                   "label": shown[i] if s == 0 else "", "full_label": str(label),
                   "series": name, "value": value, "width": 0.0, "x": left, "interval": None}
            if value is not None and math.isfinite(value):
                bar["width"] = max(span * min(value / unit_max, 1.0), 0.0)
            if intervals is not None and intervals[i] is not None \
                    and all(v is not None and math.isfinite(v) for v in intervals[i]):
                lo, hi = intervals[i]
                bar["interval"] = (left + span * max(lo, 0) / unit_max,
                                   left + span * min(hi, unit_max) / unit_max)
            bars.append(bar)
    ticks = [{"x": left + span * t, "label": f"{t * unit_max:.2g}"} for t in (0, .25, .5, .75, 1)]
    legend = [{"name": name, "colour": colours[s % len(colours)], "x": left + 150 * s}
              for s, (name, _, _) in enumerate(series)]
    return {"title": _short(title, int((width - 8) / 7.5)), "full_title": str(title),
            "width": width, "height": height, "bars": bars, "ticks": ticks,
            "legend": legend, "top": top, "bottom": height - 24, "left": left,
            "label_x": left - 6}


def graph_layout(parents, decision, q, protected, *, width=640):
    """Geometry of the causal graph around ``decision`` (layers of ancestors), Q marked."""
    from skfair_manifold.plotting._graph import _layers, _parents_mapping

    mapping = _parents_mapping(parents)
    if decision not in mapping:
        return None
    layers = _layers(mapping, decision, depth=3)
    longest = max(len(_short(node)) for layer in layers for node in layer) + 4
    node_width = max(90, 8 * longest + 16)
    # a layer of m nodes is spread over m + 1 equal gaps: each must hold a node
    width = max(width, (node_width + 20) * (max(len(layer) for layer in layers) + 1))
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
    nodes = [{"name": _short(node), "x": x, "y": y,
              "kind": ("decision" if node == decision else "q" if node in q
                       else "protected" if node == protected else "other")}
             for node, (x, y) in position.items()]
    return {"width": width, "height": height, "nodes": nodes, "edges": edges,
            "node_width": node_width}


def _short(name, limit=30):
    """A node's name for the graph: at most ``limit`` characters, the rest as an ellipsis."""
    text = str(name)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


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
        "witnesses": witness_cards(data),
    }
    return _environment().get_template("report.html.j2").render(**context)


# the evidence page (it imports the helpers above)
from ._evidence_page import render_evidence  # noqa: E402
