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
- the in-memory path at ``--memory-rows`` (default 1e8): the file's first rows
  read into numpy int8 columns first (not timed), then ``fairness_report`` on
  the arrays, beside DuckDB's GROUP BY of the same in-memory columns (a pyarrow
  table over the same buffers, registered in DuckDB): their time ratio
  (target <= 3) and the memory the call adds above the resident inputs
  (target <= 2x the input columns), read from ``/proc/self/status`` after
  resetting the peak (``/proc/self/clear_refs``).

``--skip-polars --skip-memory --remove-file`` runs the DuckDB pair alone, for
the 1e9-row file (586 MiB, written in about 2.5 minutes).

Run it under the benchmarks' lock, one timed run at a time::

    flock /tmp/bench.lock python -m benchmarks.bench_lazy [--rows 1e8] [--dir /tmp]
"""

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

from ._io import best_child_run

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
        arrays = memory_columns(path, rows)
        A = np.column_stack([arrays[name] for name in SENSITIVE])
        inputs = [A, arrays["y"], arrays["p"]]
        del arrays
        baseline = reset_peak()
        start = time.perf_counter()  # the report alone
        report = fairness_report(inputs[1], inputs[2], sensitive_features=inputs[0])
        seconds = time.perf_counter() - start
        check = [float(report.gaps.iloc[-1]["demographic_parity_difference"]),
                 sum(a.nbytes for a in inputs), peak_since(baseline)]
    elif task == "memory-bare":
        import duckdb
        import pyarrow as pa

        table = pa.table(memory_columns(path, rows))  # no copy of the numpy columns
        connection = duckdb.connect()
        connection.register("rows_in_memory", table)
        query = "SELECT s1, s2, s3, y, p, count(*) FROM {} GROUP BY ALL"
        baseline = reset_peak()
        start = time.perf_counter()
        n_cells = len(connection.sql(query.format("rows_in_memory")).fetchall())
        seconds = time.perf_counter() - start
        extra = peak_since(baseline)
        # the same query on DuckDB's own copy of the columns, for reference
        connection.sql("CREATE TABLE native_rows AS SELECT * FROM rows_in_memory")
        native = time.perf_counter()
        connection.sql(query.format("native_rows")).fetchall()
        native = time.perf_counter() - native
        check = [n_cells, table.nbytes, extra, native]
    else:
        raise ValueError(task)
    if not task.startswith("memory"):
        seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    if task == "memory-report" and check[2] is not None:
        peak = _status("VmHWM")  # since the reset: the call's peak, inputs resident
    elif task == "memory-bare" and extra is not None:
        peak = extra + baseline  # the GROUP BY's peak, before the native copy
    print(json.dumps({"seconds": seconds, "peak": peak, "check": check}))


def memory_files(path, rows):
    """The ``.npy`` files of the file's first ``rows`` rows, one per column."""
    return {name: path.with_name(f"{path.stem}_first{int(rows)}_{name}.npy")
            for name in [*SENSITIVE, "y", "p"]}


def write_memory_files(path, rows):
    """Save the file's first ``rows`` rows as numpy int8 columns, once (not timed)."""
    import duckdb
    import numpy as np

    files = memory_files(path, rows)
    if all(f.exists() for f in files.values()):
        return files
    columns = duckdb.sql(f"SELECT s1, s2, s3, y, p FROM read_parquet('{path}') "
                         f"LIMIT {int(rows)}").fetchnumpy()
    for name, f in files.items():
        np.save(f, np.ascontiguousarray(columns[name]))
    return files


def memory_columns(path, rows):
    """The in-memory columns, read from their ``.npy`` files (no library's buffers kept)."""
    import numpy as np

    return {name: np.load(f) for name, f in memory_files(path, rows).items()}


def _status(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return None


def reset_peak():
    """Reset the process's peak resident memory (Linux); return the memory resident now."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        return None
    return _status("VmRSS")


def peak_since(baseline):
    """Peak resident memory since :func:`reset_peak`, above what was resident then."""
    peak = _status("VmHWM")
    return None if baseline is None or peak is None else peak - baseline


def measure(task, path, rows, repeats):
    return best_child_run(__spec__.name, ["--child", task, "--file", path, "--rows", rows],
                          repeats)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e8, help="rows of the Parquet file")
    parser.add_argument("--memory-rows", type=float, default=1e8,
                        help="rows of the in-memory run (the file's first rows)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp"),
                        help="where the Parquet file is written (kept for the next run)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-polars", action="store_true")
    parser.add_argument("--skip-memory", action="store_true",
                        help="leave out the in-memory run (for the 1e9-row file alone)")
    parser.add_argument("--memory-only", action="store_true",
                        help="only the in-memory run (the file is still written if absent)")
    parser.add_argument("--remove-file", action="store_true",
                        help="delete the Parquet file at the end (a 1e9-row file is ~0.6 GB)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    rows = int(args.rows)
    if args.child:
        child(args.child, args.file, rows)
        return 0
    import duckdb

    path = args.dir.resolve() / f"skfm_bench_lazy_{rows}.parquet"
    if not path.exists():
        start = time.perf_counter()
        write_file(path, rows)
        print(f"wrote {path} ({path.stat().st_size / 2**20:.0f} MiB) in "
              f"{time.perf_counter() - start:.1f} s")
    print(f"{rows:,} rows, {path.stat().st_size / 2**20:.0f} MiB of Parquet; "
          f"DuckDB {duckdb.__version__}, {os.cpu_count()} cores; best of {args.repeats}")
    gib = 2 ** 30
    pairs = [] if args.memory_only else [("DuckDB", "duckdb-bare", "duckdb-report", rows)]
    if not args.skip_polars and not args.memory_only:
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
    files = {}
    if not args.skip_memory:
        files = memory_run(path, int(args.memory_rows), args.repeats)
    if args.remove_file:
        for f in [path, *files.values()]:
            f.unlink()
        print(f"removed {path} (and the in-memory run's .npy files)")
    return 0


def memory_run(path, m, repeats):
    """The in-memory path on numpy int8 columns beside DuckDB's GROUP BY of the same columns
    (held as a pyarrow table over the same numpy buffers); peaks above the resident inputs."""
    mib = 2 ** 20
    files = write_memory_files(path, m)
    bare = measure("memory-bare", path, m, repeats)
    report = measure("memory-report", path, m, repeats)
    dp, input_bytes, extra = report["check"]
    _, bare_bytes, bare_extra, native = bare["check"]
    print(f"{'in memory':<14}{m:>14,}{bare['seconds']:>9.2f}{report['seconds']:>10.2f}"
          f"{report['seconds'] / bare['seconds']:>7.2f}{report['peak'] / 2**30:>10.2f} GiB"
          f"{bare['peak'] / 2**30:>7.2f} GiB   (targets: ratio <= 3, working memory <= 2x "
          f"the input columns; DP gap {dp:.4f})")
    print(f"  input columns {input_bytes / mib:.0f} MiB (numpy int8; DuckDB: a pyarrow table "
          f"of {bare_bytes / mib:.0f} MiB over the same buffers; on DuckDB's own copy of "
          f"them its GROUP BY took {native:.2f} s, ratio {report['seconds'] / native:.2f})")
    print(f"  peak above the resident inputs during the call: report {extra / mib:.0f} MiB "
          f"= {extra / input_bytes:.2f}x the input columns, DuckDB {bare_extra / mib:.0f} MiB;"
          f" the report process's peak (libraries and inputs included) "
          f"{report['peak'] / input_bytes:.2f}x the input columns")
    return files


if __name__ == "__main__":
    sys.exit(main())
