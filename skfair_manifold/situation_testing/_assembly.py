"""The auditor's ``report``: the evidence assembled, the verdicts and the provenance.

:func:`build_report` reads the rates ``flag`` computed (:func:`._flags.rates`,
kept in the fitted audit), lists the testers of the flagged rows, asks
:mod:`._verdict` for each verdict (the flag at K/2 and 2K, the testers, the
arc) and packs everything the evidence page shows into a
:class:`~._evidence.SituationTestingReport`: a plain value that owns its
tables and renders itself.
"""

import datetime

import numpy as np

from .. import __version__
from ._constants import AUTO_CEILING, AUTO_FLOOR
from ._evidence import SIDES, SituationTestingReport, python_value
from ._flags import (
    FDR_NAMES,
    audit_rates,
    decide,
    exceeds,
    k_of_rows,
    magnitude,
    output_columns,
    person_rule,
    rule_text,
    transform_rows,
)
from ._harm._people import (
    AMOUNT_COLUMNS,
    ASSUMPTIONS,
    BINARY_COLUMNS,
    harm_confidence,
    person_harm,
)
from ._harm._totals import TOTAL, design_effect, harm_table, situations
from ._records import KINDS
from ._selection._cbn import CAUSAL_EFFECT_NOTES
from ._selection._methods import CBNMethod
from ._selection import _weak_parents
from ._stats._continuous import detectable_mean_gaps
from ._stats._power import detectable_gaps, next_flag_threshold
from ._verdict import near_testers, structure_bootstrap, verdicts


def detectable(settings, out, n_eff, candidate, mask, cutoff):
    """The smallest detectable gap of each candidate (:mod:`._stats._power`); nan elsewhere."""
    gaps = np.full(out.shape[0], np.nan)
    rows = np.flatnonzero(candidate)
    tested = int((candidate & np.isfinite(out[:, 5])).sum())
    gaps[rows] = detectable_gaps_of(settings, out[rows], n_eff[rows], n_candidates=tested,
                                    n_flagged=int(mask.sum()), cutoff=cutoff)
    return gaps


def detectable_gaps_of(settings, out, n_eff, *, n_candidates, n_flagged, cutoff):
    """The smallest detectable gap of each row of ``out`` (rates of ``rates``) at the
    threshold one more flag of this audit would need; the rows' path and the lazy
    frames' cells share it. ``cutoff``: ``decide``'s (the discrete procedure's)."""
    threshold = next_flag_threshold(
        flag_rule=settings.flag_rule, fdr=settings.fdr, fdr_method=settings.fdr_method,
        alpha_test=settings.alpha_level, n_candidates=n_candidates, n_flagged=n_flagged,
        dbh_cutoff=cutoff if settings.fdr_method == "dbh" else None)
    if settings.continuous:
        return detectable_mean_gaps(out, tau=settings.tau, threshold=threshold)
    return detectable_gaps(out[:, 0], n_eff[:, 0], out[:, 1], n_eff[:, 1], tau=settings.tau,
                           threshold=threshold)


