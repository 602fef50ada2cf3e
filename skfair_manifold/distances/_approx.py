"""Approximate distances between sets by random projections.

HFM paper, Algorithm 3 (AcceleDist), Algorithm 2 (ApproxDist) and
Algorithm 1 (ExtendDist).

What is computed
----------------
The points are ``z_i = (y_i, x_i)``. For one projection vector ``w`` the rows
are sorted by ``z_i . w``. Each row is compared with the rows at the ``m2``
positions just below and the ``m2`` positions just above it in that order;
those that belong to another group of the attribute are its candidates. When
none of the ``m2`` positions on one side holds a row of another group, the
nearest row of another group on that side is taken instead, so every row
always has at least one candidate. The row's distance for this projection is
the smallest true Euclidean distance to a candidate (Algorithm 3).

ApproxDist repeats this for ``m1`` draws of ``n_vectors`` orthonormal vectors.
By default it keeps, per row, the smallest distance found over all
projections (``reduce="row"``), and returns the maximum and the mean of these
row distances. Every kept value is the true distance to a row of another
group, so the result is never below the exact value of Eq. 4 and 5, and it is
never above the paper's aggregation, ``reduce="total"``, which takes the
minimum over projections of the maximum and of the total separately
(Algorithm 2, lines 6-9).

How it is computed
------------------
Projecting and sorting cost ``O(n log n)`` per vector. The candidates of
neighbouring rows overlap, so the rows are reordered by projection and the
dot products inside the band of width ``2 m2`` are computed by batched matrix
products on overlapping tiles (a view, no copy), a chunk of sorted rows at a
time within the working memory; the only copy of the points is the float64
one (each projection casts its sorted rows to float32 in its work space). The
squared distances are only used to rank candidates; the distance of the
chosen candidate is then recomputed directly from the coordinates, so the
returned values are exact distances. The projection vectors are drawn up front from ``random_state``,
and results are merged in projection order, so any ``n_jobs`` gives the same
result.

Row order: given ``content`` (``hfm_report`` gives it), the projections are
computed on the rows in an order of their content and their ties broken in
it (:mod:`._row_order`), not by the rows' positions: a seed gives each row
the same value for the same rows in any order (copies of one row may trade
theirs). The points themselves are
:class:`._approx_points._Points` (rows scaled as needed, no copy).
"""

from functools import partial

import numpy as np
from joblib import effective_n_jobs
from numpy.lib.stride_tricks import as_strided

from skfair_manifold.distances._approx_points import _Points, _take32, _true_distances
from skfair_manifold.distances._numerics import check_distances_finite
from skfair_manifold.utils._parallel import run_blocks, working_memory_bytes
from skfair_manifold.distances._approx_settings import draw_projections


#: Largest useful working memory per worker, in MiB, for the band of candidate
#: distances (larger chunks are no faster; the configured budget may be lower).
#: 64 MiB, not 128: at 1,000,000 x 20 the band's chunk at 128 MiB was a third of
#: the peak above X, and the exact checks' blocks, capped by the same value,
#: peaked higher still.
MAX_WORKING_MEMORY = 64

