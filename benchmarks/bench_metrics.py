"""Timings of the metric layer, printed as tables with ratios measured in the same run.

1. Group metrics (DP, EO, PQP) at 1,000,000 rows and 3 sensitive attributes
   (2, 5 and 6 values), integer-coded array and a DataFrame of strings.
2. Exact HFM, both ``hfm_max`` and ``hfm_avg`` from one ``hfm_report`` call,
   at 30,000 rows, 100 features in [0, 1], two attributes with 2 and 5 values,
   beside four separate scikit-learn ``NearestNeighbors`` searches (one per
   label and attribute: the per-row distance to the nearest row of another
   group, searched group by group), which compute the same four distances.
3. ``fairness_report`` against fairlearn's ``MetricFrame`` with the same
   quantities (count, selection rate, true and false positive rate,
   precision, accuracy per group, then the differences and ratios) at
   100,000 and 1,000,000 rows x 3 attributes: each attribute alone (one
   MetricFrame per attribute) and their intersections (one MetricFrame over
   the three columns, ``intersect=True``). The values are checked equal.

Run under the shared lock: ``flock /tmp/bench.lock python -m benchmarks.bench_metrics``.
"""

import argparse
import platform
import time

import numpy as np
import pandas as pd
import sklearn
from sklearn.neighbors import NearestNeighbors

from skfair_manifold.metrics import (
    demographic_parity,
    equal_opportunity,
    fairness_report,
    hfm_report,
    predictive_quality_parity,
)


def best_of(func, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = func()
        times.append(time.perf_counter() - t0)
    return min(times), out


def bench_group(n, repeat):
    rng = np.random.default_rng(0)
    A = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 5, n), rng.integers(0, 6, n)])
    y_true = rng.integers(0, 2, n)
    y_pred = np.where(rng.random(n) < 0.8, y_true, 1 - y_true)
    frame = pd.DataFrame({"sex": np.array(["f", "m"])[A[:, 0]],
                          "race": np.array(list("abcde"))[A[:, 1]],
                          "age": pd.Categorical(np.array(list("uvwxyz"))[A[:, 2]])})
    print(f"\nGroup metrics: {n:,} rows, 3 attributes (2, 5, 6 values), best of {repeat}")
    print(f"{'metric':28s}{'int array s':>14s}{'DataFrame s':>14s}{'value':>10s}")
    total = 0.0
    for metric in (demographic_parity, equal_opportunity, predictive_quality_parity):
        metric(y_true[:1000], y_pred[:1000], sensitive_features=A[:1000])  # warm up
        t_arr, v = best_of(lambda: metric(y_true, y_pred, sensitive_features=A), repeat)
        t_df, v_df = best_of(lambda: metric(y_true, y_pred, sensitive_features=frame), repeat)
        assert v == v_df
        total += t_arr
        print(f"{metric.__name__:28s}{t_arr:14.3f}{t_df:14.3f}{v:10.4f}")
    print(f"{'all three (int array)':28s}{total:14.3f}   target < 0.5 s per metric")


def four_searches(X, labels, codes):
    """Per label and attribute, per group: NearestNeighbors on the other groups."""
    rows = np.empty((len(labels), len(codes), X.shape[0]))
    for li, y in enumerate(labels):
        Z = np.column_stack([y, X])
        for k, code in enumerate(codes):
            for g in np.unique(code):
                inside = code == g
                nn = NearestNeighbors(n_neighbors=1, algorithm="brute").fit(Z[~inside])
                rows[li, k, inside] = nn.kneighbors(Z[inside])[0][:, 0]
    return rows


def bench_hfm(n, p, repeat):
    rng = np.random.default_rng(0)
    X = rng.random((n, p))
    A = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 5, n)])
    y_true = (X[:, 0] + 0.3 * A[:, 0] + 0.1 * rng.standard_normal(n) > 0.8).astype(float)
    y_pred = np.where(rng.random(n) < 0.85, y_true, 1 - y_true)
    print(f"\nExact HFM: {n:,} rows, {p} features in [0, 1], attributes with 2 and 5 values,"
          f" true labels and predictions (best of {repeat})")
    print(f"{'computation':52s}{'seconds':>10s}{'ratio':>8s}")
    t_nn, rows = best_of(lambda: four_searches(X, [y_true, y_pred],
                                                [A[:, 0], A[:, 1]]), 1)
    res = {}
    for n_jobs in (1, 2):
        res[n_jobs] = best_of(lambda: hfm_report(y_true, y_pred, X=X, sensitive_features=A,
                                                 method="exact", scale=False,
                                                 n_jobs=n_jobs), repeat)
    t_approx, approx = best_of(lambda: hfm_report(y_true, y_pred, X=X, sensitive_features=A,
                                                  method="approx", scale=False,
                                                  random_state=0, n_jobs=2), repeat)
    print(f"{'4 x NearestNeighbors(brute), one per label x attr':52s}{t_nn:10.2f}{1.0:8.2f}")
    for n_jobs, (t, _) in res.items():
        print(f"{f'hfm_report exact (max + avg), n_jobs={n_jobs}':52s}{t:10.2f}"
              f"{t_nn / t:8.2f}")
    print(f"{'hfm_report approx (m1=25, paper m2), n_jobs=2':52s}{t_approx:10.2f}"
          f"{t_nn / t_approx:8.2f}")
    report = res[2][1]
    ours = np.stack([report.row_distances_true.T, report.row_distances_pred.T])
    diff = np.abs(ours - rows).max()
    print(f"max |row distance, ours - NearestNeighbors| = {diff:.2e}; "
          f"hfm_max = {report.hfm_max:.5f}, hfm_avg = {report.hfm_avg:.5f} "
          f"(approx: {approx.hfm_max:.5f}, {approx.hfm_avg:.5f}); target < 6 s")


