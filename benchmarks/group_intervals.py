"""Coverage of the group report's intervals where the truth is known, and the choice of
``min_group_size``.

1. Rates: groups of 4 to 1,000 rows drawn with known selection rates (a new
   rate per repeat, uniform on [0.02, 0.98]); 90% intervals of the rate by the
   percentile bootstrap (what the report used before), Wilson's score interval,
   and Wilson's with continuity correction (the report's default now): the share
   of repeats that cover the true rate, the zero-width intervals, the mean width.
2. Gaps: 2 and 8 groups of the same size with known rates; 90% intervals of the
   DP difference and ratio from ``fairness_report`` (simultaneous score
   intervals, the default) and from its bootstrap of the cell counts
   (``n_boot=200``): coverage of the population's gap and mean width.
3. The upward bias of the largest-minus-smallest: groups with equal rates 0.5,
   the mean sample DP difference by group size, for 2 and 10 groups, with the
   half-width of one group's 95% interval: the basis of ``min_group_size=30``.

Run: ``python -m benchmarks.group_intervals [--repeats 400]`` (no data needed;
seconds, not timed: no lock needed).
"""

import argparse
import warnings

import numpy as np

from skfair_manifold.metrics import UndefinedFairnessWarning, fairness_report
from skfair_manifold.metrics._testing import wilson_cc

SIZES = (4, 6, 10, 15, 30, 100, 300, 1000)
Z90 = 1.6448536269514722


def wilson(x, n, z=Z90):
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def rates_table(repeats, rng):
    print("\n1. 90% intervals of one group's selection rate: coverage, zero-width count, "
          f"mean width ({repeats} repeats a size, true rate uniform on [0.02, 0.98])")
    print(f"{'rows':>6s}  {'bootstrap':>22s}  {'Wilson':>22s}  {'Wilson-CC (default)':>22s}")
    for n in SIZES:
        p = rng.uniform(0.02, 0.98, repeats)
        x = rng.binomial(n, p)
        boot = rng.binomial(n, (x / n)[:, None], size=(repeats, 200)) / n
        b_low, b_high = np.quantile(boot, [0.05, 0.95], axis=1)
        cells = []
        for low, high in ((b_low, b_high), wilson(x, n), wilson_cc(x, np.full(repeats, n), 0.9)):
            cover = np.mean((low <= p) & (p <= high))
            zero = int(np.sum(high - low <= 0))
            cells.append(f"{cover:6.3f} {zero:5d} {np.mean(high - low):8.3f}")
        print(f"{n:>6d}  " + "  ".join(f"{c:>22s}" for c in cells))


def gaps_table(repeats, rng):
    print("\n2. 90% intervals of the DP difference and ratio between groups: coverage of the "
          f"population's gap, mean width ({repeats} repeats a size)")
    print(f"{'groups':>6s}{'rows':>6s}  {'score diff':>14s}{'score ratio':>14s}"
          f"  {'boot diff':>14s}{'boot ratio':>14s}")
    for rates in ([0.3, 0.6], [0.2, 0.35, 0.4, 0.5, 0.5, 0.6, 0.7, 0.8]):
        rates = np.asarray(rates)
        true_diff, true_ratio = rates.max() - rates.min(), rates.min() / rates.max()
        for n in SIZES:
            group = np.repeat(np.arange(rates.shape[0]), n)
            stats = {k: [] for k in ("sd", "sr", "bd", "br")}
            for rep in range(repeats):
                y_pred = (rng.random(group.shape[0]) < rates[group]).astype(int)
                for key, n_boot in (("s", 0), ("b", 200)):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", UndefinedFairnessWarning)
                        r = fairness_report(y_pred, y_pred, sensitive_features=group,
                                            confidence=0.9, min_group_size=1, n_boot=n_boot,
                                            random_state=rep)
                    g = r.intervals.gaps.loc[0]
                    for form, truth, tag in (("difference", true_diff, "d"),
                                             ("ratio", true_ratio, "r")):
                        low = g[f"demographic_parity_{form}_low"]
                        high = g[f"demographic_parity_{form}_high"]
                        stats[key + tag].append((low <= truth <= high, high - low))
            cells = []
            for key in ("sd", "sr", "bd", "br"):
                arr = np.asarray(stats[key], dtype=float)
                cells.append(f"{np.nanmean(arr[:, 0]):6.3f} {np.nanmean(arr[:, 1]):6.3f}")
            print(f"{rates.shape[0]:>6d}{n:>6d}  " + "".join(f"{c:>14s}" for c in cells))
            if n >= 300 and rates.shape[0] > 2:
                break  # the bootstrap at 8 x 1,000 rows adds nothing but time


def bias_table(repeats, rng):
    print("\n3. Equal true rates (0.5): mean sample DP difference (the upward bias of a "
          "largest-minus-smallest) and one group's 95% interval half-width")
    print(f"{'rows':>6s}{'2 groups':>12s}{'10 groups':>12s}{'half-width':>12s}")
    for n in (4, 5, 10, 20, 30, 50, 100, 300):
        out = []
        for G in (2, 10):
            rates = rng.binomial(n, 0.5, size=(repeats, G)) / n
            out.append(np.mean(rates.max(axis=1) - rates.min(axis=1)))
        low, high = wilson_cc(np.array([n / 2]), np.array([n]), 0.95)
        print(f"{n:>6d}{out[0]:12.3f}{out[1]:12.3f}{(high[0] - low[0]) / 2:12.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    rates_table(args.repeats * 10, rng)
    gaps_table(args.repeats // 2, rng)
    bias_table(args.repeats * 10, rng)


if __name__ == "__main__":
    main()