def _band(points, padded, sq_sorted, r0, r1):
    """Squared distances (for ranking) from sorted positions ``r0:r1`` to their band.

    ``padded`` holds the sorted float32 points after ``width`` zero rows and
    ``r0`` is a multiple of the tile. Returns ``sq`` of shape
    (r1 - r0, 2 * width) with columns for offsets ``-width..-1, 1..width``
    (``inf`` outside the data), and ``pos`` the neighbour positions (clipped
    into range). Every value depends on its row alone, not on the chunk.
    """
    n, width, tile = points.n, points.width, points.tile
    d = points.d
    first, last = r0 // tile, -(-r1 // tile)
    offsets = points.offsets
    local = np.arange(tile)
    cols = local[:, None] + width + offsets[None, :]
    band = np.empty(((last - first) * tile, 2 * width), dtype=np.float32)
    s0, s1 = padded.strides
    for t0 in range(first, last, points.tiles_per_chunk):
        t1 = min(last, t0 + points.tiles_per_chunk)
        tiles = padded[width + t0 * tile:width + t1 * tile].reshape(t1 - t0, tile, d)
        windows = as_strided(padded[t0 * tile:], shape=(t1 - t0, tile + 2 * width, d),
                             strides=(tile * s0, s0, s1), writeable=False)
        prod = np.matmul(tiles, windows.transpose(0, 2, 1))
        band[(t0 - first) * tile:(t1 - first) * tile] = \
            prod[:, local[:, None], cols].reshape(-1, 2 * width)
        del prod
    band = band[:r1 - r0]
    # Positions in the narrowest integer that holds them (memory: rows x 2 m2).
    index = np.int32 if n < 2 ** 31 - 2 * width else np.intp
    pos = np.arange(r0, r1, dtype=index)[:, None] + offsets.astype(index)[None, :]
    valid = (pos >= 0) & (pos < n)
    np.clip(pos, 0, n - 1, out=pos)
    band *= -2.0
    band += sq_sorted[r0:r1, None]
    for c in range(band.shape[1]):  # a column at a time: no (rows, 2 m2) temporary
        band[:, c] += sq_sorted[pos[:, c]]
    np.maximum(band, 0.0, out=band)
    band[~valid] = np.inf
    return band, pos


def _exact_sq32(points, i, j):
    """Squared distances of rows ``i`` and ``j`` cast to float32 (for ranking)."""
    diff = points.rows(i).astype(np.float32) - points.rows(j).astype(np.float32)
    return np.einsum("ij,ij->i", diff, diff)


def _projection_best(points, w, padded):
    """Per attribute, each row's best candidate for one projection vector.

    Returns ``best_sq`` (ranking values) and ``best_j`` (row index of the
    candidate), both of shape (n_attributes, n_samples), in original row order.
    The band is processed in chunks of sorted rows within the working memory.
    """
    n = points.n
    # ties of the projection in content order (the projections are in it too)
    order = np.argsort(points.project(w), kind="stable")
    if points.content is not None:
        order = points.content[order]
    if points.candidates == "others":
        return _others_best(points, order)
    width = points.width
    n_attr = len(points.codes)
    _take32(points, order, padded[width:width + n])
    sq_sorted = points.sq32[order]
    groups = [codes[order] for codes in points.codes]
    val = np.empty((n_attr, n), dtype=np.float32)
    jpos = np.empty((n_attr, n), dtype=_index_type(n))
    left_none = np.empty((n_attr, n), dtype=bool)
    right_none = np.empty((n_attr, n), dtype=bool)
    chunk = points.tiles_per_chunk * points.tile
    for r0 in range(0, n, chunk):
        r1 = min(n, r0 + chunk)
        sq, pos = _band(points, padded, sq_sorted, r0, r1)
        rows = np.arange(r1 - r0)
        inside = np.isfinite(sq)  # positions inside the data, shared by the attributes
        for k, g in enumerate(groups):
            other = g[pos] != g[r0:r1, None]
            other &= inside
            cand = np.where(other, sq, np.inf)
            arg = np.argmin(cand, axis=1)
            val[k, r0:r1] = cand[rows, arg]
            jpos[k, r0:r1] = pos[rows, arg]
            # A side whose m2 positions hold no other group: see below.
            left_none[k, r0:r1] = ~np.any(other[:, :width], axis=1)
            right_none[k, r0:r1] = ~np.any(other[:, width:], axis=1)
        del sq, pos, inside, other, cand
    best_sq = np.empty((n_attr, n), dtype=np.float32)
    best_j = np.empty((n_attr, n), dtype=jpos.dtype)
    for k, g in enumerate(groups):
        # A side whose m2 positions hold no other group: its nearest
        # other-group row is just outside the run of the row's own group.
        if left_none[k].any() or right_none[k].any():
            run_start = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
            run_id = np.cumsum(np.r_[True, g[1:] != g[:-1]]) - 1
            run_end = np.r_[run_start[1:], n]
            for none, nearest in ((left_none[k], run_start[run_id] - 1),
                                  (right_none[k], run_end[run_id])):
                need = np.flatnonzero(none & (nearest >= 0) & (nearest < n))
                if need.size:
                    cand_sq = _exact_sq32(points, order[need], order[nearest[need]])
                    better = cand_sq < val[k, need]
                    val[k, need[better]] = cand_sq[better]
                    jpos[k, need[better]] = nearest[need][better]
        best_sq[k, order] = val[k]
        best_j[k, order] = order[jpos[k]]
    return best_sq, best_j


