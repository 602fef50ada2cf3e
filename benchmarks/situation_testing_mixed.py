"""Situation testing on mixed-type records with a planted bias.

The generator (``skfair_manifold.datasets.make_planted_bias``) makes
records with continuous (income, age, noise), nominal (region, colour) and
ordinal (edu) attributes; in two of five regions the decision maker turns
each positive woman negative with probability ``share``. The discriminated
targets are the flipped women, the others the women with a negative decision
in the other regions. Every column kind is left to inference (income, age,
noise interval; region, colour nominal; edu ordinal).

Prints TP and TN (shares of the two target sets flagged and cleared) of
CBN-DD (learned Q) and KNN-DD, with the default rule and with ``diff > tau``,
against the share of bias and K, with the time of ``fit`` + ``transform`` of
all rows (seconds include fit); then the flag rules at K = 50; then the three
rules against the number of rows, with the best ``min(TP, TN)`` that any
threshold on ``diff`` reaches; then CBN-DD against the binning of interval
columns (supervised MDL cuts or quantiles, and their number) with the share of
runs that learn the true Q; then the time and peak memory of CBN-DD with
continuous parents against n.

Usage::

    python -m benchmarks.situation_testing_mixed [--n-samples N] [--repeats R]
        [--sizes N ...] [--quick]

Wrap it in ``flock /tmp/bench.lock`` on a shared machine. The output is also
written to ``benchmarks/results/situation_testing_mixed.md``.
"""

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from skfair_manifold.datasets import make_planted_bias
from skfair_manifold.datasets._testing import null_decisions
from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.situation_testing._testing import (
    k_of_rows,
    n_profiles,
    rates_with_counts,
    rule_text,
)

from ._io import k_value
from ._situation_evaluation import (
    audit_error_control,
    best_threshold,
    mean_sd_cell,
    result_mean,
    situation_flags,
    situation_rule_label,
    verdict_shares,
)

HERE = Path(__file__).resolve().parent

RULES = ([("tau", "wald", 0.1)] + [("significant", "wald", a) for a in (0.05, 0.1, 0.2)]
         + [("bound", "wald", a) for a in (0.05, 0.1, 0.2, 0.3)])
LINES = []


def out(text=""):
    print(text, flush=True)
    LINES.append(text)


METHODS = (("cbn", {"method": "cbn"}), ("knn", {"method": "knn"}))


def evaluate(n, shares, ks, repeats, rules, *, targets_only=False, methods=METHODS):
    """TP, TN, seconds, Q and the best threshold per (share, method, k, rule).

    One fit and one transform per run (of every row, or of the targets only);
    the rules are read from the transform (``situation_flags``). ``methods``
    holds (label, auditor options).
    """
    res = {}
    for share in shares:
        for r in range(repeats):
            X, y, disc, clean = make_planted_bias(n, bias_share=share, random_state=r)
            rows = np.flatnonzero(disc | clean) if targets_only else np.arange(n)
            for method, options in methods:
                for k in ks:
                    t = time.perf_counter()
                    est = SituationTestingAuditor(protected="sex", protected_value="female",
                                                  k=k, bound="wald", **options).fit(X, y)
                    d = est.transform(X.iloc[rows])
                    seconds = time.perf_counter() - t
                    truth, known = disc[rows], (disc | clean)[rows]
                    oracle = best_threshold(d[known, 2], truth[known])
                    for rule in rules:
                        f = situation_flags(d, rule, tau=est.tau, alpha_fitted=est.alpha_test)
                        res.setdefault((share, method, k, rule), []).append(
                            (f[truth].mean(), (~f[clean[rows]]).mean(), seconds,
                             ", ".join(map(str, est.q_)), oracle))
    return res


