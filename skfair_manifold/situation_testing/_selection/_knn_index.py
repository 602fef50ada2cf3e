"""KNN-DD's exact nearest-neighbour index: the testers without the full distance matrix.

Luong et al.'s distance is a weighted L1 distance once each nominal attribute
is one-hot coded at half its weight (two differing values differ in two
indicator columns, ``w/2 + w/2 = w``) and each ordinal or interval attribute
is scaled by its weight. A KD-tree under the Manhattan metric over that
embedding (scikit-learn's :class:`~sklearn.neighbors.KDTree`) finds each
query's nearest units in about ``log n`` steps instead of ``n``.

The tree only proposes candidates; the decision is taken on the exact
distances, rounded as the full path rounds them (:func:`pair_distances`
sums the attributes in the same order as ``knn_profile_distances``), so that
the testers, their tie group and the expected positives are the full path's:

1. ask the tree for the ``k + 1 + extra`` nearest units (``k + 1`` units hold
   at least ``k`` records even when one copy of the query's own unit is left
   out, so the ``k``-th record lies among them);
2. compute their exact distances and the ``k``-th distance ``d_k`` over them;
3. if the farthest unit the tree returned is farther than ``d_k`` (by more
   than the rounding and the float error), every unit at ``d_k`` or nearer
   is among them and ``d_k`` is exact; otherwise (a tie group larger than
   the extra units) a radius query at ``d_k`` returns them all and step 2 is
   repeated on its result.

A query value that the fit never saw (a nominal value of new data) takes an
indicator column of its own, so that it differs from every unit by ``w``.
"""

import numpy as np
from sklearn.neighbors import KDTree

_DECIMALS = 10
#: The slack of the tree's distances against the exact rounded ones: the
#: rounding moves a distance by at most 5e-11, the float sums by far less.
_SLACK = 1e-9
#: Units asked beyond ``k + 1``, so that a small tie group is seen in one query.
EXTRA = 8
#: The index is used on a side of at least this many units ...
MIN_UNITS = 4096
#: ... whose embedding has at most this many columns (a KD-tree degrades with
#: the dimension; above it the full rows are as fast).
MAX_DIM = 48
#: A part (units sharing their nominal values) gets a tree of its own above
#: four times this many units.
MIN_PART = 64


def embedding_width(domains, nominal):
    """Columns of the embedding: ``|domain| + 1`` per nominal attribute, 1 per other."""
    return int(sum(d.shape[0] + 1 if nom else 1 for d, nom in zip(domains, nominal)))


def embed(P, domains, weights, nominal):
    """The L1 embedding of profiles ``P`` (m, r): the distance is the L1 distance of rows."""
    m = P.shape[0]
    rows = np.arange(m)
    cols = []
    for j, dom in enumerate(domains):
        if nominal[j]:
            where = np.minimum(np.searchsorted(dom, P[:, j]), dom.shape[0] - 1)
            known = dom[where] == P[:, j]
            H = np.zeros((m, dom.shape[0] + 1))
            H[rows, np.where(known, where, dom.shape[0])] = weights[j] / 2.0
            cols.append(H)
        else:
            cols.append((P[:, j] * weights[j])[:, None])
    return np.hstack(cols) if cols else np.zeros((m, 0))


def pair_distances(A, B, weights, nominal):
    """Luong et al.'s distance between row ``i`` of ``A`` and row ``i`` of ``B``, rounded.

    The same sums, in the same order, as ``knn_profile_distances``.
    """
    D = np.zeros(A.shape[0])
    for j in range(A.shape[1]):
        if nominal[j]:
            D += (A[:, j] != B[:, j]) * weights[j]
        else:
            D += np.abs(A[:, j] - B[:, j]) * weights[j]
    return np.round(D, _DECIMALS, out=D)


