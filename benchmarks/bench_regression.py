"""The continuous report's cost: against fairlearn's MetricFrame in memory, and on Parquet.

Two pairs, each measurement in its own Python process (best of ``--repeats``):

- in memory, ``--memory-rows`` rows (default 1e6) of a wage-like target and
  prediction with two sensitive attributes (2 and 5 groups):
  ``fairness_report(y, p, sensitive_features=A)`` (the continuous report:
  means, errors, t intervals, gaps, KS and Wasserstein distances) against
  fairlearn's ``MetricFrame`` with the same per-group numbers (mean
  prediction, mean target, mean absolute and squared error), one frame per
  attribute as the report has them;
- on a Parquet file of ``--rows`` rows (default 1e8), written once by DuckDB:
  ``fairness_report("y", "p", data=duckdb.read_parquet(...),
  target_type="continuous")`` against the bare ``GROUP BY`` of the same
  sums (the count, the sums of the weights... here none, and for each of the
  five quantities its sum and the sum of its square): the time ratio of the
  report's own aggregates (its GROUP BY, the KS passes left out; target <=
  1.3), and of the whole report with the exact KS distance (its passes
  counted).

Run it under the benchmarks' lock, one timed run at a time::

    flock /tmp/bench.lock python -m benchmarks.bench_regression [--rows 1e8] [--dir /tmp]
"""

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

from ._io import best_child_run

SENSITIVE = ["s1", "s2"]
_TERMS = ["p", "y", "abs(p - y)", "(p - y) * (p - y)", "p - y"]
BARE_SQL = ("SELECT s1, s2, count(*) AS n, "
            + ", ".join(f"sum({t}) AS a{k}, sum(({t}) * ({t})) AS b{k}"
                        for k, t in enumerate(_TERMS))
            + " FROM read_parquet('{path}') GROUP BY ALL")


def write_file(path, rows):
    """Two sensitive columns and a wage-like target and prediction, written by DuckDB."""
    import duckdb

    duckdb.sql(f"""
        COPY (
            SELECT s1, s2, y,
                   y * (1 - 0.1 * s1) * exp(0.08 * ((hash(i, 7) % 2001) / 1000.0 - 1)) AS p
            FROM (SELECT i, (hash(i, 1) % 2)::TINYINT AS s1, (hash(i, 2) % 5)::TINYINT AS s2,
                         30000 * exp(0.35 * ((hash(i, 3) % 2001) / 1000.0 - 1)) AS y
                  FROM range({int(rows)}) t(i))
        ) TO '{path}' (FORMAT parquet, COMPRESSION zstd)
    """)


def memory_data(rows, seed=0):
    import numpy as np

    rng = np.random.default_rng(seed)
    s1 = rng.integers(0, 2, rows)
    s2 = rng.integers(0, 5, rows)
    y = rng.lognormal(10.3, 0.35, rows)
    p = y * np.where(s1 == 1, 0.9, 1.0) * rng.lognormal(0, 0.08, rows)
    return y, p, np.column_stack([s1, s2])


