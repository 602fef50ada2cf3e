"""The full audit at 1e4, 1e5 and 1e6 rows of mixed-type records, both methods.

Data: ``make_planted_bias(n, random_state=0)``: ``sex`` (protected,
``"female"``), ``income``, ``age`` and ``noise`` (continuous), ``region`` and
``colour`` (nominal), ``edu`` (ordinal), the decision with bias planted in
two regions. The auditor at its defaults (``k=50``, or ``-k auto``; CBN-DD
learns its graph; KNN-DD takes the exact index, ``algorithm="auto"``).

Each (method, rows) runs in its own Python process, so that its peak
resident memory (``ru_maxrss``) is its own: the data made, ``fit``,
``flag`` and ``report`` (the evidence of every flagged person), each timed.
The slope is the least-squares slope of log(total time) against log(rows)
over the sizes run. Targets (2 cores): 1e6 rows in at most 10 minutes per
method, peak at most 2 GiB, slope at most 1.2.

Exactness: at ``--check-rows`` rows (default 20,000), KNN-DD's rates
(``transform``), flags and the report's testers with ``algorithm="auto"``
and ``"kd_tree"`` against ``"brute"`` (the full distance rows), in one
process, untimed.

``--no-report`` times ``fit`` and ``flag`` alone (the report's table of
testers grows with the flagged people times their K: at ``-k auto`` KNN-DD's
K reaches 400).

Run it under the benchmarks' lock::

    flock /tmp/bench.lock python -m benchmarks.bench_audit_scale [--rows 1e4 1e5 1e6]
"""

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from ._io import REPO, child_env, k_value

SETTINGS = dict(protected="sex", protected_value="female")


def child(method, n, n_jobs, k=50, report=True):
    """One audit, timed; prints a JSON line (``report`` False: fit and flag only)."""
    from skfair_manifold import SituationTestingAuditor
    from skfair_manifold.datasets import make_planted_bias

    X, y, _, _ = make_planted_bias(n, random_state=0)
    aud = SituationTestingAuditor(method=method, n_jobs=n_jobs, k=k, **SETTINGS)
    times = {}
    t = time.perf_counter()
    aud.fit(X, y)
    times["fit"] = time.perf_counter() - t
    t = time.perf_counter()
    flags = aud.flag(X, y)
    times["flag"] = time.perf_counter() - t
    reported = 0
    if report:
        t = time.perf_counter()
        reported = len(aud.report(X, y))
        times["report"] = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    print(json.dumps({"method": method, "rows": n, "report": None, **times,
                      "total": sum(times.values()), "flagged": int(flags.sum()),
                      "reported": reported, "peak_gib": peak}))


def check(n):
    """KNN-DD's index against the full distance rows, bit for bit."""
    from skfair_manifold import SituationTestingAuditor
    from skfair_manifold.datasets import make_planted_bias

    X, y, _, _ = make_planted_bias(n, random_state=1)
    got = {}
    for algorithm in ("brute", "auto", "kd_tree"):
        aud = SituationTestingAuditor(method="knn", algorithm=algorithm, **SETTINGS).fit(X, y)
        flags = aud.flag(X, y)
        rep = aud.report(X, y)
        got[algorithm] = (aud.transform(X), flags, rep.testers)
    lines = []
    ref = got["brute"]
    for algorithm in ("auto", "kd_tree"):
        out, flags, testers = got[algorithm]
        same = (np.array_equal(out, ref[0], equal_nan=True) and np.array_equal(flags, ref[1])
                and all(np.array_equal(np.asarray(testers[c]), np.asarray(ref[2][c]))
                        for c in ("row", "side", "testers", "positives")))
        lines.append(f"{algorithm} vs brute at {n:,} rows: rates, flags and testers "
                     f"{'identical' if same else 'DIFFERENT'} ({int(flags.sum())} flagged)")
    print(json.dumps({"check": lines}))


def run(args):
    cmd = [sys.executable, "-m", __spec__.name, *args]  # from this checkout's top
    out = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=REPO,
                         env=child_env())
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, nargs="+", default=[1e4, 1e5, 1e6])
    parser.add_argument("--methods", nargs="+", default=["cbn", "knn"])
    parser.add_argument("--n-jobs", type=int, default=None)
    parser.add_argument("--check-rows", type=int, default=20_000)
    parser.add_argument("-k", type=k_value, default=50,
                        help="testers a side, or auto (default: the auditor's 50)")
    parser.add_argument("--no-report", dest="report", action="store_false",
                        help="fit and flag only: no evidence (its table of testers grows "
                             "with the flagged people times their K)")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--check", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child[0], int(args.child[1]), args.n_jobs, args.k, args.report)
    if args.check:
        return check(args.check)
    jobs = [] if args.n_jobs is None else ["--n-jobs", str(args.n_jobs)]
    jobs += ["-k", str(args.k)] + ([] if args.report else ["--no-report"])
    lines = [f"$ python -m benchmarks.bench_audit_scale {' '.join(sys.argv[1:])}".rstrip(), "",
             f"k = {args.k}", "",
             "| method | rows | fit s | flag s | report s | total s | flagged | peak GiB |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    slopes = []
    for method in args.methods:
        rows, totals = [], []
        for n in args.rows:
            r = run(["--child", method, str(int(n)), *jobs])
            rows.append(r["rows"])
            totals.append(r["total"])
            report_s = "-" if r["report"] is None else f"{r['report']:.2f}"
            lines.append(f"| {method} | {r['rows']:,} | {r['fit']:.2f} | {r['flag']:.2f} | "
                         f"{report_s} | {r['total']:.2f} | {r['flagged']:,} | "
                         f"{r['peak_gib']:.2f} |")
            print(lines[-1], flush=True)
        if len(rows) > 1:
            slope = np.polyfit(np.log(rows), np.log(totals), 1)[0]
            slopes.append(f"{method}: slope of log(total time) on log(rows) {slope:.2f} "
                          f"(target <= 1.2); at {rows[-1]:,} rows {totals[-1] / 60:.1f} min "
                          "(target <= 10)")
    lines += ["", *slopes]
    if args.check_rows:
        lines += ["", *run(["--check", str(args.check_rows)])["check"]]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        args.output.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
