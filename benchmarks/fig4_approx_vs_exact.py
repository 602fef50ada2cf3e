"""Figure 4 of the HFM paper: approximate against exact distances, values and times.

For every dataset and every fold of a stratified 5-fold split (2 with
``--quick``), the preprocessor is fitted on the training fold, LightGBM is
trained on it (features and sensitive codes), and on the *test* fold the
distances between groups are computed with the true labels and with the
predictions:

* ExtendDist (``extend_dist``) against Eq. 6-7 (``extended_set_distance``),
* ApproxDist (``approx_dist``) against Eq. 4-5 (``set_distance``), per attribute,

with the paper's ``m1=25`` and ``m2=ceil(2 lg n)``, one worker each. It prints
the Pearson r between approximate and exact values per dataset, the relative
error, the times, and then measures the crossover: the number of rows at which
the approximation becomes faster than the exact computation on this machine
(income subsamples up to its 30,162 rows, and uniform data in [0, 1] with 20
and 96 features up to 64,000 rows; 16,000 with ``--quick``).

    python -m benchmarks.fig4_approx_vs_exact [--data-dir DIR] [--quick]
"""

import sys
import time

import numpy as np

from skfair_manifold.metrics._testing import DEFAULT_SAMPLE_SIZE

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

M1 = 25  # the paper's m1; m2=None is its ceil(2 lg n)
M2 = None
CANDIDATES = "positions"  # or "others": the m2 other-group rows per side (paper's reading)
SAMPLE_SIZE = DEFAULT_SAMPLE_SIZE  # rows of the certified approximation's exact sample


def learners(quick, seed):
    """The paper's ensemble learners of Table II that are available here."""
    from lightgbm import LGBMClassifier
    from sklearn.ensemble import AdaBoostClassifier, BaggingClassifier

    models = {"LightGBM": LGBMClassifier(random_state=seed, verbose=-1, n_jobs=1)}
    if not quick:
        models["bagging"] = BaggingClassifier(n_estimators=10, random_state=seed)
        models["AdaBoost"] = AdaBoostClassifier(n_estimators=50, random_state=seed)
    return models


def fold_records(name, bunch, n_splits, seed, quick):
    """One record per (fold, label source): exact and approximate values and times."""
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold

    from skfair_manifold.datasets import make_paper_preprocessor
    from skfair_manifold.distances import (
        approx_dist,
        extend_dist,
        extended_set_distance,
        set_distance,
    )
    from skfair_manifold.metrics import hfm_report

    data, target = bunch.data, bunch.target.to_numpy()
    sens = bunch.sensitive_features
    codes = np.column_stack([np.unique(bunch.sensitive[s].to_numpy(), return_inverse=True)[1]
                             for s in sens])
    models = learners(quick, seed)
    n_labels = 1 + len(models)
    seeds = np.random.SeedSequence(seed).generate_state(n_splits * n_labels * (1 + len(sens)))
    seeds = iter(int(s) for s in seeds)
    records = []
    folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    for fold, (train, test) in enumerate(folds.split(data, target)):
        pre = make_paper_preprocessor(bunch.numerical_features, bunch.categorical_features,
                                      sensitive_features=sens)
        X_train = pre.fit_transform(data.iloc[train])
        X_test = pre.transform(data.iloc[test])
        labels = {"y": target[test].astype(float)}
        for model_name, model in models.items():
            model = clone(model).fit(np.hstack([X_train, codes[train]]), target[train])
            labels[model_name] = model.predict(np.hstack([X_test, codes[test]])).astype(float)
        A_test = codes[test]
        for kind, label in labels.items():
            rec = {"dataset": name, "fold": fold, "label": kind, "n": len(test)}
            with Timer() as t:
                e_max, e_avg = extended_set_distance(X_test, label, A_test, n_jobs=1)
            rec.update(ext_exact=(e_max, e_avg), ext_exact_time=t.seconds)
            s = next(seeds)
            with Timer() as t:
                a_max, a_avg = extend_dist(X_test, label, A_test, m1=M1, m2=M2,
                                           random_state=s, n_jobs=1, candidates=CANDIDATES)
            rec.update(ext_approx=(a_max, a_avg), ext_approx_time=t.seconds)
            p_max, p_avg = extend_dist(X_test, label, A_test, m1=M1, m2=M2, random_state=s,
                                       n_jobs=1, reduce="total", candidates=CANDIDATES)
            rec.update(ext_paper=(p_max, p_avg))
            # The certified approximation (same m1, m2 and seed): ExtendDist's
            # values corrected by the exact distances of a random sample of
            # rows, and the maximum checked; the label stands for both labels.
            with Timer() as t:
                cert = hfm_report(label, label, X=X_test, sensitive_features=A_test,
                                  method="approx", scale=False, m1=M1, m2=M2,
                                  random_state=s, n_jobs=1, candidates=CANDIDATES,
                                  sample_size=SAMPLE_SIZE)
            rec.update(ext_corrected=(cert.d_max, cert.d_avg), ext_corrected_time=t.seconds,
                       ext_corrected_half=(cert.ci.d_avg[1] - cert.ci.d_avg[0]) / 2,
                       ext_corrected_raw=(cert.raw.d_max, cert.raw.d_avg))
            rec["attrs"] = []
            for j, attr in enumerate(sens):
                with Timer() as t:
                    ex = set_distance(X_test, label, A_test[:, j], n_jobs=1)
                t_ex = t.seconds
                with Timer() as t:
                    ap = approx_dist(X_test, label, A_test[:, j], m1=M1, m2=M2,
                                     random_state=next(seeds), n_jobs=1,
                                     candidates=CANDIDATES)
                rec["attrs"].append({"attr": attr, "exact": ex, "approx": ap,
                                     "exact_time": t_ex, "approx_time": t.seconds})
            records.append(rec)
    return records


