"""Sharp bounds and intervals of rates and impact ratios when categories are estimated.

A characteristic estimated from membership probabilities (BISG and other
proxies) comes as *strata* ``z`` (the proxy's cells: a surname-area cell, an
area, or each distinct probability row): per stratum ``N_z`` people, ``Y_z``
of them selected, and ``m_kz``, the sum over its people of their probability
of category ``k`` (the stratum's expected count of ``k``; ``sum_k m_kz =
N_z``). Within a stratum the data do not say who of each category was
selected: its selected count of ``k``, ``x_kz``, is anything with ``0 <= x_kz
<= m_kz`` and ``sum_k x_kz = Y_z`` (the coupling of two known margins), so
``max(0, m_kz + Y_z - N_z) <= x_kz <= min(m_kz, Y_z)``: the Frechet bounds.
A category's rate is ``r_k = X_k / m_k`` (``X_k = sum_z x_kz``, ``m_k =
sum_z m_kz``) and the bounds below are its extremes over every such
coupling, stratum by stratum.

Rates: ``rate_low = sum_z max(0, m_cz + Y_z - N_z) / m_c`` and ``rate_high =
sum_z min(m_cz, Y_z) / m_c``, each attained (the other categories take the
rest: their capacity is ``N_z - m_cz``).

Lowest impact ratio against the most selected (the categories ``E``): the
ratio is ``min_j r_c / r_j`` over ``j`` in ``E``, so its least value is the
least over ``j`` of the least ``r_c / r_j``. That one puts ``c`` at its lowest
in every stratum and gives ``j`` all it can then take, ``min(m_jz, Y_z -
x_cz)``: moving a selected person from ``c`` to ``j`` lowers the ratio, so
both extremes hold at once, whatever the ratio's weights.

Highest impact ratio against the most selected: ``c`` takes its most in every
stratum (moving a selected person to ``c`` from another category raises
``r_c`` and lowers no one's rate), and the rest of each stratum's selected,
``R_z = Y_z - min(m_cz, Y_z)``, goes to the other categories so that the
largest rate among ``E`` is least. That least level ``t*`` is a flow problem:
``R_z`` through edges of capacity ``m_hz`` into categories of capacity ``t
m_h`` (unlimited outside ``E``). By the max-flow min-cut theorem the flow fits
if and only if, for every set ``H`` of categories of ``E`` other than ``c``,
``t m_H >= sum_z max(0, R_z - (N_z - m_cz - m_Hz))`` (what must enter ``H``),
so ``t* = max_H sum_z max(0, R_z - N_z + m_cz + m_Hz) / m_H``, over the sets
(up to 4095 of them; beyond, a linear program). ``high = min(1, r_c^high /
t*)``.

Against a named category ``g``: ``low = r_c^low / r_g`` with ``g`` taking
``min(m_gz, Y_z - x_cz)``, and ``high = r_c^high / r_g`` with ``g`` taking its
least, ``max(0, Y_z - x_cz - (N_z - m_cz - m_gz))``.

Intervals. Each bound is a ratio of sums over the strata of piecewise linear
terms (:mod:`._pieces`); its estimate has the delta method's standard error
over the multinomial sampling of the (stratum, decision) cells. The interval
of the ratio runs from the lower bound's one-sided lower limit to the upper
bound's one-sided upper limit, each at ``(1 - confidence) / 2``: it covers
every value between the population's bounds, the true ratio among them. The
lowest ratio is a least over ``j``: the least of the ``j``'s lower limits is
below the population's whenever the one ``j`` that attains it is, so no
correction. The highest ratio is a least over the sets ``H`` (``r_c^high /
t*``): its upper limit is the least upper limit over the sets whose estimate
is within ``sqrt(log n)`` standard errors of the least (moment selection),
each at ``(1 - confidence) / (2 |family|)`` (Bonferroni). The coverage is
measured in ``benchmarks/estimated_demographics.py``.
"""

from itertools import combinations

import numpy as np
from scipy import stats

from ._pieces import Piece, Stat, pmax, pmin, ratio, standard_error, total

__all__ = ["frechet_bounds", "stratum_pieces"]

#: the other categories whose sets are enumerated for the highest ratio (beyond: a linear
#: program, and the interval over the single categories and all of them)
ENUMERATE = 12

#: the sets of the highest ratio whose standard errors are computed (the largest levels)
CANDIDATES = 64


