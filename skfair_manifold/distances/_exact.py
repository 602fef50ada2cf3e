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
group" and are skipped. Identical rows are computed once (with counts), and
identical feature vectors get an exact zero, so duplicates and ties are exact.

Memory is bounded by ``working_memory`` (MiB per worker); the blocks of query
rows are handed to joblib, so ``joblib.parallel_config(backend="dask")`` sends
them to a dask cluster.
"""

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from threadpoolctl import threadpool_limits

#: Working memory per worker, in MiB, for the blocks of distances.
DEFAULT_WORKING_MEMORY = 64


class _Layout:
    """Deduplicated, cell-sorted rows shared by every block (read-only)."""

    def __init__(self, X, labels, codes):
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
        cell_table, cell_of_row = np.unique(keys, axis=0, return_inverse=True)
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
        _, feat_of_row = np.unique(X, axis=0, return_inverse=True)
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
        self.X = np.ascontiguousarray(X[first[order]])
        self.sq_norms = np.einsum("ij,ij->i", self.X, self.X)
        # X augmented so that one product gives |x_r|^2 - 2 x_q . x_r.
        self.X_ref = np.hstack([self.X, self.sq_norms[:, None]])
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
        self._same_feature_pairs()

    def _same_feature_pairs(self):
        """Pairs (unique row q, cell c) where c holds q's feature vector.

        Only pairs across joint attribute groups matter (cells of the query's
        own joint group are never searched). These entries are set to an exact
        zero, which the expanded product ``|a|^2 + |b|^2 - 2ab`` cannot give.
        """
        by_feat = np.argsort(self.feat, kind="stable")
        feat_sorted = self.feat[by_feat]
        bounds = np.flatnonzero(np.r_[True, feat_sorted[1:] != feat_sorted[:-1], True])
        sizes = np.diff(bounds)
        multi = sizes > 1
        if not multi.any():
            self.pair_q = np.empty(0, dtype=np.intp)
            self.pair_cell = np.empty(0, dtype=np.intp)
            return
        starts, sizes = bounds[:-1][multi], sizes[multi]
        # All ordered pairs inside each group of identical feature vectors.
        n_pairs = sizes * sizes
        group_of_pair = np.repeat(np.arange(sizes.size), n_pairs)
        local = np.arange(n_pairs.sum()) - np.repeat(np.cumsum(n_pairs) - n_pairs, n_pairs)
        s = sizes[group_of_pair]
        a = by_feat[starts[group_of_pair] + local // s]
        b = by_feat[starts[group_of_pair] + local % s]
        cell_a, cell_b = self.cell[a], self.cell[b]
        keep = self.joint_of_cell[cell_a] != self.joint_of_cell[cell_b]
        a, cell_b = a[keep], cell_b[keep]
        order = np.argsort(a, kind="stable")
        self.pair_q = a[order]
        self.pair_cell = cell_b[order]


def _blocks(layout, block_size):
    """Query blocks ``(joint group, start, stop)`` over the sorted unique rows."""
    blocks = []
    for j in range(layout.n_joint):
        c0, c1 = layout.joint_cell_range[j]
        r0, r1 = layout.cell_starts[c0], (layout.cell_starts[c1] if c1 < layout.n_cells
                                          else layout.n_unique)
        for s in range(r0, r1, block_size):
            blocks.append((j, s, min(s + block_size, r1)))
    return blocks


def _process_blocks(layout, blocks):
    """Distances for a list of query blocks; returns (starts, stops, arrays)."""
    out = []
    for j, start, stop in blocks:
        out.append((start, stop, _process_block(layout, j, start, stop)))
    return out


def _process_block(layout, j, start, stop):
    c0, c1 = layout.joint_cell_range[j]
    r0 = layout.cell_starts[c0]
    r1 = layout.cell_starts[c1] if c1 < layout.n_cells else layout.n_unique
    q = layout.X[start:stop]
    q_aug = np.hstack([-2.0 * q, np.ones((q.shape[0], 1))])
    parts = []
    # Cells before and after the block's own joint group.
    if c0 > 0:
        prod = q_aug @ layout.X_ref[:r0].T
        parts.append(np.minimum.reduceat(prod, layout.cell_starts[:c0], axis=1))
    if c1 < layout.n_cells:
        prod = q_aug @ layout.X_ref[r1:].T
        parts.append(np.minimum.reduceat(prod, layout.cell_starts[c1:] - r1, axis=1))
    cell_min = np.hstack(parts) if len(parts) > 1 else parts[0]
    cell_min += layout.sq_norms[start:stop, None]
    np.maximum(cell_min, 0.0, out=cell_min)
    other_cells = np.r_[0:c0, c1:layout.n_cells]
    # Exact zeros for identical feature vectors in other cells.
    lo, hi = np.searchsorted(layout.pair_q, [start, stop])
    if hi > lo:
        pc = layout.pair_cell[lo:hi]
        col = np.where(pc < c0, pc, pc - (c1 - c0))
        cell_min[layout.pair_q[lo:hi] - start, col] = 0.0
    attr_of_block = layout.cell_attr[c0]
    cell_attr = layout.cell_attr[other_cells]
    result = np.empty((layout.n_labels, layout.n_attr, stop - start))
    for l in range(layout.n_labels):
        diff = layout.unique_label[start:stop, l][:, None] - layout.cell_label[other_cells, l]
        total = cell_min + diff * diff
        for k in range(layout.n_attr):
            other = cell_attr[:, k] != attr_of_block[k]
            result[l, k] = total[:, other].min(axis=1)
    np.sqrt(result, out=result)
    return result


def exact_row_distances(X, labels, codes, *, n_jobs=None, working_memory=None):
    """Distance from each row to the nearest row of another group (exact).

    Private entry point of the engine: the inputs are trusted (validated by
    the public functions).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64
        Non-sensitive features.
    labels : list of ndarray of shape (n_samples,), float64
        Label vectors, each the first coordinate of the points (for example
        ``[y_true, y_pred]``); they share the feature part of the work.
    codes : list of ndarray of shape (n_samples,), int
        Group codes of each sensitive attribute, each with 2 or more groups.
    n_jobs : int, default=None
        Workers for the blocks of rows (joblib; threads by default).
    working_memory : float, default=None
        MiB of working memory per worker (default 256).

    Returns
    -------
    distances : ndarray of shape (len(labels), len(codes), n_samples)
    """
    X = np.asarray(X, dtype=np.float64)
    # Centring changes no distance but shrinks the norms in |a|^2+|b|^2-2ab.
    X = X - X.mean(axis=0)
    layout = _Layout(X, list(labels), list(codes))
    if working_memory is None:
        working_memory = DEFAULT_WORKING_MEMORY
    # About three (block x n_unique) float64 arrays live at once.
    block_size = int(working_memory * 2**20 // (3 * 8 * max(layout.n_unique, 1)))
    block_size = max(8, min(2048, block_size))
    blocks = _blocks(layout, block_size)
    n_workers = effective_n_jobs(n_jobs)
    if n_workers == 1 or len(blocks) == 1:
        results = _process_blocks(layout, blocks)
    else:
        n_tasks = min(len(blocks), 4 * n_workers)
        chunks = [blocks[i::n_tasks] for i in range(n_tasks)]
        # One BLAS thread per worker: the workers already fill the cores.
        with threadpool_limits(limits=1, user_api="blas"):
            parts = Parallel(n_jobs=n_jobs, prefer="threads")(
                delayed(_process_blocks)(layout, chunk) for chunk in chunks)
        results = [r for part in parts for r in part]
    unique_dist = np.empty((layout.n_labels, layout.n_attr, layout.n_unique))
    for start, stop, values in results:
        unique_dist[:, :, start:stop] = values
    return unique_dist[:, :, layout.row_to_unique]
