"""The exact engine's index path: nearest rows of other groups through k-d trees.

Where the features are few, a spatial index finds each row's nearest rows
without counting every pair. For each label vector the points are
``(label, features)`` in the engine's units (features scaled as the pair
blocks scale them, the label divided by the same power of two), every
distinct point once (rows with the same features and the same label share a
point; a point remembers, per attribute, the smallest and the largest group
among its rows). One k-d tree of all the points (``scipy.spatial.cKDTree``:
built by sliding midpoints, queried in compiled code on several threads;
scikit-learn's ``KDTree`` gives the same neighbours about twice as slowly)
is asked for the ``NEIGHBOURS`` nearest points of each point, and every
attribute reads its answer off them: the nearest point holding a row of
another group. A point with rows of two groups of an attribute is at
distance zero for that attribute. The rows the shared query leaves open
(every neighbour returned is of the row's own group, as for the majority of
a lopsided attribute) are asked again of a tree of the other groups' points
only.

The trees only *find* the candidates. Their distances, computed by sums of
squared differences, differ from the engine's pair value (the feature part
by :func:`._exact_kernel.pair_feature_distances`, brought back to the data's
units, then the label part by ``hypot``) by a relative ``(2 d + 8) u`` at
most (``d`` coordinates, ``u = 2**-53``), plus an absolute floor where the
squares underflow. Every point within ``_relative_margin(d)`` and
``_FLOOR`` of the smallest tree distance is a candidate (a radius query
when the neighbours returned do not settle it: ties, duplicates), and each
candidate's distance is computed by the engine's own pair formula; the row's
distance is the smallest of them. So each value is the smallest direct
distance over all rows of other groups, the pair blocks' value bit for bit.

Coordinates the margins do not cover (a label more than ``2**400`` times
the features' scale, features scaled below ``2**-500`` or above ``2**500``)
are left to the pair blocks: :func:`index_usable`.
"""

from functools import partial

import numpy as np
from scipy.spatial import cKDTree

from skfair_manifold.distances._exact_kernel import pair_feature_distances
from skfair_manifold.utils._parallel import n_workers, run_blocks, working_memory_bytes

#: Nearest points asked of the shared tree for each point (itself included).
NEIGHBOURS = 8

#: Points of a tree's leaf.
LEAF_SIZE = 16

#: Query points per block (bounds the arrays of neighbours: 16 bytes each).
BLOCK_ROWS = 1 << 16

_UNIT_ROUNDOFF = 2.0 ** -53

#: An absolute floor of the margin, in the trees' units (coordinates of order
#: 1 to 2**400): the error of a tree distance whose squares underflow.
_FLOOR = 2.0 ** -480

_BIG_LABEL = 2.0 ** 400


def _relative_margin(n_dims):
    """Relative margin around the smallest tree distance: twice the sum of both errors."""
    return max(2.0 ** -40, 16.0 * (n_dims + 8) * _UNIT_ROUNDOFF)


def index_usable(layout):
    """Whether the trees' coordinates keep the margins' guarantee on this layout."""
    scale = float(layout.scale)
    if not 2.0 ** -500 <= scale <= 2.0 ** 500:
        return False
    if layout.n_labels and layout.n_unique:
        top = float(np.max(np.abs(layout.unique_label)))
        if not top / scale <= _BIG_LABEL:
            return False
    return True


def _tree(P):
    """A k-d tree of ``P`` (C order, kept by the tree: not to be changed while it lives)."""
    return cKDTree(P, leafsize=LEAF_SIZE, balanced_tree=False, compact_nodes=False,
                   copy_data=False)


