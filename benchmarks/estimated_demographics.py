"""Estimated demographics where the truth is known: the weighted estimate, the bounds, the interval.

A population of proxy strata (an area, a surname-area cell), each with a known
membership of three categories ``a``, ``b``, ``c`` (the probabilities an audit
receives, as BISG gives them) and a known share of the population. Data sets of
``--rows`` people are drawn from it (stratum, then true category from the
stratum's membership, then the decision), and each is audited by
``bias_audit(selected, membership={"race": P}, proxy=stratum)``, where ``P`` is
each person's stratum membership: the true categories are never shown. Three
ways the decision can depend on the category:

``independent``
    within a stratum the decision does not depend on the category (the rate is
    the stratum's): the weighted estimate is then unbiased;
``dependent``
    it does (a logistic model of the stratum and the category): the weighted
    estimate is off by ``-E[Cov(1{G = g}, Y | Z)] / P(G = g)`` (Chen, Kallus,
    Mao, Svacha and Udell, 2019);
``extreme``
    within a stratum the selected are ``b`` first, then ``a``, then ``c``: the
    coupling at the edge of the Frechet bounds, where the true ratio of ``c``
    is the population's lower bound, so the interval's lower end is tested.

Per setting and category: the true rate, the mean weighted estimate over the
data sets, its bias, the expected bias (the covariance formula, 0 when
independent), ``|mean - truth - expected| / Monte Carlo SE`` (within 3 is the
claim), the largest distance of the table's rate bounds from the strata's
Frechet bounds computed here in plain Python, the true impact ratio, the
share of data sets whose interval holds it (the claim: at least 0.94 at 95%)
and the interval's mean width. Last, one-hot membership (every category known)
against the hard-label audit, and the audit of a DuckDB relation against the
rows in memory: the largest difference over the table.

Run: ``python -m benchmarks.estimated_demographics [--repeats 150] [--rows 3000]``
(no data needed; not timed: no lock needed). Writes
``benchmarks/results/estimated_demographics.md``.
"""

import argparse
import time
import warnings

import numpy as np
import pandas as pd

from skfair_manifold.metrics import bias_audit

from ._io import add_results_dir, markdown_table, write_result

CATEGORIES = ["a", "b", "c"]
STRATA = 30
SETTINGS = ("independent", "dependent", "extreme")
ORDER = [1, 0, 2]  # the extreme coupling fills b first, then a, then c


def population(seed):
    """Strata shares, memberships (Z, 3), and per setting P(selected | category, stratum)."""
    rng = np.random.default_rng(seed)
    share = rng.dirichlet(np.full(STRATA, 5.0))
    member = rng.dirichlet([0.5, 0.35, 0.3], STRATA)
    base = rng.uniform(-1.2, 0.2, STRATA)
    stratum_rate = 1.0 / (1.0 + np.exp(-base))
    q = {"independent": np.repeat(stratum_rate[:, None], 3, axis=1),
         "dependent": 1.0 / (1.0 + np.exp(-(base[:, None] + np.array([0.0, 0.6, -0.5]))))}
    # extreme: the stratum's selected mass poured into b, then a, then c
    extreme = np.zeros((STRATA, 3))
    left = stratum_rate.copy()
    for k in ORDER:
        take = np.minimum(member[:, k], left)
        extreme[:, k] = np.where(member[:, k] > 0, take / member[:, k], 0.0)
        left = left - take
    q["extreme"] = extreme
    return share, member, q


def truths(share, member, q):
    """True rates, their impact ratios, and the weighted estimate's expected bias."""
    mass = share @ member                                   # P(G = g)
    rate = (share[:, None] * member * q).sum(axis=0) / mass
    mean_q = (member * q).sum(axis=1)                       # P(Y = 1 | z)
    cov = member * q - member * mean_q[:, None]             # Cov(1{G=g}, Y | z)
    bias = -(share[:, None] * cov).sum(axis=0) / mass
    return rate, rate / rate.max(), bias


def draw(rng, rows, share, member, q):
    z = rng.choice(STRATA, rows, p=share)
    u = rng.random(rows)[:, None]
    g = (u > np.cumsum(member[z], axis=1)).sum(axis=1)
    selected = (rng.random(rows) < q[z, g]).astype(int)
    return z, g, selected


def frechet(z, selected, member):
    """The strata's Frechet bounds of each category's rate, in plain Python."""
    low, high, mass = np.zeros(3), np.zeros(3), np.zeros(3)
    for s in range(STRATA):
        inside = z == s
        N = int(inside.sum())
        Y = int(selected[inside].sum())
        for k in range(3):
            m = N * member[s, k]
            low[k] += max(0.0, m + Y - N)
            high[k] += min(m, Y)
            mass[k] += m
    return low / mass, high / mass