def pearson(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.std() == 0 or b.std() == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def summary(records, datasets):
    rows = []
    for name in datasets:
        recs = [r for r in records if r["dataset"] == name]
        ext_e = np.array([r["ext_exact"] for r in recs])
        ext_a = np.array([r["ext_approx"] for r in recs])
        ext_p = np.array([r["ext_paper"] for r in recs])
        att_e = np.array([a["exact"] for r in recs for a in r["attrs"]])
        att_a = np.array([a["approx"] for r in recs for a in r["attrs"]])
        # r within each attribute alone (pooling attributes of different scales inflates r)
        per_attr = []
        for j in range(len(recs[0]["attrs"])):
            per_attr.append(pearson([r["attrs"][j]["exact"][1] for r in recs],
                                    [r["attrs"][j]["approx"][1] for r in recs]))
        ext_c = np.array([r["ext_corrected"] for r in recs])
        rel_c = (ext_c[:, 1] - ext_e[:, 1]) / ext_e[:, 1]
        half_c = np.array([r["ext_corrected_half"] for r in recs]) / ext_e[:, 1]
        t_c = np.mean([r["ext_corrected_time"] for r in recs])
        rel = (ext_a[:, 1] - ext_e[:, 1]) / ext_e[:, 1]
        # r compares the approximation's error with the spread of the exact values
        spread = (ext_e[:, 1].max() - ext_e[:, 1].min()) / np.mean(ext_e[:, 1])
        rel_p = (ext_p[:, 1] - ext_e[:, 1]) / ext_e[:, 1]
        t_e = np.mean([r["ext_exact_time"] for r in recs])
        t_a = np.mean([r["ext_approx_time"] for r in recs])
        ta_e = np.mean([a["exact_time"] for r in recs for a in r["attrs"]])
        ta_a = np.mean([a["approx_time"] for r in recs for a in r["attrs"]])
        rows.append([
            name, int(np.mean([r["n"] for r in recs])), len(recs),
            f"{pearson(ext_e[:, 1], ext_a[:, 1]):.4f}",
            f"{pearson(ext_e[:, 1], ext_c[:, 1]):.4f}",
            f"{100 * np.median(np.abs(rel_c)):.2f}% (half-width {100 * np.median(half_c):.2f}%)",
            f"{pearson(ext_e[:, 0], ext_c[:, 0]):.4f}",
            f"{t_c:.3f}",
            f"{pearson(att_e[:, 1], att_a[:, 1]):.4f}",
            ", ".join(f"{a['attr']} {v:.4f}" for a, v in zip(recs[0]["attrs"], per_attr)),
            f"{ext_e[:, 1].min():.4f} to {ext_e[:, 1].max():.4f} ({100 * spread:.1f}%)",
            f"{100 * rel.mean():.1f}% ± {100 * rel.std(ddof=1):.1f}%",
            f"{pearson(ext_e[:, 0], ext_a[:, 0]):.4f}",
            f"{pearson(att_e[:, 0], att_a[:, 0]):.4f}",
            f"{100 * np.median(rel):.1f}% / {100 * np.median(rel_p):.1f}%",
            f"{t_e:.3f}", f"{t_a:.3f}", f"{t_e / t_a:.2f}",
            f"{ta_e:.3f}", f"{ta_a:.3f}",
        ])
    headers = ["dataset", "test rows", "points", "r d_avg Ext",
               "r d_avg Ext corrected", "median abs. rel. err d_avg corrected",
               "r d_max Ext certified", "certified s (both labels = one)",
               "r d_avg Approx (attributes pooled)", "r d_avg Approx, each attribute alone",
               "exact d_avg (Eq. 7) min to max (range / mean)",
               "rel. err d_avg Ext, mean ± sd", "r d_max Ext", "r d_max Approx",
               "median rel. err d_avg Ext (ours / paper's min)",
               "exact Eq.6-7 s", "ExtendDist s", "exact/approx",
               "exact Eq.4-5 s (per attr)", "ApproxDist s (per attr)"]
    return markdown_table(headers, rows)


def crossover(data_dir, quick, seed):
    """Times of exact and approximate (Eq. 6-7 / ExtendDist) against the number of rows."""
    from skfair_manifold.distances import extend_dist, extended_set_distance

    from ._io import paper_matrix

    rng = np.random.default_rng(seed)
    bunch = load("income", data_dir)
    X_inc, y_inc, A_inc = paper_matrix(bunch)
    order = rng.permutation(len(X_inc))
    sources = {"income (96 features)": (X_inc[order], y_inc[order], A_inc[order])}
    n_max = 16000 if quick else 64000
    for d in (20, 96):
        X = rng.random((n_max, d))
        y = (X[:, 0] + 0.3 * rng.standard_normal(n_max) > 0.5).astype(float)
        A = np.column_stack([rng.integers(0, 2, n_max), rng.integers(0, 5, n_max)])
        sources[f"uniform, {d} features"] = (X, y, A)
    grid = [1000, 2000, 4000, 8000, 16000] + ([] if quick else [32000, 64000])
    repeats = 2 if quick else 3
    rows, curves, found = [], {}, {}
    for label, (X, y, A) in sources.items():
        sizes = [n for n in grid if n <= len(X)]
        if len(X) not in sizes and len(X) < max(grid):
            sizes.append(len(X))
        curve = []
        extended_set_distance(X[:500], y[:500], A[:500], n_jobs=1)  # warm-up
        for n in sizes:
            t_e = best_time(lambda: extended_set_distance(X[:n], y[:n], A[:n], n_jobs=1),
                            repeats)
            t_a = best_time(lambda: extend_dist(X[:n], y[:n], A[:n], m1=M1, m2=M2,
                                                random_state=seed, n_jobs=1,
                                                candidates=CANDIDATES), repeats)
            curve.append((n, t_e, t_a))
            rows.append([label, n, f"{t_e:.3f}", f"{t_a:.3f}", f"{t_e / t_a:.2f}"])
        curves[label] = curve
        found[label] = _crossing(curve)
    table = markdown_table(["data", "rows", "exact s", "ExtendDist s", "exact/approx"], rows)
    table += (f"\n\nBest of {repeats} runs per cell, 1 worker, m1 = {M1}, "
              f"m2 = {'ceil(2 lg n)' if M2 is None else M2}.")
    lines = []
    for label, value in found.items():
        if value is None:
            top = curves[label][-1][0]
            lines.append(f"- {label}: the approximation is not faster up to {top} rows.")
        else:
            lines.append(f"- {label}: approximation faster from about **{value:,.0f} rows** "
                         "(log-log interpolation between the measured sizes).")
    return table, "\n".join(lines), curves


def best_time(func, repeats):
    """Best of ``repeats`` wall times: the machine is shared, the minimum is the signal."""
    times = []
    for _ in range(repeats):
        with Timer() as t:
            func()
        times.append(t.seconds)
    return min(times)


def _crossing(curve):
    """First n where exact becomes slower than approx, and stays so."""
    for k in range(1, len(curve)):
        (n0, e0, a0), (n1, e1, a1) = curve[k - 1], curve[k]
        if e0 <= a0 and e1 > a1 and all(e > a for _, e, a in curve[k:]):
            # interpolate log(e/a) linearly in log n
            r0, r1 = np.log(e0 / a0), np.log(e1 / a1)
            x = np.log(n0) + (0 - r0) * (np.log(n1) - np.log(n0)) / (r1 - r0)
            return float(np.exp(x))
    if curve and all(e > a for _, e, a in curve):
        return float(curve[0][0])
    return None


def plot(records, curves, datasets):
    plt = pyplot()
    fig, axes = plt.subplots(2, 4, figsize=(18, 8.5))
    colours = dict(zip(datasets, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    panels = [
        ("ExtendDist: D_a(S) (Eq. 6)", lambda r: [(r["ext_exact"][0], r["ext_approx"][0])]),
        ("ExtendDist: D_a^avg(S) (Eq. 7)", lambda r: [(r["ext_exact"][1], r["ext_approx"][1])]),
        ("ApproxDist: D_a(S, a_i) (Eq. 4)",
         lambda r: [(a["exact"][0], a["approx"][0]) for a in r["attrs"]]),
        ("ApproxDist: D_a^avg(S, a_i) (Eq. 5)",
         lambda r: [(a["exact"][1], a["approx"][1]) for a in r["attrs"]]),
    ]
    for ax, (title, get) in zip(axes[0], panels):
        allx, ally = [], []
        for name in datasets:
            pts = np.array([p for r in records if r["dataset"] == name for p in get(r)])
            ax.scatter(pts[:, 0], pts[:, 1], s=14, label=name, color=colours[name])
            allx += list(pts[:, 0])
            ally += list(pts[:, 1])
        lo, hi = min(allx + ally), max(allx + ally)
        ax.plot([lo, hi], [lo, hi], "k--", lw=1, label="identity")
        slope, intercept = np.polyfit(allx, ally, 1)
        ax.plot([lo, hi], [slope * lo + intercept, slope * hi + intercept], "r-", lw=1,
                label=f"fit {slope:.2f}x{intercept:+.3f}")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("exact")
        ax.set_ylabel("approximate")
        ax.legend(fontsize=7)
    for ax, (title, key) in zip(axes[1][:2], [("time: ExtendDist vs Eq. 6-7", "ext"),
                                               ("time: ApproxDist vs Eq. 4-5", "att")]):
        for name in datasets:
            recs = [r for r in records if r["dataset"] == name]
            if key == "ext":
                pts = np.array([(r["ext_exact_time"], r["ext_approx_time"]) for r in recs])
            else:
                pts = np.array([(a["exact_time"], a["approx_time"]) for r in recs
                                for a in r["attrs"]])
            ax.scatter(pts[:, 0], pts[:, 1], s=14, label=name, color=colours[name])
        ax.set_xscale("log")
        ax.set_yscale("log")
        lims = [min(ax.get_xlim()[0], ax.get_ylim()[0]), max(ax.get_xlim()[1], ax.get_ylim()[1])]
        ax.plot(lims, lims, "k--", lw=1)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("exact (s)")
        ax.set_ylabel("approximate (s)")
        ax.legend(fontsize=7)
    ax = axes[1][2]
    for label, curve in curves.items():
        c = np.array(curve)
        ax.plot(c[:, 0], c[:, 1], "o-", label=f"exact, {label}")
        ax.plot(c[:, 0], c[:, 2], "s--", label=f"ExtendDist, {label}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_title("crossover: time against rows (1 worker)", fontsize=10)
    ax.set_xlabel("rows")
    ax.set_ylabel("seconds")
    ax.legend(fontsize=6)
    ax = axes[1][3]
    for label, curve in curves.items():
        c = np.array(curve)
        ax.plot(c[:, 0], c[:, 1] / c[:, 2], "o-", label=label)
    ax.axhline(1.0, color="k", lw=1, ls="--")
    ax.set_xscale("log")
    ax.set_title("exact time / approximate time", fontsize=10)
    ax.set_xlabel("rows")
    ax.legend(fontsize=7)
    fig.suptitle("Figure 4: approximate vs exact distances between groups (test folds)")
    return fig


def _options(parser):
    parser.add_argument("--m1", type=int, default=25, help="repetitions (paper: 25)")
    parser.add_argument("--m2", type=int, default=None,
                        help="positions compared on each side (paper: ceil(2 lg n))")
    parser.add_argument("--candidates", choices=["positions", "others"], default="positions",
                        help="rows compared in projected order: other-group rows among the m2 "
                             "positions per side (default, fast), or the m2 other-group rows "
                             "per side (the paper's reading)")
    parser.add_argument("--sample-size", type=int, default=DEFAULT_SAMPLE_SIZE,
                        help="rows of the certified approximation's exact sample (default "
                             f"{DEFAULT_SAMPLE_SIZE}, the metrics' default)")
    parser.add_argument("--no-crossover", action="store_true",
                        help="skip the timing against the number of rows")


def main(argv=None):
    global M1, M2, CANDIDATES, SAMPLE_SIZE
    args = parse_args(__doc__.splitlines()[0], _options, argv=argv)
    M1, M2, CANDIDATES, SAMPLE_SIZE = args.m1, args.m2, args.candidates, args.sample_size
    paper_setting = (M1, M2) == (25, None)
    seed = 0
    n_splits = 2 if args.quick else 5
    start = time.perf_counter()
    records = []
    for name in args.datasets:
        bunch = load(name, args.data_dir)
        records += fold_records(name, bunch, n_splits, seed, args.quick)
    table = summary(records, args.datasets)
    if args.no_crossover:
        cross_table, cross_lines, curves = "(not run: --no-crossover)", "", {}
    else:
        cross_table, cross_lines, curves = crossover(args.data_dir, args.quick, seed)
    elapsed = time.perf_counter() - start
    text = "\n\n".join([
        f"## Figure 4: approximate vs exact distances ({'quick' if args.quick else 'full'} run)",
        f"{n_splits}-fold stratified split (seed {seed}); on each test fold, with the true "
        f"labels and with the predictions of {', '.join(learners(args.quick, seed))} "
        "(one point per fold and label source; ApproxDist: one per attribute too). "
        "Pearson r is taken over these points, per dataset. "
        f"m1 = {M1}, m2 = {'ceil(2 lg n)' if M2 is None else M2}, candidates = "
        f"`{CANDIDATES}`, 1 worker. Approximate values use "
        "our per-row minimum over projections (default `reduce=\"row\"`); the relative "
        "error of the paper's minimum of totals (`reduce=\"total\"`) is shown after the slash. "
        "*Corrected*: `hfm_report(method=\"approx\")` with the same m1, m2 and seed, whose "
        f"d_avg is corrected by the exact distances of {SAMPLE_SIZE} random rows (all rows "
        "of a smaller fold, where it is then exact) and whose d_max is checked in decreasing "
        "order of approximate distance (see the user guide).",
        table,
        "### Crossover (Eq. 6-7 exact vs ExtendDist, two attributes, true labels)",
        cross_table,
        cross_lines,
        f"Machine: {machine()}. Wall time of this script: {elapsed:.1f} s.",
    ])
    stem = "fig4_approx_vs_exact" + ("_quick" if args.quick else "")
    if not paper_setting:
        stem += f"_m1-{M1}_m2-{M2}"
    if CANDIDATES != "positions":
        stem += f"_{CANDIDATES}"
    if SAMPLE_SIZE != DEFAULT_SAMPLE_SIZE:
        stem += f"_sample-{SAMPLE_SIZE}"
    if args.no_crossover:
        stem += "_no-crossover"
    write_result(stem, text, args.results_dir)
    if curves:
        fig = plot(records, curves, args.datasets)
        save_figure(fig, stem, args.results_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
