"""``fairness_report`` on a Parquet file through DuckDB and polars lazy, against the bare GROUP BY.

A Parquet file of ``--rows`` rows (default 1e8) is written once by DuckDB
(five small integer columns: three sensitive attributes of 2, 5 and 8 values,
the true label and the prediction). Each measurement runs in its own Python
process, so that its peak resident memory (``ru_maxrss``) is its own; the
best of ``--repeats`` runs is kept. Printed side by side:

- DuckDB: the bare ``SELECT s1, s2, s3, y, p, count(*) ... GROUP BY ALL`` over
  the file, and ``fairness_report(..., data=<the DuckDB relation>)``: their
  time ratio (target <= 1.3) and the report's peak memory (target <= 1.5 GiB);
- polars lazy: the same pair with ``pl.scan_parquet``;
- the in-memory path at ``--memory-rows`` (default 1e7) for scale: the columns
  read into numpy first (not timed), then ``fairness_report`` on the arrays.

Run it under the benchmarks' lock, one timed run at a time::

    flock /tmp/bench.lock python benchmarks/bench_lazy.py [--rows 1e8] [--dir /tmp]
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

SENSITIVE = ["s1", "s2", "s3"]
BARE_SQL = ("SELECT s1, s2, s3, y, p, count(*) AS n FROM read_parquet('{path}') "
            "GROUP BY ALL")


def write_file(path, rows):
    """Five small integer columns, written by DuckDB (labels depend on s1 and s3)."""
    import duckdb

    query = f"""
        COPY (
            SELECT s1, s2, s3,
                   (hash(i, 11) % 1000 < 350 + 150 * s1::INTEGER)::TINYINT AS y,
                   (hash(i, 13) % 1000 < 300 + 150 * s1::INTEGER + 20 * s3::INTEGER)::TINYINT AS p
            FROM (SELECT i, (hash(i, 1) % 2)::TINYINT AS s1, (hash(i, 2) % 5)::TINYINT AS s2,
                         (hash(i, 3) % 8)::TINYINT AS s3
                  FROM range({int(rows)}) t(i))
        ) TO '{path}' (FORMAT parquet, COMPRESSION zstd)
    """
    duckdb.sql(query)


def child(task, path, rows):
    """One measurement in this process: (seconds, peak RSS bytes, a check value)."""
    import numpy as np

    from skfair_manifold.metrics import fairness_report

    if task.startswith("polars"):
        import polars  # noqa: F401 - imports are not timed
    import duckdb  # noqa: F401
    import narwhals  # noqa: F401

    start = time.perf_counter()
    check = None
    if task == "duckdb-bare":
        import duckdb

        check = len(duckdb.sql(BARE_SQL.format(path=path)).fetchall())
    elif task == "duckdb-report":
        import duckdb

        report = fairness_report("y", "p", sensitive_features=SENSITIVE,
                                 data=duckdb.read_parquet(str(path)))
        check = float(report.gaps.iloc[-1]["demographic_parity_difference"])
    elif task == "polars-bare":
        import polars as pl

        check = pl.scan_parquet(path).group_by([*SENSITIVE, "y", "p"]).agg(
            pl.len()).collect().shape[0]
    elif task == "polars-report":
        import polars as pl

        report = fairness_report("y", "p", sensitive_features=SENSITIVE,
                                 data=pl.scan_parquet(path))
        check = float(report.gaps.iloc[-1]["demographic_parity_difference"])
    elif task == "memory-report":
        import duckdb

        columns = duckdb.sql(f"SELECT * FROM read_parquet('{path}') LIMIT {int(rows)}"
                             ).fetchnumpy()
        arrays = {name: np.asarray(columns[name]) for name in [*SENSITIVE, "y", "p"]}
        A = np.column_stack([arrays[name] for name in SENSITIVE])
        input_bytes = sum(a.nbytes for a in arrays.values())
        start = time.perf_counter()  # the report alone
        report = fairness_report(arrays["y"], arrays["p"], sensitive_features=A)
        check = [float(report.gaps.iloc[-1]["demographic_parity_difference"]), input_bytes]
    elif task == "memory-bare":
        import duckdb

        check = len(duckdb.sql(f"SELECT s1, s2, s3, y, p, count(*) FROM (SELECT * FROM "
                               f"read_parquet('{path}') LIMIT {int(rows)}) GROUP BY ALL"
                               ).fetchall())
    else:
        raise ValueError(task)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    print(json.dumps({"seconds": seconds, "peak": peak, "check": check}))


def measure(task, path, rows, repeats):
    best = None
    for _ in range(repeats):
        out = subprocess.run([sys.executable, __file__, "--child", task, "--file", str(path),
                              "--rows", str(rows)], check=True, capture_output=True,
                             text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
        result = json.loads(out.stdout.strip().splitlines()[-1])
        if best is None or result["seconds"] < best["seconds"]:
            best = result
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e8, help="rows of the Parquet file")
    parser.add_argument("--memory-rows", type=float, default=1e7,
                        help="rows of the in-memory run (the file's first rows)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp"),
                        help="where the Parquet file is written (kept for the next run)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-polars", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    rows = int(args.rows)
    if args.child:
        child(args.child, args.file, rows)
        return 0
    import duckdb

    path = args.dir / f"skfm_bench_lazy_{rows}.parquet"
    if not path.exists():
        start = time.perf_counter()
        write_file(path, rows)
        print(f"wrote {path} ({path.stat().st_size / 2**20:.0f} MiB) in "
              f"{time.perf_counter() - start:.1f} s")
    print(f"{rows:,} rows, {path.stat().st_size / 2**20:.0f} MiB of Parquet; "
          f"DuckDB {duckdb.__version__}, {os.cpu_count()} cores; best of {args.repeats}")
    gib = 2 ** 30
    pairs = [("DuckDB", "duckdb-bare", "duckdb-report", rows)]
    if not args.skip_polars:
        pairs.append(("polars lazy", "polars-bare", "polars-report", rows))
    print(f"{'engine':<14}{'rows':>14}{'bare s':>9}{'report s':>10}{'ratio':>7}"
          f"{'report peak':>13}{'bare peak':>11}")
    for engine, bare_task, report_task, n in pairs:
        bare = measure(bare_task, path, n, args.repeats)
        report = measure(report_task, path, n, args.repeats)
        ratio = report["seconds"] / bare["seconds"]
        print(f"{engine:<14}{n:>14,}{bare['seconds']:>9.2f}{report['seconds']:>10.2f}"
              f"{ratio:>7.2f}{report['peak'] / gib:>10.2f} GiB{bare['peak'] / gib:>7.2f} GiB"
              f"   (targets: ratio <= 1.3, peak <= 1.5 GiB; DP gap {report['check']:.4f})")
    m = int(args.memory_rows)
    bare = measure("memory-bare", path, m, args.repeats)
    report = measure("memory-report", path, m, args.repeats)
    dp, input_bytes = report["check"]
    print(f"{'in memory':<14}{m:>14,}{bare['seconds']:>9.2f}{report['seconds']:>10.2f}"
          f"{report['seconds'] / bare['seconds']:>7.2f}{report['peak'] / gib:>10.2f} GiB"
          f"{bare['peak'] / gib:>7.2f} GiB   (numpy arrays; input columns "
          f"{input_bytes / 2**20:.0f} MiB; bare = DuckDB's GROUP BY of the same rows; "
          f"DP gap {dp:.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