def _points(layout, l):
    """The distinct points ``(label / scale, features)`` of label vector ``l``, in tree order.

    Returns the points (C order), each unique row's point and one unique row
    per point. The points are renumbered in the order of a first tree's
    leaves, so that points near in space are near in memory: the tree built
    on them and the queries made in that order touch memory in runs (three
    to five times faster at a million rows than in the rows' order).
    """
    label = layout.unique_label[:, l]
    if layout.n_unique and int(layout.feat.max()) + 1 == layout.n_unique:
        # every feature vector distinct: each unique row is a point of its own
        rep = point = np.arange(layout.n_unique)
    else:
        values, code = np.unique(label, return_inverse=True)
        key = layout.feat * values.size + code.reshape(-1)
        _, rep, point = np.unique(key, return_index=True, return_inverse=True)
    P = np.empty((rep.size, layout.X.shape[1] + 1))
    P[:, 0] = label[rep] / layout.scale
    P[:, 1:] = layout.X[rep]
    order = _tree(P).indices
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return np.ascontiguousarray(P[order]), rank[point.reshape(-1)], rep[order]


def _group_range(point, codes, n_points):
    """Per point the smallest and the largest group of its rows (one attribute).

    One slot past the points stands for "no neighbour" (masked where read).
    """
    if point.size == n_points:  # a row per point
        low = np.empty(n_points + 1, dtype=np.int64)
        low[point] = codes
        low[-1] = -1
        return low, low
    low = np.full(n_points + 1, np.iinfo(np.int64).max, dtype=np.int64)
    high = np.full(n_points + 1, -1, dtype=np.int64)
    np.minimum.at(low, point, codes)
    np.maximum.at(high, point, codes)
    return low, high


def _pair_values(layout, l, rep, queries, candidates):
    """The engine's values of pairs of points: the pair blocks' formula, pair by pair."""
    out = np.empty(queries.size)
    for s in range(0, queries.size, BLOCK_ROWS):
        q, r = rep[queries[s:s + BLOCK_ROWS]], rep[candidates[s:s + BLOCK_ROWS]]
        feature = pair_feature_distances(layout.X[q], layout.X[r]) * layout.scale
        out[s:s + BLOCK_ROWS] = np.hypot(
            feature, layout.unique_label[q, l] - layout.unique_label[r, l])
    return out


def _settled(dist, valid, margin, every):
    """Rows whose candidates the neighbours returned settle, and the candidates' mask.

    ``dist`` (b, k) in increasing order, ``valid`` (b, k): a neighbour of
    another group. A row is settled when it has a valid neighbour and the
    last distance returned lies beyond the margin around the first valid
    one (so every point within the margin was returned), or when ``every``
    point was returned.
    """
    has = valid.any(axis=1)
    first = np.where(has, dist[np.arange(dist.shape[0]), valid.argmax(axis=1)], np.inf)
    reach = first * (1.0 + margin) + _FLOOR
    settled = has if every else has & (dist[:, -1] > reach)
    return settled, valid & (dist <= reach[:, None])


def _shared_block(context, block):
    """One block of points answered from the shared tree: each candidate pair computed once.

    ``context``: ``(layout, l, rep, P, tree, attributes, margin, k)``;
    ``block``: the points ``[start, stop)``. Per attribute, returns the
    block's smallest values (``0`` for a point holding rows of two groups of
    it) and the mask of the points left open (their values are not final).
    """
    layout, l, rep, P, tree, attributes, margin, k = context
    start, stop = block
    n_points = rep.size
    dist, idx = tree.query(P[start:stop], k=k)
    q = np.arange(start, stop)
    dist, idx = dist.reshape(q.size, -1), idx.reshape(q.size, -1)
    idx[idx == q[:, None]] = n_points  # a point is not its own neighbour
    real = idx < n_points
    need = np.zeros(idx.shape, dtype=bool)
    marks = []
    for low, high in attributes:
        group = low[q]
        mixed = group != high[q]  # rows of two groups: distance zero
        group = group[:, None]
        valid = real & ((low[idx] != group) | (high[idx] != group))
        settled, take = _settled(dist, valid, margin, k == n_points)
        settled &= ~mixed
        take &= settled[:, None]
        need |= take
        marks.append((take, settled, mixed))
    rows, cols = np.nonzero(need)
    value = np.full(idx.shape, np.inf)
    value[rows, cols] = _pair_values(layout, l, rep, q[rows], idx[rows, cols])
    out = []
    for take, settled, mixed in marks:
        best = np.where(take, value, np.inf).min(axis=1)
        best[mixed] = 0.0
        out.append((best, ~settled & ~mixed))
    return out


