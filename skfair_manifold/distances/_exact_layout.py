"""The exact engine's layout: identical rows once, rows sorted into cells, blocks of query rows."""

import numpy as np

from skfair_manifold.distances._numerics import scale_rows


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
