"""Exact against approximate set distances: time, ratio and relative error.

For n = 1,000 / 10,000 / 30,000 rows and 20 / 100 features uniform in [0, 1],
two sensitive attributes with 2 and 5 values and a binary label (all drawn
from ``--seed``), per label (ExtendDist / Eq. 6-7 over both attributes):

- the time of the exact distances (``extended_set_distance``),
- the time of the approximation (``extend_dist``, m1=25, the paper's m2),
- their ratio,
- the relative error of the approximate d_avg and d_max against exact,
- for reference, plain scikit-learn brute-force NearestNeighbors per group
  (the same quantity computed the obvious way), measured in the same run.

Targets on a 2-core machine at n = 30,000 and 100 features: exact < 8 s,
approximate < 1.5 s, median relative error of d_avg < 10 % (100 features)
and < 20 % (20 features).

With ``--memory`` it also measures the peak memory (RSS) of the exact
computation at n = 100,000 with 20 features in a fresh process.

Usage::

    python -m benchmarks.bench_distances            # full table
    python -m benchmarks.bench_distances --quick    # n = 1,000 and 10,000 only
    python -m benchmarks.bench_distances --memory   # peak memory at n = 100,000
"""

import argparse
import statistics
import subprocess
import sys
import time

import numpy as np

from ._io import REPO, child_env


def make(n, p, seed):
    rng = np.random.default_rng(seed)
    X = rng.random((n, p))
    A = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 5, n)])
    y = rng.integers(0, 2, n).astype(float)
    return X, y, A


def sklearn_reference(X, y, A):
    """Per attribute and group: NearestNeighbors on the other groups."""
    from sklearn.neighbors import NearestNeighbors

    Z = np.column_stack([y, X])
    d_max, d_avg = [], []
    for k in range(A.shape[1]):
        rows = np.empty(len(y))
        for g in np.unique(A[:, k]):
            inside = A[:, k] == g
            nn = NearestNeighbors(n_neighbors=1, algorithm="brute").fit(Z[~inside])
            rows[inside] = nn.kneighbors(Z[inside])[0][:, 0]
        d_max.append(rows.max())
        d_avg.append(rows.mean())
    return max(d_max), float(np.mean(d_avg))


def timed(func, *args, **kwargs):
    t0 = time.perf_counter()
    out = func(*args, **kwargs)
    return out, time.perf_counter() - t0


def peak_memory():
    code = (
        "import resource, numpy as np\n"
        "from skfair_manifold.distances import extended_set_distance\n"
        "rng = np.random.default_rng(0); n = 100_000\n"
        "X = rng.random((n, 20)); y = rng.integers(0, 2, n).astype(float)\n"
        "A = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 5, n)])\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "import time; t = time.perf_counter()\n"
        "d = extended_set_distance(X, y, A)\n"
        "t = time.perf_counter() - t\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(f'n=100,000 p=20: exact {t:.1f} s, d_max={d[0]:.4f} d_avg={d[1]:.4f}; '\n"
        "      f'peak RSS {peak/1024:.0f} MiB (data and interpreter before the call: '\n"
        "      f'{before/1024:.0f} MiB)')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO, env=child_env())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="n = 1,000 and 10,000 only")
    parser.add_argument("--seeds", type=int, default=3, help="data sets per size (seeds)")
    parser.add_argument("--n-jobs", type=int, default=None, help="workers (default 1)")
    parser.add_argument("--no-sklearn", action="store_true",
                        help="skip the scikit-learn reference timing")
    parser.add_argument("--memory", action="store_true",
                        help="only measure peak memory of exact at n = 100,000, p = 20")
    args = parser.parse_args(argv)

    from skfair_manifold.distances import extend_dist, extended_set_distance

    if args.memory:
        peak_memory()
        return
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 30_000]
    header = (f"{'n':>7} {'p':>4} {'exact s':>8} {'approx s':>9} {'ratio':>6} "
              f"{'sklearn s':>10} {'err d_avg':>10} {'err d_max':>10}")
    print("Per label: both attributes (2 and 5 values), m1=25, m2=ceil(2 log10 n); "
          f"n_jobs={args.n_jobs}; medians over {args.seeds} seeds")
    print(header)
    print("-" * len(header))
    for p in (20, 100):
        for n in sizes:
            t_ex, t_ap, t_sk, err_avg, err_max = [], [], [], [], []
            for seed in range(args.seeds):
                X, y, A = make(n, p, seed)
                exact, t = timed(extended_set_distance, X, y, A, n_jobs=args.n_jobs)
                t_ex.append(t)
                approx, t = timed(extend_dist, X, y, A, random_state=seed, n_jobs=args.n_jobs)
                t_ap.append(t)
                assert approx[0] >= exact[0] - 1e-9 and approx[1] >= exact[1] - 1e-9
                err_avg.append(approx[1] / exact[1] - 1)
                err_max.append(approx[0] / exact[0] - 1)
                if not args.no_sklearn and seed == 0:
                    ref, t = timed(sklearn_reference, X, y, A)
                    t_sk.append(t)
                    assert abs(ref[0] - exact[0]) < 1e-6 and abs(ref[1] - exact[1]) < 1e-6
            med = statistics.median
            sk = f"{med(t_sk):10.2f}" if t_sk else f"{'-':>10}"
            print(f"{n:7d} {p:4d} {med(t_ex):8.2f} {med(t_ap):9.2f} "
                  f"{med(t_ex) / med(t_ap):6.1f} {sk} {med(err_avg):10.1%} "
                  f"{med(err_max):10.1%}", flush=True)


if __name__ == "__main__":
    main()
