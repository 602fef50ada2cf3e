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
:func:`._exact_kernel.gram_error`), which swamps the small columns when a
column spans many orders of magnitude more than the others and rows tie on it
(a date in milliseconds beside binary features). So from the error bound each
cell gets a lower and an upper bound of its distance; the cells whose lower
bound is not above the smallest upper bound (for some label and attribute)
could hold the nearest row, and in those cells every row whose product lies
within the error band of the cell's minimum is recomputed by coordinate
differences (:func:`._exact_kernel.pair_feature_distances`). Every distance
returned is therefore the smallest *direct* distance over all rows of other
groups: exact whatever the columns' spans, identical feature vectors give an
exact zero, and the value does not depend on how the rows were blocked, on
``n_jobs``, on the other labels computed in the same pass, or on the BLAS
(whose products differ in the last bits with the shape of the matrices).

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
from skfair_manifold.distances._cost import engine_path
from skfair_manifold.distances._exact_index import index_rows, index_usable
from skfair_manifold.distances._numerics import (
    check_distances_finite,
    centre_columns,
    feature_scaling,
)
from skfair_manifold.utils._parallel import run_blocks, working_memory_bytes
from skfair_manifold.distances._exact_kernel import _process_blocks, pair_feature_distances
from skfair_manifold.distances._exact_layout import _Layout, _blocks


#: BLAS threads of a serial run of the exact engine (measured with
#: ``benchmarks/bench_hfm.py --blas``; see the user guide on distances).
BLAS_THREADS = 1

#: The path of every engine's passes over all rows when set (``"engine"``, the pair
#: blocks, or ``"index"``); None: the cost model's choice (for tests and benchmarks).
FORCED_PATH = None


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

    @property
    def path(self):
        """The path of a pass over all rows: ``"engine"`` (pair blocks) or ``"index"``.

        The faster by the cost model (:func:`._cost.engine_path`), where the
        trees' coordinates allow them (:func:`._exact_index.index_usable`);
        both give the same values bit for bit.
        """
        if FORCED_PATH is not None:
            return FORCED_PATH if FORCED_PATH == "engine" or index_usable(self.layout) \
                else "engine"
        if getattr(self, "_path", None) is None:
            self._path = engine_path(self.layout, index=index_usable(self.layout))[1]
        return self._path

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
        """Distances of every row, shape (n_labels, n_attributes, n_samples).

        By the pair blocks or the k-d trees (:attr:`path`), the same values.
        """
        layout = self.layout
        if self.path == "index":
            unique_dist = index_rows(layout, n_jobs=n_jobs,
                                     working_memory=self.working_memory)
        else:
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
