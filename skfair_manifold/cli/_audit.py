"""The ``audit`` command: situation testing of every row of a CSV of decisions."""

import sys
import time

from skfair_manifold.cli._audit_table import (
    TESTER_COLUMNS,
    tester_frame,
    tie_group_text,
)
from skfair_manifold.cli._audit_table import evidence_table as audit_table
from skfair_manifold.cli._io import (
    CLIError,
    check_columns,
    check_no_missing,
    dump_json,
    frame_to_csv,
    is_parquet,
    join_cells,
    parse_value_like,
    read_csv,
    read_json,
    write_text,
)
from skfair_manifold.utils._visible import one_line


class Progress:
    """A one-line progress bar on stderr, silent unless stderr is a terminal."""

    def __init__(self, total, *, label, enabled=True, stream=None, width=30):
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled and total > 0 and _isatty(self.stream)
        self.total, self.label, self.width = total, label, width
        self.start = time.perf_counter()
        self.done = 0

    def update(self, n):
        self.done += n
        if not self.enabled:
            return
        share = min(self.done / self.total, 1.0)
        filled = int(round(share * self.width))
        elapsed = time.perf_counter() - self.start
        eta = elapsed / share - elapsed if share > 0 else 0.0
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (self.width - filled)}] "
                          f"{share:4.0%} {self.done}/{self.total} rows, {elapsed:5.1f} s, "
                          f"{eta:5.1f} s left")
        self.stream.flush()

    def close(self):
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def _isatty(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def load_graph(path):
    """A JSON object mapping each node to its parents, or a JSON list of the decision's parents."""
    graph = read_json(path)
    if isinstance(graph, list) and all(isinstance(p, str) for p in graph):
        return graph
    if not isinstance(graph, dict) or not all(
        isinstance(ps, list) and all(isinstance(p, str) for p in ps) for ps in graph.values()
    ):
        raise CLIError(f"{path} must hold a JSON object mapping each node to the list of its "
                       'parents, for example {"decision": ["age", "education"]}, or the list '
                       "of the decision's parents.")
    return graph


MSG_KIND_NOT_FEATURE = (
    "column {column!r} ({option}) is not among the audited attributes{why}; add it to "
    "--features or drop it from {option}."
)
MSG_SEED_UNUSED = (
    "note: --seed no longer changes anything: equally similar testers are not drawn at random "
    "but weighted, so every seed gives the same result; the option will be removed."
)
MSG_BATCH_UNUSED = (
    "note: --batch-size no longer changes anything: every row is audited in one pass; the "
    "option will be removed."
)


def check_kinds(frame, path, features, *, decision, id, nominal, ordinal, interval):
    """The columns declared --nominal/--ordinal/--interval: in the file, among the features.

    Returns the three lists (None when not given). A column given to two of
    them, or not in the file (with the closest name), or not audited, is a
    CLIError.
    """
    declared = {"--nominal": nominal, "--ordinal": ordinal, "--interval": interval}
    check_columns(frame, path, [(c, option) for option, cols in declared.items()
                                for c in (cols or [])])
    audited = set(features)
    for option, cols in declared.items():
        for column in cols or []:
            if column not in audited:
                why = (" (it is the --decision column)" if column == decision
                       else " (it is the --id column)" if column == id else "")
                raise CLIError(MSG_KIND_NOT_FEATURE.format(column=column, option=option,
                                                           why=why))
    return [list(dict.fromkeys(cols)) if cols else None for cols in declared.values()]


MSG_AMOUNT_PARQUET = (
    "--decision-type continuous audits a CSV file: a Parquet file is audited cell by cell "
    "through DuckDB, which counts yes/no decisions only. Convert the file to CSV, or audit "
    "from Python with the rows in memory."
)


def fit_and_report(auditor, X, y, *, all_rows, progress):
    """Fit, then the evidence of every flagged row in one call of ``report``.

    Returns ``(report, scores, notes)``: ``scores`` is ``transform``'s
    output for every row with ``all_rows`` (else None), ``notes`` the
    messages of the warnings raised on the way, in order, each once.
    """
    import warnings

    from skfair_manifold.utils._progress import BlockProgress, reporting

    # in a terminal, KNN-DD's blocks drive the bar, with the estimate after the first
    blocks = BlockProgress(progress.label, stream=progress.stream, bar=True) \
        if progress.enabled else None
    with warnings.catch_warnings(record=True) as caught, reporting(blocks):
        warnings.simplefilter("always")
        auditor.fit(X, y)
        scores = auditor.transform(X) if all_rows else None  # first: report reuses them
        report = auditor.report(X, y)
    if blocks is None or not blocks.done:
        progress.update(X.shape[0])
        progress.close()
    notes = list(dict.fromkeys(" ".join(str(w.message).split()) for w in caught))
    return report, scores, notes


def run_audit(*, file, decision, positive_label, protected, protected_value, features, id,
              graph, nominal, ordinal, interval, seed, all_rows, format, html, html_sheets,
              testers, flagged_rows, batch_size, quiet, sep, output, csv_escape,
              auditor_options, decision_type="binary"):
    """The ``audit`` command; returns the exit code (0), raises CLIError on bad input.

    The options are the parser's (:data:`._audit_options.AUDIT_OPTIONS`, defaults
    there); ``auditor_options`` holds the auditor's options given on the
    command line, so that the others keep the auditor's own defaults.
    ``seed`` and ``batch_size`` are accepted for old command lines and change
    nothing.
    """
    import numpy as np

    amount = decision_type == "continuous"  # the options were checked with the parser's
    if amount:
        if is_parquet(file):
            raise CLIError(MSG_AMOUNT_PARQUET)
        auditor_options = {**auditor_options, "decision": "continuous"}
    if is_parquet(file):  # CBN-DD cell by cell through DuckDB (``_audit_parquet``)
        from skfair_manifold.cli._audit_parquet import run_audit_parquet

        options = {**auditor_options, "nominal": nominal, "ordinal": ordinal,
                   "interval": interval}
        return run_audit_parquet(
            file=file, decision=decision, positive_label=positive_label, protected=protected,
            protected_value=protected_value, features=features, id=id,
            graph_value=load_graph(graph) if graph else None, options=options,
            all_rows=all_rows, html=html, testers=testers, flagged_rows=flagged_rows,
            format=format, quiet=quiet, output=output, csv_escape=csv_escape)
    if flagged_rows is not None:
        raise CLIError("--flagged-rows is for a Parquet input; with a CSV file the output "
                       "lists the flagged rows.")
    frame = read_csv(file, sep=sep, command="audit")
    columns = [(decision, "--decision"), (protected, "--protected")]
    if id:
        columns.append((id, "--id"))
    columns += [(c, "--features") for c in (features or [])]
    check_columns(frame, file, columns)
    if id:
        check_no_missing(frame, [id])
    if id and frame[id].duplicated().any():
        dup = frame[id][frame[id].duplicated()].iloc[0]
        raise CLIError(f"column {id!r} (--id) must identify rows; {dup!r} appears twice.")
    skip = {decision, id} - {None}
    features = features or [c for c in frame.columns if c not in skip]
    if protected not in features:
        features = [protected, *features]
    nominal, ordinal, interval = check_kinds(frame, file, features, decision=decision, id=id,
                                             nominal=nominal, ordinal=ordinal,
                                             interval=interval)
    check_no_missing(frame, [decision, *features])
    protected_value = parse_value_like(frame, protected, protected_value, "--protected-value")
    if not amount:
        positive_label = parse_value_like(frame, decision, positive_label, "--positive-label")
    if not amount and frame[decision].nunique() != 2:
        raise CLIError(f"column {decision!r} (--decision) must hold exactly 2 values "
                       f"(a positive and a negative decision); it has "
                       f"{frame[decision].nunique()}.")
    graph_value = load_graph(graph) if graph else None
    X = frame[features]
    y = frame[decision]
    from skfair_manifold.situation_testing import SituationTestingAuditor

    auditor = SituationTestingAuditor(
        protected=protected, protected_value=protected_value, positive_label=positive_label,
        graph=graph_value, nominal=nominal, ordinal=ordinal, interval=interval,
        **auditor_options)
    if not quiet:
        for given, note in ((seed, MSG_SEED_UNUSED), (batch_size, MSG_BATCH_UNUSED)):
            if given is not None:
                print(one_line(f"skfair-manifold audit: {note}"), file=sys.stderr)
    t0 = time.perf_counter()
    try:
        progress = Progress(X.shape[0], label="auditing", enabled=not quiet)
        report, scores, notes = fit_and_report(auditor, X, y, all_rows=all_rows,
                                               progress=progress)
    except (ValueError, TypeError) as exc:
        raise CLIError(" ".join(str(exc).split())) from None
    elapsed = time.perf_counter() - t0
    if not quiet:
        for note in notes:
            print(one_line(f"skfair-manifold audit: note: {note}"), file=sys.stderr)
    ids = frame[id].to_numpy() if id else np.arange(frame.shape[0])
    table = audit_table(frame, id_column=id, protected=protected, decision=decision,
                        auditor=auditor, report=report, scores=scores, ids=ids)
    candidates = report.settings["n_candidates"]
    if not quiet:
        print(one_line(
            f"audited {frame.shape[0]} rows in {elapsed:.1f} s with "
            f"{auditor.method.upper()}-DD (k={auditor.k}, rule {auditor.flag_rule_}): "
            f"{len(report)} of the {candidates} rows "
            f"with {protected}={protected_value!s}"
            f"{'' if amount else ' and a negative decision'} are flagged by the rule"
            + "".join(f"; verdicts: {', '.join(f'{v} {c}' for v, c in counts.items())}"
                      for counts in [report.verdict_counts()] if counts and len(report))
            + "."), file=sys.stderr)
        quiet = report.not_flagged_gaps()
        if quiet is not None and quiet["median"] is not None:
            gap = "mean1 - mean2" if amount else "p1 - p2"
            print(f"not flagged ({quiet['n']}): with these testers a gap {gap} below "
                  f"{quiet['median']:.3f} (the median candidate's; from {quiet['low']:.3f} "
                  f"to {quiet['high']:.3f}) could not have been seen; --all-rows writes each "
                  f"row's detectable_gap.", file=sys.stderr)
        harm = report.settings.get("harm") or {}
        if "expected_harmed" in harm:
            print(one_line(
                f"expected number harmed (refused because {protected}={protected_value!s}): "
                f"{harm['expected_harmed']:.1f} [{harm['harmed_low']:.1f}, "
                f"{harm['harmed_high']:.1f}] ({100 * harm['confidence']:g}% interval); "
                f"{harm['more_likely_than_not']} more likely than not harmed (pn_low > 0.5)"
                f"; --all-rows writes each row's pn."), file=sys.stderr)
        elif "total_shortfall" in harm:
            print(one_line(
                f"total shortfall of the {protected}={protected_value!s} rows: "
                f"{harm['total_shortfall']:.6g} [{harm['shortfall_low']:.6g}, "
                f"{harm['shortfall_high']:.6g}] ({100 * harm['confidence']:g}% interval); "
                f"--all-rows writes each row's shortfall."), file=sys.stderr)
    if auditor.method == "cbn" and not quiet:
        print(one_line(f"testers matched on the decision's causes Q = "
                       f"{{{', '.join(str(v) for v in auditor.q_)}}}."), file=sys.stderr)
    # the report carries the settings and the provenance; the command adds its input
    report.provenance["input_file"] = str(file)
    report.provenance["input_sha256"] = _sha256(file)
    summary = {"file": file, **report.settings, "seconds": round(elapsed, 3),
               "sha256": report.provenance["input_sha256"], "provenance": report.provenance}
    if html is not None:
        write_text(html, report.to_html(ids=ids if id else None,  # else: "position"
                                        max_sheets=html_sheets))
    if testers is not None:
        cells = tester_frame(report, ids=ids, id_column=id)
        write_text(testers, _frame_text(cells, format=format, csv_escape=csv_escape))
    if format == "json":
        text = dump_json({**summary, "notes": notes, "rows": _records(table)})
    else:
        flat = table.copy()
        for column in TESTER_COLUMNS:
            if column.startswith("tie_groups"):
                flat[column] = flat[column].map(
                    lambda groups: ";".join(tie_group_text(g) for g in groups))
            else:
                flat[column] = flat[column].map(lambda v: join_cells(v, escape=csv_escape))
        text = frame_to_csv(flat, escape=csv_escape)
    write_text(output, text)
    return 0


def _sha256(path):
    """The SHA-256 of the input file (None when it is not a regular file, e.g. stdin)."""
    import hashlib
    import os

    if not isinstance(path, (str, os.PathLike)) or not os.path.isfile(path):
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _records(table):
    return [{column: _plain(value) for column, value in row.items()}
            for row in table.to_dict(orient="records")]


def _frame_text(table, *, format, csv_escape):
    if format == "json":
        return dump_json({"rows": _records(table)})
    return frame_to_csv(table, escape=csv_escape)


def _plain(value):
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "item"):
        return value.item()
    return value
