"""The auditor's ``report``: the evidence assembled, the verdicts and the provenance.

:class:`EvidenceAssembly` is a mixin of ``SituationTestingAuditor``. It reads
the rates ``flag`` computed (``_rates``), lists the testers of the flagged
rows, asks ``_verdict`` for each verdict (the flag at K/2 and 2K, the
testers, the arc) and packs everything the evidence page shows into a
:class:`~._evidence.SituationTestingReport`: a plain value that owns its
tables and renders itself.
"""

import numpy as np

from .. import __version__
from ._evidence import SIDES, SituationTestingReport, python_value
from ._flags import COLUMNS, FDR_NAMES, exceeds
from ._records import KINDS
from ._selection._auto_k import AUTO_CEILING, AUTO_FLOOR
from ._selection._cbn import CAUSAL_EFFECT_NOTES
from ._selection._methods import CBNMethod
from ._stats._continuous import CONTINUOUS_COLUMNS, detectable_mean_gaps
from ._stats._power import detectable_gaps, next_flag_threshold
from ._verdict import near_testers, structure_bootstrap, verdicts


class EvidenceAssembly:
    """``report``'s steps (a mixin)."""

    def _detectable(self, out, n_eff, candidate, mask, cutoff):
        """The smallest detectable gap of each candidate (:mod:`._power`); nan elsewhere."""
        gaps = np.full(out.shape[0], np.nan)
        rows = np.flatnonzero(candidate)
        tested = int((candidate & np.isfinite(out[:, 5])).sum())
        gaps[rows] = self._detectable_gaps(out[rows], n_eff[rows], n_candidates=tested,
                                           n_flagged=int(mask.sum()), cutoff=cutoff)
        return gaps

    def _detectable_gaps(self, out, n_eff, *, n_candidates, n_flagged, cutoff):
        """The smallest detectable gap of each row of ``out`` (rates of ``_rates``) at the
        threshold one more flag of this audit would need; the rows' path and the lazy
        frames' cells share it. ``cutoff``: ``_decide``'s (the discrete procedure's)."""
        threshold = next_flag_threshold(
            flag_rule=self.flag_rule, fdr=self.fdr, fdr_method=self.fdr_method,
            alpha_test=self._alpha_test(), n_candidates=n_candidates, n_flagged=n_flagged,
            dbh_cutoff=cutoff if self.fdr_method == "dbh" else None)
        if self._continuous():
            return detectable_mean_gaps(out, tau=self.tau, threshold=threshold)
        return detectable_gaps(out[:, 0], n_eff[:, 0], out[:, 1], n_eff[:, 1], tau=self.tau,
                               threshold=threshold)

    def _report(self, X, y, fitted_rows):
        X, y = self._validate(X, y)
        Z = self._encode(X)
        self._check_decisions(y)
        fitted_rows = self._fitted_rows(fitted_rows, Z, y)
        candidate, out, n_all, n_eff_all, self_unit = self._audit_rates(Z, y)
        mask, q, cutoff = self._decide(out, Z, y, n_eff_all)
        rows = np.flatnonzero(mask)
        k_rows = self._k_of_rows(Z[rows], self_unit[rows])  # counted once (k="auto")
        sub_out, n, n_eff, self_unit, cells = self._transform(
            Z[rows], cells=True, self_unit=self_unit[rows],
            k=k_rows if isinstance(self.k, str) else None)
        verdict, reason = self._verdicts(Z, candidate, rows, self_unit, out, mask, n_eff_all,
                                         cutoff, cells, k_rows)
        rule = self._rule_text()
        summary = {"row": rows}
        names = CONTINUOUS_COLUMNS if self._continuous() else COLUMNS
        summary.update({name: sub_out[:, i] for i, name in enumerate(names)})
        summary["q_value"] = q[rows]
        summary["n1"], summary["n2"] = n[:, 0], n[:, 1]
        summary["n1_eff"], summary["n2_eff"] = n_eff[:, 0], n_eff[:, 1]
        summary["rule"] = np.full(rows.shape[0], rule, dtype=object)
        summary["verdict"] = verdict[rows]
        summary["verdict_reason"] = reason[rows]
        detectable = self._detectable(out, n_eff_all, candidate, mask, cutoff)
        summary["detectable_gap"] = detectable[rows]
        summary["k"] = k_rows
        testers = self._tester_table(rows, cells)
        records = self._records
        Zr = Z[rows]
        claimants = {name: records.decode(j, Zr[:, j])
                     for j, name in enumerate(self._columns)}
        own = fitted_rows[rows]
        unit_own = np.where(self_unit >= 0, self._units.last_row[np.maximum(self_unit, 0)], -1)
        own = np.where((own >= 0) & (self_unit >= 0)
                       & (self._units.unit_of_row[np.maximum(own, 0)] == self_unit), own,
                       unit_own)
        audit = {"candidate": candidate, "flagged": mask,
                 "p_value": out[:, 5].copy(), "q_value": q, "verdict": verdict,
                 "verdict_reason": reason, "detectable_gap": detectable}
        cell_rows = self._method.cell_rows()
        record_rows = _tester_rows(testers, cell_rows)
        return SituationTestingReport(
            summary=summary, testers=testers, claimants=claimants,
            decisions=np.asarray(y)[rows], own_rows=own, cell_rows=cell_rows,
            y_fit=self._y_fit, method=self.method, k=self.k, rule=rule,
            audit=audit, provenance=self._provenance(),
            settings=self._settings(rule=rule, n_rows=Z.shape[0],
                                    n_candidates=int(candidate.sum()),
                                    n_flagged=int(rows.shape[0])),
            record_rows=record_rows,
            records={str(name): records.decode(j, records.Z[record_rows, j])
                     for j, name in enumerate(self._columns)},
            audited_fitted=bool(np.array_equal(fitted_rows, np.arange(Z.shape[0]))))

    def _verdicts(self, Z, candidate, rows, self_unit, out, mask, n_eff, cutoff, cells,
                  k_rows):
        """Verdict and reason of every row: the flag at K/2 and 2K, the testers, the arc,
        the structure bootstrap. ``k_rows``: the K of each of ``rows``."""

        def holds_on(other):  # whether each flagged row's flag holds on other rates
            if self.flag_rule == "exact":
                # the gap and its per-person test: a smaller K has less power, so the
                # audit's threshold would call fragile every flag that needs K testers
                level = max(cutoff, self._alpha_test())
                with np.errstate(invalid="ignore"):
                    return exceeds(other[:, 2], self.tau) & (other[:, 5] <= level)
            return self._person_rule(other)  # the flagged rows are candidates

        held_at = {}
        smallest = min(self.group_sizes_)
        if isinstance(self.k, str):  # each row's own K (k="auto"), halved and doubled
            others = {"K/2": np.maximum(1, k_rows // 2), "2K": np.minimum(2 * k_rows, smallest)}
        else:
            others = {k: k for k in {max(1, self.k // 2), min(2 * self.k, smallest)} - {self.k}}
        for label, k in others.items():
            held_at[label] = np.zeros(Z.shape[0], dtype=bool)
            held_at[label][rows] = holds_on(self._transform(Z[rows], self_unit=self_unit, k=k))
        no_arc = self.structure_info_.get("protected_arc") is False
        distance = getattr(self._method, "near_distance", None)
        if self._continuous() and isinstance(self._method, CBNMethod):
            distance = abs(float(self.tau))  # Eq. 5 is in the decision's units, as tau is
        near = None  # a registered method without a stated distance: no such check
        if distance is not None:
            near = np.full((Z.shape[0], 2), np.nan)
            near[rows] = near_testers(cells, rows.shape[0], distance)
        held = None
        if self.structure_bootstrap and isinstance(self._method, CBNMethod) \
                and self.graph is None and self.structure == "local" and rows.size:
            held = np.full(Z.shape[0], np.nan)
            held[rows], _ = structure_bootstrap(
                self, Z, rows, self_unit, holds_on, n_replicates=self.structure_bootstrap,
                random_state=self.random_state)
        return verdicts(candidate=candidate, flagged=mask,
                        n_eff=n_eff, held_at=held_at, no_arc=no_arc, near=near,
                        near_distance=distance, structure_held=held)

    def _provenance(self):
        """What the evidence rests on: version, date, options, graph, column kinds."""
        import datetime

        declared = {str(c): kind for kind in KINDS for c in (getattr(self, kind) or [])}
        uses_graph = self.graph_ is not None
        return {
            "package": f"skfair_manifold {__version__}",
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "options": {name: repr(python_value(value)) for name, value in self.get_params().items()
                        if name != "graph"},
            "graph": None if not uses_graph else
            {str(c): [str(p) for p in ps] for c, ps in self.graph_.items()},
            "graph_source": None if not uses_graph else
            ("given" if self.graph is not None else "learned"),
            "protected_arc": self.structure_info_.get("protected_arc"),
            "column_kinds": {str(c): {"kind": kind,
                                      "how": "declared" if str(c) in declared else "inferred"}
                             for c, kind in self.attribute_kinds_.items()},
        }

    def _settings(self, *, rule, n_rows, n_candidates, n_flagged):
        """The settings and counts of the audit, as the evidence page and the CLI show them.

        ``rule``: the flag rule in words at the time of the audit (the
        parameters may have changed since ``fit`` set ``flag_rule_``).
        """
        summary = {
            "method": self.method, "method_title": getattr(self._method, "title",
                                                           self.method),
            "distance": (CAUSAL_EFFECT_NOTES[self.causal_effect].format(
                outcome="mean decisions" if self._continuous() else "rates")
                if isinstance(self._method, CBNMethod) else None),
            "k": self.k if isinstance(self.k, str) else int(self.k),
            "caliper": (float(self._method.caliper(self.tau)) if isinstance(self.k, str)
                        else None),
            "k_floor": AUTO_FLOOR if isinstance(self.k, str) else None,
            "k_ceiling": AUTO_CEILING if isinstance(self.k, str) else None,
            "tau": float(self.tau),
            "flag_rule": self.flag_rule, "rule": rule, "bound": self.bound,
            "alpha_test": float(self._alpha_test()),
            "fdr": None if self.fdr is None else float(self.fdr),
            "fdr_method": self.fdr_method, "fdr_name": FDR_NAMES[self.fdr_method],
            "protected": str(self._columns[self.protected_index_]),
            "protected_value": python_value(self.protected_value),
            "decision": str(self.decision_name_),
            "positive_label": python_value(self.positive_label_),
            "decision_kind": self.decision,
            "n_rows": int(n_rows), "n_candidates": int(n_candidates),
            "n_flagged": int(n_flagged),
            "q": [str(v) for v in self.q_],
            "columns": [str(c) for c in self._columns],
            "attribute_kinds": {str(c): kind for c, kind in self.attribute_kinds_.items()},
            "bin_edges": {str(c): [float(e) for e in edges]
                          for c, edges in self.bin_edges_.items()},
            "identifier_columns": [str(c) for c in self.identifier_columns_],
        }
        if self.graph_ is not None:
            summary["alpha"] = float(self.alpha) if self.graph is None else None
            summary["n_bins"] = int(self.n_bins)
        return summary

    def _tester_table(self, rows, cells):
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
        table.update(self._method.cell_values(c["cell"], self._y_fit))
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
