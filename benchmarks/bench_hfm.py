"""HFM at every size: exact, the certified approximation and ``method="auto"``, side by side.

One table, one row per data set (Adult, COMPAS, German credit, uniform data
of 30,000 x 20, 30,000 x 100, 100,000 x 20 and 1,000,000 x 20), all from
``hfm_report`` (both labels, every attribute, one worker):

- ``exact s``: ``method="exact"`` (not run at 1,000,000 rows); every time is the best of
  ``--repeat`` runs (default 2; one run at 1,000,000 rows);
- ``approx s``: ``method="approx"`` (the certified approximation, defaults);
- ``auto s`` and the engine it chose;
- ``raw err``: relative error of the uncorrected ExtendDist ``d_avg``;
- ``corr err``: median relative error of the corrected ``d_avg`` over the seeds;
- ``half-width``: median half-width of the 95 % interval of ``d_avg``, relative;
- ``coverage``: seeds whose interval of ``d_avg`` holds the exact value;
- ``d_max exact``: seeds whose maximum check completed;
- ``auto / best``: time of ``"auto"`` over the faster of the two engines.

The labels: the data's target and the predictions of a logistic regression
fitted on the same rows (real data), or ``x_0 > 0.5`` with 10 % of the
predictions flipped (uniform data); attributes with 2 and 5 values on
uniform data. The 1,000,000-row row runs in a fresh process that reports
its peak resident memory.

Targets: corrected median relative error of ``d_avg`` at most 1 % on every
row with an exact value (0.5 % from 100,000 rows); ``"auto"`` at most 1.1
times the faster engine; at 1,000,000 x 20 the approximation in at most 3
times the exact time at 100,000 x 20, under 3 GB.

Peak memory (``--memory``): ``hfm_report`` in a fresh process per case,
measured with tracemalloc (which sees every numpy buffer), above the input,
in multiples of ``X``'s bytes, for exact at 20,000 rows and the certified
approximation at 200,000 and ``--million`` rows (20 features), under
``--working-memory`` MiB of scikit-learn's working memory, then ``hfm_report``
with every option at its default on ``--million`` x 20 rows (target at most
2.7 x X); ``--before DIR`` measures another checkout's package (say
``git archive 027ceef skfair_manifold | tar -x -C DIR``) beside this one.

Usage (hold the benchmarks' lock while timing)::

    flock /tmp/bench.lock python -m benchmarks.bench_hfm [--quick] [--seeds 10]
    flock /tmp/bench.lock python -m benchmarks.bench_hfm --blas      # 1 vs 2 BLAS threads
    flock /tmp/bench.lock python -m benchmarks.bench_hfm --m1-sweep  # width and time vs m1
    flock /tmp/bench.lock python -m benchmarks.bench_hfm --candidates  # "others" vs "positions"
    flock /tmp/bench.lock python -m benchmarks.bench_hfm --crossover   # exact vs approx by n, p
    flock /tmp/bench.lock python -m benchmarks.bench_hfm --memory --before DIR  # peak memory
    flock /tmp/bench.lock python -m benchmarks.bench_hfm --every-dataset  # error per data set
    flock /tmp/bench.lock python -m benchmarks.bench_hfm --defaults [--quick]  # see below

Every option at its default (``--defaults``): on the tables made in code
(``_generated.py``: the 30,000-row credit-like table, mixed scales and three
attributes of 2, 4 and 7 values, and the 21,791-row law-like one), the
labels and 10 % of them flipped as predictions, ``hfm_report`` with nothing
but ``method`` and ``random_state`` set: exact once, ``"auto"`` (the engine
it ran), and the certified approximation over ``--seeds`` seeds: the median
and the largest relative error of ``d_avg`` and ``d_f_avg`` (target at most
1 %), the seeds whose interval holds the exact ``d_avg``, the sample size;
then, in a fresh process, the peak traced memory above the input of one
``hfm_report`` at the defaults (scikit-learn's own working memory, the cache
at its budget) on ``--million`` x 20 uniform rows, over X's bytes (target at
most 3).
"""

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

