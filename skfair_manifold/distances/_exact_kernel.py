"""One block of query rows: products ranked per cell, rows in the error band recomputed."""

import numpy as np


def _process_blocks(layout, blocks):
    """Distances for a list of query blocks; returns [(rows, array), ...]."""
    return [(idx, _process_block(layout, j, idx)) for j, idx in blocks]


_UNIT_ROUNDOFF = 2.0 ** -53


#: Relative widening of the bounds, for the rounding of the bounds themselves.
_BOUND_SLACK = 2.0 ** -40


#: Pairs whose direct differences are computed at once (memory of one chunk).
_PAIR_CHUNK = 1 << 15


def pair_feature_distances(q_rows, r_rows):
    """Euclidean norms of ``q_rows - r_rows`` by coordinate differences, pair by pair.

    The one definition of a pair's feature distance (in the engine's scaled
    units): scaled by each pair's largest difference, so that no square
    under- or overflows, and summed along each row, so that a pair's value
    does not depend on which other pairs are computed with it.
    """
    diff = np.ascontiguousarray(q_rows - r_rows)
    top = np.max(np.abs(diff), axis=1) if diff.shape[1] else np.zeros(diff.shape[0])
    safe = np.where(top > 0, top, 1.0)
    diff /= safe[:, None]
    diff *= diff
    return top * np.sqrt(diff.sum(axis=1))


def _nonzero_2d(mask):
    """``np.nonzero`` of a 2-D mask (row-major order), about three times faster."""
    flat = np.flatnonzero(mask)
    return np.divmod(flat, mask.shape[1])


def gram_error(sq_norms_q, max_norm, n_features):
    """Worst-case rounding error of ``|q|^2 + |r|^2 - 2 q.r`` for each query row.

    The products are sums of ``d + 2`` terms each at most ``(|q| + |r|)^2``
    in magnitude, so the classic bound ``gamma_(d+2) (|q| + |r|)^2`` holds for
    any summation order (blocked BLAS, FMA); ``|r|`` is bounded by the
    largest reference norm, and a factor 2 covers the second-order terms.
    """
    reach = (np.sqrt(sq_norms_q) + max_norm) ** 2
    return 2.0 * (n_features + 3) * _UNIT_ROUNDOFF * reach


def _band_minima(layout, q_rows, prod, ref_start, cell_starts, cell_ends, could,
                 prod_min, band, feature):
    """Direct differences for the cells that could hold a query's nearest row.

    For each (query, cell) flagged in ``could``, every reference row of the
    cell whose product lies within ``band`` of the cell's smallest product
    could be the nearest (the product's error is below half the band); their
    distances are recomputed by :func:`pair_feature_distances` and the
    smallest replaces ``feature[q, cell]`` (in place). Rows outside the band
    are farther by more than the rounding of any direct distance, so the
    value is the smallest direct distance over the whole cell.
    """
    n_block = could.shape[0]
    for col in np.flatnonzero(could.any(axis=0)):
        queries = np.flatnonzero(could[:, col])
        s, e = cell_starts[col], cell_ends[col]
        if 2 * queries.size >= n_block:
            # Most rows of the block: compare in place (rows not flagged get -inf).
            thr = np.where(could[:, col], prod_min[:, col] + band, -np.inf)
            rows_q, cand_r = _nonzero_2d(prod[:, s:e] <= thr[:, None])
            cand_q = np.searchsorted(queries, rows_q)
        else:
            thr = prod_min[queries, col] + band[queries]
            cand_q, cand_r = _nonzero_2d(prod[queries, s:e] <= thr[:, None])
        best = np.full(queries.size, np.inf)
        for lo in range(0, cand_q.size, _PAIR_CHUNK):
            cq, cr = cand_q[lo:lo + _PAIR_CHUNK], cand_r[lo:lo + _PAIR_CHUNK]
            dist = pair_feature_distances(q_rows[queries[cq]],
                                          layout.X[ref_start + s + cr])
            np.minimum.at(best, cq, dist)
        # The row of the smallest product is always in the band.
        feature[queries, col] = best


def _process_block(layout, j, idx):
    c0, c1 = layout.joint_cell_range[j]
    r0 = layout.cell_starts[c0]
    r1 = layout.cell_starts[c1] if c1 < layout.n_cells else layout.n_unique
    q = layout.X[idx]
    q_aug = np.hstack([-2.0 * q, np.ones((q.shape[0], 1))])
    sq_q = layout.sq_norms[idx]
    parts, prods = [], []
    # Cells before and after the block's own joint group.
    if c0 > 0:
        prod = q_aug @ layout.X_ref[:r0].T
        starts = layout.cell_starts[:c0]
        parts.append(np.minimum.reduceat(prod, starts, axis=1))
        prods.append((prod, 0, starts, np.r_[starts[1:], r0]))
    if c1 < layout.n_cells:
        prod = q_aug @ layout.X_ref[r1:].T
        starts = layout.cell_starts[c1:] - r1
        parts.append(np.minimum.reduceat(prod, starts, axis=1))
        prods.append((prod, r1, starts, np.r_[starts[1:], layout.n_unique - r1]))
    prod_min = np.hstack(parts) if len(parts) > 1 else parts[0]
    gram = prod_min + sq_q[:, None]
    # Bounds of each cell's true feature distance from the Gram form's error.
    error = gram_error(sq_q, layout.max_norm, layout.X.shape[1])
    low = np.sqrt(np.maximum(gram - error[:, None], 0.0))
    low *= layout.scale * (1.0 - _BOUND_SLACK)
    high = np.sqrt(np.maximum(gram + error[:, None], 0.0))
    high *= layout.scale * (1.0 + _BOUND_SLACK)
    other_cells = np.r_[0:c0, c1:layout.n_cells]
    attr_of_block = layout.cell_attr[c0]
    cell_attr = layout.cell_attr[other_cells]
    other = [cell_attr[:, k] != attr_of_block[k] for k in range(layout.n_attr)]
    diffs = [layout.unique_label[idx, l][:, None] - layout.cell_label[other_cells, l]
             for l in range(layout.n_labels)]
    # The cells that could hold the nearest row for some label and attribute:
    # their lower bound is not above the smallest upper bound.
    could = np.zeros(gram.shape, dtype=bool)
    for diff in diffs:
        total_low, total_high = np.hypot(low, diff), np.hypot(high, diff)
        for mask in other:
            best_high = total_high[:, mask].min(axis=1)
            could |= mask & (total_low <= best_high[:, None])
    # Their distances by coordinate differences: every value returned is the
    # smallest direct distance over all rows, whatever the columns' spans.
    feature = np.full(gram.shape, np.inf)
    band = 4.0 * error * (1.0 + _BOUND_SLACK)
    col0 = 0
    for prod, ref_start, starts, ends in prods:
        cols = slice(col0, col0 + starts.size)
        _band_minima(layout, q, prod, ref_start, starts, ends, could[:, cols],
                     prod_min[:, cols], band, feature[:, cols])
        col0 += starts.size
    feature *= layout.scale
    result = np.empty((layout.n_labels, layout.n_attr, q.shape[0]))
    for l, diff in enumerate(diffs):
        total = np.hypot(feature, diff)
        for k, mask in enumerate(other):
            result[l, k] = total[:, mask].min(axis=1)
    return result