def part_sizes(sizes, repeats, rules):
    """TP / TN at K = 50, share 50%, against the number of rows, with the best threshold."""
    out("## Against the number of rows (K = 50, share 50%)")
    out()
    out("Only the targets are transformed. \"best threshold\": the largest min(TP, TN) of "
        "any rule diff > t over all t (an upper bound for every rule that thresholds diff), "
        "mean over the repeats.")
    out()
    out("| rows | method | " + " | ".join(situation_rule_label(r) for r in rules)
        + " | best threshold | Q learned (runs) |")
    out("|---:|---|" + "---|" * len(rules) + "---:|---|")
    methods = (("CBN-DD", {"method": "cbn"}),
               ("CBN-DD quantile bins", {"method": "cbn", "binning": "quantile"}),
               ("KNN-DD", {"method": "knn"}))
    for n in sizes:
        res = evaluate(n, (0.5,), (50,), repeats, rules, targets_only=True, methods=methods)
        for method, _ in methods:
            cells = []
            for rule in rules:
                v = np.array([x[:2] for x in res[(0.5, method, 50, rule)]]).mean(axis=0)
                cells.append(f"{v[0]:.3f} / {v[1]:.3f}")
            runs = res[(0.5, method, 50, rules[0])]
            oracle = np.mean([x[4] for x in runs])
            qs = ""
            if method.startswith("CBN"):
                from collections import Counter

                qs = "; ".join(f"{q} ({c})" for q, c in Counter(x[3] for x in runs).items())
            out(f"| {n} | {method} | " + " | ".join(cells)
                + f" | {oracle:.3f} | {qs} |")
    out()


def part_bins(sizes, repeats):
    """CBN-DD (learned Q) against the binning rule and the number of bins."""
    out("## CBN-DD against the binning of interval columns (K = 50, learned Q, share 50%)")
    out()
    out("The true parents of the decision are income, age, edu and region (age through a "
        "step at 25).")
    out()
    out("| rows | binning | n_bins | default rule TP / TN | best threshold | mean size of Q | "
        "runs with the true Q | mean bins of income, age, noise |")
    out("|---:|---|---:|---|---:|---:|---:|---|")
    truth = {"income", "age", "edu", "region"}
    for n in sizes:
        for binning in ("mdlp", "quantile"):
            for n_bins in (2, 3, 5, 8, 12):
                rows = []
                for r in range(repeats):
                    X, y, disc, clean = make_planted_bias(n, bias_share=0.5, random_state=r)
                    tg = disc | clean
                    est = SituationTestingAuditor(protected="sex", protected_value="female",
                                                  k=50, n_bins=n_bins,
                                                  binning=binning).fit(X, y)
                    d = est.transform(X[tg])
                    f = est.flag(X[tg], y[tg])
                    lab = disc[tg]
                    rows.append((f[lab].mean(), (~f[~lab]).mean(),
                                 best_threshold(d[:, 2], lab), len(est.q_),
                                 set(est.q_) == truth,
                                 *(len(est.bin_edges_[c]) + 1
                                   for c in ("income", "age", "noise"))))
                v = np.mean(rows, axis=0)
                out(f"| {n} | {binning} | {n_bins} | {v[0]:.3f} / {v[1]:.3f} | {v[2]:.3f} | "
                    f"{v[3]:.1f} | {int(round(v[4] * repeats))} of {repeats} | "
                    f"{v[5]:.1f}, {v[6]:.1f}, {v[7]:.1f} |")
    out()


def part_scaling(sizes):
    """CBN-DD with continuous parents: time and peak memory against n."""
    import tracemalloc

    out("## CBN-DD with continuous parents: time and memory against n")
    out()
    out("Graph given: the decision's parents are sex, income, age (continuous) and edu; "
        "fit + transform of every row, K = 50; peak memory of numpy's allocations "
        "(tracemalloc).")
    out()
    out("| rows | seconds | peak MiB | NaN rates | subgroups |")
    out("|---:|---:|---:|---:|---:|")
    for n in sizes:
        X, y, _, _ = make_planted_bias(n, bias_share=0.5, random_state=0)
        tracemalloc.start()
        t = time.perf_counter()
        est = SituationTestingAuditor(protected="sex", protected_value="female", k=50,
                                      graph=["sex", "income", "age", "edu"]).fit(X, y)
        d = est.transform(X)
        seconds = time.perf_counter() - t
        peak = tracemalloc.get_traced_memory()[1] / 2 ** 20
        tracemalloc.stop()
        out(f"| {n} | {seconds:.2f} | {peak:.0f} | {int(np.isnan(d).sum())} | "
            f"{n_profiles(est)} |")
    out()