from skfair_manifold.metrics._testing import DEFAULT_SAMPLE_SIZE

from ._io import (
    DEFAULT_DATA_DIR,
    REPO,
    add_results_dir,
    child_env,
    load,
    machine,
    markdown_table,
    paper_matrix,
    write_result,
)


def uniform(n, p, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, p))
    A = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 5, n)])
    y_true = (X[:, 0] > 0.5).astype(int)
    y_pred = np.where(rng.random(n) < 0.1, 1 - y_true, y_true)
    return X, y_true, y_pred, A


def real(name, data_dir):
    from sklearn.linear_model import LogisticRegression

    X, y, A = paper_matrix(load(name, data_dir))
    model = LogisticRegression(max_iter=500).fit(np.hstack([X, A]), y)
    return X, y.astype(int), model.predict(np.hstack([X, A])), A


def timed(func):
    t0 = time.perf_counter()
    out = func()
    return out, time.perf_counter() - t0


def report(X, y_true, y_pred, A, **kw):
    from skfair_manifold.metrics import hfm_report

    return hfm_report(y_true, y_pred, X=X, sensitive_features=A, scale=False, n_jobs=1, **kw)


def uncached(func):
    """``func`` run with the reuse cache emptied first (a repeat must not hit it)."""
    from skfair_manifold.distances._testing import reuse_cache

    reuse_cache().clear()
    return func()


def best_of(func, repeat):
    """The result of ``func`` and its best wall time over ``repeat`` runs (cache emptied)."""
    runs = [timed(lambda: uncached(func)) for _ in range(max(1, repeat))]
    return runs[0][0], min(t for _, t in runs)


def row(label, X, y_true, y_pred, A, seeds, with_exact=True, repeat=1):
    n, p = X.shape
    out = {"data": label, "n": n, "p": p}
    if with_exact:
        exact, out["exact_s"] = best_of(
            lambda: report(X, y_true, y_pred, A, method="exact"), repeat)
    approx, out["approx_s"] = best_of(
        lambda: report(X, y_true, y_pred, A, method="approx", random_state=0), repeat)
    if with_exact:
        auto, out["auto_s"] = best_of(lambda: report(X, y_true, y_pred, A, random_state=0),
                                      repeat)
        out["auto_engine"] = auto.method
    else:
        out["auto_engine"] = "approx"
        out["auto_s"] = out["approx_s"]  # beyond the crossover "auto" is the approximation
    runs = [approx] + [report(X, y_true, y_pred, A, method="approx", random_state=s)
                       for s in range(1, seeds)] if seeds > 1 else [approx]
    widths = [(r.ci.d_avg[1] - r.ci.d_avg[0]) / 2 / r.d_avg for r in runs]
    out["half_width"] = statistics.median(widths)
    out["d_max_exact"] = sum(r.max_check.d_max_exact for r in runs)
    out["seeds"] = len(runs)
    out["n_checked"] = statistics.median(r.max_check.n_checked for r in runs)
    if with_exact:
        e = exact.d_avg
        out["raw_err"] = statistics.median(r.raw.d_avg / e - 1 for r in runs)
        out["corr_err"] = statistics.median(abs(r.d_avg / e - 1) for r in runs)
        tol = 1e-12 * e  # a sample of every row gives (value, value), up to rounding
        out["coverage"] = sum(r.ci.d_avg[0] - tol <= e <= r.ci.d_avg[1] + tol for r in runs)
        tol = 1e-12 * exact.d_max
        out["d_max_ok"] = all(r.ci.d_max[0] - tol <= exact.d_max <= r.ci.d_max[1] + tol
                              for r in runs)
        out["auto_best"] = out["auto_s"] / min(out["exact_s"], out["approx_s"])
    out["ci_d_max"] = list(approx.ci.d_max)
    return out


