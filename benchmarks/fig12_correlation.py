"""Figures 1 and 2 of the HFM paper: how well each fairness measure tracks Δperformance.

Over a pool of learners (DT, NB, KNN, LR, SVM, linear SVM, MLP, bagging,
AdaBoost, LightGBM), every dataset and every fold of a stratified split
(5 folds, 2 with ``--quick``), the protocol of ``_experiment.py`` gives each
fairness measure and the change of accuracy, f1, precision, recall and
specificity when the sensitive attributes are disturbed. The Pearson
correlation between each measure and each change, over all these points, is
drawn as a heat map: Figure 1 per sensitive attribute (DP, EO, PQP, DR, df,
df_avg), Figure 2 over all attributes (DR_avg, df, df_avg). Datasets larger
than ``--max-rows`` (5,000; 1,500 with ``--quick``) are subsampled, stratified,
so that SVM and KNN stay affordable.

    python -m benchmarks.fig12_correlation [--data-dir DIR] [--quick]
"""

import sys
import time
import warnings

import numpy as np

from ._experiment import encode, make_learner, run_fold
from ._io import load, machine, markdown_table, parse_args, pyplot, save_figure, write_result

POOL = ["DT", "NB", "KNN", "LR", "SVM", "linSVM", "MLP", "bagging", "AdaBoost", "LightGBM"]
DELTAS = ["delta_accuracy", "delta_f1", "delta_precision", "delta_recall", "delta_specificity"]


def _options(parser):
    parser.add_argument("--max-rows", type=int, default=None)


def subsample(bunch, max_rows, seed):
    from sklearn.model_selection import train_test_split

    if len(bunch.data) <= max_rows:
        return bunch
    keep, _ = train_test_split(np.arange(len(bunch.data)), train_size=max_rows,
                               stratify=bunch.target, random_state=seed)
    keep = np.sort(keep)
    out = dict(bunch)
    out["data"] = bunch.data.iloc[keep].reset_index(drop=True)
    out["target"] = bunch.target.iloc[keep].reset_index(drop=True)
    out["sensitive"] = bunch.sensitive.iloc[keep].reset_index(drop=True)
    from sklearn.utils import Bunch

    return Bunch(**out)


def correlations(points, measures):
    table = np.full((len(measures), len(DELTAS)), np.nan)
    for i, m in enumerate(measures):
        x = np.array([p[m] for p in points], float)
        for j, d in enumerate(DELTAS):
            z = np.array([p[d] for p in points], float)
            ok = ~(np.isnan(x) | np.isnan(z))
            if ok.sum() > 2 and x[ok].std() > 0 and z[ok].std() > 0:
                table[i, j] = np.corrcoef(x[ok], z[ok])[0, 1]
    return table


def main(argv=None):
    from sklearn.model_selection import StratifiedKFold

    args = parse_args(__doc__.splitlines()[0], _options, argv=argv)
    seed = 0
    n_splits = 2 if args.quick else 5
    max_rows = args.max_rows or (1500 if args.quick else 5000)
    start = time.perf_counter()
    single, joint = [], []
    for name in args.datasets:
        bunch = subsample(load(name, args.data_dir), max_rows, seed)
        codes, privileged = encode(bunch)
        folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
        for k, (train, test) in enumerate(folds.split(bunch.data, bunch.target)):
            for learner in POOL:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    rec = run_fold(bunch, codes, privileged, train, test,
                                   make_learner(learner, seed), seed + k)
                base = {d: rec[d] for d in DELTAS}
                joint.append({**base, "DR_avg": np.mean(rec["DR_each"]), "DR (joint)": rec["DR"],
                              "df": rec["df"], "df_avg": rec["df_avg"]})
                for j in range(codes.shape[1]):
                    single.append({**base, "DP": rec["DP"][j], "EO": rec["EO"][j],
                                   "PQP": rec["PQP"][j], "DR": rec["DR_each"][j],
                                   "df": rec["df_each"][j], "df_avg": rec["df_avg_each"][j]})
    elapsed = time.perf_counter() - start
    m1 = ["DP", "EO", "PQP", "DR", "df", "df_avg"]
    m2 = ["DR_avg", "DR (joint)", "df", "df_avg"]
    c1, c2 = correlations(single, m1), correlations(joint, m2)
    headers = ["measure"] + ["Δ" + d[len("delta_"):] for d in DELTAS]

    def rows(c, names):
        return [[n] + [f"{v:.3f}" for v in row] for n, row in zip(names, c)]

    text = "\n\n".join([
        f"## Figures 1-2: Pearson correlation of fairness measures with Δperformance "
        f"({'quick' if args.quick else 'full'} run)",
        f"Pool: {', '.join(POOL)}; {n_splits}-fold stratified CV; datasets capped at "
        f"{max_rows} rows (stratified subsample); {len(single)} (attribute) points for "
        f"Figure 1, {len(joint)} points for Figure 2. df, df_avg in base 10 from exact "
        "distances; nan: a measure undefined or constant on all points.",
        "### Figure 1 (one sensitive attribute)",
        markdown_table(headers, rows(c1, m1)),
        "### Figure 2 (all sensitive attributes)",
        markdown_table(headers, rows(c2, m2)),
        f"Machine: {machine()}. Wall time of this script: {elapsed:.1f} s.",
    ])
    stem = "fig12_correlation" + ("_quick" if args.quick else "")
    write_result(stem, text, args.results_dir)

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
    for ax, c, names, title in ((axes[0], c1, m1, "Figure 1: one attribute"),
                                (axes[1], c2, m2, "Figure 2: all attributes")):
        im = ax.imshow(c, cmap="RdBu_r", vmin=-1, vmax=1)
        ax.set_xticks(range(len(DELTAS)), headers[1:], rotation=30)
        ax.set_yticks(range(len(names)), names)
        for i in range(c.shape[0]):
            for j in range(c.shape[1]):
                ax.text(j, i, "nan" if np.isnan(c[i, j]) else f"{c[i, j]:.2f}",
                        ha="center", va="center", fontsize=8)
        ax.set_title(title, fontsize=10)
    fig.colorbar(im, ax=axes, shrink=0.8)
    save_figure(fig, stem, args.results_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
