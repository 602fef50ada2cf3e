"""Figure 5 of the HFM paper: the effect of m1 and m2 on the approximation and its time.

On the test fold (one fifth of the rows, stratified, seed 0) of every dataset,
with the true labels, ExtendDist is run for m2 in a grid with m1 = 25, and for
m1 in a grid with m2 = ceil(2 lg n). Printed: the ratio of the approximate to
the exact D_a(S) (Eq. 6) and D_a^avg(S) (Eq. 7) (1 is exact; the approximation
is never below it), and the time, beside the exact computation's time.

    python -m benchmarks.fig5_hyperparameters [--data-dir DIR] [--quick]
"""

import math
import sys
import time

import numpy as np

from ._io import (
    Timer,
    load,
    machine,
    markdown_table,
    parse_args,
    pyplot,
    save_figure,
    write_result,
)


def test_fold(bunch, seed):
    from sklearn.model_selection import StratifiedKFold

    from skfair_manifold.datasets import make_paper_preprocessor

    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=seed)
    train, test = next(folds.split(bunch.data, bunch.target))
    pre = make_paper_preprocessor(bunch.numerical_features, bunch.categorical_features,
                                  sensitive_features=bunch.sensitive_features)
    pre.fit(bunch.data.iloc[train])
    X = pre.transform(bunch.data.iloc[test])
    y = bunch.target.to_numpy()[test].astype(float)
    A = np.column_stack([np.unique(bunch.sensitive[s].to_numpy(), return_inverse=True)[1]
                         for s in bunch.sensitive_features])[test]
    return X, y, A


def main(argv=None):
    from skfair_manifold.distances import extend_dist, extended_set_distance

    args = parse_args(__doc__.splitlines()[0], argv=argv)
    seed = 0
    m2_grid = [1, 2, 4, 8, 16, 32] if not args.quick else [2, 8, 32]
    m1_grid = [1, 5, 10, 25, 50, 100] if not args.quick else [1, 10, 50]
    start = time.perf_counter()
    rows, results = [], {}
    for name in args.datasets:
        X, y, A = test_fold(load(name, args.data_dir), seed)
        n = len(X)
        paper_m2 = math.ceil(2 * math.log10(n))
        with Timer() as t:
            e_max, e_avg = extended_set_distance(X, y, A, n_jobs=1)
        t_exact = t.seconds
        res = {"m2": [], "m1": [], "exact_time": t_exact}
        for axis, grid in (("m2", m2_grid), ("m1", m1_grid)):
            for value in grid:
                m1, m2 = (25, value) if axis == "m2" else (value, paper_m2)
                with Timer() as t:
                    a_max, a_avg = extend_dist(X, y, A, m1=m1, m2=m2, random_state=seed,
                                               n_jobs=1)
                res[axis].append((value, a_max / e_max, a_avg / e_avg, t.seconds))
                rows.append([name, n, axis, value, m1, m2, f"{a_max / e_max:.4f}",
                             f"{a_avg / e_avg:.4f}", f"{t.seconds:.3f}", f"{t_exact:.3f}"])
        results[name] = res
    elapsed = time.perf_counter() - start
    table = markdown_table(
        ["dataset", "test rows", "varied", "value", "m1", "m2", "approx/exact D_a(S)",
         "approx/exact D_a^avg(S)", "ExtendDist s", "exact s"], rows)
    text = "\n\n".join([
        f"## Figure 5: effect of m1 and m2 ({'quick' if args.quick else 'full'} run)",
        "ExtendDist on the test fold (1/5 of the rows, stratified, seed 0), true labels, 1 "
        "worker; m2 varied with m1 = 25, m1 varied with m2 = ceil(2 lg n). A ratio of 1 "
        "means the exact value (the approximation is never below it).",
        table,
        f"Machine: {machine()}. Wall time of this script: {elapsed:.1f} s.",
    ])
    stem = "fig5_hyperparameters" + ("_quick" if args.quick else "")
    write_result(stem, text, args.results_dir)

    plt = pyplot()
    fig, axes = plt.subplots(2, 3, figsize=(15, 8))
    for row, axis in enumerate(("m2", "m1")):
        for name, res in results.items():
            pts = np.array(res[axis])
            axes[row][0].plot(pts[:, 0], pts[:, 1], "o-", label=name)
            axes[row][1].plot(pts[:, 0], pts[:, 2], "o-", label=name)
            line = axes[row][2].plot(pts[:, 0], pts[:, 3], "o-", label=name)
            axes[row][2].axhline(res["exact_time"], color=line[0].get_color(), ls=":", lw=1)
        other = "m1 = 25" if axis == "m2" else "m2 = ceil(2 lg n)"
        for col, title in enumerate(["approx / exact, D_a(S)", "approx / exact, D_a^avg(S)",
                                     "time (s); dotted: exact"]):
            ax = axes[row][col]
            ax.set_xscale("log")
            if col == 2:
                ax.set_yscale("log")
            ax.set_xlabel(f"{axis} ({other})")
            ax.set_title(title, fontsize=10)
            ax.legend(fontsize=7)
    fig.suptitle("Figure 5: effect of m1 and m2 on ExtendDist (test fold, true labels)")
    save_figure(fig, stem, args.results_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
