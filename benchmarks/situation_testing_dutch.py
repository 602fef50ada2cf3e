"""Situation testing on the Dutch census: the paper's section 5, side by side.

Zhang, Wu and Wu (IJCAI 2016), Table 2: sex protected (female = c-),
occupation the decision (1 = the positive decision). The age and education
codes are ordinal, every other code nominal. Prints

* an audit of all 60,420 rows with every flagged person's evidence: fit,
  ``transform`` and ``report`` times, CBN-DD (the paper's Q and the learned
  Q) and KNN-DD;
* the choice of the flag rule: TP and TN at K = 50 of ``diff > tau``, of
  ``diff > tau and diff_lower > 0`` and of ``diff_lower > tau`` for the Wald
  bound at several levels and the Newcombe bound at 90%, on the documented
  variant (below), with the best ``min(TP, TN)`` that any threshold on
  ``diff`` reaches with the same testers;
* the documented variant at K = 10, 30, 50, 70, 90 with the default rule and
  with ``tau`` alone, the paper's Q and the learned Q and KNN-DD: mean TP, TN
  and their standard deviation over the repeats;
* Table 2b as the paper writes it (sex reassigned at random, 100 positive
  women turned negative, 100 other negative women).

The documented variant: sex is reassigned at random (keeping the share of
women); in a random 30% of the profiles of the paper's Q the decision maker
turns each positive woman negative with probability ``share`` (50% unless
said otherwise). The discriminated targets are 100 of the flipped women; the
others are 100 negative women of the other profiles (see
docs/user_guide/situation_testing_design.rst).

Usage::

    python -m benchmarks.situation_testing_dutch [--data-dir DIR] [--repeats N] [--quick]

Wrap it in ``flock /tmp/bench.lock`` on a shared machine. The output is also
written to ``benchmarks/results/situation_testing_dutch.md``.
"""

import argparse
import time
import warnings
from collections import namedtuple
from pathlib import Path

import numpy as np

from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.situation_testing._testing import alpha_test, rule_text

from ._io import DEFAULT_DATA_DIR, k_value
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

PAPER_Q = ["age", "edu_level", "country_birth", "economic_status"]
ORDINAL = ["age", "edu_level"]
KS = (10, 30, 50, 70, 90)
PAPER_2B_K50 = (85.3, 77.6)  # CBN-DD TP, TN at K = 50, as far as our copy of the text gives it
RULES = ([("tau", "wald", 0.1)] + [("significant", "wald", a) for a in (0.05, 0.1, 0.2)]
         + [("bound", "wald", a) for a in (0.05, 0.1, 0.2, 0.3)]
         + [("significant", "newcombe", 0.1), ("bound", "newcombe", 0.1)])

LINES = []


def out(text=""):
    print(text, flush=True)
    LINES.append(text)


def load(data_dir):
    from skfair_manifold.datasets import load_dutch_census

    bunch = load_dutch_census(data_home=data_dir)
    return bunch.data, bunch.target


def auditor(method, k, X, graph=None, **kw):
    nominal = [c for c in X.columns if c not in ORDINAL and c != "sex"]
    return SituationTestingAuditor(protected="sex", protected_value="female", method=method,
                                   k=k, graph=graph, nominal=nominal, ordinal=ORDINAL, **kw)


def timed(f):
    t = time.perf_counter()
    r = f()
    return r, time.perf_counter() - t