def part_calibration(replicates, n=300, k=20):
    """The per-person p-value on null data: one candidate per independent data set."""
    from scipy import stats

    from skfair_manifold.situation_testing._testing import (
        effective_counts,
        fisher_pvalue,
    )

    out(f"## The per-person p-value on data without discrimination ({replicates} data sets "
        f"of {n} rows, K = {k}, one random candidate each)")
    out()
    out("Exact: the auditor's p_value (valid: never stochastically below uniform; KS "
        "one-sided, alternative: more small p-values than uniform). Randomised: "
        "P(X > x) + U P(X = x) on the same counts (uniform when the testers are "
        "exchangeable; KS two-sided).")
    out()
    out("| method | attributes | exact <= 0.01 | <= 0.05 | <= 0.1 | KS one-sided p | "
        "randomised <= 0.1 | KS two-sided p |")
    out("|---|---|---:|---:|---:|---:|---:|---:|")
    for method in ("knn", "cbn"):
        for kind in ("continuous", "nominal"):
            rng = np.random.RandomState(0)
            exact, rand = [], []
            for _ in range(replicates):
                X, y = null_decisions(n, rng, kind)
                est = SituationTestingAuditor(protected="sex", protected_value="f",
                                              method=method, k=k,
                                              graph=list(X.columns)).fit(X, y)
                cand = np.flatnonzero((X["sex"] == "f").to_numpy() & (y == 0))
                i = cand[rng.randint(cand.shape[0])]
                o, _, n_eff = rates_with_counts(est, X.iloc[[i]])
                counts = effective_counts(o[:, 0], n_eff[:, 0], o[:, 1], n_eff[:, 1])
                exact.append(o[0, 5])
                rand.append(fisher_pvalue(*counts, u=rng.rand(1))[0])
            exact, rand = np.array(exact), np.array(rand)
            out(f"| {method.upper()}-DD | {kind} | {(exact <= 0.01).mean():.3f} | "
                f"{(exact <= 0.05).mean():.3f} | {(exact <= 0.1).mean():.3f} | "
                f"{stats.kstest(exact, 'uniform', alternative='greater').pvalue:.3f} | "
                f"{(rand <= 0.1).mean():.3f} | {stats.kstest(rand, 'uniform').pvalue:.3g} |")
    out()


