"""The sharp bounds of selection rates and impact ratios when some categories are unknown.

A characteristic (sex, race, their intersection) splits the assessed people
into categories ``c = 1..K``. For the people whose category is known we have
``n_c`` assessed and ``s_c`` selected. The others are *unknown*: each truly
belongs to one of the categories compatible with what is known of them (any
category, for a characteristic they did not report; for an intersection, the
cells matching the attributes they did report). Each unknown person is
selected, not selected, or, in a counts table that does not report their
decisions, *undecided* (either). Every rate and ratio below is a function of
where the unknown people truly belong; the bounds are its smallest and largest
value over every such assignment.

Rates (sharp, attained)
    ``c``'s rate is lowest when every compatible unknown who was not selected
    (or whose decision is unreported) belongs to ``c`` and no selected one
    does, and highest in the opposite case:
    ``low = s_c / (n_c + F_c + D_c)``, ``high = (s_c + S_c + D_c) / (n_c +
    S_c + D_c)``, with ``S_c``, ``F_c``, ``D_c`` the compatible unknowns
    selected, not selected and undecided. The others go to other categories.

Impact ratios against the most selected category (``max_j r_j`` over the
comparator's categories ``E``)
    Lowest: ``c`` takes every compatible unknown not selected, and the
    selected unknowns all go to one other category ``j``, whose rate rises
    the most: ``low = r_c^low / max(r_c^low, max_{j in E, j != c}
    r_j^high)``. The two extremes use different people (the not selected for
    ``c``, the selected for ``j``), so one assignment attains both. With
    undecided unknowns, ``x`` of them join ``c`` as not selected and the other
    ``D - x`` join ``j`` as selected; ``log`` of the ratio is convex in ``x``
    where ``j`` is the most selected (its minimum at ``x* = b - sqrt(q (a +
    b))``, ``a = n_c + F``, ``b = n_j + S + D``, ``q = n_j - s_j``), and it
    falls where another category is, so the minimum is at ``0``, ``D``,
    ``x*`` or the crossing, each checked (integers: their floor and ceiling).
    Highest: ``c`` takes every compatible selected unknown and none who was
    not selected; the not selected dilute the other categories so that the
    largest of their rates is as small as possible: the *water level* ``W(m)``,
    the least ``t`` with ``sum_j max(0, ceil(s_j / t - n_j)) <= m`` over ``E``
    without ``c`` (``m`` people, whole people in an integer table; without the
    ceiling in a table of fractional counts). ``high = min(1, r_c^high /
    W(F))``. With undecided unknowns, ``y`` of them join ``c`` as selected and
    the rest dilute the others: the largest of ``r_c(y) / max(r_c(y), W(F + D -
    y))`` over ``y``, found by checking every ``y`` when ``D <= 4096`` in an
    integer table, else on a grid refined around its best point.

Impact ratios against a named category ``g``
    ``low = r_c^low / r_g^high`` and ``high = r_c^high / r_g^low``: the not
    selected compatible with ``c`` join ``c`` and the selected compatible
    with ``g`` join ``g`` (a person compatible with both is in one role only),
    so both are sharp; undecided people are split by the same one-dimensional
    search.

Intersections with partly known people
    The rates and the lowest ratio above are sharp with compatibility. For
    the highest ratio against the most selected category, ``c`` takes the
    selected people compatible with it; the others selected must go to cells
    compatible with them (a person of known sex and unknown race, to a cell
    of her sex), and everyone not selected goes where it lowers the largest
    rate most: the least level ``t`` at which the people fit is the least
    ``t`` for which the linear program ``sum_j sigma_tj = sel_t``, ``sum_j
    upsilon_tj <= unsel_t``, ``(1 - t) sigma_j - t upsilon_j <= t n_j - s_j``
    over the eligible cells has a solution (bisection on ``t``). It treats
    people as divisible: for whole people it is an outer bound, within one
    person's weight of the sharp one. With undecided people there too, the
    highest ratio is computed as if every unknown could belong to every cell
    (an outer bound).
"""

import numpy as np

from ._search import GRID, search, water_level

__all__ = ["ratio_bounds", "rate_bounds", "water_level"]


