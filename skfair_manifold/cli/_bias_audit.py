"""The ``bias-audit`` command: the bias audit's table of a CSV or Parquet file of decisions.

A CSV file is read with pandas and audited in memory; a Parquet file is
audited where it lies, by DuckDB (embedded): one GROUP BY of the sensitive
columns and the decision (for scores, the exact median first), so a file
larger than memory is audited with memory bounded by the table of counts.
Standard output gets the table in plain text, the unknown counts and the
comparator of each characteristic, and what the audit found (``-q``: nothing);
``-o`` writes the table as CSV, ``--json`` and ``--html`` the whole audit.
"""

import sys

from skfair_manifold.cli._io import (
    CLIError,
    check_columns,
    dump_json,
    frame_to_csv,
    is_parquet,
    open_parquet,
    read_csv,
    write_text,
)

#: the table's columns on standard output, with their headers
SHOWN = [("category", "category"), ("n", "assessed"), ("n_selected", "selected"),
         ("rate", "rate"), ("impact_ratio", "ratio"), ("impact_ratio_ci_low", "[low"),
         ("impact_ratio_ci_high", "high]"), ("verdict", "verdict")]

MSG_SOURCE = ("give the decisions (--decision COLUMN) or the scores (--score COLUMN): one of "
              "the two.")

#: the API's words in a message, and the command line's
_WORDS = [("y_pred", "--decision"), ("y_score", "--score"), ("sensitive_features", "--sensitive"),
          ("pass tiers", "pass --tiers"),
          ("tiers=[['top'], ['top', 'middle']]", "--tiers top top,middle"),
          ("tiers names", "--tiers names"), ("comparator ", "--comparator "),
          ("'most_selected' or 'most_selected_any'", "most_selected or most_selected_any")]


def run_bias_audit(*, file, decision, score, sensitive, unknown, comparator, min_share,
                   tiers, intersect, confidence, sep, output, json, html, quiet,
                   csv_escape=True):
    """The ``bias-audit`` command; returns the exit code (0), raises CLIError on bad input."""
    from skfair_manifold.metrics import bias_audit

    if (decision is None) == (score is None):
        raise CLIError(MSG_SOURCE)
    column = decision if decision is not None else score
    role = "--decision" if decision is not None else "--score"
    tier_lists = None if not tiers else [[label.strip() for label in tier.split(",")
                                          if label.strip()] for tier in tiers]
    if is_parquet(file):
        relation, _ = open_parquet(file, command="bias-audit")

        class _Columns:  # check_columns reads .columns only
            columns = list(relation.columns)

        check_columns(_Columns, file, [(column, role)] + [(c, "--sensitive") for c in sensitive])
        source = dict(data=relation, sensitive_features=list(sensitive))
        target = column
    else:
        frame = read_csv(file, sep=sep, command="bias-audit")
        check_columns(frame, file, [(column, role)] + [(c, "--sensitive") for c in sensitive])
        source = dict(sensitive_features=frame[list(sensitive)])
        target = frame[column]
        if tier_lists is not None:  # the CSV's labels as text, as the command line gives them
            target = target.astype(str)
    try:
        audit = bias_audit(**({"y_score": target} if score is not None else {"y_pred": target}),
                           unknown=unknown, comparator=_comparator(comparator),
                           min_share=min_share, intersect=intersect, tiers=tier_lists,
                           confidence=confidence, **source)
    except (ValueError, TypeError) as exc:
        raise CLIError(_cli_words(" ".join(str(exc).split()))) from None
    audit.provenance["file"] = str(file)
    if not quiet:
        print(_text(audit), file=sys.stdout)
    if output is not None:
        write_text(output, frame_to_csv(audit.table, escape=csv_escape))
    if json is not None:
        write_text(json, dump_json(audit.to_dict()))
    if html is not None:
        write_text(html, audit.to_html())
    return 0


def _cli_words(message):
    """A message of the Python API in the command line's words (its options)."""
    for api, cli in _WORDS:
        message = message.replace(api, cli)
    return message


def _comparator(text):
    """The comparator of the command line: a rule's name, or a category (``a & b`` for an
    intersection, a number when it reads as one)."""
    if text in ("most_selected", "most_selected_any"):
        return text
    try:
        return int(text)
    except ValueError:
        return text


def _text(audit):
    """The audit in plain text: per characteristic its table, the unknowns, the comparator."""
    lines = []
    table = audit.table
    keys = ["tier", "characteristic"] if "tier" in table.columns else ["characteristic"]
    for key, part in table.groupby(keys, sort=False):
        name = " / ".join(map(str, key)) if isinstance(key, tuple) else str(key)
        count = audit.unknown.get(key if len(keys) > 1 else name, 0.0)
        lines.append(f"{name} (unknown: {_number(count)}; comparator: "
                     f"{audit.options['comparators'].get(name, audit.options['comparators'].get(' / '.join(map(str, key)) if isinstance(key, tuple) else name, ''))})")
        rows = [[header for _, header in SHOWN]]
        for _, row in part.iterrows():
            rows.append([_cell(row[c]) for c, _ in SHOWN])
        widths = [max(len(r[i]) for r in rows) for i in range(len(SHOWN))]
        for r in rows:
            lines.append("  " + "  ".join(v.ljust(w) if i in (0, 7) else v.rjust(w)
                                          for i, (v, w) in enumerate(zip(r, widths))))
        lines.append("")
    lines += audit.headline
    return "\n".join(lines)


def _cell(value):
    if isinstance(value, str):
        return value
    if value is None or value != value:
        return "-"
    if isinstance(value, float) and value != int(value):
        return f"{value:.3f}"
    return _number(value)


def _number(value):
    value = float(value)
    return f"{int(value)}" if value == int(value) else f"{value:.1f}"
