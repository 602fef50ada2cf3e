"""The evidence page's harm section: how many were harmed (or how much is owed), who is
more likely than not harmed beside who was flagged, the situations, and the assumptions."""

import numpy as np

#: people listed in the page's table of those more likely than not harmed, at most
MAX_LISTED = 200
#: situations shown, the largest expected harm first
MAX_SITUATIONS = 30


def harm_context(report, ids, continuous):
    """What ``templates/evidence.html.j2`` shows of the harm (None without it)."""
    said = report.settings.get("harm") or {}
    table = getattr(report, "harm", None)
    if not said or table is None:
        return None
    audit = report.audit
    level = f"{100 * said['confidence']:g}%"
    out = {"level": level, "assumptions": said["assumptions"], "continuous": continuous,
           "design_effect": said.get("design_effect")}
    flagged = np.asarray(audit["flagged"], dtype=bool)
    if continuous:
        out.update(total=said["total_shortfall"], low=said["shortfall_low"],
                   high=said["shortfall_high"], people=[], n_not_listed=0)
        value, key = "total_shortfall", "shortfall"
    else:
        likely = np.asarray(audit["more_likely_than_not"], dtype=bool)
        order = np.flatnonzero(likely)
        order = order[np.argsort(-np.asarray(audit["pn"])[order], kind="stable")]
        out.update(total=said["expected_harmed"], low=said["harmed_low"],
                   high=said["harmed_high"], n_likely=int(likely.sum()),
                   n_flagged=int(flagged.sum()), n_both=int((likely & flagged).sum()),
                   people=[{"id": str(ids[r]), "pn": audit["pn"][r],
                            "low": audit["pn_low"][r], "high": audit["pn_high"][r],
                            "flagged": bool(flagged[r])} for r in order[:MAX_LISTED]],
                   n_not_listed=max(0, order.shape[0] - MAX_LISTED))
        value, key = "expected_harmed", "harmed"
    out["counterfactual"] = report.settings.get("counterfactual")
    out["situations"] = None
    situations = table.drop(index="total")
    if len(situations):
        top = situations.sort_values(value, ascending=False).head(MAX_SITUATIONS)
        attributes = [c for c in table.columns
                      if c not in ("candidates", value, f"{key}_low", f"{key}_high")]
        out["situations"] = {
            "attributes": attributes, "n": len(situations),
            "rows": [{"values": [str(r[c]) for c in attributes],
                      "candidates": int(r["candidates"]), "value": r[value],
                      "low": r[f"{key}_low"], "high": r[f"{key}_high"]}
                     for _, r in top.iterrows()]}
    return out
