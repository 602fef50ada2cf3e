"""Coverage of the bias audit's impact-ratio interval where the truth is known.

Five categories of applicants (shares 30, 25, 20, 15 and 10%) with known
selection rates; the true impact ratio of each is its rate over the largest.
A share of each category's applicants has an unknown category (5, 10, 20, 30
and 40%), missing *not at random*: an applicant not selected is three times
as likely to be unknown as one selected. Each data set is audited by
``bias_audit``; the table gives, per category, the share of data sets whose
interval holds the true ratio (at 95%), the mean width of the interval and of
the bounds, and the share of data sets whose ratio as published (the known
applicants alone) is wrong about the four-fifths rule. Two more settings: the
same rates with nothing unknown (the interval is then the group report's
simultaneous interval), and 2% unknown.

Run: ``python -m benchmarks.bias_audit_coverage [--repeats 1000] [--rows 2000]``
(no data needed; not timed: no lock needed). Writes
``benchmarks/results/bias_audit_coverage.md``.
"""

import argparse
import time

import numpy as np

from skfair_manifold.metrics import bias_audit

from ._io import add_results_dir, markdown_table, write_result

SHARES = np.array([0.30, 0.25, 0.20, 0.15, 0.10])
RATES = np.array([0.30, 0.27, 0.22, 0.30, 0.18])
NAMES = list("abcde")
SETTINGS = {
    "5-40% unknown, not at random": np.array([0.05, 0.10, 0.20, 0.30, 0.40]),
    "2% unknown, not at random": np.full(5, 0.02),
    "nothing unknown": np.zeros(5),
}


def audit_once(rng, rows, missing):
    """One data set and its audit table (indexed by category)."""
    cat = rng.choice(5, rows, p=SHARES)
    selected = rng.random(rows) < RATES[cat]
    # not at random: the not selected three times as likely to be unknown
    p_unknown = missing[cat] * np.where(selected, 0.5, 1.5)
    names = np.array(NAMES, dtype=object)[cat]
    names[rng.random(rows) < p_unknown] = None
    return bias_audit(selected.astype(int), sensitive_features={"group": names},
                      min_share=0.0).table.set_index("category")


def run(repeats, rows, seed):
    truth = RATES / RATES.max()
    out = {}
    for label, missing in SETTINGS.items():
        rng = np.random.default_rng(seed)
        hits = np.zeros(5)
        width = np.zeros(5)
        bounds = np.zeros(5)
        wrong = np.zeros(5)
        for _ in range(repeats):
            t = audit_once(rng, rows, missing)
            low = t.loc[NAMES, "impact_ratio_ci_low"].to_numpy()
            high = t.loc[NAMES, "impact_ratio_ci_high"].to_numpy()
            hits += (low <= truth + 1e-12) & (truth <= high + 1e-12)
            width += high - low
            bounds += (t.loc[NAMES, "impact_ratio_high"] - t.loc[NAMES, "impact_ratio_low"]
                       ).to_numpy()
            wrong += (t.loc[NAMES, "impact_ratio"].to_numpy() >= 0.8) != (truth >= 0.8)
        out[label] = (hits / repeats, width / repeats, bounds / repeats, wrong / repeats)
    return truth, out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    add_results_dir(parser)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    truth, out = run(args.repeats, args.rows, args.seed)
    lines = [f"Coverage of impact_ratio_ci at 95%: {args.repeats} data sets of {args.rows} "
             f"applicants per setting (seed {args.seed}); categories a-e, shares "
             f"{', '.join(f'{s:.0%}' for s in SHARES)}, selection rates "
             f"{', '.join(f'{r:.2f}' for r in RATES)}.", ""]
    for label, (cover, width, bounds, wrong) in out.items():
        missing = SETTINGS[label]
        rows = [[name, f"{m:.0%}", f"{t:.3f}", f"{c:.3f}", f"{w:.3f}", f"{b:.3f}", f"{x:.3f}"]
                for name, m, t, c, w, b, x in zip(NAMES, missing, truth, cover, width,
                                                   bounds, wrong)]
        lines += [f"{label}:", markdown_table(
            ["category", "unknown", "true ratio", "coverage", "interval width",
             "bounds width", "published ratio wrong on 0.8"], rows), ""]
    lines.append(f"({time.perf_counter() - start:.0f} s)")
    write_result("bias_audit_coverage", "\n".join(lines), args.results_dir)


if __name__ == "__main__":
    main()
