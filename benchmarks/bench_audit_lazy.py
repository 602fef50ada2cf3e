"""CBN-DD through DuckDB on Parquet files, against the bare GROUP BY and the in-memory audit.

Data: ``--rows`` rows (default 1e8) of decisions with the structure of
``make_planted_bias`` but with its continuous causes banded (the frame
path matches Q on values): ``sex`` (protected, ``"female"`` about 45%),
``region`` (five names), ``edu`` (0..4), ``income_band`` (0..4),
``age_band`` (0..2) and an irrelevant ``colour``, plus the row id ``rid``.
The fair decision follows the logit of ``make_planted_bias`` on the bands;
in ``north`` and ``east`` each positive woman is turned negative with
probability 0.5. DuckDB's SQL writes it from ``hash(rid, seed)`` in parts of
at most 1e7 rows into ``--dir`` (default /tmp/bench_audit_lazy; never in
the repository), once.

Each measurement runs in its own Python process (its peak resident memory,
``ru_maxrss``, is its own); the best of ``--repeats`` is kept:

- ``bare``: DuckDB's ``SELECT region, edu, income_band, age_band, sex,
  approved, count(*) ... GROUP BY ALL`` over the files;
- ``fit``: ``SituationTestingAuditor(graph=...).fit(relation, "approved")``;
- ``flag``: ``flag(relation, "approved")`` on a relation other than the
  fitted object (its cells counted: one GROUP BY; the per-cell verdicts
  computed, the flagged frame returned lazily); the number of flagged rows
  is then read from ``cell_verdicts`` (not timed);
- ``audit``: fit, flag and ``cell_verdicts`` of the same relation object, in
  one process (the fitted cells reused: one GROUP BY).

Targets: the audit at most 2x the bare GROUP BY, peak at most 1.5 GiB.

Flags: on the first 1e6 rows (``--sample-rows``), the in-memory auditor on
pandas and the frame path on the same rows (a Parquet file of them through
DuckDB): the flagged row ids must be identical.

Structure: without a graph the frame path learns Q on a sample; on the same
first rows, Q learned on samples of 50,000 and 200,000 rows (the default
``STRUCTURE_SAMPLE``) for ``--structure-seeds`` seeds, against the in-memory
search on all of them (not timed).

Run it under the benchmarks' lock::

    flock /tmp/bench.lock python -m benchmarks.bench_audit_lazy [--rows 1e8]
"""

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

from ._io import best_child_run

Q = ["region", "edu", "income_band", "age_band"]
KEYS = [*Q, "sex", "approved"]
GRAPH = ["sex", *Q]
PART = 10_000_000
SETTINGS = dict(protected="sex", protected_value="female", graph=GRAPH, k=50)


def _uniform(seed):
    return f"((hash(rid, {seed}) % 1000000) / 1000000.0)"


def generate_sql(start, stop):
    """The rows ``start .. stop - 1`` (a DuckDB SELECT, deterministic in ``rid``)."""
    logit = ("-1.2 + 0.55 * (income_band - 2) + 0.45 * (edu - 2) - 0.6 * (age_band = 0)::INT"
             " + CASE region WHEN 'north' THEN 0.3 WHEN 'east' THEN -0.2 WHEN 'west' THEN 0.4"
             " WHEN 'centre' THEN -0.4 ELSE 0.0 END")
    return f"""
        SELECT rid, sex, region, edu, income_band, age_band, colour,
               (fair AND NOT (region IN ('north', 'east') AND sex = 'female'
                              AND {_uniform(7)} < 0.5))::TINYINT AS approved
        FROM (
            SELECT *, {_uniform(6)} < 1 / (1 + exp(-({logit}))) AS fair
            FROM (
                SELECT rid,
                       CASE WHEN {_uniform(1)} < 0.45 THEN 'female' ELSE 'male' END AS sex,
                       ['north', 'east', 'south', 'west', 'centre'][(1 + hash(rid, 2) % 5)::BIGINT]
                           AS region,
                       (hash(rid, 3) % 5)::TINYINT AS edu,
                       (hash(rid, 4) % 5)::TINYINT AS income_band,
                       (hash(rid, 5) % 3)::TINYINT AS age_band,
                       ['red', 'green', 'blue'][(1 + hash(rid, 8) % 3)::BIGINT] AS colour
                FROM range({int(start)}, {int(stop)}) t(rid)))
    """