def build_report(fitted, settings, Z, y, fitted_rows):
    """The :class:`~._evidence.SituationTestingReport` of encoded rows ``Z`` with
    decisions ``y``; ``fitted_rows``: each row's position in the fitted data (-1:
    unknown)."""
    candidate, out, n_all, n_eff_all, self_unit = audit_rates(fitted, settings, Z, y)
    mask, q, cutoff = decide(fitted, settings, out, Z, y, n_eff_all)
    harm, harm_settings = harm_of(fitted, settings, Z, y, candidate, out, n_eff_all, self_unit)
    rows = np.flatnonzero(mask)
    k_rows = k_of_rows(fitted, settings, Z[rows], self_unit[rows])  # counted once
    sub_out, n, n_eff, self_unit, cells = transform_rows(
        fitted, settings, Z[rows], cells=True, self_unit=self_unit[rows],
        k=k_rows if settings.auto_k else None)
    verdict, reason = verdicts_of(fitted, settings, Z, candidate, rows, self_unit, out,
                                  mask, n_eff_all, cutoff, cells, k_rows)
    rule = rule_text(settings)
    summary = {"row": rows}
    summary.update({name: sub_out[:, i] for i, name in enumerate(output_columns(settings))})
    summary["q_value"] = q[rows]
    summary["n1"], summary["n2"] = n[:, 0], n[:, 1]
    summary["n1_eff"], summary["n2_eff"] = n_eff[:, 0], n_eff[:, 1]
    summary["rule"] = np.full(rows.shape[0], rule, dtype=object)
    summary["verdict"] = verdict[rows]
    summary["verdict_reason"] = reason[rows]
    gaps = detectable(settings, out, n_eff_all, candidate, mask, cutoff)
    summary["detectable_gap"] = gaps[rows]
    summary["k"] = k_rows
    for name in harm["names"]:
        summary[name] = harm["columns"][name][rows]
    testers = tester_table(fitted, rows, cells)
    records, units = fitted.records, fitted.units
    Zr = Z[rows]
    claimants = {name: records.decode(j, Zr[:, j]) for j, name in enumerate(fitted.columns)}
    own = fitted_rows[rows]
    unit_own = np.where(self_unit >= 0, units.last_row[np.maximum(self_unit, 0)], -1)
    own = np.where((own >= 0) & (self_unit >= 0)
                   & (units.unit_of_row[np.maximum(own, 0)] == self_unit), own, unit_own)
    audit = {"candidate": candidate, "flagged": mask,
             "p_value": out[:, 5].copy(), "q_value": q, "verdict": verdict,
             "verdict_reason": reason, "detectable_gap": gaps}
    audit.update({name: harm["columns"][name] for name in harm["names"]})
    if not settings.continuous:
        audit["more_likely_than_not"] = harm["columns"]["pn_low"] > 0.5
    cell_rows = fitted.method.cell_rows()
    record_rows = _tester_rows(testers, cell_rows)
    return SituationTestingReport(
        summary=summary, testers=testers, claimants=claimants,
        decisions=np.asarray(y)[rows], own_rows=own, cell_rows=cell_rows,
        y_fit=fitted.y_fit, method=settings.method, k=settings.k, rule=rule,
        audit=audit, provenance=provenance(fitted, settings),
        settings=audit_settings(fitted, settings, rule=rule, n_rows=Z.shape[0],
                                n_candidates=int(candidate.sum()),
                                n_flagged=int(rows.shape[0])),
        record_rows=record_rows, harm=harm["table"], harm_settings=harm_settings,
        records={str(name): records.decode(j, records.Z[record_rows, j])
                 for j, name in enumerate(fitted.columns)},
        audited_fitted=bool(np.array_equal(fitted_rows, np.arange(Z.shape[0]))))


def harm_of(fitted, settings, Z, y, candidate, out, n_eff, self_unit):
    """Each candidate's harm (:mod:`._harm._people`), the table of situations and total
    (:mod:`._harm._totals`) and what the page says of them."""
    columns, info = person_harm(fitted, settings, Z, y, candidate, out, n_eff, self_unit)
    confidence = harm_confidence(settings)
    design = design_effect(fitted, settings, Z, candidate, self_unit)
    table = harm_table(columns, candidate, continuous=settings.continuous, design=design,
                       groups=situations(fitted, Z, candidate), confidence=confidence)
    names = AMOUNT_COLUMNS if settings.continuous else BINARY_COLUMNS
    unit = info.pop("unit")  # an amount's columns and totals back in the decision's units
    if settings.continuous:
        for name in names:
            columns[name] = columns[name] * unit
        for name in ("total_shortfall", "shortfall_low", "shortfall_high"):
            table[name] = table[name] * unit
    total = table.loc[TOTAL]
    said = {"confidence": confidence, "design_effect": design, "assumptions": ASSUMPTIONS,
            **info}
    if settings.continuous:
        said.update(total_shortfall=float(total["total_shortfall"]),
                    shortfall_low=float(total["shortfall_low"]),
                    shortfall_high=float(total["shortfall_high"]))
    else:
        said.update(expected_harmed=float(total["expected_harmed"]),
                    harmed_low=float(total["harmed_low"]),
                    harmed_high=float(total["harmed_high"]),
                    more_likely_than_not=int(np.sum(columns["pn_low"] > 0.5)))
    return {"columns": columns, "names": names, "table": table}, said


