"""Exact distances between sets: HFM paper, Eq. 4-7.

For every row ``i`` the engine finds, for each label vector and each sensitive
attribute, the Euclidean distance from the point ``(label_i, x_i)`` to the
nearest point of a row in another group of that attribute. Eq. 4 is the
maximum and Eq. 5 the mean of these row distances; Eq. 6 and 7 take the
maximum and the mean over the attributes.

How it is computed
------------------
The squared distance splits into a feature part and a label part,
``|x_i - x_j|^2 + (y_i - y_j)^2``, and only the feature part is expensive. The
rows are grouped into *cells*: rows that share every label value and every
attribute value. Within one cell the label part and the group memberships are
constant, so for a block of query rows a single matrix product gives the
feature part to every reference row, and one ``np.minimum.reduceat`` pass
reduces it to the minimum per cell. Everything else (both labels, every
attribute) is derived from that small ``(block, n_cells)`` matrix. Reference
rows that share all attributes with the query block can never be "another
group" and are skipped. Identical rows are computed once (with counts).

The features are centred on the midpoint of each column's range and divided
by a power of two at least their largest magnitude (exact), so the squares
neither overflow nor underflow; the feature part is brought back to the
data's units before the label part is added with ``hypot``
(:mod:`._numerics`).

The product only *ranks*. Its form ``|a|^2 + |b|^2 - 2 a.b`` has a rounding
error of up to about ``d u (|a| + |b|)^2`` (``u = 2**-53``, bounded by
:func:`gram_error`), which swamps the small columns when a column spans many
orders of magnitude more than the others and rows tie on it (a date in
milliseconds beside binary features). So from the error bound each cell gets
a lower and an upper bound of its distance; the cells whose lower bound is
not above the smallest upper bound (for some label and attribute) could hold
the nearest row, and in those cells every row whose product lies within the
error band of the cell's minimum is recomputed by coordinate differences
(:func:`pair_feature_distances`). Every distance returned is therefore the
smallest *direct* distance over all rows of other groups: exact whatever the
columns' spans, identical feature vectors give an exact zero, and the value
does not depend on how the rows were blocked, on ``n_jobs``, on the other
labels computed in the same pass, or on the BLAS (whose products differ in
the last bits with the shape of the matrices).

Memory is bounded by ``sklearn.get_config()["working_memory"]`` (MiB, shared
by the workers); the blocks of query rows are handed to joblib, so
``joblib.parallel_config(backend="dask")`` sends them to a dask cluster.
:class:`ExactEngine` keeps the prepared layout so that any subset of rows can
be queried (the certified approximation checks a sample of rows this way).
"""

from functools import partial

import numpy as np
from joblib import effective_n_jobs
from threadpoolctl import threadpool_limits

from skfair_manifold.distances._approx import MAX_WORKING_MEMORY
from skfair_manifold.distances._numerics import (
    check_distances_finite,
    centre_columns,
    feature_scaling,
    scale_rows,
)
from skfair_manifold.utils._parallel import run_blocks, working_memory_bytes


def _unique_int_rows(keys):
    """``np.unique(keys, axis=0, return_inverse=True)`` for non-negative integer rows.

    The columns are combined into one mixed-radix integer (first column most
    significant, so the order is the same lexicographic one), which sorts
    much faster than rows.
    """
    keys = np.asarray(keys, dtype=np.int64)
    radix = keys.max(axis=0) + 1
    if np.prod(radix.astype(float)) >= 2.0 ** 62:
        table, inverse = np.unique(keys, axis=0, return_inverse=True)
        return table, inverse.reshape(-1)
    combined = np.zeros(keys.shape[0], dtype=np.int64)
    for j in range(keys.shape[1]):
        combined = combined * radix[j] + keys[:, j]
    values, inverse = np.unique(combined, return_inverse=True)
    table = np.column_stack(np.unravel_index(values, tuple(int(r) for r in radix)))
    return table.astype(np.int64), inverse.reshape(-1)


