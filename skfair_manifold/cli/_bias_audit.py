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
from skfair_manifold.utils._visible import one_line

#: the table's columns on standard output, with their headers
SHOWN = [("category", "category"), ("n", "assessed"), ("n_selected", "selected"),
         ("rate", "rate"), ("impact_ratio", "ratio"), ("impact_ratio_ci_low", "[low"),
         ("impact_ratio_ci_high", "high]"), ("verdict", "verdict")]

MSG_SOURCE = ("give the decisions (--decision COLUMN) or the scores (--score COLUMN): one of "
              "the two.")
MSG_NO_ATTRIBUTE = ("give the sensitive columns (--sensitive COLUMN ...) or an estimated "
                    "attribute's probabilities (--membership-columns NAME=COL,COL,...).")
MSG_MEMBERSHIP = ("--membership-columns {value!r}: write NAME=COLUMN,COLUMN,... (the columns "
                  "of each category's probability, at least two; CATEGORY:COLUMN to name a "
                  "category otherwise than its column).")
MSG_PROXY_ALONE = "--proxy gives the strata of --membership-columns, which was not given."

#: the API's words in a message, and the command line's
_WORDS = [("y_pred", "--decision"), ("y_score", "--score"), ("sensitive_features", "--sensitive"),
          ("pass tiers", "pass --tiers"),
          ("tiers=[['top'], ['top', 'middle']]", "--tiers top top,middle"),
          ("tiers names", "--tiers names"), ("comparator ", "--comparator "),
          ("'most_selected' or 'most_selected_any'", "most_selected or most_selected_any"),
          ("Normalise the rows (P.div(P.sum(axis=1), axis=0))", "Normalise the rows"),
          ("proxy=", "--proxy"),
          ("estimate=", "--estimate "), ("intersect=False", "--no-intersect")]


def run_bias_audit(*, file, decision, score, sensitive, unknown, comparator, min_share,
                   tiers, intersect, confidence, sep, output, json, html, quiet,
                   csv_escape=True, membership_columns=None, proxy=None, estimate="weighted"):
    """The ``bias-audit`` command; returns the exit code (0), raises CLIError on bad input."""
    import warnings

    from skfair_manifold.metrics import bias_audit

    if (decision is None) == (score is None):
        raise CLIError(MSG_SOURCE)
    sensitive = list(sensitive or [])
    membership = _membership(membership_columns)
    if not sensitive and membership is None:
        raise CLIError(MSG_NO_ATTRIBUTE)
    if proxy is not None and membership is None:
        raise CLIError(MSG_PROXY_ALONE)
    probability_columns = [c for cols in (membership or {}).values() for c in cols.values()]
    needed = [(c, "--membership-columns") for c in probability_columns]
    if proxy is not None:
        needed.append((proxy, "--proxy"))
    column = decision if decision is not None else score
    role = "--decision" if decision is not None else "--score"
    tier_lists = None if not tiers else [[label.strip() for label in tier.split(",")
                                          if label.strip()] for tier in tiers]
    if is_parquet(file):
        relation, _ = open_parquet(file, command="bias-audit")

        class _Columns:  # check_columns reads .columns only
            columns = list(relation.columns)

        check_columns(_Columns, file, [(column, role)] + [(c, "--sensitive") for c in sensitive]
                      + needed)
        source = dict(data=relation, sensitive_features=list(sensitive) or None)
        if membership is not None:
            source.update(membership=membership, proxy=proxy)
        target = column
    else:
        frame = read_csv(file, sep=sep, command="bias-audit")
        check_columns(frame, file, [(column, role)] + [(c, "--sensitive") for c in sensitive]
                      + needed)
        source = dict(sensitive_features=frame[list(sensitive)] if sensitive else None)
        if membership is not None:
            source.update(membership={
                name: _probabilities(frame, cols, name) for name, cols in membership.items()},
                proxy=None if proxy is None else frame[proxy])
        target = frame[column]
        if tier_lists is not None:  # the CSV's labels as text, as the command line gives them
            target = target.astype(str)
    if membership is not None:
        source["estimate"] = _estimate(estimate)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UserWarning)
            audit = bias_audit(
                **({"y_score": target} if score is not None else {"y_pred": target}),
                unknown=unknown, comparator=_comparator(comparator), min_share=min_share,
                intersect=intersect, tiers=tier_lists, confidence=confidence, **source)
    except (ValueError, TypeError) as exc:
        raise CLIError(_cli_words(" ".join(str(exc).split()))) from None
    for warning in caught:  # the shortcut and small strata: said on stderr, one line each
        print(one_line(f"skfair-manifold bias-audit: warning: "
                       f"{_cli_words(' '.join(str(warning.message).split()))}"),
              file=sys.stderr)
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


def _membership(values):
    """``--membership-columns NAME=COL,COL`` (repeated) as ``{name: {category: column}}``."""
    if not values:
        return None
    out = {}
    for value in values:
        name, sep, rest = value.partition("=")
        parts = [p.strip() for p in rest.split(",") if p.strip()]
        if not sep or not name.strip() or len(parts) < 2:
            raise CLIError(MSG_MEMBERSHIP.format(value=value))
        columns = {}
        for part in parts:
            category, colon, column = part.partition(":")
            columns[category.strip()] = (column if colon else category).strip()
        out[name.strip()] = columns
    return out


def _probabilities(frame, columns, name):
    """The probability columns of a CSV file as a DataFrame named by the categories."""
    import pandas as pd

    try:
        values = frame[list(columns.values())].apply(pd.to_numeric, errors="raise")
    except (ValueError, TypeError):
        raise CLIError(f"--membership-columns {name}: the columns "
                       f"{', '.join(columns.values())} must hold numbers (probabilities)."
                       ) from None
    values.columns = list(columns)
    return values


def _estimate(text):
    """``--estimate``: weighted, most_likely or a threshold."""
    if text in ("weighted", "most_likely"):
        return text
    try:
        return float(text)
    except ValueError:
        raise CLIError(f"--estimate must be weighted, most_likely or a threshold in (0.5, 1]; "
                       f"got {text!r}.") from None


def _cli_words(message):
    """A message of the Python API in the command line's words (its options)."""
    import re

    for api, cli in _WORDS:
        message = message.replace(api, cli)
    return re.sub(r"membership\[['\"]([^'\"]*)['\"]\]", r"--membership-columns \1", message)


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
        info = (audit.options.get("estimated") or {}).get(key[-1] if isinstance(key, tuple)
                                                          else key)
        said = (f"estimated: {info['estimate']} over {info['n_strata']} strata" if info
                else f"unknown: {_number(count)}")
        lines.append(f"{name} ({said}; comparator: "
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
