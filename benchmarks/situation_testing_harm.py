"""Who was harmed, how likely, how many and how much, against generators whose truth is known.

Both methods at the auditor's defaults (K = 50, CBN-DD's learned graph), on
the package's generators with planted bias:

1. **Calibration** (``make_planted_bias``, 8,000 and 20,000 rows): the
   candidates (refused women) by decile of ``pn``; per decile of at least 50
   candidates the mean ``pn`` against the share truly flipped; the largest
   gap and the candidate-weighted mean gap (the claim: within 0.08 and
   0.04). The first seed's reliability tables are printed in full.
2. **How many** (three data sets at ``--rows``: the mixed-type records of
   ``make_planted_bias``; ``make_biased_decisions`` with one binary
   protected attribute, bias 0.4; the Dutch census with the documented
   planted variant of ``situation_testing_dutch``, when ``--data-dir`` holds
   it): ``report.harm``'s expected number harmed against the true count of
   flipped candidates, its interval and whether it covers.
3. **How much** (``make_biased_wages``, a 12% gap in its two cells; CBN-DD
   with the wage graph of the README, and KNN-DD): the total shortfall
   against the planted one, its interval.
4. **Null audits** (the same generators with no bias): the interval of the
   number harmed (or of the shortfall) must hold 0, and nobody be more
   likely than not harmed.

Run: ``python -m benchmarks.situation_testing_harm [--seeds 2] [--rows 20000]
[--data-dir ../shared/datasets]`` (not timed: no lock needed). Writes
``benchmarks/results/situation_testing_harm.md``.
"""

import argparse
import time
import warnings

import numpy as np

from skfair_manifold.datasets import make_biased_decisions, make_biased_wages, make_planted_bias
from skfair_manifold.situation_testing import SituationTestingAuditor

from ._io import DEFAULT_DATA_DIR, add_results_dir, markdown_table, write_result

WAGE_GRAPH = ["education", "experience", "region", "sector", "sex"]


