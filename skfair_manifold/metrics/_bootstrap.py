"""The percentile bootstrap of the gaps, drawn from a :class:`~._cells.CellTable`.

Resampling ``n`` rows with replacement gives each cell a count drawn from one
multinomial over the cells (probabilities ``count / n``), so each replicate
is a draw of the cell counts and costs no pass over the rows: the same
distribution as resampling rows, exactly, for unweighted data. With sample
weights each drawn row carries its cell's mean weight (the cell's weight
times drawn / observed count): exact when weights are constant within cells,
an approximation otherwise (weights that vary within a cell add variance
that this draw leaves out).

The percentile bootstrap of a gap collapses on small groups (a group of 4
rows all selected has every replicate rate 1), so the report keeps the
score intervals of :mod:`._intervals` for the rates and offers this one for
the gaps of large groups.
"""

import numpy as np

#: replicates x cells held in memory at once
_BLOCK_ELEMENTS = 2_000_000


def replicate_weights(table, n_boot, rng):
    """Yield blocks of replicate weights per cell, arrays of shape (block, n_cells)."""
    count = table.count.astype(np.float64)
    n = int(table.count.sum())
    probabilities = count / n
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_weight = np.where(count > 0, table.weight / np.where(count > 0, count, 1.0), 0.0)
    block = max(1, _BLOCK_ELEMENTS // max(count.shape[0], 1))
    for start in range(0, n_boot, block):
        stop = min(start + block, n_boot)
        drawn = rng.multinomial(n, probabilities, size=stop - start).astype(np.float64)
        yield drawn * mean_weight if table.weighted else drawn


def group_sums(table, k, cell_weights):
    """Replicate weight sums per group of attribute ``k``: shape (B, n_groups, 2, 2)."""
    g = table.groups[k].shape[0]
    flat = (table.codes[:, k] * 4 + 2 * table.y_true + table.y_pred).astype(np.intp)
    return _sum_by(flat, 4 * g, cell_weights).reshape(-1, g, 2, 2)


def total_sums(table, cell_weights):
    """Replicate weight sums over all rows: shape (B, 2, 2)."""
    flat = (2 * table.y_true + table.y_pred).astype(np.intp)
    return _sum_by(flat, 4, cell_weights).reshape(-1, 2, 2)


def _sum_by(flat, size, cell_weights):
    """Sums of the columns of ``cell_weights`` (B, m) into ``size`` bins by ``flat`` (m,)."""
    from scipy.sparse import csr_matrix

    m = flat.shape[0]
    onehot = csr_matrix((np.ones(m), (flat, np.arange(m))), shape=(size, m))
    return np.asarray((onehot @ cell_weights.T).T)


def percentile(samples, confidence):
    """Percentile interval over axis 0, ignoring replicates where the value is undefined."""
    import warnings

    a = (1.0 - confidence) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(samples, [a, 1.0 - a], axis=0)
    return low, high
