"""Situation testing of a continuous decision: audits of wages with a known pay gap.

On :func:`~skfair_manifold.datasets.make_biased_wages` (log-linear fair wages,
noise 0.2 on the log; the women of two cells of eight paid ``--gap`` less),
both methods (CBN-DD on the generator's graph, KNN-DD), each K of ``--ks``,
``decision="continuous"`` with ``tau`` of ``--tau`` (in the wage's units),
the defaults otherwise (Welch's test, Benjamini-Hochberg at 0.1):

* **planted**: recall (the women of the biased cells flagged) and precision
  (the flagged who are such women), mean and standard deviation over
  ``--repeats`` seeds;
* **null** (``gap=0``: wages independent of sex): the share of the
  candidates (every woman) flagged; at most 1% is the target.

Usage::

    flock /tmp/bench.lock python -m benchmarks.situation_testing_continuous
        [--sizes 4000 20000] [--ks 50 auto] [--repeats 5] [--gap 0.1] [--tau 1000]

The output is also written to ``benchmarks/results/situation_testing_continuous.md``.
"""

import argparse
import time
from pathlib import Path

import numpy as np

from ._io import k_value, machine, markdown_table

HERE = Path(__file__).resolve().parent

GRAPH = ["education", "experience", "region", "sector", "sex"]


def audit(n, gap, method, k, seed, tau):
    from skfair_manifold.datasets import make_biased_wages
    from skfair_manifold.situation_testing import SituationTestingAuditor

    wages = make_biased_wages(n, gap=gap, random_state=seed)
    est = SituationTestingAuditor(protected="sex", protected_value="female", method=method,
                                  k=k, decision="continuous", tau=tau,
                                  graph=GRAPH if method == "cbn" else None,
                                  interval=["experience"])
    start = time.perf_counter()
    flagged = est.fit(wages.data, wages.target).flag(wages.data, wages.target)
    seconds = time.perf_counter() - start
    truth = np.asarray(wages.discriminated)
    women = np.asarray(wages.data["sex"] == "female")
    hits = int((flagged & truth).sum())
    return {"recall": hits / truth.sum() if truth.any() else np.nan,
            "precision": hits / flagged.sum() if flagged.any() else np.nan,
            "flagged_share": flagged.sum() / women.sum(), "seconds": seconds}


def cell(values):
    values = np.asarray(values, dtype=float)
    if np.all(np.isnan(values)):
        return "-"
    return f"{np.nanmean(values):.3f} ({np.nanstd(values):.3f})"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4000, 20000])
    parser.add_argument("--ks", type=k_value, nargs="+", default=[50, "auto"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--gap", type=float, default=0.1)
    parser.add_argument("--tau", type=float, default=1000.0)
    parser.add_argument("--output",
                        default=str(HERE / "results" / "situation_testing_continuous.md"))
    args = parser.parse_args(argv)
    lines = [f"# Situation testing of wages (decision='continuous'), {machine()}", "",
             f"make_biased_wages, gap {args.gap} in 2 cells of 8, tau = {args.tau:g}, "
             f"{args.repeats} seeds; mean (sd). Null: gap 0, share of the candidates "
             "(every woman) flagged.", ""]
    rows = []
    for n in args.sizes:
        for method in ("cbn", "knn"):
            for k in args.ks:
                planted = [audit(n, args.gap, method, k, seed, args.tau)
                           for seed in range(args.repeats)]
                null = [audit(n, 0.0, method, k, 100 + seed, args.tau)
                        for seed in range(args.repeats)]
                row = [n, "CBN-DD" if method == "cbn" else "KNN-DD", k,
                       cell([r["recall"] for r in planted]),
                       cell([r["precision"] for r in planted]),
                       f"{np.mean([r['flagged_share'] for r in null]):.4f}",
                       f"{np.max([r['flagged_share'] for r in null]):.4f}",
                       f"{np.mean([r['seconds'] for r in planted]):.1f}"]
                rows.append(row)
                print(" | ".join(str(v) for v in row), flush=True)
    lines.append(markdown_table(["rows", "method", "K", "recall", "precision",
                                 "null flagged (mean)", "null flagged (max)",
                                 "seconds an audit"], rows))
    text = "\n".join(lines)
    Path(args.output).write_text(text + "\n")
    print(text)
    print(f"\n[written to {args.output}]")


if __name__ == "__main__":
    main()
