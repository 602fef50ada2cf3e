"""Intervals of the impact ratio that cover when both sampling and the unknowns are uncertain.

The true impact ratio of a category lies, in the population, between the
population's own bounds (:mod:`._bounds`: the extremes over where the unknown
people belong), which are functions of the population's selection rates. The
interval is the range of those bounds over a confidence box of the rates that
holds the population's rates with probability at least ``confidence``, so it
holds the population's bounds, hence the true ratio, with at least that
probability, at any sample size and however the unknowns were missing.

The box (every unknown compatible with every category: a single
characteristic, or an intersection whose unknowns are unknown in every
attribute). Each category's selection rate among its known people gets
Wilson's score interval with continuity correction (the group report's, valid
at any group size), and so does the unknown people's share selected. The
lower bound of ``c``'s ratio is monotone in each rate, smallest with ``c``'s
rate low and the others' high, and it is at most the population's as soon as
three limits hold: ``c``'s lower limit, the upper limit of the category whose
rate (with the selected unknowns) is the population's largest, and the
unknowns' share inside its interval (the bound is searched over that interval,
65 points: it is not monotone in the share). So each of these limits is taken
one-sided at ``a / 6`` (``a = 1 - confidence``; Bonferroni: the lower end
misses with probability at most ``a / 2``; without unknowns two limits, at
``a / 4``). The upper bound is largest with ``c``'s rate high and the others'
low, and it is at least the population's when ``c``'s upper limit, every other
category's lower limit (all of them shape the water level) and the share's
interval hold: ``K + 1`` limits, each one-sided at ``a / (2 (K + 1))``. The
two ends together miss with probability at most ``a``. The comparator's rate
is never a noisy maximum here: the largest rate is whichever the limits
allow, which answers the upward bias of a maximum over many small groups, as
the group report's simultaneous intervals do.

Intersections with partly known people. Their bounds mix several unknown
patterns, so the box is over counts instead: the selected and the not
selected of each category and of each unknown pattern at their one-sided
Poisson (Garwood) limits, each at level ``(1 - a/2) ** (1 / m)`` over the
``m`` counts (``a = 1 - confidence``), at the corner that lowers (for the
lower end) or raises (for the upper end) the bound: both bounds are monotone
in every count. With probability at least ``1 - a/2`` at each end every
population count is inside, and then the population's bound is too.

The coverage is measured in ``benchmarks/bias_audit_coverage.py`` (and in a
quick test), with demographics missing not at random.
"""

import numpy as np
from scipy import stats

from .._groups._intervals import wilson_cc
from ._bounds import _highest_compatible, ratio_bounds

__all__ = ["ratio_intervals"]

#: points of the search over the unknowns' share selected
SHARE_GRID = 65


def ratio_intervals(ch, *, eligible, rated, comparator, confidence):
    """``(ci_low, ci_high)`` (K,) of each category's impact ratio; NaN where undefined.

    ``ch``: a :class:`._cells.Characteristic`; ``eligible``, ``rated``,
    ``comparator``: as for :func:`._bounds.ratio_bounds`.
    """
    K = len(ch.cells)
    if K == 0:
        return np.zeros(0), np.zeros(0)
    if ch.all_compatible:
        return _rate_box(ch, eligible=eligible, rated=rated, comparator=comparator,
                         confidence=confidence)
    return _count_box(ch, eligible=eligible, rated=rated, comparator=comparator,
                      confidence=confidence)


