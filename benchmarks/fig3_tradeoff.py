"""Figure 3 of the HFM paper: fairness-accuracy and fairness-f1 trade-offs per measure.

For every dataset, ``GridSearchCV`` over LightGBM's hyper-parameters scores
each candidate with accuracy, f1 and our fairness scorers (``make_hfm_scorer``
max and avg, DP, EO, PQP and DR, every one negated so that higher is fairer),
on features scaled to [0, 1] and one-hot encoded with the sensitive codes as
the last columns. The search refits with a *callable*: the most accurate
candidate whose HFM avg is no worse than the median candidate's. The same rule,
applied to each measure's column of ``cv_results_``, gives the trade-off point
per measure; the plot shows every candidate, the Pareto front (fairer and more
accurate) and the chosen one.

The preprocessor is fitted on the whole dataset before the search (only the
min/max and the category lists: no label enters it). ``--quick`` uses fewer
candidates, 2 folds and datasets capped at 3,000 rows.

    python -m benchmarks.fig3_tradeoff [--data-dir DIR] [--quick]
"""

import sys
import time
import warnings

import numpy as np

from ._experiment import RATIO, encode
from ._io import load, machine, markdown_table, parse_args, pyplot, save_figure, write_result

MEASURES = ["hfm_max", "hfm_avg", "DP", "EO", "PQP", "DR"]


def refit_rule(measure):
    """Callable refit: the most accurate candidate with `measure` at least the median."""
    def rule(cv_results):
        fair = np.asarray(cv_results[f"mean_test_{measure}"], float)  # negated: higher fairer
        acc = np.asarray(cv_results["mean_test_accuracy"], float)
        if np.isnan(fair).all():  # undefined on every candidate: accuracy alone
            return int(np.argmax(acc))
        ok = ~np.isnan(fair) & (fair >= np.nanmedian(fair))
        return int(np.flatnonzero(ok)[np.argmax(acc[ok])])
    return rule


def pareto(fairness, score):
    """Indices of candidates not dominated (lower unfairness, higher score)."""
    idx = []
    for i in range(len(fairness)):
        dominated = np.any((fairness <= fairness[i]) & (score >= score[i])
                           & ((fairness < fairness[i]) | (score > score[i])))
        if not dominated and not np.isnan(fairness[i]):
            idx.append(i)
    return sorted(idx, key=lambda i: fairness[i])


def main(argv=None):
    from lightgbm import LGBMClassifier
    from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split

    from skfair_manifold.datasets import make_paper_preprocessor
    from skfair_manifold.scorers import make_dr_scorer, make_fairness_scorer, make_hfm_scorer

    args = parse_args(__doc__.splitlines()[0], argv=argv)
    seed = 0
    if args.quick:
        grid = {"n_estimators": [7, 50], "num_leaves": [4, 31]}
        n_splits, cap = 2, 3000
    else:
        grid = {"n_estimators": [7, 25, 100], "num_leaves": [4, 15, 31],
                "learning_rate": [0.05, 0.2]}
        n_splits, cap = 3, None
    start = time.perf_counter()
    rows, searches = [], {}
    for name in args.datasets:
        bunch = load(name, args.data_dir)
        codes, privileged = encode(bunch)
        pre = make_paper_preprocessor(bunch.numerical_features, bunch.categorical_features,
                                      sensitive_features=bunch.sensitive_features)
        X = np.hstack([pre.fit_transform(bunch.data), codes])
        y = bunch.target.to_numpy()
        if cap and len(X) > cap:
            keep, _ = train_test_split(np.arange(len(X)), train_size=cap, stratify=y,
                                       random_state=seed)
            X, y = X[keep], y[keep]
        sens = list(range(X.shape[1] - codes.shape[1], X.shape[1]))
        # Binary privileged-vs-rest columns would need their own X; DP/EO/PQP here use
        # the sensitive codes as they are (largest gap between any two groups), every
        # group compared as in the paper (min_group_size=1)
        every = {"sensitive": sens, "pos_label": 1, "min_group_size": 1}
        scoring = {
            "accuracy": "accuracy",
            "f1": "f1",
            "hfm_max": make_hfm_scorer("max", sensitive=sens, scale=False),
            "hfm_avg": make_hfm_scorer("avg", sensitive=sens, scale=False),
            "DP": make_fairness_scorer("demographic_parity", **every),
            "EO": make_fairness_scorer("equal_opportunity", **every),
            "PQP": make_fairness_scorer("predictive_quality_parity", **every),
            "DR": make_dr_scorer(sensitive=sens, ratio=RATIO, privileged=privileged,
                                 aggregate="mean"),
        }
        search = GridSearchCV(
            LGBMClassifier(random_state=seed, verbose=-1, n_jobs=1), grid, scoring=scoring,
            refit=refit_rule("hfm_avg"),
            cv=StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            search.fit(X, y)
        res = search.cv_results_
        searches[name] = res
        for m in MEASURES:
            k = refit_rule(m)(res)
            rows.append([name, m, str(res["params"][k]), f"{100 * res['mean_test_accuracy'][k]:.2f}",
                         f"{100 * res['mean_test_f1'][k]:.2f}", f"{-res[f'mean_test_{m}'][k]:.4f}"
                         + (" (undefined on every candidate)"
                            if np.isnan(res[f"mean_test_{m}"]).all() else ""),
                         "yes (refit)" if (m == "hfm_avg" and k == search.best_index_) else "",
                         f"{int(np.isnan(res[f'mean_test_{m}']).sum())} / {len(res['params'])}"])
    elapsed = time.perf_counter() - start
    text = "\n\n".join([
        f"## Figure 3: fairness-performance trade-offs ({'quick' if args.quick else 'full'} run)",
        f"GridSearchCV over LightGBM {grid}, {n_splits}-fold stratified CV; per measure, the "
        "most accurate candidate whose (cross-validated) unfairness is at most the median "
        "candidate's. HFM in natural log, approximate (m1 = 25, random_state 0), DR with "
        f"ratio {RATIO}, averaged over attributes; DP/EO/PQP: largest gap between groups, "
        "largest over attributes.",
        markdown_table(["dataset", "measure", "chosen parameters", "accuracy", "f1",
                        "unfairness (lower is fairer)", "GridSearchCV refit",
                        "candidates with a nan mean"], rows),
        f"Machine: {machine()}. Wall time of this script: {elapsed:.1f} s.",
    ])
    stem = "fig3_tradeoff" + ("_quick" if args.quick else "")
    write_result(stem, text, args.results_dir)

    plt = pyplot()
    fig, axes = plt.subplots(2, len(MEASURES), figsize=(3.2 * len(MEASURES), 7))
    for col, m in enumerate(MEASURES):
        for row, perf in enumerate(("accuracy", "f1")):
            ax = axes[row][col]
            for name, res in searches.items():
                fair = -np.asarray(res[f"mean_test_{m}"], float)
                score = np.asarray(res[f"mean_test_{perf}"], float)
                pts = ax.scatter(fair, score, s=10, alpha=0.5, label=name)
                front = pareto(fair, score)
                ax.plot(fair[front], score[front], "-", color=pts.get_facecolor()[0])
                k = refit_rule(m)(res)
                ax.scatter([fair[k]], [score[k]], marker="*", s=120,
                           color=pts.get_facecolor()[0], edgecolor="k")
            ax.set_xlabel(f"{m} (lower is fairer)")
            ax.set_ylabel(perf)
            if row == 0 and col == 0:
                ax.legend(fontsize=7)
    fig.suptitle("Figure 3: trade-offs per fairness measure (star: chosen by the refit rule)")
    save_figure(fig, stem, args.results_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