MILLION_CODE = """
import json, resource, time
from benchmarks.bench_hfm import report, uniform
X, y_true, y_pred, A = uniform({n}, 20)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
r = report(X, y_true, y_pred, A, method="approx", random_state=0)
t = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"approx_s": t, "peak_mib": peak / 1024, "data_mib": before / 1024,
                   "d_avg": r.d_avg, "raw": r.raw.d_avg, "ci": list(r.ci.d_avg),
                   "ci_d_max": list(r.ci.d_max), "d_max_exact": r.max_check.d_max_exact,
                   "n_checked": r.max_check.n_checked}}))
"""


def million(n):
    """The approximation at ``n`` x 20 in a fresh process (run from this checkout's top)."""
    code = MILLION_CODE.format(n=n)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, cwd=REPO, env=child_env())
    return json.loads(out.stdout.strip().splitlines()[-1])


MEMORY_CODE = """
import json, tracemalloc
import numpy as np
import sklearn
import skfair_manifold
from skfair_manifold.metrics import hfm_report
assert skfair_manifold.__file__.startswith({tree!r}), skfair_manifold.__file__
rng = np.random.default_rng(0)  # the data of uniform() above
X = rng.random(({n}, {p}))
A = np.column_stack([rng.integers(0, 2, {n}), rng.integers(0, 5, {n})])
y_true = (X[:, 0] > 0.5).astype(int)
y_pred = np.where(rng.random({n}) < 0.1, 1 - y_true, y_true)
if not {reuse}:  # (this checkout only: --before trees run with the reuse on)
    from skfair_manifold.distances._testing import reuse_cache
    reuse_cache().budget = 0  # no neighbour lists or copies kept for later calls
tracemalloc.start()
base = tracemalloc.get_traced_memory()[0]
with sklearn.config_context(working_memory={wm}):
    r = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method={method!r},
                   random_state=0, n_jobs=1, sample_size={sample_size!r})
peak = tracemalloc.get_traced_memory()[1] - base
print(json.dumps({{"peak": peak, "x": X.nbytes, "d_avg": r.d_avg}}))
"""


def memory_peak(n, p, method, working_memory, tree=None, reuse=True, sample_size=4000):
    """Peak traced memory (tracemalloc: every numpy buffer) of one ``hfm_report`` above
    its input, in a fresh process; ``tree`` (a folder holding a ``skfair_manifold``
    package) is another checkout's: the child runs in it, with it as its ``PYTHONPATH``."""
    from pathlib import Path

    tree = REPO if tree is None else Path(tree).resolve()
    code = MEMORY_CODE.format(tree=str(tree), n=n, p=p, method=method, wm=working_memory,
                              reuse=reuse, sample_size=sample_size)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, cwd=tree, env=child_env(tree))
    return json.loads(out.stdout.strip().splitlines()[-1])


