"""The bins of interval attributes: Fayyad and Irani's MDL rule against a plain reference."""

import math

import numpy as np
import pytest

from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.situation_testing._discretize import mdlp_edges, quantile_edges


def entropy(labels):
    n = len(labels)
    if n == 0:
        return 0.0
    out = 0.0
    for cls in (0, 1):
        m = sum(1 for v in labels if v == cls)
        if m:
            out -= m / n * math.log2(m / n)
    return out


def best_cut_reference(xs, ys):
    """(score, cut index) of the MDL-accepted cut of a sorted segment, or None (plain loops)."""
    n = len(xs)
    best = None
    for i in range(1, n):
        if xs[i] == xs[i - 1]:
            continue
        left, right = ys[:i], ys[i:]
        split = (len(left) * entropy(left) + len(right) * entropy(right)) / n
        if best is None or split < best[0] - 1e-12:
            best = (split, i)
    if best is None:
        return None
    split, i = best
    whole = entropy(ys)
    gain = whole - split
    k, k1, k2 = (len(set(part)) for part in (ys, ys[:i], ys[i:]))
    delta = math.log2(3 ** k - 2) - (k * whole - k1 * entropy(ys[:i]) - k2 * entropy(ys[i:]))
    if gain <= (math.log2(n - 1) + delta) / n:
        return None
    return gain * n, i


def mdlp_reference(x, y, max_bins):
    order = sorted(range(len(x)), key=lambda i: (x[i], i))
    xs = [float(x[i]) for i in order]
    ys = [int(y[i]) for i in order]
    segments = [(0, len(xs))]
    pending = {}
    cuts = []
    while len(cuts) + 1 < max_bins:
        for seg in segments:
            if seg not in pending:
                lo, hi = seg
                found = best_cut_reference(xs[lo:hi], ys[lo:hi])
                pending[seg] = None if found is None else (found[0], lo + found[1])
        live = [(v[0], seg) for seg, v in pending.items() if v is not None]
        if not live:
            break
        _, seg = max(live)
        cut = pending.pop(seg)[1]
        cuts.append(cut)
        segments.remove(seg)
        segments += [(seg[0], cut), (cut, seg[1])]
    return sorted(xs[c] for c in cuts)


def case(seed):
    rng = np.random.RandomState(seed)
    n = rng.randint(150, 400)
    x = np.round(rng.normal(0, 1, n), 1)  # ties among the values
    rate = 0.1 + 0.6 * (x > 0.3) + 0.3 * (x < -0.5) * (seed % 3 > 0) - 0.05 * (x > 1.2)
    return x, rng.rand(n) < rate


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("max_bins", [2, 3, 5])
def test_mdlp_matches_the_plain_reference(seed, max_bins):
    x, y = case(seed)
    got = mdlp_edges(x, y, max_bins)
    np.testing.assert_array_equal(got, mdlp_reference(x, y, max_bins))
    assert got.shape[0] <= max_bins - 1


def test_the_reference_cases_hold_several_cuts():
    # the cases above exercise the best-first order of several cuts, and single cuts
    cuts = [mdlp_edges(*case(seed), 5).shape[0] for seed in range(12)]
    assert max(cuts) >= 2 and min(cuts) == 1


def test_mdlp_cuts_at_a_step_and_not_without_one():
    rng = np.random.RandomState(0)
    age = np.round(rng.uniform(18, 70, 20000), 1)
    y = rng.rand(20000) < np.where(age < 25, 0.2, 0.35)
    edges = mdlp_edges(age, y, 5)
    assert edges.shape[0] >= 1 and any(24.0 <= e <= 26.0 for e in edges)
    cut_without = sum(mdlp_edges(rng.normal(size=3000), rng.rand(3000) < 0.3, 5).shape[0] > 0
                      for _ in range(20))
    assert cut_without <= 1  # an attribute unrelated to the decision gets one bin
    # a pure column (one class) and a constant column: no cut
    assert mdlp_edges(age, np.zeros(age.shape[0], dtype=bool), 5).shape[0] == 0
    assert mdlp_edges(np.ones(50), y[:50], 5).shape[0] == 0


def test_quantile_edges():
    x = np.random.RandomState(1).lognormal(size=300)
    np.testing.assert_allclose(quantile_edges(x, 4), np.quantile(x, [0.25, 0.5, 0.75]))
    assert quantile_edges(np.ones(10), 4).tolist() == [1.0]


@pytest.mark.parametrize("binning", ["mdlp", "quantile"])
def test_the_auditor_keeps_the_bins_of_its_binning(binning):
    rng = np.random.RandomState(2)
    n = 3000
    c = rng.randint(0, 2, n)
    age = np.round(rng.uniform(18, 70, n), 1)
    y = (rng.rand(n) < np.where(age < 30, 0.15, 0.5) - 0.1 * c).astype(int)
    X = np.column_stack([c, age])
    est = SituationTestingAuditor(protected=0, protected_value=1, k=10, binning=binning,
                                  graph=[0, 1]).fit(X, y)
    expected = mdlp_edges(age, y == 1, 5) if binning == "mdlp" else quantile_edges(age, 5)
    np.testing.assert_array_equal(est.bin_edges_[1], expected)
    if binning == "mdlp":
        assert any(29.0 <= e <= 31.0 for e in est.bin_edges_[1])
