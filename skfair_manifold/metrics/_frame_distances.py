"""The Kolmogorov-Smirnov distances of a lazy frame's predictions, exact, in its engine.

The in-memory report sorts the predictions; a lazy frame's rows stay where
they are. Here the engine counts them in bins, and only the bins that may
hold the largest distance are counted again, finer, until the distance is
known exactly:

* pass 1 (the moments' ``GROUP BY``) gives each combination of groups the
  least and largest prediction;
* the next pass splits that range into :data:`FIRST_BINS` equal-width bins,
  ``floor((y - a) * bins / (b - a))``, and one ``GROUP BY`` over the
  sensitive columns and the bin returns per cell the weight and the number
  of its rows and their least and largest prediction. The map is monotone in
  ``y`` (each floating-point step is), so the bins are ordered and a bin's
  rows lie between its least and largest value: the bins are *segments* of
  the prediction's line;
* at the end of each segment the distribution functions of a group,
  ``F_g``, and of everyone, ``F``, are known exactly (cumulative weights), so
  ``|F_g - F|`` there is a lower bound of the distance ``sup_z |F_g(z) -
  F(z)|``; inside a segment of weights ``m_g`` and ``m`` (shares) it is at
  most its value at the nearer end plus ``min(m_g, m)``; a segment holding
  one value adds nothing (both functions jump at the one point);
* the segments whose bound exceeds a group's lower bound are read again: value
  by value when they hold at most :data:`EXACT_ROWS` rows (each distinct
  prediction becomes a segment), else the :data:`MAX_SEGMENTS` most
  uncertain ones split into :data:`BINS` bins each; until none is left. The
  distance is then the lower bound, the one the in-memory report computes.
  Log-normal predictions of 10^5 and 10^6 rows took two passes after the
  moments' (DuckDB); after :data:`MAX_PASSES` the distance is left undefined
  and the report says so.

The Wasserstein distance integrates ``|F_g - F|`` over every value, which
this search does not resolve: it stays undefined on a lazy frame.
"""

import numpy as np

from ._frames import _collect, _numpy

#: bins of the first pass, over the whole range of the predictions
FIRST_BINS = 65536
#: bins each range is split into at a later pass
BINS = 1024
#: the segments split at one pass, at most (the most uncertain first), and the ranges of
#: consecutive segments read value by value at one pass
MAX_SEGMENTS = 64
#: the rows at most that a pass reads value by value, when the uncertain segments hold
#: no more: each distinct prediction is then a segment of its own
EXACT_ROWS = 2_000_000
#: the passes after the moments', at most
MAX_PASSES = 8

_BIN, _M, _C, _LO, _HI = "__skfm_bin", "__skfm_mass", "__skfm_rows", "__skfm_lo", "__skfm_hi"


def _inside(y, ranges):
    inside = None
    for a, b in ranges:
        between = (y >= a) & (y <= b)
        inside = between if inside is None else inside | between
    return inside


def _bin_expression(nw, y, ranges, bins):
    """The bin of each row (range ``i``'s bins are ``i * bins ..``)."""
    code = None
    for i in range(len(ranges) - 1, -1, -1):
        a, b = ranges[i]
        local = ((y - a) * (bins / (b - a))) // 1
        local = local.clip(0, bins - 1) + i * bins
        code = local if code is None else \
            nw.when((y >= a) & (y <= b)).then(local).otherwise(code)
    return code