def memory(args):
    """Peak memory above the input, in multiples of X, this checkout and ``--before``."""
    wm = args.working_memory
    cases = [("exact", 20_000), ("approx", 200_000), ("approx", args.million)]
    lines = [f"Peak memory of hfm_report above its input (tracemalloc, numpy buffers "
             f"included), 20 features, working_memory={wm} MiB, one worker; in "
             f"multiples of X's bytes (target: at most 3 x X beyond the working memory).",
             "The exact path keeps, for the calls of a search, a copy of X and the "
             "neighbour lists (bounded by the cache's budget, 512 MiB): 'cache off' is "
             "the computation alone (cache budget 0); the approximation keeps nothing.",
             "Before and after with a fixed sample of 4,000 rows (the same values on both "
             "sides); the last column with the default sample_size='auto' (a pilot of "
             "1,000 rows sizes the sample).",
             "", "| method | rows | X MiB | before: peak / X | after: peak / X | "
             "after, cache off: peak / X | after, cache off: (peak - working memory) / X | "
             "after, sample_size='auto': (peak - working memory) / X |",
             "|---|---|---|---|---|---|---|---|"]
    for method, n in cases:
        after = memory_peak(n, 20, method, wm)
        off = memory_peak(n, 20, method, wm, reuse=False) if method == "exact" else after
        before = memory_peak(n, 20, method, wm, args.before) if args.before else None
        auto = memory_peak(n, 20, method, wm, sample_size="auto") if method == "approx" \
            else None
        x = after["x"]
        if before is not None:
            assert before["d_avg"] == after["d_avg"], "the values moved"
        lines.append(
            f"| {method} | {n:,} | {x / 2**20:.0f} | "
            f"{fmt(before and before['peak'] / x, '.2f')} | {after['peak'] / x:.2f} | "
            f"{off['peak'] / x:.2f} | {(off['peak'] - wm * 2**20) / x:.2f} | "
            f"{fmt(auto and (auto['peak'] - wm * 2**20) / x, '.2f')} |")
        print(lines[-1], flush=True)
    # every option at its default (scikit-learn's working memory, the cache at its budget)
    lines.append("")
    for label, tree in (("before", args.before), ("after", None)):
        if label == "before" and not tree:
            continue
        mem = defaults_memory(args.million, tree)
        lines.append(f"{label}: {defaults_memory_line(args.million, mem)}")
        print(lines[-1], flush=True)
    text = "\n".join(lines)
    write_result("bench_hfm_memory", f"# HFM peak memory\n\n{machine()}\n\n{text}",
                 args.results_dir)
    return text


DEFAULTS_MEMORY_CODE = """
import json, time, tracemalloc
import numpy as np
import skfair_manifold
from skfair_manifold.metrics import hfm_report
assert skfair_manifold.__file__.startswith({tree!r}), skfair_manifold.__file__
rng = np.random.default_rng(0)  # the data of uniform() above
X = rng.random(({n}, 20))
A = np.column_stack([rng.integers(0, 2, {n}), rng.integers(0, 5, {n})])
y_true = (X[:, 0] > 0.5).astype(int)
y_pred = np.where(rng.random({n}) < 0.1, 1 - y_true, y_true)
tracemalloc.start()
base = tracemalloc.get_traced_memory()[0]
t = time.perf_counter()
r = hfm_report(y_true, y_pred, X=X, sensitive_features=A, random_state=0)
t = time.perf_counter() - t
peak = tracemalloc.get_traced_memory()[1] - base
print(json.dumps({{"peak": peak, "x": X.nbytes, "method": r.method, "seconds": t,
                   "sample_size": int(r.get("sample_size") or 0)}}))
"""


def defaults_memory(n, tree=None):
    """Peak traced memory above the input of one ``hfm_report`` at its defaults on ``n`` x 20
    uniform rows, in a fresh process (``tree``: another checkout's package, as in
    :func:`memory_peak`)."""
    from pathlib import Path

    tree = REPO if tree is None else Path(tree).resolve()
    out = subprocess.run([sys.executable, "-c", DEFAULTS_MEMORY_CODE.format(tree=str(tree), n=n)],
                         check=True, capture_output=True, text=True, cwd=tree,
                         env=child_env(tree))
    return json.loads(out.stdout.strip().splitlines()[-1])


def defaults_memory_line(n, mem):
    return (f"Memory at the defaults, uniform {n:,} x 20 (attributes of 2 and 5 "
            f"values), hfm_report(y_true, y_pred, X=X, sensitive_features=A, "
            f"random_state=0) in a fresh process: engine {mem['method']}, sample "
            f"{mem['sample_size']:,}, {mem['seconds']:.1f} s (tracemalloc on), peak "
            f"above the input {mem['peak'] / 2**20:.0f} MiB = "
            f"{mem['peak'] / mem['x']:.2f} x X ({mem['x'] / 2**20:.0f} MiB); "
            f"target at most 2.7 x X.")