def _div(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(a, dtype=np.float64) / np.asarray(b, dtype=np.float64)


def rate_bounds(n, s, S, F, D):
    """Sharp bounds of each category's rate, ``(low, high)`` of shape ``(..., K)``.

    ``n``, ``s`` (..., K): the known assessed and selected; ``S``, ``F``,
    ``D`` (..., K): the unknowns compatible with each category, selected, not
    selected and undecided. NaN where a bound's denominator is 0.
    """
    low = _div(s, n + F + D)
    high = _div(s + S + D, n + S + D)
    return low, high


def ratio_bounds(n, s, S, F, D, *, eligible, rated=None, comparator=None,
                 all_compatible=True, pools=None, integer=True, grid=GRID, types=None):
    """Bounds of each category's impact ratio, ``(low, high)`` of shape ``(..., K)``.

    Parameters
    ----------
    n, s : ndarray of shape (..., K)
        The known assessed and selected of each category.
    S, F, D : ndarray of shape (...,)
        All the unknowns: selected, not selected, undecided.
    eligible : ndarray of bool, shape (K,)
        The categories the most selected is taken among.
    rated : ndarray of bool, shape (K,) or None
        The categories that have a ratio (None: ``eligible``).
    comparator : int or None
        A named category's position; None: the most selected of ``eligible``
        (which may move with the assignment).
    all_compatible : bool
        Every unknown may belong to every category (a single characteristic);
        else ``pools`` gives the compatible unknowns of each category.
    pools : tuple of three ndarrays of shape (..., K) or None
        ``(S_c, F_c, D_c)``: the unknowns compatible with each category.
    integer : bool
        Whole people (an integer table); else fractional counts.
    grid : int
        Points of the one-dimensional searches over undecided people (beyond
        the exhaustive search of small integer tables), before the refinement.
    types : tuple or None
        ``(compatible (U, K) bool, selected (U,), not_selected (U,))``: the
        unknown patterns, for the highest ratio of partly known people (one
        audit, no leading axis); None: as if all were compatible.

    Returns
    -------
    low, high : ndarray of shape (..., K)
        NaN for a category that is not eligible, or whose ratio is undefined
        (its comparator's rate can be 0).
    """
    n = np.asarray(n, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    S, F, D = (np.asarray(v, dtype=np.float64) for v in (S, F, D))
    eligible = np.asarray(eligible, dtype=bool)
    rated = eligible if rated is None else np.asarray(rated, dtype=bool)
    K = n.shape[-1]
    if all_compatible or pools is None:
        Sc = np.broadcast_to(S[..., None], n.shape)
        Fc = np.broadcast_to(F[..., None], n.shape)
        Dc = np.broadcast_to(D[..., None], n.shape)
    else:
        Sc, Fc, Dc = (np.asarray(p, dtype=np.float64) for p in pools)
    low = np.full(n.shape, np.nan)
    high = np.full(n.shape, np.nan)
    for c in range(K):
        if not rated[c]:
            continue
        exact = all_compatible or pools is None
        if comparator is not None:
            lo, hi = _named(n, s, Sc, Fc, Dc, c, comparator, integer=integer, exact=exact,
                            grid=grid)
        else:
            lo = _lowest(n, s, Sc, Fc, Dc, c, eligible, integer=integer, exact=exact, grid=grid)
            if not exact and types is not None and n.ndim == 1 and not np.any(D > 0):
                hi = _highest_compatible(n, s, types, c, eligible)
            else:
                hi = _highest(n, s, S, F, D, c, eligible, integer=integer, grid=grid)
        low[..., c], high[..., c] = lo, hi
    return low, high


def _lowest(n, s, Sc, Fc, Dc, c, eligible, *, integer, exact, grid):
    """The least ratio of ``c`` to the most selected (see the module). ``exact``: every
    unknown is compatible with every category; else undecided people are counted
    both ways (not selected in ``c``, selected in ``j``): an outer bound."""
    out = np.ones(n.shape[:-1])
    others = [j for j in np.flatnonzero(eligible) if j != c]
    if not others:
        return np.where(n[..., c] + Fc[..., c] + Dc[..., c] > 0, 1.0, np.nan)
    known = np.where(eligible, _div(s, n), np.nan)
    a = n[..., c] + Fc[..., c]
    undecided = Dc[..., c]
    best = np.full(n.shape[:-1], np.inf)
    for j in others:
        rest = [k for k in others if k != j]
        R = np.where(np.isnan(known[..., rest]), -np.inf, known[..., rest]).max(axis=-1) \
            if rest else np.full(n.shape[:-1], -np.inf)
        Sj = Sc[..., j]
        q = n[..., j] - s[..., j]
        if not exact:  # closed form, the undecided counted both ways
            r_c = _div(s[..., c], a + undecided)
            r_j = _div(s[..., j] + Sj + Dc[..., j], n[..., j] + Sj + Dc[..., j])
            best = np.fmin(best, _div(r_c, np.fmax(np.fmax(r_j, R), r_c)))
            continue
        Dj = undecided  # every undecided person may join c or j
        b = n[..., j] + Sj + Dj

        def ratio(x, a=a, b=b, q=q, R=R, Dj=Dj):
            x = np.minimum(x, Dj[..., None])
            r_c = _div(s[..., c][..., None], a[..., None] + x)
            w = b[..., None] - x
            r_j = _div(w - q[..., None], w)
            top = np.fmax(np.fmax(r_j, R[..., None]), r_c)
            return _div(r_c, top)

        with np.errstate(all="ignore"):
            x_star = b - np.sqrt(np.maximum(q * (a + b), 0.0))
            x_cross = np.where(R < 1, b - _div(q, 1 - R), 0.0)
        value = search(ratio, Dj, integer=integer, minimize=True, grid=grid,
                        candidates=(x_star[..., None], x_cross[..., None]))
        best = np.fmin(best, value)
    out = np.where(np.isinf(best), np.nan, best)
    return out


def _highest(n, s, S, F, D, c, eligible, *, integer, grid):
    """The largest ratio of ``c`` to the most selected (see the module)."""
    others = eligible.copy()
    others[c] = False
    if not others.any():
        return np.where(n[..., c] + S + D > 0, 1.0, np.nan)
    p = s[..., c] + S
    r = n[..., c] + S
    mask = np.broadcast_to(others, n.shape)

    def ratio(y):
        r_c = _div(p[..., None] + y, r[..., None] + y)
        m = (F + D)[..., None] - y
        level = water_level(n[..., None, :], s[..., None, :], mask[..., None, :], m,
                            integer=integer)
        return np.minimum(_div(r_c, np.fmax(level, r_c)), 1.0)

    return search(ratio, D, integer=integer, minimize=False, grid=grid)


def _highest_compatible(n, s, types, c, eligible, *, iterations=30):
    """The largest ratio of ``c`` to the most selected with partly known people (see the
    module): the least water level at which the people fit, a min-max of ratios solved
    by the generalised Dinkelbach iteration (Crouzeix, Ferland and Schaible, 1985), one
    linear program per step (a few steps: it converges superlinearly)."""
    from scipy.optimize import linprog

    compatible, sel, unsel = (np.asarray(v) for v in types)
    others = [j for j in np.flatnonzero(eligible) if j != c]
    to_c = compatible[:, c]
    p = s[c] + float(sel[to_c].sum())
    r = n[c] + float(sel[to_c].sum())
    if r <= 0:
        return np.nan
    r_c = p / r
    if not others:
        return 1.0
    forced = [u for u in range(len(sel)) if not to_c[u] and sel[u] > 0]
    diluting = [u for u in range(len(unsel)) if unsel[u] > 0]
    cells = [j for j in range(n.shape[0]) if j != c]
    # a forced selected person with no cell but c (not in the table) cannot be placed
    if any(not any(compatible[u, j] for j in cells) for u in forced):
        return _highest(n, s, sel.sum(), unsel.sum(), 0.0, c, eligible, integer=False,
                        grid=GRID)
    var = [("s", u, j) for u in forced for j in cells if compatible[u, j]]
    var += [("f", u, j) for u in diluting for j in cells if compatible[u, j]]
    nv = len(var)
    n_o, s_o = np.array([n[j] for j in others]), np.array([s[j] for j in others])
    if not nv:  # nobody to place: the others as they are
        rates = np.where(n_o > 0, s_o / np.where(n_o > 0, n_o, 1.0), 0.0)
        return float(min(1.0, r_c / max(rates.max(), r_c))) if max(rates.max(), r_c) > 0 \
            else np.nan
    # sigma_j and upsilon_j of each eligible other cell, as rows over the variables
    place_s = np.zeros((len(others), nv))
    place_f = np.zeros((len(others), nv))
    for k, (kind, u, j) in enumerate(var):
        if j in others:
            (place_s if kind == "s" else place_f)[others.index(j), k] = 1.0
    A_eq = np.zeros((len(forced), nv + 1))
    A_f = np.zeros((len(diluting), nv + 1))
    for k, (kind, u, j) in enumerate(var):
        if kind == "s":
            A_eq[forced.index(u), k] = 1.0
        else:
            A_f[diluting.index(u), k] = 1.0
    b_eq = np.array([sel[u] for u in forced], dtype=np.float64)
    b_f = np.array([unsel[u] for u in diluting], dtype=np.float64)
    cost = np.zeros(nv + 1)
    cost[-1] = 1.0  # minimise lambda
    bounds = [(0, None)] * nv + [(None, None)]

    def step(t, weight):
        """min over placements of max_j (N_j - t D_j) / weight_j: (lambda, placement)."""
        A_cell = np.hstack([(1.0 - t) * place_s - t * place_f, -weight[:, None]])
        b_cell = t * n_o - s_o
        res = linprog(cost, A_ub=np.vstack([A_f, A_cell]), b_ub=np.concatenate([b_f, b_cell]),
                      A_eq=A_eq if len(forced) else None, b_eq=b_eq if len(forced) else None,
                      bounds=bounds, method="highs")
        return res.x[-1], res.x[:nv]

    lam, x = step(r_c, n_o + 1.0)
    if lam <= 1e-12:  # the others fit at c's own rate: c can be the most selected
        return 1.0
    t = np.inf
    for _ in range(iterations):  # t_k >= t* from the first placement on, decreasing to it
        sigma, upsilon = place_s @ x, place_f @ x
        weight = np.maximum(n_o + sigma + upsilon, 1e-300)
        t = min(t, float(np.max((s_o + sigma) / weight)))
        lam, x = step(t, weight)
        if lam >= -1e-12:  # F(t) = 0: t is the least level
            break
    top = max(t, r_c)
    return min(1.0, r_c / top) if top > 0 else np.nan


def _named(n, s, Sc, Fc, Dc, c, g, *, integer, exact, grid):
    """The least and largest ratio of ``c`` to the named category ``g``. ``exact``: every
    unknown is compatible with both; else undecided people are counted both ways."""
    if c == g:
        ones = np.where(n[..., c] + Sc[..., c] + Dc[..., c] > 0, 1.0, np.nan)
        return ones, ones
    if not exact:
        low = _div(_div(s[..., c], n[..., c] + Fc[..., c] + Dc[..., c]),
                   _div(s[..., g] + Sc[..., g] + Dc[..., g], n[..., g] + Sc[..., g] + Dc[..., g]))
        high = _div(_div(s[..., c] + Sc[..., c] + Dc[..., c], n[..., c] + Sc[..., c] + Dc[..., c]),
                    _div(s[..., g], n[..., g] + Fc[..., g] + Dc[..., g]))
        return low, high
    both = Dc[..., c]  # every undecided person may join c or g
    # a ratio exists only where g selects someone: with nobody selected among g's known,
    # its largest ratio has one selected unknown (or undecided) join g, and no more
    Sg, Dg = Sc[..., g], both
    first = (s[..., g] == 0) & (Sg + Dg >= 1)
    from_s = first & (Sg >= 1)
    s_g = np.where(first, 1.0, s[..., g])
    n_g = np.where(first, n[..., g] + 1.0, n[..., g])
    S_c = np.where(from_s, Sc[..., c] - 1.0, Sc[..., c])
    D_hi = np.where(first & ~from_s, both - 1.0, both)

    def low_ratio(x):  # x undecided join c not selected, the rest join g selected
        r_c = _div(s[..., c][..., None], (n[..., c] + Fc[..., c])[..., None] + x)
        y = both[..., None] - x
        r_g = _div((s[..., g] + Sc[..., g])[..., None] + y,
                   (n[..., g] + Sc[..., g])[..., None] + y)
        return _div(r_c, r_g)

    def high_ratio(y):  # y undecided join c selected, the rest join g not selected
        r_c = _div((s[..., c] + S_c)[..., None] + y, (n[..., c] + S_c)[..., None] + y)
        x = D_hi[..., None] - y
        r_g = _div(s_g[..., None], (n_g + Fc[..., g])[..., None] + x)
        return _div(r_c, r_g)

    low = search(low_ratio, both, integer=integer, minimize=True, grid=grid)
    high = search(high_ratio, D_hi, integer=integer, minimize=False, grid=grid)
    never = (s[..., g] == 0) & (Sg + Dg < 1)  # g selects nobody, whoever joins it
    return np.where(never, np.nan, low), np.where(never, np.nan, high)