def _count(base, nw, sensitive, weight, ranges, combos, bins):
    """One pass over the rows in ``ranges``: per combination and bin (``bins`` a range;
    None: each distinct prediction), the weight and the rows, and per bin the least and
    largest prediction. Returns ``(mass, rows, lo, hi)``, the bins in order."""
    from ._regression_frames import _YP

    y = nw.col(_YP)
    key = y if bins is None else _bin_expression(nw, y, ranges, bins).cast(nw.Int64())
    mass = (weight if weight is not None else nw.lit(1.0)).alias(_M)
    cells = _collect(base.filter(_inside(y, ranges)).with_columns(key.alias(_BIN), mass)
                     .group_by(*sensitive, _BIN)
                     .agg(nw.col(_M).sum(), nw.len().alias(_C), nw.col(_BIN).min().alias(_LO)
                          if bins is None else y.min().alias(_LO),
                          nw.col(_BIN).max().alias(_HI) if bins is None
                          else y.max().alias(_HI)))
    keys = list(zip(*(_numpy(cells[c]).tolist() for c in sensitive)))
    combo = np.asarray([combos[k] for k in keys], dtype=np.intp)
    found, at = np.unique(np.asarray(_numpy(cells[_BIN]), dtype=np.float64 if bins is None
                                     else np.int64), return_inverse=True)
    at = at.reshape(-1)
    mass_out = np.zeros((len(combos), found.shape[0]))
    np.add.at(mass_out, (combo, at), np.asarray(_numpy(cells[_M]), dtype=np.float64))
    rows = np.zeros(found.shape[0])
    np.add.at(rows, at, np.asarray(_numpy(cells[_C]), dtype=np.float64))
    lo = np.full(found.shape[0], np.inf)
    hi = np.full(found.shape[0], -np.inf)
    np.minimum.at(lo, at, np.asarray(_numpy(cells[_LO]), dtype=np.float64))
    np.maximum.at(hi, at, np.asarray(_numpy(cells[_HI]), dtype=np.float64))
    return mass_out, rows, lo, hi


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


def _ranges(segments, lo, hi):
    """Runs of consecutive segments as value ranges ``(least, largest)``."""
    if segments.shape[0] == 0:
        return []
    breaks = np.flatnonzero(np.diff(segments) > 1) + 1
    runs = np.split(segments, breaks)
    return [(float(lo[r[0]]), float(hi[r[-1]])) for r in runs]


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
        or unresolved after :data:`MAX_PASSES`).
    passes : int
        The passes over the frame, or -1 when the distance is unresolved.
    """
    import narwhals as nw

    lo, hi = value_range
    n_combos = len(combos)
    if not hi > lo:  # one value: every distribution is the same
        return [np.where(compared, 0.0, np.nan) for _, compared in groups], 0
    seg_lo, seg_hi = np.array([lo]), np.array([hi])
    seg_rows = np.array([np.inf])
    seg_mass = np.zeros((n_combos, 1))
    todo, bins = np.array([0]), FIRST_BINS
    for passes in range(1, MAX_PASSES + 1):
        # value by value: runs of segments as one range each; in bins: each segment its own
        ranges = _ranges(todo, seg_lo, seg_hi) if bins is None else \
            [(float(seg_lo[t]), float(seg_hi[t])) for t in todo]
        mass, rows, blo, bhi = _count(base, nw, sensitive, weight, ranges, combos, bins)
        keep = np.ones(seg_lo.shape[0], dtype=bool)
        keep[todo] = False
        seg_lo = np.concatenate([seg_lo[keep], blo])
        seg_hi = np.concatenate([seg_hi[keep], bhi])
        seg_rows = np.concatenate([seg_rows[keep], rows])
        seg_mass = np.concatenate([seg_mass[:, keep], mass], axis=1)
        order = np.argsort(seg_lo, kind="stable")
        seg_lo, seg_hi = seg_lo[order], seg_hi[order]
        seg_rows, seg_mass = seg_rows[order], seg_mass[:, order]
        bounds = _bounds(seg_mass, groups)
        slack = np.zeros(seg_lo.shape[0])
        for lower, upper, compared in bounds:
            gap = np.where(compared[:, None], upper - lower[:, None], 0.0)
            slack = np.maximum(slack, np.max(gap, axis=0, initial=0.0))
        slack[seg_hi <= seg_lo] = 0.0  # one value: nothing inside
        unsure = np.flatnonzero(slack > 1e-12)
        if unsure.shape[0] == 0:
            return [np.where(compared, lower, np.nan) for lower, _, compared in bounds], passes
        if seg_rows[unsure].sum() <= EXACT_ROWS and \
                len(_ranges(unsure, seg_lo, seg_hi)) <= MAX_SEGMENTS:
            todo, bins = unsure, None  # value by value
        else:  # the most uncertain segments, each split in bins
            top = unsure[np.argsort(-slack[unsure], kind="stable")][:MAX_SEGMENTS]
            todo, bins = np.sort(top), BINS
    return [np.full(compared.shape[0], np.nan) for _, compared in groups], -1
