"""The evidence page of a situation-testing audit: it renders a report, nothing else.

:func:`render_evidence` reads a
:class:`~skfair_manifold.situation_testing.SituationTestingReport` (its
summary, long table of testers, records, settings and provenance) and lays
it out with ``templates/evidence.html.j2``: a summary of the audit, the
limitations, the provenance, the causal graph, the list of flagged people,
then one sheet per person. ``SituationTestingReport.to_html`` and the
command line's ``audit --html`` both call it.
"""

import datetime

import numpy as np

from ._charts import graph_layout
from ._environment import _environment
from ._harm_section import harm_context
from ._text import SafeText, _num, _pval, safe_text, unique_anchors

SIDES = ("unprotected", "protected")
#: a line of testers on a sheet names at most this many ids in its first cell; the ids
#: of a larger group follow on a full-width line
INLINE_IDS = 3


def check_ids(ids, n_rows, what="X"):
    """``ids`` as an array of one distinct name per row (positions when None)."""
    ids = np.arange(n_rows) if ids is None else np.asarray(ids)
    if ids.ndim != 1 or ids.shape[0] != n_rows:
        raise ValueError(f"ids has {ids.shape[0] if ids.ndim else 1} values but {what} has "
                         f"{n_rows} rows.")
    texts = [str(v) for v in ids.tolist()]
    seen = {}
    for i, text in enumerate(texts):
        if text in seen:
            raise ValueError(f"ids must name each row once; {text!r} names rows {seen[text]} "
                             f"and {i}. Give distinct ids (the command line refuses them too).")
        seen[text] = i
    return ids


def render_evidence(report, *, ids=None, fitted_ids=None, max_sheets=500,
                    title="Situation testing: evidence", fragment=False):
    """The HTML evidence page of ``report``: a summary, then one sheet per flagged person.

    ``ids`` names the audited rows (the audited frame's index,
    ``report.index``, when None, else their positions, which the page then
    says); ``fitted_ids`` the fitted rows, from which the testers come
    (``ids`` when the audited rows are the fitted ones, else the fitted
    frame's index or their positions). ``fragment``: the summary and the
    list for a notebook, inside a ``<div>``.
    """
    settings, provenance = report.settings, report.provenance
    index = getattr(report, "index", None)
    named = "id" if ids is not None else "index" if index is not None else "position"
    ids = check_ids(ids if ids is not None else index, settings["n_rows"])
    if fitted_ids is None:
        fitted_index = getattr(report, "fitted_index", None)
        fitted_ids = ids if report.audited_fitted else check_ids(
            fitted_index, report._y_fit.shape[0], what="the fitted data")
    else:
        fitted_ids = check_ids(fitted_ids, report._y_fit.shape[0], what="the fitted data")
    summary = {**settings, "file": provenance.get("input_file") or "(data given in Python)",
               "sha256": provenance.get("input_sha256")}
    decision, protected = summary["decision"], summary["protected"]
    continuous = summary.get("decision_kind") == "continuous"
    words = CONTINUOUS_WORDS if continuous else BINARY_WORDS
    q = [str(v) for v in summary["q"]]
    shown = [c for c in summary["columns"] if c != decision]
    cbn = bool(provenance.get("graph"))
    # testers side by side: the columns they are matched on (Q) and the protected one
    tester_columns = [c for c in shown if c in q or c == protected] if cbn and q else shown
    bins = {c: e for c, e in summary.get("bin_edges", {}).items() if cbn and c in q}
    level = f"{100 * (1 - summary['alpha_test']):g}%"
    two_sided = f"{100 * (1 - 2 * summary['alpha_test']):g}%"
    rows = np.asarray(report.summary["row"], dtype=np.intp)
    anchors = unique_anchors(ids[rows])
    values = {name: np.asarray(v) for name, v in report.summary.items()}
    if continuous:  # the sheets' two figures per side are the testers' means
        values["p1"], values["p2"] = values["mean1"], values["mean2"]
    claimants = {str(c): v for c, v in report._claimants.items()}
    # names and values inside the sentences below, each isolated on its own
    who, value = safe_text(protected), safe_text(summary["protected_value"])
    flagged, sheets = [], []
    for i, row in enumerate(rows):
        entry = {"id": str(ids[row]), "anchor": anchors[i], "sheet": i < max_sheets,
                 "low": values["diff_lower"][i], "high": values["diff_upper"][i],
                 "verdict": str(values["verdict"][i]) if "verdict" in values else ""}
        for name in ("p1", "p2", "diff", "n1", "n2", "p_value", "q_value", "detectable_gap",
                     "k", "pn", "pn_low", "pn_high", "shortfall", "shortfall_low",
                     "shortfall_high"):
            entry[name] = values[name][i] if name in values else None
        flagged.append(entry)
        if i >= max_sheets:
            continue
        evidence = report[i]
        received = report._decisions[i]
        sides = []
        for side, label in (("unprotected", SafeText(f"{who} \u2260 {value}")),
                            ("protected", SafeText(f"{who} = {value}"))):
            positions = np.asarray(evidence[f"testers_{side}"], dtype=np.intp)
            lines = _tester_groups(report, positions, fitted_ids[positions],
                                   evidence[f"weights_{side}"], evidence[f"decisions_{side}"],
                                   columns=tester_columns, bins=bins,
                                   positive=summary["positive_label"])
            sides.append({"label": label, "lines": lines, "n_records": positions.shape[0],
                          "n": entry["n1" if side == "unprotected" else "n2"],
                          "rate": entry["p1" if side == "unprotected" else "p2"]})
        rule = [SafeText(f"{who} = {value} (the protected group)"),
                SafeText(f"{safe_text(decision)} = {safe_text(received)} "
                         f"({'her own decision' if continuous else 'a negative decision'})")]
        rule += _rule_lines(entry, summary, level, words)
        sheets.append({**entry, "rule": rule, "rule_text": str(values["rule"][i]),
                       "sides": sides,
                       "verdict": {"label": entry["verdict"],
                                   "reason": str(values["verdict_reason"][i])
                                   if "verdict_reason" in values else ""},
                       "claimant": [{"name": c, "value": _value(claimants[c][i]), "q": c in q,
                                     "bin": _shown(claimants[c][i], c, bins) if c in bins
                                     else None}
                                    for c in shown],
                       "decision": str(received)})
    graph = None
    weak = {str(c): e for c, e in (provenance.get("weak_parents") or {}).items()}
    if cbn:
        graph = graph_layout(provenance["graph"], decision, q, protected, weak=weak)
    power = report.not_flagged_gaps()
    context = {"title": title, "generated": _now(), "summary": summary, "q": q,
               "power": power, "fragment": fragment, "named": named, "weak": weak,
               "verdicts": report.verdict_counts(), "headline": report.headline,
               "headers": {c: _header(c) for c in shown},
               "flagged": flagged, "sheets": sheets, "features": tester_columns,
               "all_features": len(tester_columns) == len(shown),
               "bins": {c: [_bin_label(e, v) for v in _bin_points(e)] for c, e in bins.items()},
               "graph": graph, "max_sheets": max_sheets, "level": level, "words": words,
               "two_sided": two_sided, "provenance": provenance,
               "stamp": _stamp(summary, provenance),
               "inline_ids": INLINE_IDS, "harm": harm_context(report, ids, continuous),
               "n_without_sheet": max(len(flagged) - max_sheets, 0)}
    return _environment().get_template("evidence.html.j2").render(**context)


