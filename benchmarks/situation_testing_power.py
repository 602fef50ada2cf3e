"""The smallest detectable gap of an audit: what the testers could have shown, by K.

On the planted mixed generator (``make_planted_bias``: women of two of five
regions turned negative with probability ``bias_share``) and on its null
version (``bias_share=0``), for both methods and each K of ``--ks``, at the
auditor's other defaults: the candidates, the people flagged, the share of
the planted discriminated found (recall), and the smallest detectable gap
(``report.audit["detectable_gap"]``: the smallest ``p1 - p2`` the rule
would flag with probability 0.8 with each person's testers at the audit's
level) of the candidates not flagged and of the planted discriminated that
were missed: median, with the 10th and 90th percentiles. Each line is the
mean over ``--repeats`` seeds.

Usage::

    flock /tmp/bench.lock python -m benchmarks.situation_testing_power [--n-samples 8000]
        [--ks 50 100 150] [--repeats 3]

The output is also written to ``benchmarks/results/situation_testing_power.md``.
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from ._io import k_value

HERE = Path(__file__).resolve().parent


def audit(method, k, share, n, seed):
    from skfair_manifold.datasets import make_planted_bias
    from skfair_manifold.situation_testing import SituationTestingAuditor

    X, y, discriminated, _ = make_planted_bias(n, bias_share=share, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auditor = SituationTestingAuditor(protected="sex", protected_value="female",
                                          method=method, k=k).fit(X, y)
        report = auditor.report(X, y)
    a = report.audit
    gaps, candidate, flagged = (np.asarray(a["detectable_gap"], dtype=np.float64),
                                np.asarray(a["candidate"]), np.asarray(a["flagged"]))
    quiet = gaps[candidate & ~flagged]
    missed = gaps[np.asarray(discriminated) & ~flagged]
    return {"candidates": int(candidate.sum()), "flagged": int(flagged.sum()),
            "recall": float((flagged & discriminated).sum() / max(discriminated.sum(), 1))
            if discriminated.any() else float("nan"),
            "quiet": quiet[np.isfinite(quiet)], "missed": missed[np.isfinite(missed)],
            "undefined": int((~np.isfinite(quiet)).sum())}


def spread(values):
    if values.size == 0:
        return "      -            "
    low, mid, high = np.percentile(values, [10, 50, 90])
    return f"{mid:6.3f} [{low:.3f}, {high:.3f}]"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=8000)
    parser.add_argument("--ks", type=k_value, nargs="+", default=[50, 100, 150, "auto"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path,
                        default=HERE / "results" / "situation_testing_power.md")
    args = parser.parse_args(argv)
    lines = [f"make_planted_bias({args.n_samples}), auditor defaults but method and k; "
             f"mean over {args.repeats} seeds; gaps: median [10th, 90th percentile] over "
             "the people of every seed", "",
             f"{'data':<9}{'method':<7}{'K':>5}{'candidates':>11}{'flagged':>9}{'recall':>8}"
             f"  {'gap, not flagged':<24}{'gap, planted missed':<24}{'undefined':>9}{'s':>7}"]
    print("\n".join(lines), flush=True)
    for share, label in ((0.5, "planted"), (0.0, "null")):
        for method in ("cbn", "knn"):
            for k in args.ks:
                start = time.perf_counter()
                runs = [audit(method, k, share, args.n_samples, seed)
                        for seed in range(args.repeats)]
                seconds = (time.perf_counter() - start) / args.repeats
                quiet = np.concatenate([r["quiet"] for r in runs])
                missed = np.concatenate([r["missed"] for r in runs])
                recall = np.mean([r["recall"] for r in runs])
                lines.append(
                    f"{label:<9}{method:<7}{k:>5}"
                    f"{np.mean([r['candidates'] for r in runs]):>11.0f}"
                    f"{np.mean([r['flagged'] for r in runs]):>9.1f}"
                    f"{'' if np.isnan(recall) else f'{recall:.3f}':>8}  {spread(quiet):<24}"
                    f"{spread(missed):<24}{np.mean([r['undefined'] for r in runs]):>9.1f}"
                    f"{seconds:>7.1f}")
                print(lines[-1], flush=True)
    text = "\n".join(lines)
    args.out.write_text("# situation_testing_power\n\nCommand: `flock /tmp/bench.lock python "
                        "-m benchmarks.situation_testing_power "
                        + " ".join(argv if argv is not None else sys.argv[1:])
                        + "`\n\n```\n" + text + "\n```\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