def defaults(args):
    """Error and memory of ``hfm_report`` with every option at its default."""
    from skfair_manifold.distances._testing import reuse_cache
    from skfair_manifold.metrics import hfm_report

    from ._generated import credit_like, flipped, law_like
    from ._hfm_datasets import approx_over_seeds

    def run(X, y_true, y_pred, A, **kw):
        cache_clear()
        t0 = time.perf_counter()
        r = hfm_report(y_true, y_pred, X=X, sensitive_features=A, **kw)
        return r, time.perf_counter() - t0

    cache_clear = reuse_cache().clear
    rows = []
    for label, make in (("credit-like", credit_like), ("law-like", law_like)):
        X, y_true, A = make()
        y_pred = flipped(y_true)
        exact, t_exact = run(X, y_true, y_pred, A, method="exact")
        auto, t_auto = run(X, y_true, y_pred, A, random_state=0)
        cells = approx_over_seeds(
            lambda seed: run(X, y_true, y_pred, A, method="approx", random_state=seed),
            exact, args.seeds)
        auto_err = abs(auto.d_avg / exact.d_avg - 1)
        rows.append([label, f"{X.shape[0]:,} x {X.shape[1]}", *cells, f"{t_exact:.2f}",
                     f"{t_auto:.2f} ({auto.method}, err {auto_err:.2%})"])
        print(" | ".join(rows[-1]), flush=True)
    headers = ["data", "shape", "sample (median)", "err d_avg (median)", "err d_avg (max)",
               "err d_f_avg (median)", "err d_f_avg (max)", "half-width (median)",
               "coverage", "approx s (median)", "exact s", "auto s (engine, err d_avg)"]
    mem_line = defaults_memory_line(args.million, defaults_memory(args.million))
    print(mem_line, flush=True)
    text = [f"# HFM at its defaults on the tables made in code ({machine()})", "",
            f"hfm_report with every option at its default but method and random_state; "
            f"predictions: the labels with 10 % flipped; the approximation over seeds "
            f"0..{args.seeds - 1}; relative errors against the exact values (target at "
            f"most 1 %); coverage: seeds whose 95 % interval holds the exact d_avg; every "
            f"run single, the reuse cache emptied before each.", "",
            markdown_table(headers, rows), "", mem_line]
    write_result("bench_hfm_defaults" + ("_quick" if args.quick else ""), "\n".join(text),
                 args.results_dir)


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def main_table(args):
    rows = []
    specs = [("Adult", "income"), ("COMPAS", "ppr"), ("German credit", "credit")]
    for label, name in specs:
        try:
            data = real(name, args.data_dir)
        except (OSError, FileNotFoundError) as exc:
            print(f"skipping {label}: {exc}")
            continue
        rows.append(row(label, *data, seeds=args.seeds, repeat=args.repeat))
        print(json.dumps(rows[-1]), flush=True)
    sizes = [(30_000, 20), (30_000, 100), (100_000, 20)]
    for n, p in sizes:
        seeds = args.seeds if n < 100_000 or not args.quick else max(2, args.seeds // 2)
        rows.append(row(f"uniform {n:,} x {p}", *uniform(n, p), seeds=seeds,
                        repeat=args.repeat))
        print(json.dumps(rows[-1]), flush=True)
    exact_100k = rows[-1]["exact_s"]
    big = million(args.million)
    print(json.dumps(big), flush=True)
    table = []
    for r in rows:
        table.append([
            r["data"], f"{r['n']:,} x {r['p']}", fmt(r.get("exact_s"), ".2f"),
            fmt(r["approx_s"], ".2f"), f"{r['auto_s']:.2f} ({r['auto_engine']})",
            fmt(r.get("raw_err"), "+.1%"), fmt(r.get("corr_err"), ".2%"),
            f"{r['half_width']:.2%}", f"{r.get('coverage', '-')}/{r['seeds']}",
            f"{r['d_max_exact']}/{r['seeds']}", fmt(r.get("auto_best"), ".2f"),
            fmt(r.get("exact_s") / r["approx_s"] if r.get("exact_s") else None, ".2f"),
        ])
    ci = big["ci"]
    table.append([
        f"uniform {args.million:,} x 20", f"{args.million:,} x 20", "-",
        f"{big['approx_s']:.2f}", f"{big['approx_s']:.2f} (approx)",
        f"{big['raw'] / big['d_avg'] - 1:+.1%} (vs corrected)", "-",
        f"{(ci[1] - ci[0]) / 2 / big['d_avg']:.2%}", "-",
        f"{int(big['d_max_exact'])}/1", "-", "-",
    ])
    headers = ["data", "shape", "exact s", "approx s", "auto s (engine)", "raw err d_avg",
               "corr err d_avg (median)", "half-width (median)", "coverage", "d_max exact",
               "auto / best", "exact / approx"]
    text = [f"# HFM: exact, certified approximation, auto ({machine()}, one worker)", "",
            f"Times: best of {args.repeat} runs per engine (the 1,000,000-row run: one); "
            f"sample_size {DEFAULT_SAMPLE_SIZE} (the default).", "",
            markdown_table(headers, table), "",
            f"1,000,000 x 20: approx {big['approx_s']:.1f} s = "
            f"{big['approx_s'] / exact_100k:.2f} x the exact time at 100,000 x 20 "
            f"({exact_100k:.1f} s); peak RSS {big['peak_mib']:.0f} MiB (data and interpreter "
            f"before the call: {big['data_mib']:.0f} MiB); d_max in "
            f"[{big['ci_d_max'][0]:.4f}, {big['ci_d_max'][1]:.4f}], rows checked for the "
            f"maxima {big['n_checked']}."]
    write_result("bench_hfm_quick" if args.quick else "bench_hfm", "\n".join(text),
                 args.results_dir)


def blas(args):
    from skfair_manifold.distances._testing import blas_threads

    X, y_true, y_pred, A = uniform(30_000, 20)
    for threads in (1, 2, 1, 2):
        with blas_threads(threads):
            _, t = timed(lambda: report(X, y_true, y_pred, A, method="exact"))
        print(f"exact hfm_report 30,000 x 20, serial, BLAS threads {threads}: {t:.2f} s wall",
              flush=True)


def candidates(args):
    """CPU time of ExtendDist with the two candidate rules, one BLAS thread."""
    from threadpoolctl import threadpool_limits

    from skfair_manifold.distances import extend_dist

    X, y_true, _, A = uniform(30_000, 20)
    with threadpool_limits(1):
        for m1 in (25, 5):
            times = {}
            for rule in ("positions", "others", "positions", "others"):
                t0 = time.process_time()
                extend_dist(X, y_true, A, m1=m1, random_state=0, candidates=rule)
                times.setdefault(rule, []).append(time.process_time() - t0)
            pos, oth = min(times["positions"]), min(times["others"])
            print(f"30,000 x 20, two attributes, m1={m1}: positions {pos:.2f} s, others "
                  f"{oth:.2f} s CPU (best of 2), ratio {oth / pos:.2f}", flush=True)


def crossover(args):
    """Exact against the certified approximation (defaults) around the crossover."""
    grid = [(5_000, 20), (10_000, 20), (12_500, 20), (15_000, 20), (20_000, 20),
            (30_000, 20), (10_000, 100), (15_000, 100), (17_500, 100), (20_000, 100),
            (25_000, 100)]
    print("hfm_report, both labels, attributes with 2 and 5 values, one worker, seed 0, "
          f"best of {args.repeat} runs")
    report(*uniform(2000, 20), method="exact")  # warm-up
    for n, p in grid:
        X, y_true, y_pred, A = uniform(n, p)
        t_e = min(timed(lambda: uncached(lambda: report(X, y_true, y_pred, A,
                                                        method="exact")))[1]
                  for _ in range(args.repeat))
        t_a = min(timed(lambda: report(X, y_true, y_pred, A, method="approx",
                                       random_state=0))[1] for _ in range(args.repeat))
        print(f"n={n:7,d} p={p:3d}: exact {t_e:6.2f} s, certified approx {t_a:6.2f} s, "
              f"exact/approx {t_e / t_a:5.2f}", flush=True)


def m1_sweep(args):
    X, y_true, y_pred, A = uniform(args.sweep_n, 20)
    exact = report(X, y_true, y_pred, A, method="exact") if args.sweep_n <= 100_000 else None
    print(f"n={args.sweep_n:,} x 20, certified approximation, seed 0")
    for m1 in (3, 5, 10, 25):
        r, t = timed(lambda: report(X, y_true, y_pred, A, method="approx", m1=m1,
                                    random_state=0))
        hw = (r.ci.d_avg[1] - r.ci.d_avg[0]) / 2 / r.d_avg
        err = f"{r.d_avg / exact.d_avg - 1:+.3%}" if exact else "-"
        print(f"m1={m1:3d}: {t:6.2f} s, raw err {r.raw.d_avg / r.d_avg - 1:+.1%} (vs corrected), "
              f"corrected err {err}, half-width {hw:.3%}, d_max in "
              f"[{r.ci.d_max[0]:.4f}, {r.ci.d_max[1]:.4f}] exact={r.max_check.d_max_exact}",
              flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=DEFAULT_DATA_DIR)
    parser.add_argument("--quick", action="store_true",
                        help="3 seeds instead of 10 (fewer on 100,000 rows)")
    parser.add_argument("--seeds", type=int, default=None)
    parser.add_argument("--million", type=int, default=1_000_000,
                        help="rows of the largest uniform data set (default 1,000,000)")
    parser.add_argument("--blas", action="store_true", help="1 against 2 BLAS threads")
    parser.add_argument("--m1-sweep", action="store_true", help="width and time against m1")
    parser.add_argument("--sweep-n", type=int, default=100_000)
    parser.add_argument("--crossover", action="store_true",
                        help="exact against the certified approximation around the crossover")
    parser.add_argument("--repeat", type=int, default=None,
                        help="timed runs per engine and data set, the best kept (default: "
                             "2 in the table, 3 in --crossover; the 1,000,000-row run is "
                             "timed once)")
    parser.add_argument("--memory", action="store_true",
                        help="peak memory above the input (this checkout and --before)")
    parser.add_argument("--before", default=None,
                        help="a folder holding another checkout's skfair_manifold package")
    parser.add_argument("--working-memory", type=int, default=64,
                        help="MiB of scikit-learn's working_memory in --memory (default 64)")
    parser.add_argument("--defaults", action="store_true",
                        help="error on the generated tables and memory at 1M x 20, every "
                             "option at its default")
    parser.add_argument("--candidates", action="store_true",
                        help='time of candidates="others" against "positions"')
    parser.add_argument("--every-dataset", action="store_true",
                        help="the approximation's error on every data set, adaptive sample "
                             "size against 4,000 rows (benchmarks/_hfm_datasets.py)")
    add_results_dir(parser)
    args = parser.parse_args(argv)
    if args.seeds is None:
        args.seeds = 3 if args.quick else 10
    if args.repeat is None:
        args.repeat = 3 if args.crossover else 2
    if args.defaults:
        defaults(args)
    elif args.memory:
        memory(args)
    elif args.every_dataset:
        from ._hfm_datasets import every_dataset

        every_dataset(args)
    elif args.blas:
        blas(args)
    elif args.m1_sweep:
        m1_sweep(args)
    elif args.candidates:
        candidates(args)
    elif args.crossover:
        crossover(args)
    else:
        main_table(args)


if __name__ == "__main__":
    main()