def metricframe_report(y_true, y_pred, frame, columns):
    """The quantities of fairness_report through fairlearn: one MetricFrame per call."""
    from fairlearn import metrics as fm
    from sklearn.metrics import accuracy_score, precision_score

    metrics = {"count": fm.count, "selection_rate": fm.selection_rate,
               "true_positive_rate": fm.true_positive_rate,
               "false_positive_rate": fm.false_positive_rate,
               "precision": lambda t, p: precision_score(t, p, zero_division=np.nan),
               "accuracy": accuracy_score}
    out = []
    for cols in columns:
        mf = fm.MetricFrame(metrics=metrics, y_true=y_true, y_pred=y_pred,
                            sensitive_features=frame[cols])
        out.append((mf.by_group, mf.difference(), mf.ratio(),
                    mf.difference(method="to_overall"), mf.ratio(method="to_overall")))
    return out


def bench_report(sizes, repeat):
    try:
        import fairlearn
    except ImportError:
        print("\nfairness_report vs MetricFrame: fairlearn is not installed (dev extra)")
        return
    print(f"\nfairness_report vs fairlearn {fairlearn.__version__} MetricFrame: 6 quantities "
          f"per group, differences and ratios (both methods); 3 attributes (2, 5, 6 values)")
    print("ours: score intervals of every rate and gap (the default); ours+boot: the gaps' "
          "intervals from 1,000 bootstrap replicates of the cell counts instead")
    print(f"{'rows':>10s}  {'groups':32s}{'ours s':>9s}{'ours+boot s':>13s}"
          f"{'MetricFrame s':>15s}{'ratio':>8s}{'ratio boot':>11s}{'max |diff|':>12s}")
    for n in sizes:
        rng = np.random.default_rng(0)
        frame = pd.DataFrame({"sex": rng.choice(["f", "m"], n),
                              "race": rng.choice(list("abcde"), n),
                              "age": rng.choice(list("uvwxyz"), n)})
        y_true = rng.integers(0, 2, n)
        y_pred = np.where(rng.random(n) < 0.8, y_true, 1 - y_true)
        for label, intersect in (("each attribute alone", False),
                                 ("intersections (60 groups)", True)):
            columns = [["sex", "race", "age"]] if intersect else [["sex"], ["race"], ["age"]]
            t_ours, ours = best_of(lambda: fairness_report(
                y_true, y_pred, sensitive_features=frame, intersect=intersect), repeat)
            t_boot, _ = best_of(lambda: fairness_report(
                y_true, y_pred, sensitive_features=frame, intersect=intersect, n_boot=1000,
                random_state=0), repeat)
            t_mf, theirs = best_of(lambda: metricframe_report(y_true, y_pred, frame, columns),
                                   1)
            diff = 0.0
            for k, (by_group, *_rest) in enumerate(theirs):
                name = " & ".join(columns[k]) if intersect else columns[k][0]
                mine = ours.by_group.loc[name].drop(columns="compared")
                if intersect:
                    mine.index = pd.MultiIndex.from_tuples(
                        [tuple(g.split(" & ")) for g in mine.index])
                mine = mine.reindex(by_group.index)
                for q in by_group.columns:
                    diff = max(diff, float(np.nanmax(np.abs(
                        mine[q].to_numpy(float) - by_group[q].to_numpy(float)))))
            print(f"{n:>10,}  {label:32s}{t_ours:9.3f}{t_boot:13.3f}{t_mf:15.2f}"
                  f"{t_mf / t_ours:8.1f}{t_mf / t_boot:11.1f}{diff:12.1e}")
    print("target: fairness_report at least 20x faster than MetricFrame")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--group-rows", type=int, default=1_000_000)
    parser.add_argument("--hfm-rows", type=int, default=30_000)
    parser.add_argument("--features", type=int, default=100)
    parser.add_argument("--report-rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only-report", action="store_true",
                        help="run part 3 alone (fairness_report against MetricFrame)")
    args = parser.parse_args()
    print(f"python {platform.python_version()}, numpy {np.__version__}, "
          f"scikit-learn {sklearn.__version__}, pandas {pd.__version__}, "
          f"{platform.machine()}")
    if not args.only_report:
        bench_group(args.group_rows, args.repeat)
        bench_hfm(args.hfm_rows, args.features, max(1, args.repeat - 1))
    bench_report(args.report_rows, args.repeat)


if __name__ == "__main__":
    main()