def part_audit(X, y):
    out("## An audit of every row, with every flagged person's evidence (K = 50)")
    out()
    out(f"Rows: {X.shape[0]}, attributes: {X.shape[1]} (sex included). Default rule: "
        f"{rule_text(SituationTestingAuditor().set_params(protected='sex'))}.")
    out()
    out("| method | Q | fit s | transform s | report s | report / transform | flagged "
        "(default rule) | flagged (diff > tau) | tester cells |")
    out("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    learned = None
    for label, method, graph in [("CBN-DD, paper's Q", "cbn", ["sex"] + PAPER_Q),
                                 ("CBN-DD, learned Q", "cbn", None),
                                 ("KNN-DD", "knn", None)]:
        est, t_fit = timed(lambda: auditor(method, 50, X, graph).fit(X, y))
        res, t_tr = timed(lambda: est.transform(X))
        rep, t_rep = timed(lambda: est.report(X, y))
        tau_flags = int(((np.asarray(X["sex"]) == "female") & (np.asarray(y) == 0)
                         & (res[:, 2] > est.tau)).sum())
        q = ", ".join(est.q_) if method == "cbn" else f"all {len(est.q_)} others"
        out(f"| {label} | {q} | {t_fit:.2f} | {t_tr:.2f} | {t_rep:.2f} | "
            f"{t_rep / t_tr:.2f} | {len(rep)} | {tau_flags} | {len(rep.testers['row'])} |")
        if graph is None and method == "cbn":
            learned = est
    out()
    out(f"Learned Q (local G-test search, alpha {learned.alpha}, "
        f"{learned.structure_info_['n_tests']} tests): {learned.q_}. Paper's Q (TETRAD PC): "
        f"{PAPER_Q}.")
    out("`report` includes its own `transform` of every row (it needs the flags).")
    out()


#: What :func:`semi_synthetic` returns: the modified records and decisions, the indices of
#: the discriminated targets and of the 100 other targets, and (documented variant only,
#: else None) the masks of every flipped woman and of every negative woman outside the
#: biased profiles.
SemiSynthetic = namedtuple("SemiSynthetic",
                           ["X", "y", "discriminated_targets", "other_targets", "flipped",
                            "clean"])


def semi_synthetic(X, y, r, share=None, biased_profiles=0.3):
    """The paper's ground truth (share None), or the documented variant: a
    :data:`SemiSynthetic`."""
    rng = np.random.RandomState(1000 + r)
    Xs = X.copy()
    y0 = np.asarray(y).copy()
    p_female = np.mean(np.asarray(X["sex"]) == "female")
    Xs["sex"] = np.where(rng.rand(X.shape[0]) < p_female, "female", "male")
    female = np.asarray(Xs["sex"]) == "female"
    ys = y0.copy()
    if share is None:
        pos = rng.choice(np.flatnonzero(female & (y0 == 1)), 100, replace=False)
        ys[pos] = 0
        neg = rng.choice(np.flatnonzero(female & (y0 == 0)), 100, replace=False)
    else:
        prof = Xs[PAPER_Q].astype(str).agg("-".join, axis=1).to_numpy()
        uniq = np.unique(prof)
        biased = np.isin(prof, rng.choice(uniq, int(len(uniq) * biased_profiles),
                                          replace=False))
        cand = np.flatnonzero(biased & female & (y0 == 1))
        flipped = cand[rng.rand(cand.shape[0]) < share]
        ys[flipped] = 0
        pos = rng.choice(flipped, min(100, flipped.shape[0]), replace=False)
        neg = rng.choice(np.flatnonzero(~biased & female & (y0 == 0)), 100, replace=False)
    ys = y.__class__(ys, index=y.index, name=y.name)
    if share is None:
        return SemiSynthetic(Xs, ys, pos, neg, None, None)
    flipped_mask = np.zeros(X.shape[0], dtype=bool)
    flipped_mask[flipped] = True
    return SemiSynthetic(Xs, ys, pos, neg, flipped_mask, ~biased & female & (y0 == 0))


def methods(learned_q):
    return [("CBN-DD (paper's Q)", "cbn", ["sex"] + PAPER_Q),
            ("CBN-DD (learned Q)", "cbn", ["sex"] + list(learned_q)),
            ("KNN-DD", "knn", None)]


def run(X, y, repeats, ks, share, rules):
    """TP, TN per (method, k, rule) over repeats (every target is a negative woman)."""
    res = {}
    for r in range(repeats):
        Xs, ys, pos, neg, _, _ = semi_synthetic(X, y, r, share)
        targets = np.concatenate([pos, neg])
        learned = auditor("cbn", 10, Xs).fit(Xs, ys).q_
        truth = np.arange(targets.shape[0]) < len(pos)
        for k in ks:
            for label, method, graph in methods(learned):
                # the paper's tables: the paper's Eq. 5 (the pooled causal effect)
                est = auditor(method, k, Xs, graph, bound="wald",
                              causal_effect="pooled").fit(Xs, ys)
                wald = est.transform(Xs.iloc[targets])
                res.setdefault((label, k, "best"), []).append(
                    (best_threshold(wald[:, 2], truth),) * 2)
                for rule in rules:
                    kind, bound, a = rule
                    d, fitted = wald, est.alpha_test
                    if bound != "wald":  # its own bounds, at its own level
                        d = est.set_params(bound=bound, alpha_test=a).transform(Xs.iloc[targets])
                        est.set_params(bound="wald", alpha_test=fitted)
                        fitted = a
                    f = situation_flags(d, rule, tau=est.tau, alpha_fitted=fitted)
                    tp, tn = f[truth].mean(), (~f[~truth]).mean()
                    res.setdefault((label, k, rule), []).append((tp, tn))
    return res


def part_rules(X, y, repeats, shares):
    out("## Choosing the flag rule (K = 50, documented variant)")
    out()
    out(f"TP and TN are shares of the discriminated and of the other targets, mean of "
        f"{repeats} repeats; tau = 0.05. Levels are one-sided.")
    out()
    for share in shares:
        res, t = timed(lambda: run(X, y, repeats, (50,), share, RULES))
        out(f"### share {share:.0%} ({t:.0f} s)")
        out()
        out("| rule | " + " | ".join(m[0] for m in methods([])) + " | min over methods |")
        out("|---|" + "---|" * len(methods([])) + "---:|")
        for rule in RULES:
            cells, worst = [], 1.0
            for label, *_ in methods([]):
                v = np.array(res[(label, 50, rule)])
                tp, tn = v.mean(axis=0)
                worst = min(worst, tp, tn)
                cells.append(f"{tp:.3f} / {tn:.3f}")
            out(f"| {situation_rule_label(rule)} | " + " | ".join(cells) + f" | {worst:.3f} |")
        cells = [f"{np.mean(res[(label, 50, 'best')], axis=0)[0]:.3f}"
                 for label, *_ in methods([])]
        out("| best threshold on diff (any t) | " + " | ".join(cells) + " | |")
        out()
        out("The last line is the largest min(TP, TN) of any rule diff > t over all t, mean "
            "over the repeats: no rule that thresholds diff does better with these testers.")
        out()


def part_variant(X, y, repeats, ks, share=None):
    default = SituationTestingAuditor()
    # person by person from transform (the default's error control across an audit is
    # measured by part_error_control)
    rules = [("tau", default.bound, default.alpha_test),
             ("significant", default.bound, default.alpha_test)]
    title = ("## Table 2b as the paper writes it" if share is None else
             f"## Documented variant, share {share:.0%}: diff_lower > 0 and tau alone")
    out(title)
    out()
    res, t = timed(lambda: run(X, y, repeats, ks, share, rules))
    out(f"{repeats} repeats, {t:.0f} s. TP / TN as percentages, mean (standard deviation "
        "over repeats).")
    out()
    out("Rule: diff > tau and diff_lower > 0 (wald, one-sided 90%), person by person. "
        "Best threshold: the largest min(TP, TN) of any rule diff > t (mean over the "
        "repeats).")
    out()
    out("| K | method | diff_lower > 0 TP | TN | diff > tau TP | TN | best threshold |")
    out("|---:|---|---:|---:|---:|---:|---:|")
    for k in ks:
        for label, *_ in methods([]):
            row = []
            for rule in (rules[1], rules[0]):
                v = 100 * np.array(res[(label, k, rule)])
                row += [f"{v[:, 0].mean():.1f} ({v[:, 0].std():.1f})",
                        f"{v[:, 1].mean():.1f} ({v[:, 1].std():.1f})"]
            best = 100 * np.mean(res[(label, k, "best")], axis=0)[0]
            out(f"| {k} | {label} | " + " | ".join(row) + f" | {best:.1f} |")
    out()
    if share is None:
        out(f"The paper reports TP {PAPER_2B_K50[0]} and TN {PAPER_2B_K50[1]} for CBN-DD at "
            "K = 50. With sex reassigned at random and 100 of about 14,400 positive women "
            "turned negative one by one, a flipped woman is not among her own testers and "
            "moves nobody else's rates: her flag is the null flag rate, which is what TP "
            "measures here.")
        out()


def part_error_control(X, y, repeats, n_boot=0, ks=(50,), fdr_methods=("bh",)):
    """The default rule over an audit of every row: null runs, planted bias, verdicts.

    Each fitted auditor is audited with every procedure of ``fdr_methods``
    (the rates are computed once: only the decision across the audit changes).
    """
    out(f"## Error control across an audit of every row (K = {', '.join(map(str, ks))}, "
        f"default rule)")
    out()
    out("Null: sex reassigned at random, no bias planted; flagged = share of the candidates "
        "(women with a negative decision) flagged; 'alone': each person tested alone at "
        "alpha_test = 0.1. Planted: the documented variant at share 50%; recall = flipped "
        "women flagged; precision = flipped flagged / (flipped flagged + flagged negative "
        "women outside the biased profiles). Verdicts: shares among the flagged (planted). "
        "Passes: passes over every row's rates by `flag` then `report` (1: reused). fdr: the "
        "procedure across the audit at level 0.1 (bh: Benjamini-Hochberg; dbh: the discrete "
        "step-up of Doehler, Durand and Roquain); after the first procedure `flag` reuses the "
        "rates, so its time is that of the decision alone.")
    out()
    out("| method | K | fdr | null flagged | null alone | recall | precision | verdicts | "
        "passes | flag s | report s |")
    out("|---|---:|---|---:|---:|---:|---:|---|---:|---:|---:|")
    t0 = time.perf_counter()
    res = {}
    for r in range(repeats):
        Xn, yn, *_ = semi_synthetic(X, y, r, share=0.0)
        Xs, ys, _, _, flipped, clean = semi_synthetic(X, y, r, share=0.5)
        for k in ks:
            learned = {}
            for case, (Xc, yc) in (("null", (Xn, yn)), ("planted", (Xs, ys))):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the null graph has no sex arc
                    learned[case] = auditor("cbn", k, Xc, structure_bootstrap=n_boot,
                                            random_state=r).fit(Xc, yc)
                for label, method, graph in methods(learned[case].q_):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        est = learned[case] if label == "CBN-DD (learned Q)" else \
                            auditor(method, k, Xc, graph).fit(Xc, yc)
                    truth = {} if case == "null" else {"discriminated": flipped,
                                                       "clean": clean}
                    for fm in fdr_methods:
                        est.set_params(fdr_method=fm)
                        res.setdefault((label, k, fm, case), []).append(
                            audit_error_control(est, Xc, yc, **truth))
    for label in [m[0] for m in methods([])]:
        for k in ks:
            for fm in fdr_methods:
                null, planted = res[(label, k, fm, "null")], res[(label, k, fm, "planted")]
                verdicts = {}
                for p in planted:
                    for v, c in p["verdicts"].items():
                        verdicts[v] = verdicts.get(v, 0) + c
                out(f"| {label} | {k} | {fm} | {result_mean(null, 'flagged'):.4f} | "
                    f"{result_mean(null, 'alone'):.3f} | {mean_sd_cell(planted, 'recall')} | "
                    f"{mean_sd_cell(planted, 'precision')} | "
                    f"{verdict_shares(verdicts)} | {max(p['report_passes'] for p in planted)} "
                    f"| {result_mean(planted, 'flag_s'):.2f} | "
                    f"{result_mean(planted, 'report_s'):.2f} |")
    out()
    out(f"{repeats} repeats, {time.perf_counter() - t0:.0f} s; standard deviation over the "
        f"repeats in parentheses. When a learned graph has no arc sex -> occupation, every "
        f"flag of that audit is fragile. Structure bootstrap of the learned Q: {n_boot} "
        f"replicates (0: not run). Insufficient: fewer than 10 effective testers a side, or "
        f"fewer than 10 testers a side within the stated distance (0.05 for CBN-DD, 0.2 for "
        f"KNN-DD).")
    out()


def part_defaults(X, y, repeats, labels, k=50, fdr_method="bh"):
    """The documented variant with every default: TP and TN of the targets, three ways."""
    out("## Documented variant (share 50%) with the defaults: TP and TN over the repeats")
    if k != 50 or fdr_method != "bh":
        out()
        out(f"Here with K = {k} and fdr_method = {fdr_method!r}.")
    out()
    out("Every option at its default (K = 50, the exact rule, fdr = 0.1, the learned Q, from "
        "which a weak parent (effect below 0.05) leaves only while fewer than half of the "
        "women find K testers a side, at most 50, in their own subgroup). TP / TN: shares of "
        "the 100 discriminated and of the 100 other targets flagged and cleared, read three "
        "ways: *alone*, each target as a single complainant (diff > tau and p_value <= "
        "alpha_test = 0.1); *targets*, `flag` on the 200 targets (Benjamini-Hochberg across "
        "them); *audit*, `flag` on every row, read at the targets. Recall and precision: of "
        "the audit, against every flipped woman and the negative women outside the biased "
        "profiles. Mean (standard deviation) over the repeats.")
    out()
    t0 = time.perf_counter()
    res = {}
    for r in range(repeats):
        Xs, ys, pos, neg, flipped, clean = semi_synthetic(X, y, r, share=0.5)
        targets = np.concatenate([pos, neg])
        truth = np.arange(targets.shape[0]) < len(pos)
        for label, method, graph in methods([]):
            if label not in labels:
                continue
            graph = None if label == "CBN-DD (learned Q)" else graph
            est = auditor(method, k, Xs, graph, fdr_method=fdr_method).fit(Xs, ys)
            flags = est.flag(Xs, ys)
            rates = est.transform(Xs.iloc[targets])
            alone = (rates[:, 2] > est.tau + 1e-12) & (rates[:, 5] <= alpha_test(est))
            together = est.flag(Xs.iloc[targets], ys.iloc[targets])
            row = []
            for f in (alone, together, flags[targets]):
                row += [f[truth].mean(), (~f[~truth]).mean()]
            tp, fp = int((flags & flipped).sum()), int((flags & clean).sum())
            row += [tp / flipped.sum(), tp / max(tp + fp, 1)]
            res.setdefault(label, []).append(row)
            if label == "CBN-DD (learned Q)":
                res.setdefault("q", []).append(", ".join(est.q_))
    out("| method | alone TP | TN | targets TP | TN | audit TP | TN | audit recall | "
        "precision |")
    out("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label in labels:
        v = np.array(res[label])
        out(f"| {label} | " + " | ".join(f"{m:.3f} ({sd:.3f})"
                                         for m, sd in zip(v.mean(axis=0), v.std(axis=0)))
            + " |")
    out()
    if "q" in res:
        qs, counts = np.unique(res["q"], return_counts=True)
        out("Learned Q: " + "; ".join(f"{q} ({c} of {repeats})" for q, c in zip(qs, counts))
            + ".")
        out()
    out(f"{repeats} repeats, {time.perf_counter() - t0:.0f} s.")
    out()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR),
                        help="folder holding dutch_census/dutch.csv (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="2 repeats, K = 10 and 50")
    parts = ["audit", "rules", "variant", "2b", "error-control", "defaults"]
    parser.add_argument("--parts", nargs="+", default=parts, choices=parts)
    parser.add_argument("--structure-bootstrap", type=int, default=0,
                        help="replicates of the structure bootstrap in 'error-control'")
    parser.add_argument("--methods", nargs="+", default=[m[0] for m in methods([])],
                        choices=[m[0] for m in methods([])],
                        help="methods of the 'defaults' part")
    parser.add_argument("--ks", type=k_value, nargs="+", default=[50],
                        help="K of the 'error-control' part; the first is the 'defaults' "
                             "part's (default: 50)")
    parser.add_argument("--fdr-methods", nargs="+", default=["bh"], choices=["bh", "by", "dbh"],
                        help="procedures across the audit of the 'error-control' part; the "
                             "first is the 'defaults' part's (default: bh)")
    parser.add_argument("--output", default=str(HERE / "results" / "situation_testing_dutch.md"))
    args = parser.parse_args(argv)
    repeats = 2 if args.quick else args.repeats
    ks = (10, 50) if args.quick else KS

    X, y = load(args.data_dir)
    out("# Situation testing on the Dutch census (Zhang, Wu and Wu 2016, section 5)")
    out()
    methods_arg = (" --methods " + " ".join(repr(m) for m in args.methods)
                   if "defaults" in args.parts else "")
    bootstrap_arg = (f" --structure-bootstrap {args.structure_bootstrap}"
                     if args.structure_bootstrap else "")
    out(f"`python -m benchmarks.situation_testing_dutch{' --quick' if args.quick else ''} "
        f"--repeats {repeats} --parts {' '.join(args.parts)}{methods_arg}{bootstrap_arg}"
        f" --ks {' '.join(map(str, args.ks))} --fdr-methods {' '.join(args.fdr_methods)}`")
    out()
    if "audit" in args.parts:
        part_audit(X, y)
    if "rules" in args.parts:
        part_rules(X, y, repeats, (0.5,) if args.quick else (0.25, 0.5, 1.0))
    if "variant" in args.parts:
        part_variant(X, y, repeats, ks, share=0.5)
    if "2b" in args.parts:
        part_variant(X, y, repeats, ks, share=None)
    if "error-control" in args.parts:
        part_error_control(X, y, repeats, args.structure_bootstrap, args.ks, args.fdr_methods)
    if "defaults" in args.parts:
        part_defaults(X, y, repeats, args.methods, args.ks[0], args.fdr_methods[0])
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text("\n".join(LINES) + "\n")
    print(f"written to {args.output}")


if __name__ == "__main__":
    main()