def part_error_control(n, repeats, ks, n_boot=0, fdr_methods=("bh",)):
    """The default rule over a whole audit: null runs, planted bias, verdicts.

    Each fitted auditor is audited with every procedure of ``fdr_methods``
    (the rates are computed once: only the decision across the audit changes).
    """
    out(f"## Error control across an audit ({n} rows, {repeats} repeats, default rule)")
    out()
    out("Null: no bias planted (share 0); flagged = share of the candidates (women with a "
        "negative decision) flagged. 'alone': each person tested alone at alpha_test = 0.1 "
        "(no false discovery rate). Planted: share 50%; recall = flipped women flagged; "
        "precision = flipped flagged / (flipped flagged + flagged women with a negative "
        "decision outside the biased regions); FDP = those women over every flag (the "
        "proportion the false discovery rate bounds: the negative women of the biased "
        "regions who were not flipped count as true discoveries for it); flags: the "
        "flipped, the clean and every woman flagged (mean over the repeats). Verdicts: "
        "shares among the flagged. "
        "Passes: passes over every row's rates by `flag` then `report` (1: `report` reused "
        "`flag`'s rates); report s / flag s. Standard deviation over the repeats in "
        "parentheses. Insufficient: fewer than 10 effective testers a side, or fewer than 10 "
        "testers a side within the stated distance (0.05 for CBN-DD, 0.2 for KNN-DD). "
        f"Structure bootstrap (CBN-DD): {n_boot} replicates (0: not run). fdr: the "
        "procedure across the audit at level 0.1 (bh: Benjamini-Hochberg; dbh: the discrete "
        "step-up of Doehler, Durand and Roquain).")
    out()
    out("| method | K | fdr | null flagged | null alone | planted recall | precision | FDP | "
        "flags: flipped / clean / all | planted alone | verdicts (planted) | passes | "
        "report s / flag s |")
    out("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    t0 = time.perf_counter()
    learned_q = set()
    for method in ("cbn", "knn"):
        for k in ks:
            rows = {fm: [] for fm in fdr_methods}
            verdicts = {fm: {} for fm in fdr_methods}
            qs = set()
            for r in range(repeats):
                row = {fm: {} for fm in fdr_methods}
                for share in (0.0, 0.5):
                    X, y, disc, clean = make_planted_bias(n, bias_share=share, random_state=r)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # the null graph has no sex arc
                        est = SituationTestingAuditor(
                            protected="sex", protected_value="female", method=method, k=k,
                            structure_bootstrap=n_boot, random_state=r).fit(X, y)
                    if method == "cbn":
                        qs.add(f"{', '.join(map(str, est.q_))}")
                    for fm in fdr_methods:
                        est.set_params(fdr_method=fm)
                        res = audit_error_control(est, X, y, discriminated=disc, clean=clean)
                        row[fm][share] = res
                        if share:
                            for label, c in res["verdicts"].items():
                                verdicts[fm][label] = verdicts[fm].get(label, 0) + c
                for fm in fdr_methods:
                    rows[fm].append(row[fm])

            for fm in fdr_methods:
                null = [row[0.0] for row in rows[fm]]
                planted = [row[0.5] for row in rows[fm]]
                out(f"| {method.upper()}-DD | {k} | {fm} | {result_mean(null, 'flagged'):.4f} | "
                    f"{result_mean(null, 'alone'):.3f} | {mean_sd_cell(planted, 'recall')} | "
                    f"{mean_sd_cell(planted, 'precision')} | {result_mean(planted, 'fdp'):.3f} | "
                    f"{result_mean(planted, 'n_discriminated_flagged'):.0f} / "
                    f"{result_mean(planted, 'n_clean_flagged'):.0f} / "
                    f"{result_mean(planted, 'n_flagged'):.0f} | "
                    f"{result_mean(planted, 'alone'):.3f} | {verdict_shares(verdicts[fm])} | "
                    f"{max(res['report_passes'] for res in planted)} | "
                    f"{np.mean([res['report_s'] / res['flag_s'] for res in planted]):.2f} |")
            if qs:
                learned_q.update(qs)
    out()
    out(f"Q learned by CBN-DD: {' | '.join(sorted(learned_q))} "
        f"({time.perf_counter() - t0:.0f} s)")
    out()


def auto_ks(method, X, y):
    """Each row's K under ``k="auto"`` for ``method``, as the fitted auditor chooses it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SituationTestingAuditor(protected="sex", protected_value="female", method=method,
                                      k="auto").fit(X, y)
    return k_of_rows(est, X)


def part_oracle(n, repeats, ks, fdr=0.1, tau=0.05):
    """The best any tester selection can do with K testers a side: the oracle's testers.

    Each candidate (a woman with a negative decision) gets K men and K women
    from her exact situation: their decisions are drawn from the generator's
    own rates there (``fair_rate``; a woman's halved in a biased region at share
    50%). Then the default rule: the exact one-sided test, Benjamini-Hochberg
    across the candidates at ``fdr``, and ``diff > tau``.
    """
    from skfair_manifold.datasets._testing import BIASED_REGIONS, REGIONS, fair_rate
    from skfair_manifold.situation_testing._testing import (
        exceeds,
        fisher_pvalue,
        q_values,
    )

    share = 0.5
    out(f"## The oracle's testers ({n} rows, {repeats} repeats, share {share:.0%})")
    out()
    out("Each candidate's K testers a side drawn from her exact situation with the "
        "generator's true rates (no tester from another situation, none missing): the "
        "per-person test's power at K, before any choice of testers. Default rule: "
        f"Benjamini-Hochberg at {fdr} across the candidates and diff > {tau}; 'alone': each "
        "person at alpha_test = 0.1. Recall and precision as in the error control.")
    out()
    out("| K | recall | precision | alone recall |")
    out("|---:|---:|---:|---:|")
    rows = [(k, None) for k in ks if k != "auto"]
    if "auto" in ks:  # each candidate's own K, as k="auto" chooses it for each method
        rows += [("auto", "cbn"), ("auto", "knn")]
    for k, method in rows:
        res = []
        for r in range(repeats):
            X, y, disc, clean = make_planted_bias(n, bias_share=share, random_state=r)
            region = X["region"].map({v: i for i, v in enumerate(REGIONS)}).to_numpy()
            p_men = fair_rate(X["income"], X["age"], X["edu"], region)
            biased = np.isin(X["region"].to_numpy(), BIASED_REGIONS)
            p_women = np.where(biased, p_men * (1 - share), p_men)
            cand = np.flatnonzero((X["sex"].to_numpy() == "female") & (y == 0))
            rng = np.random.RandomState(1000 + r)
            if method is None:
                m = np.full(cand.shape[0], float(k))
            else:
                m = auto_ks(method, X, y)[cand].astype(float)
            x1 = rng.binomial(m.astype(np.int64), p_men[cand]).astype(float)
            x2 = rng.binomial(m.astype(np.int64), p_women[cand]).astype(float)
            p = fisher_pvalue(x1, m, x2, m)
            gap = exceeds((x1 - x2) / m, tau)
            flags = np.zeros(n, dtype=bool)
            flags[cand] = (q_values(p) <= fdr) & gap
            alone = np.zeros(n, dtype=bool)
            alone[cand] = (p <= 0.1) & gap
            tp, fp = int((flags & disc).sum()), int((flags & clean).sum())
            res.append({"recall": tp / disc.sum(), "precision": tp / max(tp + fp, 1),
                        "alone": (alone & disc).sum() / disc.sum()})
        label = k if method is None else f"auto ({method.upper()}-DD's K of each candidate)"
        out(f"| {label} | " + " | ".join(mean_sd_cell(res, key)
                                     for key in ("recall", "precision", "alone")) + " |")
    out()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=4000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[4000, 20000, 60000],
                        help="rows of the sweep against n (default: %(default)s)")
    parser.add_argument("--quick", action="store_true", help="1 repeat, K = 50, share 0.5")
    parser.add_argument("--error-control-only", action="store_true",
                        help="only the audit's error control (null runs, recall and "
                             "precision, verdicts)")
    parser.add_argument("--error-control-rows", type=int, default=8000)
    parser.add_argument("--oracle-only", action="store_true",
                        help="only the oracle's testers: the power of the per-person test "
                             "at each K of --error-control-ks, on --error-control-rows rows")
    parser.add_argument("--calibration-only", action="store_true",
                        help="only the per-person p-value on null data")
    parser.add_argument("--calibration-replicates", type=int, default=500)
    parser.add_argument("--error-control-ks", type=k_value, nargs="+", default=[50, 100, 200],
                        help="K of the error control and the oracle: integers or auto")
    parser.add_argument("--structure-bootstrap", type=int, default=0,
                        help="replicates of the structure bootstrap in the error control")
    parser.add_argument("--fdr-methods", nargs="+", default=["bh"], choices=["bh", "by", "dbh"],
                        help="procedures across the audit compared in the error control "
                             "(default: bh)")
    parser.add_argument("--output", default=str(HERE / "results" / "situation_testing_mixed.md"))
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    shares = (0.5,) if args.quick else (0.25, 0.5, 0.75, 1.0)
    ks = (50,) if args.quick else (10, 30, 50, 70, 90)
    default = SituationTestingAuditor()
    # the person-by-person rules read from transform; the default (exact test with the
    # false discovery rate across the audit) is measured by part_error_control
    rules = [("significant", "wald", 0.1), ("tau", "wald", 0.1)]

    out("# Situation testing on mixed-type records with a planted bias")
    out()
    if args.calibration_only:
        part_calibration(args.calibration_replicates)
    if args.error_control_only:
        out(f"`python -m benchmarks.situation_testing_mixed --error-control-only --repeats "
            f"{repeats} --error-control-rows {args.error_control_rows} --error-control-ks "
            f"{' '.join(map(str, args.error_control_ks))} --structure-bootstrap "
            f"{args.structure_bootstrap} --fdr-methods {' '.join(args.fdr_methods)}`")
        out()
        part_error_control(args.error_control_rows, repeats, args.error_control_ks,
                           args.structure_bootstrap, args.fdr_methods)
    if args.oracle_only:
        out(f"`python -m benchmarks.situation_testing_mixed --oracle-only --repeats {repeats} "
            f"--error-control-rows {args.error_control_rows} --error-control-ks "
            f"{' '.join(map(str, args.error_control_ks))}`")
        out()
        part_oracle(args.error_control_rows, repeats, args.error_control_ks)
    if args.calibration_only or args.error_control_only or args.oracle_only:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text("\n".join(LINES) + "\n")
        print(f"written to {args.output}")
        return
    out(f"`python -m benchmarks.situation_testing_mixed --n-samples {args.n_samples} "
        f"--repeats {repeats}{' --quick' if args.quick else ''} --sizes "
        f"{' '.join(map(str, args.sizes))}`; "
        f"default rule: {rule_text(default.set_params(protected='sex'))}")
    out()
    X, y, disc, clean = make_planted_bias(args.n_samples, bias_share=0.5, random_state=0)
    out(f"{args.n_samples} rows; at share 50%: {int(disc.sum())} discriminated and "
        f"{int(clean.sum())} other negative women.")
    out()
    t0 = time.perf_counter()
    res = evaluate(args.n_samples, shares, ks, repeats, rules)
    out(f"## TP / TN against the share of bias and K ({repeats} repeats, "
        f"{time.perf_counter() - t0:.0f} s)")
    out()
    out("| share | K | CBN-DD significant | CBN-DD diff > tau | KNN-DD significant | "
        "KNN-DD diff > tau | CBN-DD s | KNN-DD s |")
    out("|---:|---:|---|---|---|---|---:|---:|")
    for share in shares:
        for k in ks:
            cells, secs = [], []
            for method in ("cbn", "knn"):
                for rule in rules:
                    v = np.array([x[:2] for x in res[(share, method, k, rule)]])
                    cells.append(f"{v[:, 0].mean():.3f} / {v[:, 1].mean():.3f}")
                secs.append(np.mean([x[2] for x in res[(share, method, k, rules[0])]]))
            out(f"| {share:.0%} | {k} | " + " | ".join(cells) +
                f" | {secs[0]:.2f} | {secs[1]:.2f} |")
    out()
    qs = sorted({x[3] for key, v in res.items() if key[1] == "cbn" for x in v})
    out(f"Q learned by CBN-DD (every run): {' | '.join(qs)}")
    out()
    rule_shares = (0.5,) if args.quick else (0.5, 1.0)
    res = evaluate(args.n_samples, rule_shares, (50,), repeats, RULES)
    out("## Flag rules at K = 50 (Wald bound at several one-sided levels, "
        f"{args.n_samples} rows)")
    out()
    out("| share | rule | CBN-DD TP / TN | KNN-DD TP / TN | min |")
    out("|---:|---|---|---|---:|")
    for share in rule_shares:
        for rule in RULES:
            cells, worst = [], 1.0
            for method in ("cbn", "knn"):
                v = np.array([x[:2] for x in res[(share, method, 50, rule)]]).mean(axis=0)
                worst = min(worst, *v)
                cells.append(f"{v[0]:.3f} / {v[1]:.3f}")
            out(f"| {share:.0%} | {situation_rule_label(rule)} | " + " | ".join(cells)
                + f" | {worst:.3f} |")
    out()
    part_sizes(args.sizes if not args.quick else [args.n_samples], repeats,
               [RULES[2], RULES[5], RULES[0]])
    part_error_control(args.error_control_rows, repeats, args.error_control_ks)
    part_calibration(50 if args.quick else args.calibration_replicates)
    if not args.quick:
        part_bins(args.sizes, repeats)
        part_scaling((1000, 4000, 16000, 64000))
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text("\n".join(LINES) + "\n")
    print(f"written to {args.output}")


if __name__ == "__main__":
    main()