def _others_best(points, order):
    """``candidates="others"``: the ``m2`` other-group rows nearest on each side.

    Per attribute and group, the rows of the other groups in projected order
    (the complement) and each row's position among them (``searchsorted``):
    its candidates are the slice of ``m2`` complement rows on each side, so no
    band has to be widened for a dominant group.
    """
    n, m2 = points.n, points.m2
    # Sorted points plus a sentinel row n, at infinite squared distance, that
    # stands for the candidates beyond either end of a complement.
    Z_sorted = np.zeros((n + 1, points.d), dtype=np.float32)
    _take32(points, order, Z_sorted[:n])
    sq_sorted = np.empty(n + 1, dtype=np.float32)
    sq_sorted[:n] = points.sq32[order]
    sq_sorted[n] = np.inf
    offsets = np.arange(-m2, m2) + 1
    n_attr = len(points.codes)
    best_sq = np.empty((n_attr, n), dtype=np.float32)
    best_j = np.empty((n_attr, n), dtype=np.intp)
    for k, codes in enumerate(points.codes):
        g = codes[order]
        val = np.empty(n, dtype=np.float32)
        jpos = np.empty(n, dtype=np.intp)
        for value in points.group_values[k]:
            mine = np.flatnonzero(g == value)
            comp = np.flatnonzero(g != value)
            padded = np.concatenate([[n], comp, [n]])  # sentinels at both ends
            idx = np.searchsorted(comp, mine)
            for c0 in range(0, mine.size, points.others_chunk):
                rows = mine[c0:c0 + points.others_chunk]
                cidx = idx[c0:c0 + points.others_chunk, None] + offsets
                np.clip(cidx, 0, comp.size + 1, out=cidx)
                cpos = np.take(padded, cidx)
                # np.take gathers far faster than fancy indexing of 2-D indices.
                dots = np.matmul(np.take(Z_sorted, cpos, axis=0),
                                 np.take(Z_sorted, rows, axis=0)[:, :, None])[:, :, 0]
                dots *= -2.0
                dots += sq_sorted[rows, None]
                dots += np.take(sq_sorted, cpos)
                np.maximum(dots, 0.0, out=dots)
                arg = np.argmin(dots, axis=1)
                local = np.arange(rows.size)
                val[rows] = dots[local, arg]
                jpos[rows] = cpos[local, arg]
        best_sq[k, order] = val
        best_j[k, order] = order[jpos]
    return best_sq, best_j


def _index_type(n):
    """The narrowest integer type of row indices below ``n`` (memory: a few per row)."""
    return np.int32 if n < 2 ** 31 else np.intp


def _run_projections(points, W, want_totals):
    """Fold the projections of ``W`` (columns) in order; strict ``<`` keeps the first."""
    n_attr = len(points.codes)
    best_sq = np.full((n_attr, points.n), np.inf, dtype=np.float32)
    best_j = np.zeros((n_attr, points.n), dtype=_index_type(points.n))
    totals = []
    padded = points.buffer()
    for v in range(W.shape[1]):
        sq, j = _projection_best(points, W[:, v], padded)
        if want_totals:
            rows = np.arange(points.n)
            dist = np.stack([_true_distances(points, rows, j[k]) for k in range(n_attr)])
            totals.append(np.c_[dist.max(axis=1), dist.sum(axis=1)])
        better = sq < best_sq
        best_sq[better] = sq[better]
        best_j[better] = j[better]
    return best_sq, best_j, totals