def child(task, path, rows):
    """One measurement in this process: (seconds, peak RSS bytes, a check value)."""
    import duckdb  # noqa: F401 - imports are not timed
    import narwhals  # noqa: F401
    import numpy as np
    import pandas as pd

    from skfair_manifold.metrics import fairness_report

    if task.startswith("memory"):
        y, p, A = memory_data(rows)
        frame = pd.DataFrame(A, columns=SENSITIVE)
        if task == "memory-metricframe":
            from fairlearn.metrics import MetricFrame
            from sklearn.metrics import mean_absolute_error, mean_squared_error
    start = time.perf_counter()
    if task == "duckdb-bare":
        import duckdb

        check = len(duckdb.sql(BARE_SQL.format(path=path)).fetchall())
    elif task in ("duckdb-report", "duckdb-moments"):
        from contextlib import nullcontext

        import duckdb

        from skfair_manifold.metrics._testing import ks_distance_skipped, ks_passes

        # duckdb-moments: the moments' GROUP BY alone, no KS passes
        skipped = ks_distance_skipped() if task == "duckdb-moments" else nullcontext()
        with ks_passes() as passes, skipped:
            report = fairness_report("y", "p", sensitive_features=SENSITIVE,
                                     data=duckdb.read_parquet(str(path)),
                                     target_type="continuous")
        check = [float(report.gaps.loc["s1", "mean_prediction_difference"]),
                 float(report.gaps.loc["s1", "ks_distance"]), len(passes)]
    elif task == "memory-report":
        report = fairness_report(y, p, sensitive_features=frame)
        check = float(report.by_group.loc[("s1", 1), "mean_absolute_error"])
    elif task == "memory-metricframe":
        metrics = {"mean_prediction": lambda t, q: float(np.mean(q)),
                   "mean_target": lambda t, q: float(np.mean(t)),
                   "mae": mean_absolute_error, "mse": mean_squared_error}
        frames = [MetricFrame(metrics=metrics, y_true=y, y_pred=p,
                              sensitive_features=frame[c]) for c in SENSITIVE]
        check = float(frames[0].by_group.loc[1, "mae"])
    else:
        raise ValueError(task)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    print(json.dumps({"seconds": seconds, "peak": peak, "check": check}))


def measure(task, path, rows, repeats):
    return best_child_run(__spec__.name, ["--child", task, "--file", path, "--rows", rows],
                          repeats)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e8, help="rows of the Parquet file")
    parser.add_argument("--memory-rows", type=float, default=1e6,
                        help="rows of the in-memory pair")
    parser.add_argument("--dir", type=Path, default=Path("/tmp"),
                        help="where the Parquet file is written (kept for the next run)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-parquet", action="store_true")
    parser.add_argument("--remove-file", action="store_true",
                        help="delete the Parquet file at the end")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.file, int(args.rows))
        return 0
    m = int(args.memory_rows)
    print(f"{os.cpu_count()} cores; best of {args.repeats}")
    mf = measure("memory-metricframe", args.dir.resolve(), m, args.repeats)
    report = measure("memory-report", args.dir.resolve(), m, args.repeats)
    print(f"in memory, {m:,} rows, 2 attributes (2 and 5 groups): MetricFrame "
          f"{mf['seconds']:.2f} s, fairness_report {report['seconds']:.2f} s, ratio "
          f"{report['seconds'] / mf['seconds']:.2f} (MAE of s1=1: {mf['check']:.6f} / "
          f"{report['check']:.6f})")
    if args.skip_parquet:
        return 0
    import duckdb

    rows = int(args.rows)
    path = args.dir.resolve() / f"skfm_bench_regression_{rows}.parquet"
    if not path.exists():
        start = time.perf_counter()
        write_file(path, rows)
        print(f"wrote {path} ({path.stat().st_size / 2**20:.0f} MiB) in "
              f"{time.perf_counter() - start:.1f} s")
    bare = measure("duckdb-bare", path, rows, args.repeats)
    moments = measure("duckdb-moments", path, rows, args.repeats)
    lazy = measure("duckdb-report", path, rows, args.repeats)
    gib = 2 ** 30
    print(f"Parquet through DuckDB {duckdb.__version__}, {rows:,} rows "
          f"({path.stat().st_size / 2**20:.0f} MiB): bare GROUP BY {bare['seconds']:.2f} s, "
          f"the report's aggregates (its GROUP BY, no KS) {moments['seconds']:.2f} s, ratio "
          f"{moments['seconds'] / bare['seconds']:.2f} (target <= 1.3); the whole "
          f"fairness_report with the exact KS distance ({lazy['check'][2]} passes more, KS "
          f"of s1 {lazy['check'][1]:.6f}) {lazy['seconds']:.2f} s, ratio "
          f"{lazy['seconds'] / bare['seconds']:.2f}; report peak {lazy['peak'] / gib:.2f} GiB")
    if args.remove_file:
        path.unlink()
        print(f"removed {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