#: the page's words for a yes/no decision and for an amount (``decision="continuous"``)
BINARY_WORDS = {"continuous": False, "p1": "p1", "p2": "p2", "diff": "p1 - p2", "bound": None,
                "candidates": "protected rows with a negative decision",
                "test": "exact one-sided test of p1 <= p2",
                "test_how": " (a random relabelling of the protected attribute among the "
                            "testers)",
                "side_rate": "favourable share",
                "p1_label": "p1 (favourable among testers outside the group)",
                "p2_label": "p2 (favourable among testers inside the group)"}
CONTINUOUS_WORDS = {"continuous": True, "p1": "mean1", "p2": "mean2", "diff": "mean1 - mean2",
                    "bound": "Welch t", "candidates": "protected rows (each a candidate)",
                    "test": "one-sided Welch t-test of mean1 <= mean2",
                    "test_how": " (the testers' weighted means and spreads)",
                    "side_rate": "mean decision",
                    "p1_label": "mean1 (mean decision of the testers outside the group)",
                    "p2_label": "mean2 (mean decision of the testers inside the group)"}


def _rule_lines(entry, summary, level, words=BINARY_WORDS):
    """Why the rule flagged a person, line by line."""
    lines = []
    bound = words["bound"] or summary["bound"].capitalize()
    gap = words["diff"]
    if summary["flag_rule"] == "bound":
        lines.append(f"diff_lower = {_num(entry['low'])} > tau = {summary['tau']:g}: the "
                     f"one-sided {level} {bound} lower bound of {gap} exceeds the threshold")
    else:
        lines.append(f"diff = {gap} = {_num(entry['diff'])} > tau = {summary['tau']:g}")
    if summary["flag_rule"] == "significant":
        lines.append(f"diff_lower = {_num(entry['low'])} > 0: the one-sided {level} {bound} "
                     f"lower bound of {gap} is positive (the gap is not chance)")
    if summary["flag_rule"] == "exact":
        lines.append(_exact_reason(entry, summary, words))
    return lines


