"""K from the data (``k="auto"``) against fixed K: small cells and the K each person gets.

Two parts, both methods, each K of ``--ks`` (integers or ``auto``):

* **small cells**: nominal records where a person's situation is exactly her
  cell (region x education, 12 cells of about 80 women at 2,000 rows); in
  two regions of four each woman's positive decision is turned negative with
  probability 0.5. Over ``--audits`` audits with the bias and as many
  without: the mean false discovery proportion (clean women among the
  flagged), recall (flipped women flagged) and the share of the candidates
  flagged without bias. This is the case where a fixed K of 150 reaches
  across the cells of the bias.
* **K chosen**: on the planted mixed generator (``make_planted_bias``), the
  distribution of each candidate's K under ``k="auto"``, and of the
  discriminated.

Usage::

    flock /tmp/bench.lock python -m benchmarks.situation_testing_auto_k [--audits 30]
        [--ks 50 150 auto] [--n-samples 8000]

The output is also written to ``benchmarks/results/situation_testing_auto_k.md``.
"""

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from skfair_manifold.datasets._testing import planted_cells
from skfair_manifold.situation_testing._testing import k_of_rows

from ._io import k_value

HERE = Path(__file__).resolve().parent

LINES = []


def out(text=""):
    print(text, flush=True)
    LINES.append(text)


def auditor(method, k, **kw):
    from skfair_manifold.situation_testing import SituationTestingAuditor

    graph = {"graph": ["sex", "region", "edu"]} if method == "cbn" else {}
    return SituationTestingAuditor(protected="sex", protected_value="f", method=method, k=k,
                                   **graph, **kw)


def part_small_cells(audits, ks, n=2000):
    out(f"## Small cells ({n} rows, 12 cells, {audits} audits with bias and {audits} "
        "without)")
    out()
    out("FDP: clean women among the flagged, mean over the audits (the level promised is "
        "0.1); recall: flipped women flagged; null flagged: share of the candidates flagged "
        "without bias. Default rule (Benjamini-Hochberg at 0.1).")
    out()
    out("| method | K | FDP | recall | null flagged | s |")
    out("|---|---:|---:|---:|---:|---:|")
    for method in ("cbn", "knn"):
        for k in ks:
            t0 = time.perf_counter()
            fdp, recall, null = [], [], []
            for r in range(audits):
                X, y, flipped, clean = planted_cells(n, np.random.RandomState(r), 0.5)
                flags = auditor(method, k).fit(X, y).flag(X, y)
                tp, fp = int((flags & flipped).sum()), int((flags & clean).sum())
                fdp.append(fp / max(tp + fp, 1))
                recall.append(tp / flipped.sum())
                X0, y0, _, _ = planted_cells(n, np.random.RandomState(100 + r), 0.0)
                cand = (X0["sex"] == "f").to_numpy() & (y0 == 0)
                null.append(auditor(method, k).fit(X0, y0).flag(X0, y0)[cand].mean())
            out(f"| {method.upper()}-DD | {k} | {np.mean(fdp):.3f} | {np.mean(recall):.3f} | "
                f"{np.mean(null):.4f} | {time.perf_counter() - t0:.0f} |")
    out()


def part_k_chosen(n, repeats):
    from skfair_manifold.datasets import make_planted_bias
    from skfair_manifold.situation_testing import SituationTestingAuditor

    out(f"## The K each candidate gets under k='auto' (mixed generator, {n} rows, share 50%, "
        f"{repeats} repeats)")
    out()
    out("Percentiles (10th, 50th, 90th) over the candidates (women with a negative "
        "decision) and over the planted discriminated; share at the floor (50) and at the "
        "ceiling (400).")
    out()
    out("| method | candidates K p10 / p50 / p90 | at 50 | at 400 | discriminated K p10 / p50 "
        "/ p90 |")
    out("|---|---:|---:|---:|---:|")
    for method in ("cbn", "knn"):
        ks, disc_ks = [], []
        for r in range(repeats):
            X, y, disc, _ = make_planted_bias(n, bias_share=0.5, random_state=r)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = SituationTestingAuditor(protected="sex", protected_value="female",
                                              method=method, k="auto").fit(X, y)
            k = k_of_rows(est, X)
            cand = (X["sex"].to_numpy() == "female") & (np.asarray(y) == 0)
            ks.append(k[cand])
            disc_ks.append(k[np.asarray(disc)])
        ks, disc_ks = np.concatenate(ks), np.concatenate(disc_ks)
        a, b, c = np.percentile(ks, [10, 50, 90])
        d, e, f = np.percentile(disc_ks, [10, 50, 90])
        out(f"| {method.upper()}-DD | {a:.0f} / {b:.0f} / {c:.0f} | {np.mean(ks == 50):.2f} | "
            f"{np.mean(ks == 400):.2f} | {d:.0f} / {e:.0f} / {f:.0f} |")
    out()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--audits", type=int, default=30)
    parser.add_argument("--ks", type=k_value, nargs="+", default=[50, 150, "auto"])
    parser.add_argument("--n-samples", type=int, default=8000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--output", default=str(HERE / "results" / "situation_testing_auto_k.md"))
    args = parser.parse_args(argv)
    out("# K from the data against fixed K")
    out()
    out(f"`python -m benchmarks.situation_testing_auto_k --audits {args.audits} --ks "
        f"{' '.join(map(str, args.ks))} --n-samples {args.n_samples} --repeats {args.repeats}`")
    out()
    part_small_cells(args.audits, args.ks)
    part_k_chosen(args.n_samples, args.repeats)
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text("\n".join(LINES) + "\n")
    print(f"written to {args.output}")


if __name__ == "__main__":
    main()
