"""The ``audit`` command's tables: one row per audited person, and the long table of testers.

Read from the auditor's ``report()`` (and ``transform`` for every row with
``--all``); the evidence page is the report's own (``report.to_html``).
"""

import numpy as np

SIDES = ("unprotected", "protected")
#: per side: the ids of the testers taken for certain, their decisions, and the tie groups
TESTER_COLUMNS = tuple(f"{what}_{side}" for side in SIDES
                       for what in ("testers", "decisions", "tie_groups"))
#: the fields of one tie group, from the auditor's long table of testers
TIE_FIELDS = ("cell", "n_records", "n_positive", "weight", "distance")


def evidence_table(frame, *, id_column, protected, decision, auditor, report, scores, ids):
    """One row per audited person: the flag, the rates, the interval, the rule and the testers.

    ``report`` is the auditor's ``report()`` over the rows of ``frame``;
    ``scores`` its ``transform`` output for every row, or None for the
    flagged rows only. Per side, ``testers_<side>`` lists the ids of the
    testers taken for certain (weight 1), ``decisions_<side>`` their
    decisions, and ``tie_groups_<side>`` each tie group, a cell of equally
    similar records of which only some can be testers: its ``cell`` (as in
    the report's long table), ``n_records``, ``n_positive``, ``weight`` (the
    probability that each of its records is a tester) and ``distance``.
    The certain testers and the tie groups' ``weight * n_records`` add up to
    ``n1`` (``n2``); with the positives, to ``p1 * n1`` (``p2 * n2``).
    """
    import pandas as pd

    score_names = [str(n) for n in auditor.get_feature_names_out()]
    summary = report.summary
    flagged_rows = np.asarray(summary["row"], dtype=np.intp)
    if scores is None:
        rows = flagged_rows
        table = pd.DataFrame({name: np.asarray(summary[name], dtype=np.float64)
                              for name in score_names})
        table.insert(0, "flagged", True)
    else:
        rows = np.arange(frame.shape[0])
        table = pd.DataFrame(scores, columns=score_names)
        flagged = np.zeros(frame.shape[0], dtype=bool)
        flagged[flagged_rows] = True
        table.insert(0, "flagged", flagged)
    table.insert(0, "row", rows)
    if id_column:
        table.insert(1, id_column, ids[rows])
    table.insert(table.columns.get_loc("flagged"), protected, frame[protected].to_numpy()[rows])
    table.insert(table.columns.get_loc("flagged"), decision, frame[decision].to_numpy()[rows])
    where = np.full(frame.shape[0], -1, dtype=np.intp)  # row -> index in the report
    where[flagged_rows] = np.arange(flagged_rows.shape[0])
    at = where[rows]
    for name in ("k", "n1", "n2"):  # k: each flagged person's K (its own under k="auto")
        if name not in summary:
            continue
        values = np.full(rows.shape[0], np.nan)
        values[at >= 0] = np.asarray(summary[name], dtype=np.float64)[at[at >= 0]]
        table[name] = pd.array(values, dtype="Int64") if name == "k" else values
    rule = np.full(rows.shape[0], "", dtype=object)
    rule[at >= 0] = np.asarray(summary["rule"], dtype=object)[at[at >= 0]]
    table["rule"] = rule
    audit = getattr(report, "audit", {})
    for name in ("q_value", "verdict", "verdict_reason", "detectable_gap", "pn", "pn_low",
                 "pn_high", "more_likely_than_not", "shortfall", "shortfall_low",
                 "shortfall_high"):
        if name in audit:
            table[name] = np.asarray(audit[name])[rows]
    lists = {column: [[] for _ in range(rows.shape[0])] for column in TESTER_COLUMNS}
    line_of = {int(r): i for i, r in enumerate(rows)}
    long = report.testers
    for t in np.flatnonzero(~np.asarray(long["certain"], dtype=bool)):
        group = {name: _plain_number(long[name][t]) for name in TIE_FIELDS}
        lists[f"tie_groups_{long['side'][t]}"][line_of[int(long["row"][t])]].append(group)
    for i in np.flatnonzero(at >= 0):
        entry = report[int(at[i])]
        for side in SIDES:
            certain = np.asarray(entry[f"weights_{side}"], dtype=np.float64) >= 1.0 - 1e-12
            positions = np.asarray(entry[f"testers_{side}"], dtype=np.intp)[certain]
            lists[f"testers_{side}"][i] = ids[positions].tolist()
            lists[f"decisions_{side}"][i] = np.asarray(entry[f"decisions_{side}"])[
                certain].tolist()
    for column in TESTER_COLUMNS:
        table[column] = lists[column]
    return table


def tester_frame(report, *, ids, id_column):
    """The report's long table of testers, the person named by ``id_column``.

    One row per flagged person, side and cell of equally treated records:
    ``row``, the person's id, ``side``, ``certain``, ``distance``,
    ``n_records``, ``n_positive``, ``weight``, ``testers``, ``positives``,
    ``cell`` and the cell's values.
    """
    table = report.frame()
    if id_column:
        table.insert(1, id_column, np.asarray(ids)[table["row"].to_numpy(dtype=np.intp)])
    return table


def tie_group_text(group):
    """One tie group in words, for a CSV cell."""
    return (f"cell {group['cell']}: {group['n_records']:g} records, "
            f"{group['n_positive']:g} positive, weight {group['weight']:.6g}")


def _plain_number(value):
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
        return int(value)
    return value