def write_parts(folder, rows):
    """The Parquet parts of ``rows`` rows in ``folder`` (written once, in chunks)."""
    import duckdb

    folder.mkdir(parents=True, exist_ok=True)
    done = folder / f"rows_{int(rows)}.done"
    pattern = str(folder / "part-*.parquet")
    if done.exists():
        return pattern
    for old in folder.glob("part-*.parquet"):
        old.unlink()
    for i, start in enumerate(range(0, int(rows), PART)):
        stop = min(int(rows), start + PART)
        duckdb.sql(f"COPY ({generate_sql(start, stop)}) TO "
                   f"'{folder / f'part-{i:04d}.parquet'}' (FORMAT parquet)")
    done.write_text("ok")
    return pattern


def child(task, pattern):
    """One measurement in this process: (seconds, peak RSS bytes, a check value)."""
    import duckdb

    from skfair_manifold.situation_testing import SituationTestingAuditor, cell_verdicts

    relation = duckdb.read_parquet(pattern)
    start = time.perf_counter()
    if task == "bare":
        check = len(duckdb.sql(f"SELECT {', '.join(KEYS)}, count(*) FROM "
                               f"read_parquet('{pattern}') GROUP BY ALL").fetchall())
    elif task == "fit":
        auditor = SituationTestingAuditor(**SETTINGS).fit(relation, "approved")
        check = list(auditor.q_)
    elif task == "flag":
        # a frame object other than the fitted one: flag counts its cells (one GROUP BY)
        auditor = SituationTestingAuditor(**SETTINGS).fit(duckdb.read_parquet(pattern),
                                                          "approved")
        start = time.perf_counter()
        flagged = auditor.flag(relation, "approved")  # lazy: returned, not read
        seconds = time.perf_counter() - start
        table = cell_verdicts(auditor, relation, "approved")  # not timed: the check
        check = [int(table.loc[table["flagged"], "n_people"].sum()),
                 int(table["n_people"].sum()), type(flagged).__name__]
    elif task == "audit":
        # fit then flag the same frame object: the cells counted once (one GROUP BY)
        auditor = SituationTestingAuditor(**SETTINGS).fit(relation, "approved")
        flagged = auditor.flag(relation, "approved")  # lazy: returned, not read
        table = cell_verdicts(auditor, relation, "approved")
        check = [int(table.loc[table["flagged"], "n_people"].sum()),
                 int(table["n_people"].sum()), type(flagged).__name__]
    else:
        raise ValueError(task)
    if task != "flag":
        seconds = time.perf_counter() - start
    # this process's own peak: VmHWM (ru_maxrss keeps the parent's at fork across exec)
    peak = _status("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"seconds": seconds, "peak": peak, "check": check}))


def _status(field):
    """A field of /proc/self/status in bytes (Linux), or None."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def flags_check(folder, pattern, sample_rows):
    """In-memory flags against the frame path's on the first ``sample_rows`` rows."""
    import duckdb
    import numpy as np

    from skfair_manifold.situation_testing import SituationTestingAuditor

    sample = folder / f"sample_{int(sample_rows)}.parquet"
    if not sample.exists():
        duckdb.sql(f"COPY (SELECT * FROM read_parquet('{pattern}') WHERE rid < "
                   f"{int(sample_rows)} ORDER BY rid) TO '{sample}' (FORMAT parquet)")
    frame = duckdb.read_parquet(str(sample)).df().sort_values("rid").reset_index(drop=True)
    X = frame[["sex", *Q, "colour"]]
    y = frame["approved"].to_numpy()
    t0 = time.perf_counter()
    memory = SituationTestingAuditor(**SETTINGS).fit(X, y)
    want = np.sort(frame["rid"].to_numpy()[memory.flag(X, y)])
    t_memory = time.perf_counter() - t0
    t0 = time.perf_counter()
    relation = duckdb.read_parquet(str(sample))
    lazy = SituationTestingAuditor(**SETTINGS).fit(relation, "approved")
    got = np.sort(lazy.flag(relation, "approved").filter("flagged").select("rid")
                  .fetchnumpy()["rid"])
    t_lazy = time.perf_counter() - t0
    n_candidates = int(((frame["sex"] == "female") & (frame["approved"] == 0)).sum())
    return {"rows": len(frame), "candidates": n_candidates, "flagged_memory": len(want),
            "flagged_lazy": len(got), "identical": bool(np.array_equal(want, got)),
            "seconds_memory": t_memory, "seconds_lazy": t_lazy}


def structure_check(folder, sample_rows, sizes, seeds):
    """Q learned on samples of the first ``sample_rows`` rows against Q learned on them all.

    The frame path without a graph learns the parents in memory on a sample
    of ``STRUCTURE_SAMPLE`` rows drawn by the engine; this counts, per sample
    size, the seeds whose Q equals the in-memory search's on every row.
    """
    import duckdb

    from skfair_manifold.situation_testing import SituationTestingAuditor
    from skfair_manifold.situation_testing._testing import structure_sample

    sample = folder / f"sample_{int(sample_rows)}.parquet"
    columns = "sex, region, edu, income_band, age_band, colour, approved"
    frame = duckdb.read_parquet(str(sample)).select(columns).df()
    base = dict(protected="sex", protected_value="female")
    X, y = frame.drop(columns=["approved"]), frame["approved"].to_numpy()
    want = SituationTestingAuditor(**base).fit(X, y).q_
    out = {"rows": len(frame), "q_all_rows": want}
    for size in sizes:
        found = []
        with structure_sample(size):
            for seed in range(seeds):
                relation = duckdb.read_parquet(str(sample)).select(columns)
                found.append(SituationTestingAuditor(random_state=seed, **base)
                             .fit(relation, "approved").q_)
        extra = sorted({c for q in found for c in q if c not in want})
        missed = sorted({c for c in want for q in found if c not in q})
        out[int(size)] = {"same": sum(q == want for q in found), "seeds": seeds,
                          "extra": extra, "missed": missed}
    return out


def measure(task, pattern, repeats):
    return best_child_run(__spec__.name, ["--child", task, "--pattern", pattern], repeats)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e8)
    parser.add_argument("--sample-rows", type=float, default=1e6)
    parser.add_argument("--dir", default="/tmp/bench_audit_lazy")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--output", default=None,
                        help="also write the results (markdown) to this file")
    parser.add_argument("--structure-seeds", type=int, default=10,
                        help="samples per size of the structure check (0: skip it)")
    parser.add_argument("--child", default=None)
    parser.add_argument("--pattern", default=None)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.pattern)
    folder = Path(args.dir).resolve() / f"rows_{int(args.rows)}"
    t0 = time.perf_counter()
    pattern = write_parts(folder, args.rows)
    written = time.perf_counter() - t0
    results = {task: measure(task, pattern, args.repeats)
               for task in ("bare", "fit", "flag", "audit")}
    flags = flags_check(folder, pattern, min(args.sample_rows, args.rows))
    structure = structure_check(folder, min(args.sample_rows, args.rows),
                                (50_000, 200_000), args.structure_seeds) \
        if args.structure_seeds else None
    gib = 2 ** 30
    bare = results["bare"]["seconds"]
    lines = [
        f"# CBN-DD through DuckDB on {int(args.rows):,} rows of Parquet",
        "",
        f"Command: `flock /tmp/bench.lock python -m benchmarks.bench_audit_lazy --rows "
        f"{args.rows:g}` (data written or found in {written:.1f} s; best of "
        f"{args.repeats} runs, each in its own process; {os.cpu_count()} cores).",
        "",
        f"Flags on the first {flags['rows']:,} rows: in memory {flags['flagged_memory']:,}, "
        f"frame path {flags['flagged_lazy']:,} of {flags['candidates']:,} candidates; "
        f"identical row ids: {flags['identical']} (in memory {flags['seconds_memory']:.1f} s, "
        f"frame path {flags['seconds_lazy']:.1f} s).",
        "",
        "| step | seconds | x bare GROUP BY | peak RSS (GiB) | check |",
        "|---|---|---|---|---|",
    ]
    for task, result in results.items():
        lines.append(f"| {task} | {result['seconds']:.2f} | {result['seconds'] / bare:.2f} | "
                     f"{result['peak'] / gib:.2f} | {result['check']} |")
    audit = results["audit"]
    lines += ["", f"Targets: audit (fit + flag) {audit['seconds'] / bare:.2f}x the bare "
              f"GROUP BY (target <= 2), peak {audit['peak'] / gib:.2f} GiB (target <= 1.5)."]
    if structure is not None:
        lines += ["", f"Structure without a graph, learned on samples of the first "
                  f"{structure['rows']:,} rows (the in-memory search on all of them: Q = "
                  f"{structure['q_all_rows']}):", "",
                  "| sample rows | same Q | columns added | columns missed |",
                  "|---|---|---|---|"]
        for size, found in structure.items():
            if isinstance(size, int):
                lines.append(f"| {size:,} | {found['same']} of {found['seeds']} | "
                             f"{found['extra'] or '-'} | {found['missed'] or '-'} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
