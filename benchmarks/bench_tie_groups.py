"""Tie groups of thousands of identical records: the report and the lazy flag against flag.

Data: ``--rows`` rows (default 1e5 and 1e6) of 20 distinct records over three
columns ``a``, ``b``, ``c`` (values 0..2, drawn once with seed 0), each row
one of them at random, a protected column ``sex`` (0/1) and a decision
``y`` drawn at 0.5 for everyone: nobody is discriminated, and every person's
testers are tie groups of thousands of records (``k="auto"``, CBN-DD on the
given graph), so that each side counts thousands of effective testers.

Side by side, in one process, best of ``--repeats``:

- ``flag``: the in-memory ``flag(X, y)`` on pandas (the reference);
- ``report``: the in-memory ``report(X, y)``, which states the smallest
  detectable gap of every candidate (the part that was quadratic in the
  testers of a tie group);
- ``lazy flag``: ``flag(relation, "y")`` on a DuckDB relation over a Parquet
  file of the same rows (fitted on that relation), the count of flagged rows
  read from the lazy result (so that the engine runs it);
- ``cli audit``: ``skfair-manifold audit FILE.parquet`` in its own process
  (wall time, interpreter start included; not a ratio target).

Each call is timed after one call of the same kind (a fresh auditor fitted
for each repeat, so that no cache of rates is reused). Printed: the seconds
and the ratios ``report / flag`` (target at most 10) and ``lazy flag /
flag`` (target at most 3). The Parquet files go to ``--dir`` (default
/tmp/bench_tie_groups; never in the repository).

Run it under the benchmarks' lock::

    flock /tmp/bench.lock python -m benchmarks.bench_tie_groups [--rows 1e5 1e6]
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from ._io import REPO, child_env, machine, markdown_table, write_result

GRAPH = ["a", "b", "c", "sex"]
SETTINGS = dict(protected="sex", protected_value=1, k="auto", graph=GRAPH)


def tie_rows(n, seed=0):
    """``n`` rows of 20 distinct records, ``sex`` and a decision at 0.5 (pandas)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    records = rng.integers(0, 3, (20, 3))
    X = pd.DataFrame(records[rng.integers(0, 20, n)], columns=["a", "b", "c"])
    X["sex"] = rng.integers(0, 2, n)
    return X, (rng.random(n) < 0.5).astype(np.int64)


def _timed(func):
    start = time.perf_counter()
    value = func()
    return time.perf_counter() - start, value


def measure(n, folder, repeats):
    """The seconds of each call at ``n`` rows (best of ``repeats``) and the flags' counts."""
    import duckdb

    from skfair_manifold import SituationTestingAuditor

    X, y = tie_rows(n)
    path = folder / f"ties_{n}.parquet"
    if not path.exists():
        X.assign(y=y).to_parquet(path)
    best = {"flag": np.inf, "report": np.inf, "lazy flag": np.inf}
    counts = {}
    for _ in range(repeats):
        memory = SituationTestingAuditor(**SETTINGS).fit(X, y)
        seconds, flags = _timed(lambda: memory.flag(X, y))
        best["flag"] = min(best["flag"], seconds)
        counts["flag"] = int(flags.sum())
        memory = SituationTestingAuditor(**SETTINGS).fit(X, y)
        seconds, report = _timed(lambda: memory.report(X, y))
        best["report"] = min(best["report"], seconds)
        counts["report"] = len(report)
        counts["gaps"] = int(np.isfinite(report.audit["detectable_gap"]).sum())
        relation = duckdb.read_parquet(str(path))
        lazy = SituationTestingAuditor(**SETTINGS).fit(relation, "y")

        def lazy_flag():
            out = lazy.flag(relation, "y")
            return out.filter("flagged").aggregate("count(*)").fetchall()[0][0]
        seconds, flagged = _timed(lazy_flag)
        best["lazy flag"] = min(best["lazy flag"], seconds)
        counts["lazy flag"] = int(flagged)
    graph = folder / "graph.json"
    graph.write_text(json.dumps(GRAPH))
    command = [sys.executable, "-m", "skfair_manifold", "audit", str(path), "--decision", "y",
               "--positive-label", "1", "--protected", "sex", "--protected-value", "1",
               "--graph", str(graph), "-k", "auto", "--quiet", "-o", str(folder / "cells.csv")]
    seconds, proc = _timed(lambda: subprocess.run(command, cwd=REPO, env=child_env(),
                                                  capture_output=True, text=True))
    best["cli audit"] = seconds if proc.returncode == 0 else np.nan
    return best, counts, proc


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, nargs="+", default=[1e5, 1e6])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/bench_tie_groups"))
    parser.add_argument("--results-dir", type=Path, default=None,
                        help="where to write bench_tie_groups.md (default: benchmarks/results)")
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    rows, failed = [], []
    for n in (int(r) for r in args.rows):
        best, counts, proc = measure(n, args.dir, args.repeats)
        if proc.returncode != 0:
            failed.append(f"cli audit at {n:,} rows: exit {proc.returncode}: "
                          f"{proc.stderr.strip()[-300:]}")
        if not counts["flag"] == counts["lazy flag"] == counts["report"]:
            failed.append(f"{n:,} rows: flagged {counts}")
        rows.append([f"{n:,}", f"{best['flag']:.2f}", f"{best['report']:.2f}",
                     f"{best['lazy flag']:.3f}", f"{best['cli audit']:.1f}",
                     f"{best['report'] / best['flag']:.2f}",
                     f"{best['lazy flag'] / best['flag']:.3f}", counts["flag"],
                     counts["gaps"]])
    table = markdown_table(["rows", "flag s", "report s", "lazy flag s", "cli audit s",
                            "report / flag", "lazy flag / flag", "flagged", "gaps stated"],
                           rows)
    shown = " ".join(f"{r:g}" for r in args.rows)
    text = (f"$ flock /tmp/bench.lock python -m benchmarks.bench_tie_groups --rows {shown} "
            f"--repeats {args.repeats}\n\n{machine()}\n\n{table}\n\n"
            "Targets: report / flag at most 10, lazy flag / flag at most 3 (best of "
            f"{args.repeats}, measured side by side in one process).\n")
    ok = all(float(r[5]) <= 10 and float(r[6]) <= 3 for r in rows)
    text += f"\n{'every ratio within its target' if ok else 'A RATIO IS OVER ITS TARGET'}\n"
    if failed:
        text += "\n" + "\n".join(failed) + "\n"
    write_result("bench_tie_groups", text,
                 **({} if args.results_dir is None else {"results_dir": args.results_dir}))
    return 0 if ok and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
