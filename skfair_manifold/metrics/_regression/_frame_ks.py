"""The Kolmogorov-Smirnov distances of a lazy frame's predictions, exact, in its engine.

The in-memory report sorts the predictions; a lazy frame's rows stay where
they are. Here the engine counts them in bins, and only the bins that may
hold the largest distance are counted again, finer, until the distance is
known exactly:

* pass 1 (the moments' ``GROUP BY``) gives each combination of groups the
  least and largest prediction;
* the next pass splits that range into ``2 ** 16`` equal-width bins,
  ``floor((y - lo) * 2**16 / (hi - lo))``, and one ``GROUP BY`` over the
  sensitive columns and the bin returns per cell the weight of its rows,
  their number (at a later level: their distinct predictions) and their
  least and largest prediction. The map is monotone in ``y`` (each
  floating-point step is), so the bins are ordered and a bin's rows lie
  between its least and largest value: the bins are *segments* of the
  prediction's line;
* at the end of each segment the distribution functions of a group,
  ``F_g``, and of everyone, ``F``, are known exactly (cumulative weights), so
  ``|F_g - F|`` there is a lower bound of the distance ``sup_z |F_g(z) -
  F(z)|``; inside a segment of weights ``m_g`` and ``m`` (shares) it is at
  most its value at the nearer end plus ``min(m_g, m)``; a segment holding
  one value adds nothing (both functions jump at the one point);
* the bins whose bound exceeds a group's lower bound are read again (their
  ids in the pass's filter): value by value when their cells hold at most
  :data:`EXACT_ROWS` rows or distinct predictions (each becomes a segment), else
  at the next level, ``2 ** 32`` bins over the range (then ``2 ** 48``); until
  none is left. The distance is then the lower bound, the one the in-memory
  report computes. Where it cannot be resolved (more than :data:`MAX_IDS`
  bins to read again, or still unsure at the finest level) it is left
  undefined and the report says so: never a bound for the value.

The Wasserstein distance integrates ``|F_g - F|`` over every value, which
this search does not resolve: it stays undefined on a lazy frame.
"""

import numpy as np

from ...utils._narwhals import collect, to_numpy
from .._frames import _YP

#: a level's bins split each bin of the level before into ``2 ** LEVEL_BITS``
LEVEL_BITS = 16
#: the finest level: ``2 ** (LEVEL_BITS * MAX_LEVEL)`` bins over the predictions' range,
#: exact in a float64 (53 bits)
MAX_LEVEL = 3
#: the cells (combination, distinct prediction) at most that a pass reads value by value,
#: when the uncertain bins hold no more: each distinct prediction is then a segment
EXACT_ROWS = 2_000_000
#: the uncertain bins at most that a pass reads again (their ids are listed in its filter)
MAX_IDS = 100_000

_BIN, _M, _C, _LO, _HI = "__skfm_bin", "__skfm_mass", "__skfm_rows", "__skfm_lo", "__skfm_hi"