def _identical_rows(X, scaling=None):
    """An id per row, equal exactly for rows with identical feature vectors.

    Rows are hashed (their bits, ``-0.0`` made ``0.0``, mixed by random odd
    64-bit multipliers); equal hashes are then verified coordinate by
    coordinate, and any collision falls back to ``np.unique(X, axis=0)``.
    ``scaling`` ``(minmax, mid, scale)``: the rows are those of
    ``scale_rows(X, *scaling)``, scaled a column or a few rows at a time.
    """
    n, d = X.shape

    def scaled(rows=slice(None), j=slice(None)):
        part = np.array(X[rows, j], dtype=np.float64)
        if scaling is None:
            return part
        minmax, mid, scale = scaling
        mm = None if minmax is None else (minmax[0][j], minmax[1][j])
        return scale_rows(part, mm, mid[j], scale)

    if d == 0:
        return np.zeros(n, dtype=np.int64)
    mult = np.random.default_rng(0x5EED).integers(1, 2 ** 63, size=d, dtype=np.uint64)
    mult |= np.uint64(1)
    with np.errstate(over="ignore"):
        h = np.zeros(n, dtype=np.uint64)
        for j in range(d):  # one column at a time: no copy of X
            bits = (scaled(j=j) + 0.0).view(np.uint64)  # -0.0 becomes 0.0
            h ^= bits * mult[j]
            h = (h << np.uint64(13)) | (h >> np.uint64(51))
    _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    twin = first[inverse]
    dup = np.flatnonzero(twin != np.arange(n))  # rows said equal to an earlier one
    if dup.size and not np.array_equal(scaled(twin[dup]), scaled(dup)):
        inverse = np.unique(scaled(), axis=0, return_inverse=True)[1].reshape(-1)
    return inverse.astype(np.int64)


class _Layout:
    """Deduplicated, cell-sorted rows shared by every block (read-only)."""

    def __init__(self, X, labels, codes, scaling=None):
        n = X.shape[0]
        # Label values and attribute values -> one cell id per row. The
        # attributes are the major keys so that the cells of one joint
        # attribute group are contiguous.
        label_codes, label_values = [], []
        for y in labels:
            values, inv = np.unique(y, return_inverse=True)
            label_values.append(values)
            label_codes.append(inv.reshape(-1))
        keys = np.column_stack(list(codes) + label_codes) if (codes or label_codes) else \
            np.zeros((n, 1), dtype=np.intp)
        cell_table, cell_of_row = _unique_int_rows(keys)
        cell_of_row = cell_of_row.reshape(-1)
        n_attr = len(codes)
        # Joint attribute group of each cell (cells sorted, so groups contiguous).
        attr_part = cell_table[:, :n_attr]
        if cell_table.shape[0] > 1:
            new_joint = np.r_[True, np.any(attr_part[1:] != attr_part[:-1], axis=1)]
        else:
            new_joint = np.array([True])
        joint_of_cell = np.cumsum(new_joint) - 1

        # Identical feature vectors (exact zeros) and identical rows (computed once).
        feat_of_row = _identical_rows(X, scaling)
        feat_of_row = feat_of_row.reshape(-1).astype(np.int64)
        n_cells = cell_table.shape[0]
        key = feat_of_row * n_cells + cell_of_row
        # Sort the unique rows by cell, then feature id: the reference order.
        ukey, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        ucell = ukey % n_cells
        ufeat = ukey // n_cells
        order = np.lexsort((ufeat, ucell))
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)

        self.n_samples = n
        self.row_to_unique = rank[inverse.reshape(-1)]  # original row -> sorted unique
        self.cell = ucell[order]
        self.feat = ufeat[order]
        # X augmented so that one product gives |x_r|^2 - 2 x_q . x_r; the
        # features are a view of it (the only copy of X, filled and scaled
        # in chunks).
        keep = first[order]
        # The row keys are not needed any more: freed before the copy of X.
        del label_codes, keys, cell_of_row, feat_of_row, key, ukey, first, inverse
        del ucell, ufeat, order, rank
        d = X.shape[1]
        self.X_ref = np.empty((keep.size, d + 1))
        self.X = self.X_ref[:, :d]
        for s in range(0, keep.size, 1 << 14):
            self.X[s:s + (1 << 14)] = X[keep[s:s + (1 << 14)]]
            if scaling is not None:
                scale_rows(self.X[s:s + (1 << 14)], *scaling)
        self.sq_norms = np.einsum("ij,ij->i", self.X, self.X)
        self.X_ref[:, d] = self.sq_norms
        self.max_norm = float(np.sqrt(self.sq_norms.max())) if n else 0.0
        self.n_unique = self.X.shape[0]
        self.n_cells = n_cells
        self.cell_starts = np.searchsorted(self.cell, np.arange(n_cells))
        self.joint_of_cell = joint_of_cell
        self.n_joint = int(joint_of_cell[-1]) + 1
        joint_cell_start = np.flatnonzero(new_joint)
        self.joint_cell_range = np.c_[joint_cell_start, np.r_[joint_cell_start[1:], n_cells]]
        self.cell_attr = attr_part
        self.cell_label = np.column_stack(
            [label_values[l][cell_table[:, n_attr + l]] for l in range(len(labels))]
        ) if labels else np.zeros((n_cells, 0))
        self.unique_label = self.cell_label[self.cell]
        self.n_attr = n_attr
        self.n_labels = len(labels)