def expected_from_pairs(row, D, count, pos, kk, b):
    """``expected_k`` over candidate pairs instead of full rows.

    Parameters
    ----------
    row, D, count, pos : ndarray of shape (n_pairs,)
        The query (0 .. b-1) of each pair, the exact distance, the copies
        available and 1.0 for a positive unit. Every unit at the query's
        ``k``-th distance or nearer must be among its pairs.
    kk : ndarray of shape (b,)
        Testers wanted: ``min(k, available)``.
    b : int

    Returns
    -------
    pos_k, d_k, frac, w2 : ndarray of shape (b,)
        As ``expected_k`` (``n_k`` is ``kk``).
    """
    keep = count > 0
    row, D, count, pos = row[keep], D[keep], count[keep], pos[keep]
    order = np.lexsort((D, row))
    r, d, c = row[order], D[order], count[order]
    cum = np.cumsum(c)
    start = np.searchsorted(r, np.arange(b))
    before = np.concatenate([[0.0], cum])[start]  # records of earlier queries
    hit = np.flatnonzero(cum - before[r] >= kk[r] - 1e-9)
    first = hit[np.r_[True, r[hit][1:] != r[hit][:-1]]] if hit.size else hit
    d_k = np.full(b, np.inf)
    d_k[r[first]] = d[first]
    d_k = np.where(kk > 0, d_k, np.inf)
    below = D < d_k[row]
    tie = D == d_k[row]
    n_below = np.bincount(row, count * below, minlength=b)
    tie_n = np.bincount(row, count * tie, minlength=b)
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(tie_n > 0, (kk - n_below) / tie_n, 0.0)
    frac = np.clip(frac, 0.0, 1.0)
    pos_k = (np.bincount(row, count * below * pos, minlength=b)
             + frac * np.bincount(row, count * tie * pos, minlength=b))
    return pos_k, d_k, frac, n_below + tie_n * frac ** 2


