"""The bias audit of a Parquet file through DuckDB, against the bare GROUP BY of its columns.

Data: ``--rows`` rows (default 1e8) of applicants: ``sex`` (about 3% null),
``race`` (five categories and about 5% ``'Unknown'``), ``hired`` (0/1,
less often for women) and ``score`` (a number). DuckDB's SQL writes them from
``hash(rid, seed)`` in parts of at most 1e7 rows into ``--dir`` (default
/tmp/bench_bias_audit; never in the repository), once.

Each measurement runs in its own Python process (its peak resident memory is
its own); the best of ``--repeats`` is kept:

- ``bare``: DuckDB's ``SELECT sex, race, hired, count(*) ... GROUP BY ALL``;
- ``audit``: ``bias_audit("hired", sensitive_features=["sex", "race"],
  data=relation, unknown="Unknown")``: the whole audit (its one GROUP BY, the
  bounds, intervals and table);
- ``median``: DuckDB's exact ``median(score)`` (the scoring rate's first pass);
- ``bare_score``: ``SELECT sex, race, score > m, count(*) ... GROUP BY ALL``;
- ``audit_score``: ``bias_audit(y_score="score", ...)``: its median pass and
  its GROUP BY.

Targets: ``audit`` within 1.3x ``bare``; the scoring audit is stated beside
its median pass and its GROUP BY.

Run it under the benchmarks' lock::

    flock /tmp/bench.lock python -m benchmarks.bench_bias_audit [--rows 1e8]
"""

import argparse
import json
import resource
import time
from pathlib import Path

from ._io import best_child_run, write_result

PART = 10_000_000


def _uniform(seed):
    return f"((hash(rid, {seed}) % 1000000) / 1000000.0)"


def generate_sql(start, stop):
    """The rows ``start .. stop - 1`` (a DuckDB SELECT, deterministic in ``rid``)."""
    return f"""
        SELECT CASE WHEN {_uniform(1)} < 0.03 THEN NULL
                    WHEN {_uniform(2)} < 0.5 THEN 'female' ELSE 'male' END AS sex,
               CASE WHEN {_uniform(3)} < 0.05 THEN 'Unknown'
                    ELSE ['Asian', 'Black', 'Hispanic', 'White', 'Two or more']
                         [(1 + hash(rid, 4) % 5)::BIGINT] END AS race,
               ({_uniform(5)} < CASE WHEN {_uniform(2)} < 0.5 THEN 0.25 ELSE 0.30 END)::TINYINT
                   AS hired,
               {_uniform(6)} + 0.2 * ({_uniform(5)} < 0.3)::INT AS score
        FROM range({int(start)}, {int(stop)}) t(rid)
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
    for old in folder.glob("rows_*.done"):
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

    from skfair_manifold.metrics import bias_audit

    relation = duckdb.read_parquet(pattern)
    source = f"read_parquet('{pattern}')"
    start = time.perf_counter()
    if task == "bare":
        check = len(duckdb.sql(f"SELECT sex, race, hired, count(*) FROM {source} "
                               f"GROUP BY ALL").fetchall())
    elif task == "audit":
        audit = bias_audit("hired", sensitive_features=["sex", "race"], data=relation,
                           unknown="Unknown")
        check = [len(audit.table), float(audit.unknown["sex"])]
    elif task == "median":
        check = duckdb.sql(f"SELECT median(score) FROM {source}").fetchall()[0][0]
    elif task == "bare_score":
        median = duckdb.sql(f"SELECT median(score) FROM {source}").fetchall()[0][0]
        start = time.perf_counter()  # the GROUP BY alone
        check = len(duckdb.sql(f"SELECT sex, race, score > {median!r}, count(*) FROM "
                               f"{source} GROUP BY ALL").fetchall())
    elif task == "audit_score":
        audit = bias_audit(y_score="score", sensitive_features=["sex", "race"],
                           data=relation, unknown="Unknown")
        check = [len(audit.table), audit.options["median"]]
    else:
        raise ValueError(task)
    seconds = time.perf_counter() - start
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e8)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/bench_bias_audit"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--results-dir", type=Path, default=None,
                        help="where the table is written (default: benchmarks/results)")
    parser.add_argument("--child", nargs=2, metavar=("TASK", "PATTERN"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(*args.child)
    rows = int(args.rows)
    pattern = write_parts(args.dir.resolve(), rows)
    results = {task: best_child_run("benchmarks.bench_bias_audit",
                                    ["--child", task, pattern], args.repeats)
               for task in ("bare", "audit", "median", "bare_score", "audit_score")}
    lines = [f"Bias audit of {rows:.0e} Parquet rows through DuckDB (best of {args.repeats}, "
             f"each in its own process)", "",
             "| measurement | seconds | peak memory (GiB) |", "|---|---|---|"]
    for task, r in results.items():
        lines.append(f"| {task} | {r['seconds']:.2f} | {r['peak'] / 2 ** 30:.2f} |")
    ratio = results["audit"]["seconds"] / results["bare"]["seconds"]
    score_bare = results["median"]["seconds"] + results["bare_score"]["seconds"]
    lines += ["", f"decisions: audit / bare GROUP BY = {ratio:.2f}x (target: at most 1.3x)",
              f"scores: audit {results['audit_score']['seconds']:.2f} s = its median pass "
              f"{results['median']['seconds']:.2f} s + its GROUP BY "
              f"{results['bare_score']['seconds']:.2f} s ({score_bare:.2f} s bare, "
              f"{results['audit_score']['seconds'] / score_bare:.2f}x)"]
    kwargs = {} if args.results_dir is None else {"results_dir": args.results_dir}
    write_result("bench_bias_audit", "\n".join(lines), **kwargs)


if __name__ == "__main__":
    main()