def approx_row_distances(X, y, codes, *, m1, m2, n_vectors, random_state, n_jobs=None,
                         reduce="row", projections=None, working_memory=None,
                         candidates="positions", minmax=None, content=None):
    """Approximate distance from each row to the nearest row of another group.

    Private entry point of the engine: the inputs are trusted.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), float64
        The label coordinate (true label or prediction).
    codes : list of ndarray of shape (n_samples,)
        Group codes per sensitive attribute (2 or more groups each).
    m1, m2, n_vectors : int
        Repetitions, comparisons per side, orthonormal vectors per repetition.
    random_state : int, RandomState instance or None
    n_jobs : int, default=None
    reduce : {"row", "total"}
        ``"row"``: per-row minimum over projections (returns row distances).
        ``"total"``: also returns the paper's per-projection maxima and totals.
    projections : ndarray of shape (1 + n_features, n_projections), optional
        Use these vectors instead of drawing ``m1 * n_vectors`` of them.
    candidates : {"positions", "others"}
        ``"positions"``: the other-group rows among the ``m2`` positions on
        each side. ``"others"``: the ``m2`` other-group rows nearest in
        projected order on each side, found as slices of each group's
        complement in projected order (no band limit).
    minmax : tuple of ndarray, optional
        ``(lo, span)`` of :func:`._numerics.min_max`: the features are
        ``(X - lo) / span``, scaled a chunk of rows at a time (no copy of ``X``).
    content : ndarray of int, optional
        The rows in an order of their content (:func:`._row_order.content_order`):
        projections and their ties follow it, so the same rows in another order
        get the same values (``hfm_report`` passes it). None: the rows'
        positions (the public functions of one attribute and of several then
        break ties alike: ExtendDist is ApproxDist per attribute bit for bit).

    Returns
    -------
    row_distances : ndarray of shape (n_attributes, n_samples)
        Per row, the smallest true distance to a candidate over all projections.
    totals : ndarray of shape (n_projections, n_attributes, 2)
        Only with ``reduce="total"``: per projection and attribute, the
        maximum and the sum of the row distances of that projection alone.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n, d = X.shape[0], X.shape[1] + 1
    if projections is None:
        projections = draw_projections(d, m1, n_vectors, random_state)
    n_proj = projections.shape[1]
    n_workers = max(1, min(effective_n_jobs(n_jobs), n_proj))
    budget = (working_memory * 2 ** 20 if working_memory is not None
              else working_memory_bytes()) / n_workers
    budget = min(budget, MAX_WORKING_MEMORY * 2 ** 20) / 2 ** 20
    points = _Points(X, y, minmax, codes, m2, budget, candidates, content=content)
    want_totals = reduce == "total"
    n_tasks = 1 if n_workers == 1 else min(n_proj, 2 * n_workers)
    bounds = np.linspace(0, n_proj, n_tasks + 1).astype(int)
    results = run_blocks(partial(_run_projections, points, want_totals=want_totals),
                         [projections[:, a:b] for a, b in zip(bounds[:-1], bounds[1:])],
                         n_jobs=n_jobs)
    best_sq, best_j, totals = results[0]
    for sq, j, tot in results[1:]:  # in projection order: identical for any n_jobs
        better = sq < best_sq
        best_sq[better] = sq[better]
        best_j[better] = j[better]
        totals = totals + tot
    rows = np.arange(n)
    row_dist = np.stack([_true_distances(points, rows, best_j[k]) for k in range(len(codes))])
    check_distances_finite(row_dist)
    if want_totals:
        return row_dist, np.stack(totals)
    return row_dist