def verdicts_of(fitted, settings, Z, candidate, rows, self_unit, out, mask, n_eff, cutoff,
                cells, k_rows):
    """Verdict and reason of every row: the flag at K/2 and 2K, the testers, the arc,
    the structure bootstrap. ``k_rows``: the K of each of ``rows``."""

    def holds_on(other):  # whether each flagged row's flag holds on other rates
        if settings.flag_rule == "exact":
            # the gap and its per-person test: a smaller K has less power, so the
            # audit's threshold would call fragile every flag that needs K testers
            level = max(cutoff, settings.alpha_level)
            with np.errstate(invalid="ignore"):
                return exceeds(other[:, 2], settings.tau, magnitude(settings, other)) \
                    & (other[:, 5] <= level)
        return person_rule(settings, other)  # the flagged rows are candidates

    held_at = {}
    smallest = min(fitted.group_sizes)
    if settings.auto_k:  # each row's own K (k="auto"), halved and doubled
        others = {"K/2": np.maximum(1, k_rows // 2), "2K": np.minimum(2 * k_rows, smallest)}
    else:
        k = settings.k
        others = {other: other for other in {max(1, k // 2), min(2 * k, smallest)} - {k}}
    for label, k in others.items():
        held_at[label] = np.zeros(Z.shape[0], dtype=bool)
        held_at[label][rows] = holds_on(transform_rows(fitted, settings, Z[rows],
                                                       self_unit=self_unit, k=k))
    structure_info = fitted.attributes["structure_info_"]
    no_arc = structure_info.get("protected_arc") is False
    method = fitted.method
    distance = getattr(method, "near_distance", None)
    if settings.continuous and isinstance(method, CBNMethod):
        distance = abs(float(settings.tau))  # Eq. 5 is in the decision's units, as tau is
    near = None  # a registered method without a stated distance: no such check
    if distance is not None:
        near = np.full((Z.shape[0], 2), np.nan)
        near[rows] = near_testers(cells, rows.shape[0], distance)
    held = None
    if settings.structure_bootstrap and isinstance(method, CBNMethod) \
            and settings.graph is None and settings.structure == "local" and rows.size:
        held = np.full(Z.shape[0], np.nan)
        held[rows], _ = structure_bootstrap(
            fitted, settings, Z, rows, self_unit, holds_on,
            n_replicates=settings.structure_bootstrap, random_state=settings.random_state)
    return verdicts(candidate=candidate, flagged=mask,
                    n_eff=n_eff, held_at=held_at, no_arc=no_arc, near=near,
                    near_distance=distance, structure_held=held)


def provenance(fitted, settings):
    """What the evidence rests on: version, date, options, graph, column kinds."""
    attributes = fitted.attributes
    declared = {str(c): kind for kind in KINDS for c in (getattr(settings, kind) or [])}
    graph = attributes["graph_"]
    uses_graph = graph is not None
    info = attributes["structure_info_"]
    effects = info.get("effects", {})
    return {
        "package": f"skfair_manifold {__version__}",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "options": {name: repr(python_value(value))
                    for name, value in settings.params.items() if name != "graph"},
        "graph": None if not uses_graph else
        {str(c): [str(p) for p in ps] for c, ps in graph.items()},
        "graph_source": None if not uses_graph else
        ("given" if settings.graph is not None else "learned"),
        "protected_arc": info.get("protected_arc"),
        # the decision's parents the weak-parent rule left out of Q, with their effects
        "weak_parents": {str(fitted.columns[j]): float(effects.get(j, np.nan))
                         for j in info.get("weak_parents", ())},
        "min_parent_effect": _weak_parents.MIN_PARENT_EFFECT,
        "min_own_subgroup_share": _weak_parents.MIN_OWN_SUBGROUP_SHARE,
        "column_kinds": {str(c): {"kind": kind,
                                  "how": "declared" if str(c) in declared else "inferred"}
                         for c, kind in attributes["attribute_kinds_"].items()},
    }


def audit_settings(fitted, settings, *, rule, n_rows, n_candidates, n_flagged):
    """The settings and counts of the audit, as the evidence page and the CLI show them.

    ``rule``: the flag rule in words at the time of the audit (the
    parameters may have changed since ``fit`` set ``flag_rule_``).
    """
    attributes = fitted.attributes
    method = fitted.method
    auto = settings.auto_k
    summary = {
        "method": settings.method, "method_title": getattr(method, "title", settings.method),
        "distance": (CAUSAL_EFFECT_NOTES[settings.causal_effect].format(
            outcome="mean decisions" if settings.continuous else "rates")
            if isinstance(method, CBNMethod) else None),
        "k": settings.k if auto else int(settings.k),
        "caliper": float(method.caliper(settings.tau)) if auto else None,
        "k_floor": AUTO_FLOOR if auto else None,
        "k_ceiling": AUTO_CEILING if auto else None,
        "tau": float(settings.tau),
        "flag_rule": settings.flag_rule, "rule": rule, "bound": settings.bound,
        "alpha_test": float(settings.alpha_level),
        "fdr": None if settings.fdr is None else float(settings.fdr),
        "fdr_method": settings.fdr_method, "fdr_name": FDR_NAMES[settings.fdr_method],
        "protected": str(fitted.columns[attributes["protected_index_"]]),
        "protected_value": python_value(settings.protected_value),
        "decision": str(attributes["decision_name_"]),
        "positive_label": python_value(attributes["positive_label_"]),
        "decision_kind": settings.decision,
        "n_rows": int(n_rows), "n_candidates": int(n_candidates),
        "n_flagged": int(n_flagged),
        "q": [str(v) for v in attributes["q_"]],
        "columns": [str(c) for c in fitted.columns],
        "attribute_kinds": {str(c): kind for c, kind in attributes["attribute_kinds_"].items()},
        "bin_edges": {str(c): [float(e) for e in edges]
                      for c, edges in attributes["bin_edges_"].items()},
        "identifier_columns": [str(c) for c in attributes["identifier_columns_"]],
    }
    if attributes["graph_"] is not None:
        summary["alpha"] = float(settings.alpha) if settings.graph is None else None
        summary["n_bins"] = int(settings.n_bins)
    return summary


def tester_table(fitted, rows, cells):
    """The long table (dict of arrays) of the testers' cells of flagged rows."""
    order = np.lexsort((cells["distance"], cells["side"], cells["query"]))
    # cells is consumed (its arrays freed one by one): a million testers' cells
    # are not held twice
    c = {name: cells.pop(name)[order] for name in list(cells)}
    weight = c["weight"]
    n_rec = c["n_records"]
    n_pos = c["n_positive"]
    table = {
        "row": rows[c["query"]],
        "side": SIDES[c["side"]],
        "certain": weight >= 1.0 - 1e-12,
        "distance": c["distance"],
        "n_records": n_rec,
        "n_positive": n_pos,
        "weight": weight,
        "testers": weight * n_rec,
        "positives": weight * n_pos,
        "cell": c["cell"],
    }
    table.update(fitted.method.cell_values(c["cell"], fitted.y_fit))
    return table


def _tester_rows(testers, cell_rows):
    """The fitted rows of every cell in the long table, sorted, each once."""
    if not testers["cell"].shape[0]:
        return np.zeros(0, dtype=np.intp)
    side = (np.asarray(testers["side"]) == SIDES[1]).astype(np.intp)
    seg = np.asarray(testers["cell"], dtype=np.intp) * cell_rows.sides \
        + (side if cell_rows.sides == 2 else 0)
    seg = np.unique(seg)
    parts = [cell_rows.rows[cell_rows.bounds[s]:cell_rows.bounds[s + 1]] for s in seg]
    return np.unique(np.concatenate(parts)).astype(np.intp)