def run(repeats, rows, seed):
    share, member, q = population(seed)
    out = {}
    for setting in SETTINGS:
        rate, ratio, bias = truths(share, member, q[setting])
        rng = np.random.default_rng(seed + 1)
        estimates, hits, widths, off = [], np.zeros(3), np.zeros(3), 0.0
        for _ in range(repeats):
            z, _, selected = draw(rng, rows, share, member, q[setting])
            P = pd.DataFrame(member[z], columns=CATEGORIES)
            t = bias_audit(selected, membership={"race": P}, proxy=z,
                           min_share=0.0).table.set_index("category").loc[CATEGORIES]
            estimates.append(t["rate"].to_numpy())
            low, high = t["impact_ratio_ci_low"].to_numpy(), t["impact_ratio_ci_high"].to_numpy()
            hits += (low <= ratio + 1e-12) & (ratio <= high + 1e-12)
            widths += high - low
            f_low, f_high = frechet(z, selected, member)
            off = max(off, float(np.max(np.abs(t["rate_low"].to_numpy() - f_low))),
                      float(np.max(np.abs(t["rate_high"].to_numpy() - f_high))))
        estimates = np.array(estimates)
        expected = bias if setting != "independent" else np.zeros(3)
        mc_se = estimates.std(axis=0, ddof=1) / np.sqrt(repeats)
        mean = estimates.mean(axis=0)
        out[setting] = dict(rate=rate, mean=mean, bias=mean - rate, expected=expected,
                            z=np.abs(mean - rate - expected) / mc_se, frechet=off,
                            ratio=ratio, coverage=hits / repeats, width=widths / repeats)
    return out


def one_hot_check(seed, rows):
    """One-hot membership against the hard labels: the largest difference of the tables."""
    share, member, q = population(seed)
    rng = np.random.default_rng(seed + 2)
    z, g, selected = draw(rng, rows, share, member, q["dependent"])
    labels = np.array(CATEGORIES, dtype=object)[g]
    one_hot = pd.get_dummies(pd.Series(labels)).astype(float)
    a = bias_audit(selected, membership={"race": one_hot}).table
    b = bias_audit(selected, sensitive_features={"race": labels}).table
    numbers = a.select_dtypes("number").columns
    same_text = a.drop(columns=numbers).equals(b.drop(columns=numbers))
    diff = np.nanmax(np.abs(a[numbers].to_numpy(float) - b[numbers].to_numpy(float)))
    return float(diff), bool(same_text)


def duckdb_check(seed, rows):
    """The same audit from a DuckDB relation and in memory: the largest difference."""
    try:
        import duckdb
    except ImportError:
        return None
    share, member, q = population(seed)
    rng = np.random.default_rng(seed + 3)
    z, _, selected = draw(rng, rows, share, member, q["dependent"])
    P = member[z]
    memory = bias_audit(selected, membership={"race": pd.DataFrame(P, columns=CATEGORIES)},
                        proxy=z).table
    frame = pd.DataFrame({"selected": selected, "zone": z, "p_a": P[:, 0], "p_b": P[:, 1],
                          "p_c": P[:, 2]})
    relation = duckdb.connect().from_df(frame)
    lazy = bias_audit("selected", data=relation, proxy="zone",
                      membership={"race": dict(zip(CATEGORIES, ["p_a", "p_b", "p_c"]))}).table
    numbers = memory.select_dtypes("number").columns
    return float(np.nanmax(np.abs(memory[numbers].to_numpy(float)
                                  - lazy[numbers].to_numpy(float))))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=150)
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    add_results_dir(parser)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # few rows per stratum at --rows small
        out = run(args.repeats, args.rows, args.seed)
    diff, same_text = one_hot_check(args.seed, args.rows)
    lazy = duckdb_check(args.seed, args.rows)
    lines = [f"{args.repeats} data sets of {args.rows} people per setting (seed {args.seed}); "
             f"{STRATA} proxy strata, categories a, b, c; bias_audit(membership=, proxy=) at "
             f"95%.", ""]
    for setting, r in out.items():
        rows = [[k, f"{r['rate'][i]:.4f}", f"{r['mean'][i]:.4f}", f"{r['bias'][i]:+.4f}",
                 f"{r['expected'][i]:+.4f}", f"{r['z'][i]:.2f}", f"{r['ratio'][i]:.3f}",
                 f"{r['coverage'][i]:.3f}", f"{r['width'][i]:.3f}"]
                for i, k in enumerate(CATEGORIES)]
        lines += [f"{setting} (rate bounds vs the strata's Frechet bounds: largest difference "
                  f"{r['frechet']:.2e}):", markdown_table(
                      ["category", "true rate", "mean weighted estimate", "bias",
                       "expected bias", "|bias - expected| / MC SE", "true impact ratio",
                       "interval coverage", "interval width"], rows), ""]
    lines.append(f"One-hot membership against hard labels: largest difference {diff:.1e}, "
                 f"text columns equal: {same_text}.")
    lines.append("DuckDB relation against the rows in memory: " + (
        "duckdb not installed." if lazy is None else f"largest difference {lazy:.1e}."))
    lines.append(f"({time.perf_counter() - start:.0f} s)")
    write_result("estimated_demographics", "\n".join(lines), args.results_dir)


if __name__ == "__main__":
    main()