def stratum_pieces(n0, n1, m0, m1):
    """``(N, Y, m)``: the strata's assessed, selected and membership of each category as
    :class:`Piece` (``m`` a list over the categories)."""
    n0 = np.asarray(n0, dtype=np.float64)
    n1 = np.asarray(n1, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p0 = np.where(n0[:, None] > 0, m0 / n0[:, None], 0.0)
        p1 = np.where(n1[:, None] > 0, m1 / n1[:, None], 0.0)
    N = Piece(n0 + n1, 1.0, 1.0)
    Y = Piece(n1, 0.0, 1.0)
    m = [Piece(m0[:, k] + m1[:, k], p0[:, k], p1[:, k]) for k in range(m0.shape[1])]
    return N, Y, m


def frechet_bounds(n0, n1, m0, m1, *, eligible, rated, comparator, confidence):
    """The bounds and intervals of every category's rate and impact ratio over the strata.

    Parameters
    ----------
    n0, n1 : ndarray of shape (Z,)
        Each stratum's people not selected and selected.
    m0, m1 : ndarray of shape (Z, K)
        Their summed membership of each category.
    eligible, rated : ndarray of bool, shape (K,)
        The categories the most selected is taken among, and those with a ratio.
    comparator : int or None
        A named category's position; None: the most selected of ``eligible``.
    confidence : float
        The coverage of the ratio's interval.

    Returns
    -------
    dict of ndarray of shape (K,)
        ``rate_low``, ``rate_high``, ``low``, ``high``, ``ci_low``, ``ci_high``
        (NaN where a category has no ratio).
    """
    K = m0.shape[1]
    N, Y, m = stratum_pieces(n0, n1, m0, m1)
    lows = [pmax(0.0, m[k] + Y - N) for k in range(K)]
    highs = [pmin(m[k], Y) for k in range(K)]
    mass = [total(m[k]) for k in range(K)]
    r_low = [ratio(total(lows[k]), mass[k]) for k in range(K)]
    r_high = [ratio(total(highs[k]), mass[k]) for k in range(K)]
    out = {key: np.full(K, np.nan) for key in ("low", "high", "ci_low", "ci_high")}
    out["rate_low"] = np.array([s.value for s in r_low])
    out["rate_high"] = np.array([s.value for s in r_high])
    a = 1.0 - confidence
    z = stats.norm.ppf(1.0 - a / 2.0)
    n_rows = float(np.sum(n0) + np.sum(n1))
    se = lambda s: standard_error(s, n0, n1)  # noqa: E731
    for c in np.flatnonzero(rated):
        if not mass[c].value > 0:
            continue
        if comparator is not None:
            if c == comparator:
                out["low"][c] = out["high"][c] = out["ci_low"][c] = out["ci_high"][c] = 1.0
                continue
            g = comparator
            low = ratio(r_low[c], ratio(total(pmin(m[g], Y - lows[c])), mass[g]))
            high = ratio(r_high[c], ratio(total(pmax(0.0, Y - highs[c] - (N - m[c] - m[g]))),
                                          mass[g]))
            out["low"][c], out["high"][c] = low.value, high.value
            out["ci_low"][c] = max(0.0, low.value - z * se(low))
            out["ci_high"][c] = high.value + z * se(high) if np.isfinite(high.value) \
                else np.inf
            continue
        others = [j for j in np.flatnonzero(eligible) if j != c]
        if not others:
            out["low"][c] = out["high"][c] = out["ci_low"][c] = out["ci_high"][c] = 1.0
            continue
        lowest = [ratio(r_low[c], ratio(total(pmin(m[j], Y - lows[c])), mass[j]))
                  for j in others]
        values = [s.value for s in lowest]
        out["low"][c] = min(1.0, np.nanmin(values)) if not np.all(np.isnan(values)) \
            else np.nan
        limits = [s.value - z * se(s) for s in lowest if np.isfinite(s.value)]
        out["ci_low"][c] = min(1.0, max(0.0, min(limits))) if limits else np.nan
        high, ci_high = _highest(N, Y, m, mass, highs[c], r_high[c], c, others,
                                 a=a, n_rows=n_rows, se=se)
        out["high"][c], out["ci_high"][c] = high, ci_high
    return out


def _highest(N, Y, m, mass, high_c, r_c, c, others, *, a, n_rows, se):
    """The highest ratio of ``c`` to the most selected and its upper limit (see the
    module): the least level ``t*`` of the others over the sets ``H``."""
    if r_c.value == 0.0:
        return 0.0, 0.0
    base = Y - high_c - N + m[c]  # what must enter H is max(0, base + m_H) per stratum
    M = np.stack([m[j].value for j in others], axis=1)
    masses = np.array([mass[j].value for j in others])
    live = base.value + M.sum(axis=1) > 0  # strata that must send someone into E
    if not live.any():
        return 1.0, 1.0
    if len(others) <= ENUMERATE:
        sets = _subsets(len(others))
        levels = _levels(base.value[live], M[live], masses, sets)
        order = np.argsort(-levels)[:CANDIDATES]
    else:  # too many sets: the least level by a linear program, the interval over some
        sets = np.vstack([np.eye(len(others), dtype=bool), np.ones((1, len(others)), bool)])
        levels = _levels(base.value[live], M[live], masses, sets)
        top = _least_level_lp(base.value[live], M[live], masses, N.value[live],
                              m[c].value[live], [m[j].value[live] for j in range(len(m))],
                              c, others)
        order = np.argsort(-levels)
        levels = np.concatenate([levels, [top]])
    t_star = float(np.max(levels))
    high = 1.0 if t_star <= 0 else min(1.0, r_c.value / t_star)
    if high >= 1.0:
        return 1.0, 1.0
    rhos = []
    for i in order:
        chosen = [others[k] for k in np.flatnonzero(sets[i])]
        m_H = sum((m[j] for j in chosen[1:]), m[chosen[0]])
        mass_H = Stat(sum(mass[j].value for j in chosen), sum(mass[j].g0 for j in chosen),
                      sum(mass[j].g1 for j in chosen))
        level = ratio(total(pmax(0.0, base + m_H)), mass_H)
        rho = ratio(r_c, level)
        if np.isfinite(rho.value):
            rhos.append((rho.value, se(rho)))
    if not rhos:
        return high, 1.0
    least = min(v for v, _ in rhos)
    kappa = np.sqrt(np.log(max(n_rows, 3.0)))
    family = [(v, s) for v, s in rhos if v - kappa * s <= least]
    zb = stats.norm.ppf(1.0 - a / (2.0 * len(family)))
    return high, float(min(1.0, max(high, min(v + zb * s for v, s in family))))


def _subsets(k):
    """Every nonempty subset of ``k`` items as rows of a bool matrix."""
    rows = []
    for size in range(1, k + 1):
        for chosen in combinations(range(k), size):
            row = np.zeros(k, dtype=bool)
            row[list(chosen)] = True
            rows.append(row)
    return np.array(rows, dtype=bool).reshape(-1, k)


def _levels(base, M, masses, sets, *, chunk=2 ** 22):
    """``sum_z max(0, base_z + m_Hz) / m_H`` for every set ``H`` (rows of ``sets``)."""
    S = sets.astype(np.float64)
    need = np.empty(S.shape[0])
    step = max(1, chunk // max(base.shape[0], 1))
    for start in range(0, S.shape[0], step):
        part = S[start:start + step]
        need[start:start + step] = np.maximum(base[:, None] + M @ part.T, 0.0).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(S @ masses > 0, need / (S @ masses), 0.0)


def _least_level_lp(base, M, masses, N, m_c, m_all, c, others):
    """``t*`` by a linear program: the rest of each stratum's selected placed in the
    categories other than ``c`` (within their membership) so that the largest rate of
    ``others`` is least."""
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    cats = [h for h in range(len(m_all)) if h != c]
    Z, H = base.shape[0], len(cats)
    rest = base + N - m_c  # R_z
    nv = Z * H + 1
    rows_eq = np.repeat(np.arange(Z), H)
    A_eq = coo_matrix((np.ones(Z * H), (rows_eq, np.arange(Z * H))), shape=(Z, nv))
    rows, cols, vals = [], [], []
    for r, j in enumerate(others):
        h = cats.index(j)
        rows += [r] * Z
        cols += list(np.arange(Z) * H + h)
        vals += [1.0] * Z
        rows.append(r)
        cols.append(Z * H)
        vals.append(-masses[r])
    A_ub = coo_matrix((vals, (rows, cols)), shape=(len(others), nv))
    upper = np.stack([m_all[h] for h in cats], axis=1).reshape(-1)
    cost = np.zeros(nv)
    cost[-1] = 1.0
    res = linprog(cost, A_ub=A_ub.tocsr(), b_ub=np.zeros(len(others)), A_eq=A_eq.tocsr(),
                  b_eq=np.maximum(rest, 0.0), bounds=[(0.0, u) for u in upper] + [(0, None)],
                  method="highs")
    return float(res.x[-1]) if res.status == 0 else float(np.max(
        _levels(base, M, masses, np.ones((1, M.shape[1]), bool))))