def _complement_search(layout, l, rep, P, queries, others, best, margin, workers):
    """``queries`` (points) against a tree of ``others``: their smallest values in ``best``."""
    tree = _tree(np.ascontiguousarray(P[others]))
    for s in range(0, queries.size, BLOCK_ROWS):
        q = queries[s:s + BLOCK_ROWS]
        dist, idx = tree.query(P[q], k=2, workers=workers)
        dist = dist.reshape(q.size, -1)
        idx = idx.reshape(q.size, -1)
        reach = dist[:, 0] * (1.0 + margin) + _FLOOR
        open_ = dist[:, 1] <= reach  # (inf past the last point)
        # One nearest point beyond every other by more than the margin: the candidate.
        one = ~open_
        best[q[one]] = _pair_values(layout, l, rep, q[one], others[idx[one, 0]])
        if open_.any():
            # Ties within the margin: every point within it, by a radius query.
            queries_, candidates = _ball(tree, P, q[open_], reach[open_], workers)
            values = _pair_values(layout, l, rep, queries_, others[candidates])
            np.minimum.at(best, queries_, values)


def _ball(tree, P, queries, reach, workers):
    """Pairs (query point, tree index) within each query's ``reach`` (a radius query)."""
    found = tree.query_ball_point(P[queries], reach, workers=workers)
    counts = np.array([len(f) for f in found], dtype=np.intp)
    flat = np.concatenate([np.asarray(f, dtype=np.intp) for f in found])
    return np.repeat(queries, counts), flat


def _block_rows(n_attr, working_memory, n_jobs):
    """Points per block of the shared tree's answers, within the working memory."""
    per_point = NEIGHBOURS * (48 + 3 * n_attr)  # neighbours, distances, values, masks
    size = int(working_memory // (max(1, n_workers(n_jobs)) * per_point))
    return max(64, min(BLOCK_ROWS, size))


def index_rows(layout, *, n_jobs=None, working_memory=None):
    """Row distances of the layout's unique rows through the trees, (n_labels, n_attr, n_unique).

    The values of the pair blocks (``_exact_kernel``) bit for bit; see the
    module's docstring. The shared tree's blocks of points run through
    :func:`~skfair_manifold.utils._parallel.run_blocks` (``n_jobs``
    workers), each within ``working_memory`` bytes shared by the workers
    (default: scikit-learn's ``working_memory``); the other groups' trees
    query on ``n_jobs`` threads.
    """
    workers = max(1, n_workers(n_jobs))
    if working_memory is None:
        working_memory = working_memory_bytes()
    block = _block_rows(layout.n_attr, working_memory, n_jobs)
    n_attr, n_unique = layout.n_attr, layout.n_unique
    codes = layout.cell_attr[layout.cell]  # (n_unique, n_attr) group codes
    out = np.empty((layout.n_labels, n_attr, n_unique))
    margin = _relative_margin(layout.X.shape[1] + 1)
    for l in range(layout.n_labels):
        P, point, rep = _points(layout, l)
        n_points = rep.size
        attributes = [_group_range(point, codes[:, k], n_points) for k in range(n_attr)]
        context = (layout, l, rep, P, _tree(P), attributes, margin, min(NEIGHBOURS, n_points))
        blocks = [(s, min(s + block, n_points)) for s in range(0, n_points, block)]
        parts = run_blocks(partial(_shared_block, context), blocks, n_jobs=n_jobs)
        del context
        for k, (low, high) in enumerate(attributes):
            best = np.concatenate([part[k][0] for part in parts])
            rest = np.flatnonzero(np.concatenate([part[k][1] for part in parts]))
            group = low[rest]
            for g in np.unique(group):
                others = np.flatnonzero((low[:-1] != g) | (high[:-1] != g))
                _complement_search(layout, l, rep, P, rest[group == g], others, best,
                                   margin, workers)
            out[l, k] = best[point]
    return out