def _exact_reason(entry, summary, words=BINARY_WORDS):
    """Why the exact rule flagged a person, in words."""
    p = _pval(entry["p_value"])
    if summary.get("fdr") is None or summary["n_candidates"] <= 1:
        return (f"p_value = {p} <= {summary['alpha_test']:g}: the {words['test']}"
                f"{words['test_how']} rejects it, person by person")
    method = summary["fdr_name"]
    return (f"q_value = {_pval(entry['q_value'])} <= {summary['fdr']:g} (p_value = {p}): the "
            f"{words['test']} is significant across the "
            f"{summary['n_candidates']} candidates of the audit, with the {method} false "
            f"discovery rate at {summary['fdr']:g}")


def _stamp(summary, provenance):
    """The provenance line every sheet repeats (a printed sheet travels alone)."""
    parts = [str(provenance.get("package", "skfair_manifold")),
             f"computed {provenance.get('date', _now())}"]
    if provenance.get("input_file"):
        digest = provenance.get("input_sha256")
        parts.append(f"input {provenance['input_file']}"
                     + (f" (SHA-256 {digest})" if digest else ""))
    k = summary["k"]
    if k == "auto" and summary.get("caliper") is not None:
        k = f"auto (within {summary['caliper']:g}, {summary['k_floor']} to {summary['k_ceiling']})"
    method = f"{summary.get('method_title', summary['method'])}, k = {k}"
    if provenance.get("graph_source"):
        method += f", causal graph {provenance['graph_source']}"
    parts.append(method)
    return "; ".join(parts)


def _header(name):
    """A column name that may break after each underscore (``<wbr>``), not inside a word."""
    import markupsafe

    return markupsafe.Markup(str(markupsafe.escape(safe_text(name))).replace("_", "_<wbr>"))


def _tester_groups(report, positions, ids, weights, decisions, *, columns, bins, positive):
    """The testers of one side, records alike on the shown columns grouped with their weight.

    Records of the same weight, the same shown values and the same decision
    form one line: the testers taken for certain (weight 1) one line per
    distinct record, a tie group (weight < 1: each record is a tester with
    that probability) in as many lines as it has distinct records. Returns
    the lines, heaviest first, then nearest in the shown values.
    """
    at = np.searchsorted(report.record_rows, positions)
    table = [report.records[c][at] for c in columns]
    groups = {}
    for k, (tester_id, weight, dec) in enumerate(zip(ids, weights, decisions)):
        shown = tuple(_shown(values[k], c, bins) for values, c in zip(table, columns))
        key = (round(float(weight), 12), shown, str(dec))
        group = groups.setdefault(key, {"ids": [], "weight": float(weight), "values": shown,
                                        "decision": str(dec),
                                        # an amount (no favourable class): no colour
                                        "positive": None if positive is None
                                        else dec == positive})
        group["ids"].append(str(tester_id))
    lines = sorted(groups.values(), key=lambda g: (-g["weight"], g["values"], g["decision"]))
    for line in lines:
        line["count"] = len(line["ids"])
        line["certain"] = line["weight"] >= 1.0 - 1e-12
        line["counts_as"] = line["weight"] * line["count"]
    return lines


def _bin_label(edges, value):
    """The bin of ``value`` among the inner ``edges`` (as ``bin_edges_`` holds them)."""
    edges = np.asarray(edges, dtype=np.float64)
    if edges.size == 0:
        return "all values"
    i = int(np.searchsorted(edges, float(value), side="right"))
    if i == 0:
        return f"< {edges[0]:.6g}"
    if i == edges.size:
        return f">= {edges[-1]:.6g}"
    return f"[{edges[i - 1]:.6g}, {edges[i]:.6g})"


def _value(value):
    """A cell value for people: floats with 6 significant digits, the rest as text."""
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    return str(value)


def _shown(value, column, bins):
    """A value as a sheet shows it: interval columns of CBN-DD as their bin."""
    if column in bins:
        try:
            return _bin_label(bins[column], float(value))
        except (TypeError, ValueError):
            return _value(value)
    return _value(value)


def _bin_points(edges):
    """One value inside each bin of the inner ``edges`` (to label every bin)."""
    edges = np.asarray(edges, dtype=np.float64)
    if edges.size == 0:
        return [0.0]
    return [edges[0] - 1.0, *edges.tolist()]


def _now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
