"""The ``audit`` command: situation testing of every row of a CSV of decisions."""

import sys
import time

from skfair_manifold._html import TESTER_COLUMNS
from skfair_manifold._html import evidence_table as audit_table
from skfair_manifold.cli._io import (
    CLIError,
    check_columns,
    check_no_missing,
    dump_json,
    frame_to_csv,
    join_cells,
    parse_value_like,
    read_csv,
    read_json,
    write_text,
)


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


def audit_rows(auditor, X, y, *, batch_size, progress, all_rows):
    """Situation testing of every row, in batches so that progress can be shown.

    The auditor recognises a fitted row by its values, whatever batch it
    comes in, so batching changes nothing in the result. Returns the
    evidence of the flagged rows (``auditor.report``, rows renumbered in
    ``X``) and, with ``all_rows``, ``transform``'s output for every row.
    """
    import numpy as np

    evidence, scores = [], []
    for start in range(0, X.shape[0], batch_size):
        stop = min(start + batch_size, X.shape[0])
        X_batch, y_batch = X.iloc[start:stop], y.iloc[start:stop]
        if all_rows:
            scores.append(auditor.transform(X_batch))
        for entry in auditor.report(X_batch, y_batch):
            entry["row"] += start
            evidence.append(entry)
        progress.update(stop - start)
    progress.close()
    return evidence, (np.vstack(scores) if all_rows else None)


def run_audit(*, file, decision, positive_label, protected, protected_value, features=None,
              id=None, method="cbn", k=50, tau=0.05, graph=None, alpha=0.05,
              alpha_test=None, seed=0, all_rows=False, format="csv", html=None,
              html_sheets=500, batch_size=2000, n_jobs=None, quiet=False, sep=",", output=None,
              csv_escape=True):
    """The ``audit`` command; returns the exit code (0), raises CLIError on bad input."""
    import numpy as np

    frame = read_csv(file, sep=sep, command="audit")
    columns = [(decision, "--decision"), (protected, "--protected")]
    if id:
        columns.append((id, "--id"))
    columns += [(c, "--features") for c in (features or [])]
    check_columns(frame, file, columns)
    if id and frame[id].duplicated().any():
        dup = frame[id][frame[id].duplicated()].iloc[0]
        raise CLIError(f"column {id!r} (--id) must identify rows; {dup!r} appears twice.")
    skip = {decision, id} - {None}
    features = features or [c for c in frame.columns if c not in skip]
    if protected not in features:
        features = [protected, *features]
    check_no_missing(frame, [decision, *features])
    protected_value = parse_value_like(frame, protected, protected_value, "--protected-value")
    positive_label = parse_value_like(frame, decision, positive_label, "--positive-label")
    if frame[decision].nunique() != 2:
        raise CLIError(f"column {decision!r} (--decision) must hold exactly 2 values "
                       f"(a positive and a negative decision); it has "
                       f"{frame[decision].nunique()}.")
    graph_value = load_graph(graph) if graph else None
    X = frame[features]
    y = frame[decision]
    from skfair_manifold.situation_testing import SituationTestingAuditor

    auditor = SituationTestingAuditor(
        protected=protected, protected_value=protected_value, method=method, k=k, tau=tau,
        positive_label=positive_label, graph=graph_value, alpha=alpha,
        alpha_test=alpha_test, n_jobs=n_jobs, random_state=seed)
    t0 = time.perf_counter()
    try:
        auditor.fit(X, y)
        progress = Progress(X.shape[0], label="auditing", enabled=not quiet)
        evidence, scores = audit_rows(auditor, X, y, batch_size=batch_size,
                                      progress=progress, all_rows=all_rows)
    except (ValueError, TypeError) as exc:
        raise CLIError(" ".join(str(exc).split())) from None
    elapsed = time.perf_counter() - t0
    ids = frame[id].to_numpy() if id else np.arange(frame.shape[0])
    table = audit_table(frame, id_column=id, protected=protected, decision=decision,
                        auditor=auditor, evidence=evidence, scores=scores, ids=ids)
    candidates = int(((frame[protected] == protected_value)
                      & (frame[decision] != positive_label)).sum())
    if not quiet:
        print(f"audited {frame.shape[0]} rows in {elapsed:.1f} s with {method.upper()}-DD "
              f"(k={k}, tau={tau}): {len(evidence)} of the {candidates} rows with "
              f"{protected}={protected_value!s} and a negative decision are flagged as "
              f"discriminated.", file=sys.stderr)
    q = [str(v) for v in auditor.q_]
    if method == "cbn" and not quiet:
        print(f"testers matched on the decision's causes Q = {{{', '.join(q)}}}.",
              file=sys.stderr)
    summary = {"file": file, "method": method, "k": k, "tau": tau, "alpha_test": alpha_test,
               "protected": protected, "protected_value": protected_value,
               "decision": decision, "positive_label": positive_label,
               "n_rows": int(frame.shape[0]), "n_candidates": candidates,
               "n_flagged": len(evidence), "q": q, "seconds": round(elapsed, 3)}
    if html is not None:
        from skfair_manifold._html import render_evidence

        page = render_evidence(frame=frame, features=features, id_column=id, summary=summary,
                               table=table[table["flagged"]], auditor=auditor, ids=ids,
                               max_sheets=html_sheets)
        write_text(html, page)
    if format == "json":
        records = [{column: _plain(value) for column, value in row.items()}
                   for row in table.to_dict(orient="records")]
        text = dump_json({**summary, "rows": records})
    else:
        flat = table.copy()
        for column in TESTER_COLUMNS:
            flat[column] = flat[column].map(lambda v: join_cells(v, escape=csv_escape))
        text = frame_to_csv(flat, escape=csv_escape)
    write_text(output, text)
    return 0


def _plain(value):
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "item"):
        return value.item()
    return value