def audit(X, y, *, method, protected="sex", value="female", **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auditor = SituationTestingAuditor(protected=protected, protected_value=value,
                                          method=method, **options).fit(X, y)
        return auditor.report(X, y)


def reliability(pn, truth, *, bins=10):
    """Rows (decile, candidates, mean pn, share flipped) of the deciles of >= 50 candidates;
    the largest and the weighted mean gap."""
    edges = np.quantile(pn, np.linspace(0, 1, bins + 1))
    index = np.clip(np.searchsorted(edges, pn, side="right") - 1, 0, bins - 1)
    rows, gaps, weights = [], [], []
    for d in range(bins):
        inside = index == d
        if inside.sum() < 50:
            continue
        mean, share = float(pn[inside].mean()), float(truth[inside].mean())
        rows.append((d + 1, int(inside.sum()), mean, share))
        gaps.append(abs(mean - share))
        weights.append(inside.sum())
    return rows, max(gaps), float(np.average(gaps, weights=weights))


def part_calibration(seeds, sizes, lines):
    lines += ["## Calibration of pn (make_planted_bias, bias_share 0.5)", ""]
    summary = []
    for n in sizes:
        for method in ("knn", "cbn"):
            for seed in range(seeds):
                X, y, flipped, _ = make_planted_bias(n, random_state=seed)
                report = audit(X, y, method=method)
                cand = np.asarray(report.audit["candidate"], dtype=bool)
                pn = np.asarray(report.audit["pn"])[cand]
                rows, largest, mean_gap = reliability(pn, flipped[cand].astype(float))
                summary.append([n, method, seed, int(cand.sum()), len(rows),
                                f"{largest:.3f}", f"{mean_gap:.3f}"])
                if seed == 0:
                    lines += [f"{method.upper()}-DD, {n} rows, seed 0:", markdown_table(
                        ["decile", "candidates", "mean pn", "share flipped"],
                        [[d, c, f"{m:.3f}", f"{s:.3f}"] for d, c, m, s in rows]), ""]
    largest_ok = sum(float(row[5]) <= 0.08 for row in summary)
    mean_ok = sum(float(row[6]) <= 0.04 for row in summary)
    lines += ["Per audit (claim: largest gap <= 0.08, weighted mean gap <= 0.04):",
              markdown_table(["rows", "method", "seed", "candidates", "deciles >= 50",
                              "largest gap", "weighted mean gap"], summary), "",
              f"largest gap within 0.08 in {largest_ok} of {len(summary)} audits; weighted "
              f"mean gap within 0.04 in {mean_ok} of {len(summary)}.", ""]


def _datasets(rows, seed, data_dir, bias=True):
    X, y, flipped, _ = make_planted_bias(rows, bias_share=0.5 if bias else 0.0,
                                         random_state=seed)
    yield "mixed records (make_planted_bias)", X, y, flipped, {}
    data = make_biased_decisions(rows, n_groups=(2,), bias=(0.4 if bias else 0.0,),
                                 random_state=seed, as_frame=True)
    yield ("make_biased_decisions (s0, bias 0.4)", data.data.join(data.sensitive), data.target,
           np.asarray(data.discriminated), {"protected": "s0", "value": 1})
    try:
        from .situation_testing_dutch import load, semi_synthetic
        Xd, yd = load(data_dir)
    except (OSError, ValueError):
        return
    if bias:
        variant = semi_synthetic(Xd, yd, seed, share=0.5)
        yield "Dutch census, planted variant", variant.X, variant.y, variant.flipped, {}


def part_counts(rows, seeds, data_dir, lines):
    lines += [f"## How many were harmed ({rows} rows; report.harm's total)", ""]
    table, covered, within = [], 0, 0
    for seed in range(seeds):
        for name, X, y, flipped, kw in _datasets(rows, seed, data_dir):
            for method in ("knn", "cbn"):
                report = audit(X, y, method=method, **kw)
                total = report.harm.loc["total"]
                cand = np.asarray(report.audit["candidate"], dtype=bool)
                truth = int(np.asarray(flipped)[cand].sum())
                cover = total["harmed_low"] <= truth <= total["harmed_high"]
                rel = total["expected_harmed"] / truth - 1 if truth else float("nan")
                covered += cover
                within += abs(rel) <= 0.15
                table.append([name, method, seed, int(cand.sum()), truth,
                              f"{total['expected_harmed']:.1f}",
                              f"[{total['harmed_low']:.1f}, {total['harmed_high']:.1f}]",
                              "yes" if cover else "no", f"{rel:+.3f}"])
    lines += [markdown_table(["data", "method", "seed", "candidates", "truly flipped",
                              "expected harmed", "interval", "covers", "relative error"],
                             table), "",
              f"{within} of {len(table)} within 15% of the true count; the interval covers "
              f"it in {covered} of {len(table)}.", ""]


def part_wages(rows, seeds, lines):
    lines += [f"## How much is owed (make_biased_wages, {rows} rows, gap 12% in two cells)",
              ""]
    table = []
    for seed in range(seeds):
        wages = make_biased_wages(rows, gap=0.12, random_state=seed)
        truth = float((wages.fair_target - wages.target)[wages.discriminated].sum())
        for method, kw in (("cbn", {"graph": WAGE_GRAPH, "interval": ["experience"]}),
                           ("knn", {})):
            report = audit(wages.data, wages.target, method=method, decision="continuous",
                           tau=1000.0, **kw)
            total = report.harm.loc["total"]
            cover = total["shortfall_low"] <= truth <= total["shortfall_high"]
            table.append([method, seed, f"{truth:,.0f}", f"{total['total_shortfall']:,.0f}",
                          f"[{total['shortfall_low']:,.0f}, {total['shortfall_high']:,.0f}]",
                          "yes" if cover else "no",
                          f"{total['total_shortfall'] / truth - 1:+.3f}"])
    lines += [markdown_table(["method", "seed", "planted shortfall", "total shortfall",
                              "interval", "covers", "relative error"], table), ""]


def part_null(rows, seeds, lines):
    lines += [f"## Null audits ({rows} rows, nothing planted)", ""]
    table = []
    for seed in range(seeds):
        for name, X, y, _, kw in _datasets(rows, seed, None, bias=False):
            for method in ("knn", "cbn"):
                report = audit(X, y, method=method, **kw)
                total = report.harm.loc["total"]
                likely = int(np.sum(report.audit["more_likely_than_not"]))
                table.append([name, method, seed, f"{total['expected_harmed']:.1f}",
                              f"[{total['harmed_low']:.1f}, {total['harmed_high']:.1f}]",
                              "yes" if total["harmed_low"] <= 0 else "no", likely])
        wages = make_biased_wages(rows, gap=0.0, random_state=seed)
        for method, kw in (("cbn", {"graph": WAGE_GRAPH, "interval": ["experience"]}),
                           ("knn", {})):
            report = audit(wages.data, wages.target, method=method, decision="continuous",
                           tau=1000.0, **kw)
            total = report.harm.loc["total"]
            table.append(["wages (make_biased_wages, gap 0)", method, seed,
                          f"{total['total_shortfall']:,.0f}",
                          f"[{total['shortfall_low']:,.0f}, {total['shortfall_high']:,.0f}]",
                          "yes" if total["shortfall_low"] <= 0 else "no", "-"])
    holds = [row[5] == "yes" for row in table]
    binary = [row for row in table if row[6] != "-"]
    lines += [markdown_table(["data", "method", "seed", "expected harmed (or shortfall)",
                              "interval", "holds 0", "more likely than not"], table), "",
              f"the interval holds 0 in {sum(holds)} of {len(table)} null audits (yes/no: "
              f"{sum(row[5] == 'yes' for row in binary)} of {len(binary)}; amounts: "
              f"{sum(row[5] == 'yes' for row in table if row[6] == '-')} of "
              f"{len(table) - len(binary)}); people more likely than not harmed: "
              f"{sum(row[6] for row in binary)} in all.", ""]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--calibration-seeds", type=int, default=5,
                        help="data sets per size and method in the calibration")
    parser.add_argument("--null-seeds", type=int, default=5,
                        help="data sets of each kind in the null audits")
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--null-rows", type=int, default=8000)
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    parser.add_argument("--calibration-rows", type=int, nargs="+", default=[8000, 20000])
    parser.add_argument("--parts", nargs="+", default=["calibration", "counts", "wages",
                                                        "null"])
    add_results_dir(parser)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    lines = ["# Harm: pn, the number harmed and the shortfall against a known truth", ""]
    if "calibration" in args.parts:
        part_calibration(args.calibration_seeds, args.calibration_rows, lines)
    if "counts" in args.parts:
        part_counts(args.rows, args.seeds, args.data_dir, lines)
    if "wages" in args.parts:
        part_wages(args.rows, args.seeds, lines)
    if "null" in args.parts:
        part_null(args.null_rows, args.null_seeds, lines)
    lines.append(f"({time.perf_counter() - start:.0f} s)")
    write_result("situation_testing_harm", "\n".join(lines), args.results_dir)


if __name__ == "__main__":
    main()