def _rate_box(ch, *, eligible, rated, comparator, confidence):
    """The interval over the box of rates (every unknown compatible with every category)."""
    K = len(ch.cells)
    S, F, D = float(ch.selected.sum()), float(ch.not_selected.sum()), \
        float(ch.undecided.sum())
    decided = S + F
    a = 1.0 - confidence
    with_share = decided > 0
    observed = int((ch.n > 0).sum())
    # one-sided tail of each limit at each end (see the module)
    tail_low = (a / 2.0) / (3 if with_share else 2)
    tail_high = (a / 2.0) / (max(observed, 1) + (1 if with_share else 0))
    n = ch.n
    low, high = np.full(K, np.nan), np.full(K, np.nan)
    for end, tail in (("low", tail_low), ("high", tail_high)):
        p_lo, p_hi = wilson_cc(ch.s, n, 1.0 - 2.0 * tail)
        p_lo, p_hi = np.nan_to_num(p_lo, nan=0.0), np.nan_to_num(p_hi, nan=0.0)
        if with_share:
            q_lo, q_hi = wilson_cc(S, decided, 1.0 - 2.0 * tail)
            share = np.linspace(float(q_lo), float(q_hi), SHARE_GRID)
        else:
            share = np.zeros(1)
        Q = share.shape[0]
        nn = np.broadcast_to(n, (Q, K))
        sel, unsel, und = share * decided, (1.0 - share) * decided, np.full(Q, D)
        for c in np.flatnonzero(rated):
            mine = np.arange(K) == c
            only = mine.copy()
            rates = np.where(mine, p_lo, p_hi) if end == "low" else \
                np.where(mine, p_hi, p_lo)
            s_corner = np.broadcast_to(rates * n, (Q, K))
            lo, hi = ratio_bounds(nn, s_corner, sel, unsel, und, eligible=eligible,
                                  rated=only, comparator=comparator, integer=False, grid=33)
            if end == "low":
                low[c] = _extreme(lo[:, c], minimize=True)
            else:
                high[c] = _extreme(hi[:, c], minimize=False)
    return low, high


def _extreme(values, *, minimize):
    finite = values[~np.isnan(values)]
    if not finite.size:
        return np.nan
    return float(finite.min() if minimize else finite.max())


def _count_box(ch, *, eligible, rated, comparator, confidence):
    """The interval over the box of counts (intersections with partly known people)."""
    K, U = len(ch.cells), ch.selected.shape[0]
    a = 1.0 - (1.0 - (1.0 - confidence) / 2.0) ** (1.0 / max(2 * (K + U), 1))
    sel_k, uns_k = ch.s, ch.n - ch.s
    low, high = np.full(K, np.nan), np.full(K, np.nan)
    for c in np.flatnonzero(rated):
        mine = np.arange(K) == c
        only = np.zeros(K, dtype=bool)
        only[c] = True
        # the lower end: c selects fewest, the others most; every unknown at its most
        s_lo = np.where(mine, _poisson(sel_k, a, up=False), _poisson(sel_k, a, up=True))
        u_lo = np.where(mine, _poisson(uns_k, a, up=True), _poisson(uns_k, a, up=False))
        t_sel, t_uns = _poisson(ch.selected, a, up=True), _poisson(ch.not_selected, a,
                                                                   up=True)
        C = ch.compatible.astype(np.float64)
        lo, _ = ratio_bounds(s_lo + u_lo, s_lo, t_sel.sum(), t_uns.sum(),
                             ch.undecided.sum(), eligible=eligible, rated=only,
                             comparator=comparator, all_compatible=False,
                             pools=(t_sel @ C, t_uns @ C, ch.undecided @ C), integer=False)
        low[c] = lo[c]
        # the upper end: the opposite corner; the forced selected (not compatible with c)
        # at their fewest
        s_hi = np.where(mine, _poisson(sel_k, a, up=True), _poisson(sel_k, a, up=False))
        u_hi = np.where(mine, _poisson(uns_k, a, up=False), _poisson(uns_k, a, up=True))
        to_c = ch.compatible[:, c]
        h_sel = np.where(to_c, _poisson(ch.selected, a, up=True),
                         _poisson(ch.selected, a, up=False))
        if comparator is None and not ch.undecided.any():
            high[c] = _highest_compatible(s_hi + u_hi, s_hi,
                                          (ch.compatible, h_sel, t_uns), c, eligible)
        else:
            _, hi = ratio_bounds(s_hi + u_hi, s_hi, h_sel.sum(), t_uns.sum(),
                                 ch.undecided.sum(), eligible=eligible, rated=only,
                                 comparator=comparator, all_compatible=False,
                                 pools=(h_sel @ C, t_uns @ C, ch.undecided @ C),
                                 integer=False)
            high[c] = hi[c]
    return low, high


def _poisson(x, a, *, up):
    """Garwood's one-sided limit of a Poisson mean at level ``1 - a`` (fractional counts
    are taken as they are)."""
    x = np.asarray(x, dtype=np.float64)
    if up:
        return stats.chi2.ppf(1.0 - a, 2.0 * x + 2.0) / 2.0
    with np.errstate(invalid="ignore"):
        return np.where(x > 0, stats.chi2.ppf(a, 2.0 * np.maximum(x, 1e-300)) / 2.0, 0.0)
