"""The numerics behind the bounds: the water level of diluted rates, one-dimensional searches.

:func:`water_level` is the least possible largest rate of some categories once
``m`` people not selected join them (whole people or fractions);
:func:`search` the best value of a function of one variable on ``[0, D]``,
exhaustive over whole people when they are few, else on a grid refined around
its best point, plus given candidates (the analytic stationary points).
"""

import numpy as np

#: undecided people checked one by one up to this many (integer tables)
EXHAUSTIVE = 4096
#: grid of the one-dimensional searches beyond it, then refined around the best point
GRID = 257

__all__ = ["EXHAUSTIVE", "GRID", "search", "water_level"]


def _div(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(a, dtype=np.float64) / np.asarray(b, dtype=np.float64)


def water_level(n, s, others, m, *, integer):
    """``W(m)``: the least possible largest rate of the ``others`` after ``m`` people not
    selected join them, each wherever it lowers the largest most.

    ``n``, ``s`` (..., K); ``others`` (..., K) bool: the categories whose largest
    rate counts; ``m`` (...,). ``integer``: whole people (the ceiling), else
    fractional counts. Returns (...,), NaN where no category counts (or all
    are empty).
    """
    n = np.asarray(n, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    m = np.asarray(m, dtype=np.float64)
    rates = np.where(others, _div(s, n), -np.inf)
    rates = np.where(np.isnan(rates), -np.inf, rates)
    hi = rates.max(axis=-1)  # no dilution
    empty = ~np.isfinite(hi)
    hi = np.where(empty, 0.0, hi)
    lo = np.zeros_like(hi)
    s_o = np.where(others, s, 0.0)
    n_o = np.where(others, n, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(64 if integer else 60):
            t = (lo + hi) / 2
            need = np.where(s_o > 0, s_o / t[..., None] - n_o, 0.0)
            if integer:
                need = np.ceil(need - 1e-9 * np.maximum(1.0, np.abs(need)))
            need = np.maximum(need, 0.0).sum(axis=-1)
            ok = need <= m + 1e-9
            hi = np.where(ok, t, hi)
            lo = np.where(ok, lo, t)
        if integer:  # the level an allocation attains: the rate of whole people
            for scale in (1.0, 1.0 + 1e-9, 1.0 + 1e-6):
                t = hi * scale
                add = np.where(s_o > 0, s_o / t[..., None] - n_o, 0.0)
                add = np.maximum(np.ceil(add - 1e-9 * np.maximum(1.0, np.abs(add))), 0.0)
                fits = add.sum(axis=-1) <= m + 1e-9
                attained = np.where(others, _div(s_o, n_o + add), -np.inf)
                attained = np.where(np.isnan(attained), -np.inf, attained).max(axis=-1)
                if np.all(fits | empty):
                    hi = np.where(np.isfinite(attained), attained, hi)
                    break
    return np.where(empty, np.nan, hi)


def search(f, D, *, integer, minimize, candidates=(), grid=GRID):
    """The best of ``f(x)`` for ``x`` in ``[0, D]`` (arrays of shape (...,)), vectorised.

    ``f`` takes x of shape (..., G) and returns (..., G). Integer tables with
    ``D <= EXHAUSTIVE`` are searched exhaustively; otherwise a grid, refined
    around its best point, plus the given ``candidates`` (arrays (..., C)).
    """
    D = np.asarray(D, dtype=np.float64)
    fill = np.inf if minimize else -np.inf
    if not np.any(D > 0):  # nobody to place: the one value
        with np.errstate(all="ignore"):
            return f(np.zeros(D.shape + (1,)))[..., 0]

    def pick(values, axis):  # nanmin / nanmax, NaN where every value is NaN (no warning)
        best = (np.min if minimize else np.max)(np.where(np.isnan(values), fill, values),
                                                axis=axis)
        return np.where(best == fill, np.nan, best)
    if integer and np.all(D <= EXHAUSTIVE):
        size = int(D.max()) + 1 if D.size else 1
        x = np.minimum(np.arange(size, dtype=np.float64), D[..., None])
        with np.errstate(all="ignore"):
            values = f(x)
        return pick(values, axis=-1)
    step = D / (grid - 1)
    x = np.linspace(0.0, 1.0, grid) * D[..., None]
    with np.errstate(all="ignore"):
        values = f(x)
    masked = np.where(np.isnan(values), fill, values)
    best = np.argmin(masked, axis=-1) if minimize else np.argmax(masked, axis=-1)
    centre = np.take_along_axis(x, best[..., None], axis=-1)
    fine = np.clip(centre + np.linspace(-1.0, 1.0, grid) * step[..., None], 0.0, D[..., None])
    parts = [values, f(fine)]
    if len(candidates):
        extra = np.clip(np.concatenate([np.asarray(c, dtype=np.float64) for c in candidates],
                                       axis=-1), 0.0, D[..., None])
        if integer:
            extra = np.concatenate([np.floor(extra), np.ceil(extra)], axis=-1)
        parts.append(f(extra))
    with np.errstate(all="ignore"):
        return pick(np.concatenate(parts, axis=-1), axis=-1)