def _blocks(layout, block_size, rows=None):
    """Query blocks ``(joint group, rows)`` over the sorted unique rows.

    ``rows`` (sorted unique-row indices) restricts the queries; a block's rows
    are a ``slice`` when they are contiguous, an index array otherwise.
    """
    blocks = []
    for j in range(layout.n_joint):
        c0, c1 = layout.joint_cell_range[j]
        r0, r1 = layout.cell_starts[c0], (layout.cell_starts[c1] if c1 < layout.n_cells
                                          else layout.n_unique)
        if rows is None:
            for s in range(r0, r1, block_size):
                blocks.append((j, slice(s, min(s + block_size, r1))))
        else:
            a, b = np.searchsorted(rows, [r0, r1])
            for s in range(a, b, block_size):
                blocks.append((j, rows[s:min(s + block_size, b)]))
    return blocks


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


#: BLAS threads of a serial run of the exact engine (measured with
#: ``benchmarks/bench_hfm.py --blas``; see the user guide on distances).
BLAS_THREADS = 1


class ExactEngine:
    """The exact engine prepared once, to query all rows or any subset of them.

    Private: the inputs are trusted (validated by the public functions).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64
        Non-sensitive features.
    labels : list of ndarray of shape (n_samples,), float64
        Label vectors, each the first coordinate of the points (for example
        ``[y_true, y_pred]``); they share the feature part of the work.
    codes : list of ndarray of shape (n_samples,), int
        Group codes of each sensitive attribute, each with 2 or more groups.
    working_memory : float, default=None
        MiB of working memory shared by the workers (default:
        ``sklearn.get_config()["working_memory"]``).
    minmax : tuple of ndarray, default=None
        ``(lo, span)`` of :func:`._numerics.min_max`: the distances are those
        of ``(X - lo) / span``, scaled in the engine's own copy of ``X``.
    """

    def __init__(self, X, labels, codes, *, working_memory=None, minmax=None):
        labels = [np.asarray(y, dtype=np.float64) for y in labels]
        if labels:
            centre_columns(np.column_stack(labels), name="the labels")
        # Division by a power of two is exact: the algebra runs on O(1) values.
        # The layout's gather is the only copy of X: the scaling is applied
        # to its rows (the same values as scaled_features).
        mid, scale = feature_scaling(X, minmax)
        self.layout = _Layout(X, labels, list(codes), scaling=(minmax, mid, scale))
        self.layout.scale = scale
        self.working_memory = (working_memory * 2 ** 20 if working_memory is not None
                               else working_memory_bytes())

    def _block_size(self, n_jobs):
        n_workers = max(1, effective_n_jobs(n_jobs))
        # About three (block x n_unique) float64 arrays live at once per worker.
        per_worker = self.working_memory / n_workers
        size = int(per_worker // (3 * 8 * max(self.layout.n_unique, 1)))
        return max(8, min(4096, size))

    def _run(self, rows, n_jobs):
        layout = self.layout
        blocks = _blocks(layout, self._block_size(n_jobs), rows)
        n_workers = effective_n_jobs(n_jobs)
        if n_workers == 1 or len(blocks) == 1:
            tasks = [blocks]
        else:
            n_tasks = min(len(blocks), 4 * n_workers)
            tasks = [blocks[i::n_tasks] for i in range(n_tasks)]
        # Parallel workers get one BLAS thread each; a serial run gets
        # BLAS_THREADS (measured, see the module constant).
        with threadpool_limits(limits=BLAS_THREADS if n_workers == 1 else 1,
                               user_api="blas"):
            parts = run_blocks(partial(_process_blocks, layout), tasks, n_jobs=n_jobs)
        return [r for part in parts for r in part]

    def all_rows(self, *, n_jobs=None):
        """Distances of every row, shape (n_labels, n_attributes, n_samples)."""
        layout = self.layout
        unique_dist = np.empty((layout.n_labels, layout.n_attr, layout.n_unique))
        for idx, values in self._run(None, n_jobs):
            unique_dist[:, :, idx] = values
        # C order, so that sums over rows are the same however they were computed.
        return check_distances_finite(
            np.ascontiguousarray(unique_dist[:, :, layout.row_to_unique]))

    def rows(self, rows, *, n_jobs=None):
        """Distances of the given rows, shape (n_labels, n_attributes, len(rows))."""
        layout = self.layout
        rows = np.asarray(rows, dtype=np.intp)
        wanted = np.unique(layout.row_to_unique[rows])
        unique_dist = np.empty((layout.n_labels, layout.n_attr, wanted.size))
        for idx, values in self._run(wanted, n_jobs):
            unique_dist[:, :, np.searchsorted(wanted, idx)] = values
        pos = np.searchsorted(wanted, layout.row_to_unique[rows])
        return check_distances_finite(np.ascontiguousarray(unique_dist[:, :, pos]))


def nearest_scaled(Z, scale, label, code, rows):
    """For each of ``rows``, the nearest row of another group of ``code`` and its distance.

    ``Z``: the features already centred and divided by ``scale``. A plain
    search over all rows of other groups with the engine's pair values
    (direct feature differences, the label part by ``hypot``), so the
    distance equals the engine's row distance bit for bit; ties go to the
    smallest row index. ``O(len(rows) x n x d)``: for a few rows (witnesses).

    Returns
    -------
    nearest : ndarray of int, distance : ndarray of float
    """
    # Rows of other groups in chunks within the working memory, at most the
    # approximation's cap (a chunk of the default 1 GiB held every row, a
    # gather and a difference of X's size each); a pair's value depends on
    # that pair alone; strict < keeps the first of ties.
    budget = min(working_memory_bytes(), MAX_WORKING_MEMORY * 2 ** 20)
    chunk = max(1024, int(budget // (4 * 8 * max(Z.shape[1], 1))))
    nearest, distance = [], []
    for i in rows:
        others = np.flatnonzero(code != code[i])
        best_t, best = -1, np.inf
        for s in range(0, others.size, chunk):
            part = others[s:s + chunk]
            feature = pair_feature_distances(Z[i][None, :], Z[part]) * scale
            total = np.hypot(feature, label[i] - label[part])
            t = int(np.argmin(total))
            if best_t < 0 or total[t] < best:
                best_t, best = s + t, total[t]
        nearest.append(int(others[best_t]))
        distance.append(float(best))
    return np.array(nearest, dtype=np.intp), np.array(distance)


def exact_row_distances(X, labels, codes, *, n_jobs=None, working_memory=None, minmax=None):
    """Distance from each row to the nearest row of another group (exact).

    Private entry point of the engine: the inputs are trusted (validated by
    the public functions). See :class:`ExactEngine` for the parameters;
    ``n_jobs`` workers (joblib; threads by default) share the blocks of rows.

    Returns
    -------
    distances : ndarray of shape (len(labels), len(codes), n_samples)
    """
    engine = ExactEngine(X, labels, codes, working_memory=working_memory, minmax=minmax)
    return engine.all_rows(n_jobs=n_jobs)
