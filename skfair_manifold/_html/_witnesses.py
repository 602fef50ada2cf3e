"""The people behind HFM's maxima, laid out for the report page (``_witnesses.html.j2``).

Reads the ``hfm_witnesses`` of :meth:`FairnessReport.to_dict`: one card per
maximum (label vector and attribute) with the two people side by side on the
features HFM measured, the features that set them apart first; then the
rows whose distance the model moved most.
"""

import math

#: features shown on a card before the rest are summed up in one line
SHOWN_FEATURES = 12


def _value(value):
    """A cell value for people: floats with 6 significant digits, the rest as text."""
    if isinstance(value, float):
        return f"{value:.6g}" if math.isfinite(value) else "n/a"
    return "n/a" if value is None else str(value)


def _who(person):
    """A row by the caller's index when there is one, else by its position, said so."""
    if person.get("index") is not None:
        return f"index {person['index']} (position {person['row']})"
    return f"position {person['row']}"


def witness_cards(data):
    """The context of ``_witnesses.html.j2`` from ``to_dict()``'s output, or None.

    Returns a dict with ``cards`` (per maximum: ``title``, ``overall``,
    ``distance``, the two ``people`` (``who``, ``group``, ``label``), the
    ``lines`` (the label first, then the features by decreasing share of the
    squared distance, at most ``SHOWN_FEATURES`` of those that differ),
    ``rest`` (the features that differ but are not shown: count and share)
    and ``equal`` (the names of the features on which the two are equal)),
    ``changed`` (the ranked rows), ``approx`` (the certified approximation
    ran) and the column names.
    """
    found = data.get("hfm_witnesses")
    if not found:
        return None
    options = data["options"]
    columns = {"y_true": options["label_column"], "y_pred": options["prediction_column"]}
    reading = {"y_true": "true labels", "y_pred": "predictions"}
    names = found["features"]
    cards = []
    # one attribute's two cards (true labels, predictions) next to each other
    attributes = list(dict.fromkeys(str(item["attribute"]) for item in found["maxima"]))
    maxima = sorted(found["maxima"], key=lambda item: (attributes.index(str(item["attribute"])),
                                                       item["labels"] != "y_true"))
    for item in maxima:
        a, b = item["people"]
        lines = [{"name": columns[item["labels"]], "a": _value(a["label"]),
                  "b": _value(b["label"]), "share": item["label_share"], "label": True,
                  "differs": a["label"] != b["label"]}]
        shares = item["shares"]
        order = sorted(range(len(names)), key=lambda j: (-(shares[j] or 0.0), j))
        differing = [j for j in order if a["values"][j] != b["values"][j]]
        equal = [names[j] for j in range(len(names)) if a["values"][j] == b["values"][j]]
        for j in differing[:SHOWN_FEATURES]:
            lines.append({"name": names[j], "a": _value(a["values"][j]),
                          "b": _value(b["values"][j]), "share": shares[j], "label": False,
                          "differs": True})
        hidden = differing[SHOWN_FEATURES:]
        rest = ({"count": len(hidden), "share": sum(shares[j] or 0.0 for j in hidden)}
                if hidden else None)
        cards.append({
            "attribute": item["attribute"], "labels": reading[item["labels"]],
            "overall": item["overall"], "distance": item["distance"],
            "people": [{"who": _who(p), "group": _value(p["group"])} for p in (a, b)],
            "lines": lines, "rest": rest, "equal": equal,
        })
    changed = [{"who": _who(c), "y_true": _value(c["y_true"]), "y_pred": _value(c["y_pred"]),
                "d": c["d"], "d_f": c["d_f"], "change": c["change"]}
               for c in found["changed"]]
    return {"cards": cards, "changed": changed, "approx": found.get("method") == "approx", "label_column": columns["y_true"],
            "prediction_column": columns["y_pred"]}