class SideIndex:
    """The KD-trees over one side's units, and the exact testers they find.

    Two stages. Units sharing their nominal values form a *part*; within a
    part the distance is the ordinal and interval columns' L1 distance
    alone, a tree of few dimensions that answers fast. A query whose ``k``-th
    distance in its own part is below the cost of the cheapest nominal
    mismatch (``min`` of the nominal weights) has every tester in that part
    (any other unit differs in a nominal value, which costs more), and is
    done; the others (small parts, unseen values, far testers) go through
    the tree of the whole side, as the module's docstring says.

    Parameters
    ----------
    P : ndarray of shape (n_units, r)
        The profile of each unit of the side.
    count, pos : ndarray of shape (n_units,)
        Records in each unit; 1.0 for a unit with the positive decision.
    domains, weights, nominal
        The selector's attribute domains, weights and kinds.
    """

    def __init__(self, P, count, pos, domains, weights, nominal):
        self.P, self.count, self.pos = P, count, pos
        self.domains, self.weights, self.nominal = domains, weights, nominal
        self.tree = KDTree(embed(P, domains, weights, nominal), metric="manhattan")
        self.nom = np.flatnonzero(nominal)
        self.cont = np.flatnonzero(~nominal)
        self.parts = {}
        if self.nom.size and self.cont.size:
            self.min_mismatch = float(weights[self.nom].min())
            keys, part = np.unique(P[:, self.nom], axis=0, return_inverse=True)
            part = part.reshape(-1)
            for p, key in enumerate(keys):
                units = np.flatnonzero(part == p)
                if units.shape[0] > 4 * MIN_PART:
                    self.parts[tuple(key.tolist())] = (
                        units, KDTree(P[units][:, self.cont] * weights[self.cont],
                                      metric="manhattan"))

    def _pairs(self, Qp, self_col, row, col):
        """Exact distance and available copies of the pairs (row, col)."""
        D = pair_distances(Qp[row], self.P[col], self.weights, self.nominal)
        count = self.count[col] - (col == self_col[row])
        return D, count

    def _in_parts(self, Qp, self_col, k, kk):
        """Stage 1: the rows settled in their own part, with their candidate pairs."""
        b = Qp.shape[0]
        done = np.zeros(b, dtype=bool)
        rows, cols = [], []
        if not self.parts:
            return done, rows, cols
        keys, inv = np.unique(Qp[:, self.nom], axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        for p, key in enumerate(keys):
            found = self.parts.get(tuple(key.tolist()))
            if found is None:
                continue
            units, tree = found
            q = np.flatnonzero(inv == p)
            m = min(k + 1 + EXTRA, units.shape[0])
            if m < k + 1:
                continue
            dist, idx = tree.query(Qp[q][:, self.cont] * self.weights[self.cont], k=m)
            row = np.repeat(np.arange(q.shape[0]), m)
            col = units[idx.ravel()]
            D, count = self._pairs(Qp[q], self_col[q], row, col)
            _, d_k, _, _ = expected_from_pairs(row, D, count, self.pos[col], kk[q], q.shape[0])
            ok = ((dist[:, -1] > d_k + _SLACK) | (m == units.shape[0])) \
                & (d_k < self.min_mismatch - _SLACK)
            take = ok[row]
            rows.append(q[row[take]])
            cols.append(col[take])
            done[q[ok]] = True
        return done, rows, cols

    def _in_side(self, Qp, self_col, k, kk, rest):
        """Stage 2: rows ``rest`` through the tree of the whole side (and its radius query)."""
        n_units = self.P.shape[0]
        E = embed(Qp[rest], self.domains, self.weights, self.nominal)
        m = min(k + 1 + EXTRA, n_units)
        dist, idx = self.tree.query(E, k=m, return_distance=True, sort_results=True)
        b = rest.shape[0]
        row = np.repeat(np.arange(b), m)
        col = idx.ravel()
        D, count = self._pairs(Qp[rest], self_col[rest], row, col)
        _, d_k, _, _ = expected_from_pairs(row, D, count, self.pos[col], kk[rest], b)
        short = np.flatnonzero((dist[:, -1] <= d_k + _SLACK) & (m < n_units) & (kk[rest] > 0))
        if short.size:  # a tie group beyond the extra units: take every unit within d_k
            found = self.tree.query_radius(E[short], r=d_k[short] + _SLACK)
            sizes = np.array([f.shape[0] for f in found])
            keep_rows = np.isin(row, short, invert=True)
            row = np.concatenate([row[keep_rows], np.repeat(short, sizes)])
            col = np.concatenate([col[keep_rows], *found]).astype(np.intp)
        return rest[row], col

    def testers(self, Qp, self_col, k, *, cells=False):
        """The full path's ``expected_k`` for queries ``Qp`` (b, r), found through the trees.

        ``self_col[i]`` is the unit (of this side) one copy of which query
        ``i`` is, or -1. Returns ``pos_k, n_k, w2`` and, with ``cells``, the
        pairs taken (query, unit, distance, copies, weight) by query then unit.
        """
        b = Qp.shape[0]
        kk = np.minimum(float(k), self.count.sum() - (self_col >= 0))
        done, rows, cols = self._in_parts(Qp, self_col, k, kk)
        rest = np.flatnonzero(~done)
        if rest.size:
            r, c = self._in_side(Qp, self_col, k, kk, rest)
            rows.append(r)
            cols.append(c)
        row = np.concatenate(rows).astype(np.intp)
        col = np.concatenate(cols).astype(np.intp)
        D, count = self._pairs(Qp, self_col, row, col)
        pos_k, d_k, frac, w2 = expected_from_pairs(row, D, count, self.pos[col], kk, b)
        if not cells:
            return pos_k, kk, w2
        taken = (count > 0) & ((D < d_k[row]) | ((D == d_k[row]) & (frac[row] > 0)))
        row, col, D, count = row[taken], col[taken], D[taken], count[taken]
        order = np.lexsort((col, row))
        row, col, D, count = row[order], col[order], D[order], count[order]
        weight = np.where(D < d_k[row], 1.0, frac[row])
        return pos_k, kk, w2, (row, col, D, count.astype(np.float64), weight)

    def within(self, Qp, radius, cap):
        """Records within ``radius`` of each query (b, r), exact up to ``cap + 1``.

        The ``cap + 1`` nearest units are asked; when the farthest of them
        may lie within ``radius`` (the tree's distance is within the slack),
        each of them holds at least one record, so the count exceeds ``cap``
        and is exact for ``min(count, cap)`` (the caller's cap) whatever lies
        farther, unless its exact distance is beyond: then a radius query
        counts them all.
        """
        b = Qp.shape[0]
        n_units = self.P.shape[0]
        if b == 0 or n_units == 0:
            return np.zeros(b)
        E = embed(Qp, self.domains, self.weights, self.nominal)
        m = min(int(cap) + 1, n_units)
        dist, idx = self.tree.query(E, k=m, return_distance=True, sort_results=True)
        row = np.repeat(np.arange(b), m)
        col = idx.ravel()
        D = pair_distances(Qp[row], self.P[col], self.weights, self.nominal)
        inside = D <= radius + 1e-12
        count = np.bincount(row, self.count[col] * inside, minlength=b)
        unsure = np.flatnonzero((dist[:, -1] <= radius + _SLACK) & (m < n_units)
                                & ~inside.reshape(b, m)[:, -1])
        for i in unsure:  # the boundary falls among units the tree did not return
            found = self.tree.query_radius(E[i:i + 1], r=radius + _SLACK)[0]
            d = pair_distances(np.repeat(Qp[i:i + 1], found.shape[0], axis=0), self.P[found],
                               self.weights, self.nominal)
            count[i] = self.count[found][d <= radius + 1e-12].sum()
        return count
