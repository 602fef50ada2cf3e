"""The ``audit`` command on a Parquet file: CBN-DD by one GROUP BY through DuckDB.

The file is opened as a DuckDB relation (nothing read into memory); the
auditor's frame path (``situation_testing._lazy``) counts the rows per cell
of Q, the protected column and the decision, and flags cell by cell. The
output is the table of candidate cells (their values, the number of people,
the rates, p- and q-value and the flag); ``--flagged-rows`` writes the
flagged rows themselves, every column, to a Parquet file (DuckDB streams
them). What needs the rows one by one (``--method knn``, ``--html``,
``--testers``, ``--all-rows``, ``--id``) is refused with a message.
"""

import sys
import time

import numpy as np

from skfair_manifold.cli._io import (
    CLIError,
    check_columns,
    dump_json,
    frame_to_csv,
    open_parquet,
    parquet_value,
    quote_identifier,
    write_text,
)
from skfair_manifold.utils._visible import one_line

MSG_NEEDS_ROWS = (
    "{option} needs the rows in memory, one by one, which the Parquet path does not read "
    "(it audits cell by cell through DuckDB); leave it out, or give a CSV file."
)


def run_audit_parquet(*, file, decision, positive_label, protected, protected_value,
                      features, id, graph_value, options, all_rows, html, testers,
                      flagged_rows, format, quiet, output, csv_escape):
    """``audit`` on a Parquet file; returns the exit code (0), raises CLIError on bad input."""
    for given, option in ((options.get("method") not in (None, "cbn"), "--method knn"), (html is not None, "--html"),
                          (testers is not None, "--testers"), (all_rows, "--all-rows"),
                          (id is not None, "--id")):
        if given:
            raise CLIError(MSG_NEEDS_ROWS.format(option=option))
    relation, n_rows = open_parquet(file, command="audit")

    class _Columns:  # check_columns reads .columns only
        columns = list(relation.columns)

    used = [(decision, "--decision"), (protected, "--protected")]
    used += [(c, "--features") for c in (features or [])]
    check_columns(_Columns, file, used)
    if features:
        keep = list(dict.fromkeys([protected, *features, decision]))
        relation = relation.select(*[quote_identifier(c) for c in keep])
    protected_value = parquet_value(relation, protected, protected_value, "--protected-value")
    positive_label = parquet_value(relation, decision, positive_label, "--positive-label")
    from skfair_manifold.situation_testing import SituationTestingAuditor, cell_verdicts
    from skfair_manifold.situation_testing._stats._power import not_flagged_gaps

    auditor = SituationTestingAuditor(protected=protected, protected_value=protected_value,
                                      positive_label=positive_label, graph=graph_value,
                                      **options)
    t0 = time.perf_counter()
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            auditor.fit(relation, decision)
            table = cell_verdicts(auditor, relation, decision)
            if flagged_rows is not None:
                flagged = auditor.flag(relation, decision)
                flagged.filter("flagged").write_parquet(str(flagged_rows))
        except (ValueError, TypeError) as exc:
            raise CLIError(" ".join(str(exc).split())) from None
    elapsed = time.perf_counter() - t0
    n_flagged = int(table.loc[table["flagged"], "n_people"].sum())
    if not quiet:
        for note in dict.fromkeys(" ".join(str(w.message).split()) for w in caught):
            print(one_line(f"skfair-manifold audit: note: {note}"), file=sys.stderr)
        print(one_line(
            f"audited {n_rows} rows of {file} in {elapsed:.1f} s with CBN-DD through DuckDB "
            f"(k={auditor.k}, rule {auditor.flag_rule_}): {n_flagged} of the "
            f"{int(table['n_people'].sum())} rows with {protected}={protected_value!s} and "
            f"a negative decision are flagged by the rule, in "
            f"{int(table['flagged'].sum())} of {len(table)} cells (no verdict on this "
            f"path: whether a flag holds at K/2 and 2K is read by the audit of a CSV "
            f"file)."), file=sys.stderr)
        quiet = not_flagged_gaps(table["detectable_gap"], np.ones(len(table), dtype=bool),
                                 table["flagged"], counts=table["n_people"])
        if quiet["median"] is not None:
            print(f"not flagged: with these testers a gap p1 - p2 below "
                  f"{quiet['median']:.3f} (the median candidate's; each cell's is in the "
                  f"column detectable_gap) could not have been seen.", file=sys.stderr)
        print(one_line(f"testers matched on the decision's causes Q = "
                       f"{{{', '.join(str(v) for v in auditor.q_)}}}."), file=sys.stderr)
    if format == "json":
        rows = [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
                for row in table.to_dict(orient="records")]
        text = dump_json({"file": str(file), "rows_audited": n_rows, "seconds":
                          round(elapsed, 3), "q": list(auditor.q_),
                          "rule": auditor.flag_rule_, "n_flagged": n_flagged, "cells": rows})
    else:
        text = frame_to_csv(table, escape=csv_escape)
    write_text(output, text)
    return 0
