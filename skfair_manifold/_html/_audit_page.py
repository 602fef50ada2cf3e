"""The bias audit's page: the table per characteristic, the unknowns and the settings."""

from ._environment import _environment

_VERDICT_CLASS = {"passes": "pass", "fails": "fail", "inconclusive": "inconclusive"}


def render_bias_audit(audit, *, title="Bias audit", fragment=False):
    """The HTML page of a :class:`~skfair_manifold.metrics.BiasAudit`."""
    data = audit.to_dict()
    options = data["options"]
    total = options["n_assessed"] or 0
    estimated = options.get("estimated") or {}
    unknown = [{"name": name, "count": _count(value),
                "share": _share(value / total) if total else "–"}
               for name, value in data["unknown"].items()
               if name.split(" / ")[-1] not in estimated]
    parts = []
    for row in data["table"]:
        title_ = row["characteristic"] if row.get("tier") is None \
            else f"tier {row['tier']}: {row['characteristic']}"
        if not parts or parts[-1]["title"] != title_:
            parts.append({"title": title_, "anchor": f"part-{len(parts)}", "rows": [],
                          "estimated": _estimated_text(
                              (options.get("estimated") or {}).get(row["characteristic"]),
                              options["rate_name"])})
        parts[-1]["rows"].append({
            "category": row["category"], "n": _count(row["n"]),
            "n_selected": _count(row["n_selected"]),
            "rate": row["rate"], "rate_low": row["rate_low"], "rate_high": row["rate_high"],
            "impact_ratio": row["impact_ratio"], "ci_low": row["impact_ratio_ci_low"],
            "ci_high": row["impact_ratio_ci_high"], "low": row["impact_ratio_low"],
            "high": row["impact_ratio_high"], "verdict": row["verdict"],
            "verdict_class": _VERDICT_CLASS.get(row["verdict"], ""),
            "fisher": row["fisher_p_value"], "z": row["z_score"],
            "comparator": row["comparator"], "excluded": row["excluded"],
            "note": row["note"]})
    failing = any(r["verdict"] in ("fails", "inconclusive") for p in parts for r in p["rows"])
    source = data.get("provenance") or {}
    settings = [("package", options["package"]), ("made", options["created"])]
    if source.get("file"):
        settings.append(("input file", source["file"]))
    if source.get("sha256"):
        settings.append(("input SHA-256", source["sha256"]))
    settings += [
        ("assessed", str(options["n_assessed"])),
        ("rate", options["rate_name"] + (f" (median {options['median']:g}, "
                                         f"{options['ties_at_median']} ties)"
                                         if options["source"] == "scores" else "")),
        ("sensitive columns", ", ".join(options["attributes"])
         + (" and their intersection" if options["intersect"] else "")),
        ("unknown label", options["unknown_label"] or "(missing values only)"),
        ("comparator rule", options["comparator_text"]),
        ("comparators", "; ".join(f"{k}: {v}" for k, v in options["comparators"].items())),
        ("left out of the ratios", f"categories under {options['min_share']:g} of the "
                                   "assessed (min_share)"),
        ("interval", f"{100 * options['confidence']:g}%: the bounds over simultaneous score "
                     "intervals of the rates (Wilson, continuity-corrected, Sidak)"),
    ]
    if options.get("estimated"):
        settings.append(("estimated characteristics' interval",
                         "the delta method over the strata's cells: the lower bound's lower "
                         "limit to the upper bound's upper limit"))
    if options.get("tiers"):
        settings.append(("tiers", "; ".join(" | ".join(t) for t in options["tiers"])))
    context = {"title": title, "generated": options["created"], "options": options,
               "min_share": _share(options["min_share"]),
               "headline": data["headline"], "unknown": unknown, "parts": parts,
               "failing": failing, "settings": settings, "fragment": fragment}
    return _environment().get_template("audit.html.j2").render(**context)


def _estimated_text(info, rate_name):
    """The sentence under an estimated characteristic's table."""
    if not info:
        return None
    labelled = info.get("labelled") or 0
    known = f"; {_count(labelled)} people of known category count where they belong" \
        if labelled else ""
    return (f"Estimated from membership probabilities ({info['n_strata']} strata: "
            f"{info['strata']}, median {_count(info['median_stratum'])} people{known}). "
            f"Assessed and selected are expected counts; the {rate_name} is the "
            f"{info['estimate']} estimate, and low – high its sharp bounds over who in each "
            f"stratum was selected. {info['assumption']}")


def _share(value):
    """A share as a percentage for people: 5.5%, 0.02 -> 2%."""
    return f"{100 * value:.1f}%".replace(".0%", "%")


def _count(value):
    if value is None:
        return "–"
    return f"{int(value)}" if float(value) == int(value) else f"{value:.1f}"
