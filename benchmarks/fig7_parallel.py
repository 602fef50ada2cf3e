"""Figure 7 of the HFM paper: speed-up and efficiency of ExtendDist with 1 and 2 workers.

On every whole dataset (true labels, features scaled to [0, 1], sensitive
attributes left out), ExtendDist (m1 = 25, m2 = ceil(2 lg n)) and the exact
Eq. 6-7 are timed with ``n_jobs=1`` and ``n_jobs=2`` (best of 3 runs; 2 with
``--quick``). Speed-up = T(1) / T(2), efficiency = speed-up / 2. The values must
not depend on ``n_jobs``: this is checked too. The machine has 2 logical CPUs
(the paper used 3 cores).

    python -m benchmarks.fig7_parallel [--data-dir DIR] [--quick]
"""

import sys
import time

import numpy as np

from ._io import (
    Timer,
    load,
    machine,
    markdown_table,
    paper_matrix,
    parse_args,
    pyplot,
    save_figure,
    write_result,
)


def best(func, repeats):
    times, value = [], None
    for _ in range(repeats):
        with Timer() as t:
            value = func()
        times.append(t.seconds)
    return min(times), value


def main(argv=None):
    from skfair_manifold.distances import extend_dist, extended_set_distance

    args = parse_args(__doc__.splitlines()[0], argv=argv)
    repeats = 2 if args.quick else 3
    start = time.perf_counter()
    rows, speedups = [], {}
    for name in args.datasets:
        X, y, A = paper_matrix(load(name, args.data_dir))
        methods = {
            "ExtendDist": lambda j: extend_dist(X, y, A, m1=25, random_state=0, n_jobs=j),
            "exact Eq. 6-7": lambda j: extended_set_distance(X, y, A, n_jobs=j),
        }
        for method, func in methods.items():
            t1, v1 = best(lambda: func(1), repeats)
            t2, v2 = best(lambda: func(2), repeats)
            same = bool(np.allclose(v1, v2, rtol=0, atol=1e-12))
            speedups.setdefault(method, []).append((name, t1 / t2))
            rows.append([name, len(X), method, f"{t1:.3f}", f"{t2:.3f}", f"{t1 / t2:.2f}",
                         f"{t1 / t2 / 2:.2f}", "yes" if same else "**no**"])
    elapsed = time.perf_counter() - start
    table = markdown_table(["dataset", "rows", "method", "1 worker s", "2 workers s",
                            "speed-up", "efficiency", "same values"], rows)
    text = "\n\n".join([
        f"## Figure 7: ExtendDist with 1 and 2 workers ({'quick' if args.quick else 'full'} run)",
        f"Whole datasets, true labels; best of {repeats} runs per cell.",
        table,
        f"Machine: {machine()}; the 2 CPUs are shared with other jobs, so efficiency is a "
        f"lower bound. Wall time of this script: {elapsed:.1f} s.",
    ])
    stem = "fig7_parallel" + ("_quick" if args.quick else "")
    write_result(stem, text, args.results_dir)

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    width = 0.38
    for k, (method, values) in enumerate(speedups.items()):
        names = [v[0] for v in values]
        s = np.array([v[1] for v in values])
        x = np.arange(len(names)) + (k - 0.5) * width
        axes[0].bar(x, s, width, label=method)
        axes[1].bar(x, s / 2, width, label=method)
    for ax, title, ideal in ((axes[0], "speed-up T(1)/T(2)", 2.0),
                             (axes[1], "efficiency speed-up/2", 1.0)):
        ax.set_xticks(np.arange(len(names)), names)
        ax.axhline(ideal, color="k", ls="--", lw=1)
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8)
    fig.suptitle("Figure 7: parallel ExtendDist and exact distances, 2 workers")
    save_figure(fig, stem, args.results_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