def _index(nw, y, value_range, level):
    """The bin of each row at ``level``: ``floor((y - lo) * 2**(16 level) / (hi - lo))``."""
    lo, hi = value_range
    size = 2 ** (LEVEL_BITS * level)
    scale = float(size) / (hi - lo)
    return (((y - lo) * scale) // 1).clip(0, size - 1).cast(nw.Int64())


def _count(base, nw, sensitive, weight, combos, value_range, level, ids, exact):
    """One pass over the rows whose bin at ``level - 1`` is in ``ids`` (all at level 1):
    per combination and bin at ``level`` (``exact``: per distinct prediction), the weight,
    and per bin the rows and the least and largest prediction.

    Returns ``(key, mass, rows, lo, hi)``, the bins in the order of their key.
    """
    y = nw.col(_YP)
    frame = base
    if ids is not None:
        previous = level - 1 if not exact else level
        frame = frame.filter(_index(nw, y, value_range, previous).is_in(ids.tolist()))
    key = y if exact else _index(nw, y, value_range, level)
    mass = (weight if weight is not None else nw.lit(1.0)).alias(_M)
    cells = collect(frame.with_columns(key.alias(_BIN), mass)
                     .group_by(*sensitive, _BIN)
                     .agg(nw.col(_M).sum(), (y.n_unique() if level > 1 or exact
                                             else nw.len()).alias(_C),
                          y.min().alias(_LO), y.max().alias(_HI)))
    keys = list(zip(*(to_numpy(cells[c]).tolist() for c in sensitive)))
    combo = np.asarray([combos[k] for k in keys], dtype=np.intp)
    found, at = np.unique(np.asarray(to_numpy(cells[_BIN]),
                                     dtype=np.float64 if exact else np.int64),
                          return_inverse=True)
    at = at.reshape(-1)
    mass_out = np.zeros((len(combos), found.shape[0]))
    np.add.at(mass_out, (combo, at), np.asarray(to_numpy(cells[_M]), dtype=np.float64))
    rows = np.zeros(found.shape[0])
    np.add.at(rows, at, np.asarray(to_numpy(cells[_C]), dtype=np.float64))
    lo = np.full(found.shape[0], np.inf)
    hi = np.full(found.shape[0], -np.inf)
    np.minimum.at(lo, at, np.asarray(to_numpy(cells[_LO]), dtype=np.float64))
    np.maximum.at(hi, at, np.asarray(to_numpy(cells[_HI]), dtype=np.float64))
    return found, mass_out, rows, lo, hi


def _bounds(mass, groups):
    """Per (attribute, group) the lower bound of the distance and each segment's upper one.

    ``mass`` (n_combos, n_segments) in the segments' order; ``groups``: a
    list of (codes of the combinations, compared) per attribute.
    """
    total = mass.sum(axis=0)
    everyone = np.concatenate([[0.0], np.cumsum(total)]) / total.sum()
    share = total / total.sum()
    out = []
    for codes, compared in groups:
        n_groups = compared.shape[0]
        by_group = np.zeros((n_groups, mass.shape[1]))
        np.add.at(by_group, codes, mass)
        sizes = by_group.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            mine = np.concatenate([np.zeros((n_groups, 1)), np.cumsum(by_group, axis=1)],
                                  axis=1) / sizes
            own_share = by_group / sizes
        at_ends = np.abs(mine - everyone)  # at the end of each segment (and before the first)
        lower = np.max(at_ends, axis=1)
        upper = np.maximum(at_ends[:, :-1], at_ends[:, 1:]) + np.minimum(own_share, share)
        out.append((lower, upper, compared & (sizes[:, 0] > 0)))
    return out


def frame_ks(base, sensitive, weight, combos, groups, value_range):
    """The KS distance of every compared group of every attribute, exactly.

    Parameters
    ----------
    base : narwhals LazyFrame or DataFrame
        The frame with the sensitive columns and the prediction ``_YP``.
    sensitive : list of str
    weight : narwhals expression or None
    combos : dict
        Tuple of sensitive values -> the combination's position.
    groups : list of (ndarray of int, ndarray of bool)
        Per attribute, the group of each combination and whether each group
        is compared.
    value_range : (float, float)
        The least and the largest prediction.

    Returns
    -------
    ks : list of ndarray
        Per attribute, the distance of each group (nan where not compared,
        or where it could not be resolved).
    passes : int
        The passes over the frame, or -1 when the distance is unresolved.
    """
    import narwhals as nw

    lo, hi = value_range
    n_combos = len(combos)
    undefined = [np.full(compared.shape[0], np.nan) for _, compared in groups]
    if not hi > lo:  # one value: every distribution is the same
        return [np.where(compared, 0.0, np.nan) for _, compared in groups], 0
    # the segments: their level (0 once read value by value), id, values, rows and weights
    seg_level = np.zeros(0, dtype=np.int64)
    seg_id = np.zeros(0, dtype=np.int64)
    seg_lo, seg_hi, seg_rows = np.zeros(0), np.zeros(0), np.zeros(0)
    seg_mass = np.zeros((n_combos, 0))
    level, ids, exact, passes = 1, None, False, 0
    while True:
        key, mass, rows, blo, bhi = _count(base, nw, sensitive, weight, combos, value_range,
                                           level, ids, exact)
        passes += 1
        keep = np.ones(seg_lo.shape[0], dtype=bool)
        if ids is not None:  # the bins read again give way to what they were split into
            keep = ~((seg_level == (level if exact else level - 1)) & np.isin(seg_id, ids))
        seg_level = np.concatenate([seg_level[keep],
                                    np.full(key.shape[0], 0 if exact else level)])
        seg_id = np.concatenate([seg_id[keep], np.zeros(key.shape[0], dtype=np.int64)
                                 if exact else key.astype(np.int64)])
        seg_lo, seg_hi = np.concatenate([seg_lo[keep], blo]), np.concatenate([seg_hi[keep], bhi])
        seg_rows = np.concatenate([seg_rows[keep], rows])
        seg_mass = np.concatenate([seg_mass[:, keep], mass], axis=1)
        order = np.argsort(seg_lo, kind="stable")
        seg_level, seg_id = seg_level[order], seg_id[order]
        seg_lo, seg_hi, seg_rows = seg_lo[order], seg_hi[order], seg_rows[order]
        seg_mass = seg_mass[:, order]
        if np.any(seg_lo[1:] <= seg_hi[:-1]):  # segments must not overlap: never guess
            return undefined, -1
        bounds = _bounds(seg_mass, groups)
        slack = np.zeros(seg_lo.shape[0])
        for lower, upper, compared in bounds:
            gap = np.where(compared[:, None], upper - lower[:, None], 0.0)
            slack = np.maximum(slack, np.max(gap, axis=0, initial=0.0))
        slack[seg_hi <= seg_lo] = 0.0  # one value: nothing inside
        unsure = np.flatnonzero(slack > 1e-12)
        if unsure.shape[0] == 0:
            return [np.where(compared, lower, np.nan) for lower, _, compared in bounds], passes
        if exact or unsure.shape[0] > MAX_IDS or np.any(seg_level[unsure] != level):
            return undefined, -1
        ids = seg_id[unsure]
        if seg_rows[unsure].sum() <= EXACT_ROWS:
            exact = True  # the same level's bins, read value by value
        elif level < MAX_LEVEL:
            level += 1
        else:  # the finest bins still hold too many distinct values
            return undefined, -1
