"""KNN-DD tester selection (Luong, Ruggieri and Turini, 2011).

The distance between two people is the mean over the compared attributes of
a per-attribute distance: ``|a - b| / range`` for ordinal or interval
attributes (normalised Manhattan, Luong et al.'s normalisation by the fitted
range; the co-author's code ``ruggieris/DD`` divides by the standard
deviation instead) and ``a != b`` for nominal ones (overlap). Interval
attributes stay continuous. The testers of a person are its ``k`` nearest
records in the unprotected group (``S+``) and its ``k`` nearest in the
protected group (``S-``).

Ties, without tie-breaking. Distances are rounded to 10 decimals. The records
strictly nearer than the ``k``-th distance ``d_k`` are testers for certain;
the *tie group* at ``d_k`` (``t`` records, ``s`` of them positive) supplies
the ``r = k - n_below`` remaining testers, and every choice of ``r`` of its
records is equally likely. The expected number of positive testers is then
``pos_below + r * s / t``: the mean over all tie-breaks, the same for any
seed or row order.

Speed comes from two exact reductions: identical records (every column and
the decision) are one *unit* with a count, and queries with the same profile
share one row of distances, computed as one matrix product with indicator
columns when the attributes have few values. A side with many units (mixed
records with continuous columns: about one unit per record) is searched
through an exact nearest-neighbour index instead (``_knn_index``), which
finds the same testers without the full rows, so that the cost grows as
``n log n`` rather than ``n ** 2``.

Memory: a block of queries holds at most ``_CHUNK_CELLS`` distance cells, fewer
when scikit-learn's ``working_memory`` (MiB per worker) is smaller.
"""

import numpy as np

from ...utils._parallel import working_memory_bytes
from ...utils._progress import REPORTER
from ._blocks import expand_to_queries, run_blocks
from ._knn_index import EXTRA, MAX_DIM, MIN_UNITS, SideIndex, embedding_width

_DECIMALS = 10
_CHUNK_CELLS = 2_000_000  # distance cells per block: bounded memory
_BYTES_PER_CELL = 48  # the distance, the copies, and the masks and sums of expected_k
_MAX_ONEHOT = 1024  # above this many attribute values, distances are summed column by column
_CACHE_CELLS = 2 ** 17  # distances summed at once column by column (1 MiB buffers)


def knn_profile_distances(Q, P, weights, nominal):
    """Luong et al.'s distance between each row of ``Q`` and each row of ``P``.

    Parameters
    ----------
    Q : ndarray of shape (m, r)
    P : ndarray of shape (n, r)
    weights : ndarray of shape (r,)
        ``1 / (range * r)`` for ordinal and interval attributes, ``1 / r`` for
        nominal ones.
    nominal : ndarray of shape (r,), dtype bool

    Returns
    -------
    D : ndarray of shape (m, n), rounded to 10 decimals.
    """
    D = np.zeros((Q.shape[0], P.shape[0]))
    # the same sums in the same order, rows at a time in buffers kept in the cache
    rows, PT = max(1, _CACHE_CELLS // max(P.shape[0], 1)), np.ascontiguousarray(P.T)
    term = np.empty((min(rows, Q.shape[0]), P.shape[0]))
    differ = np.empty(term.shape, dtype=bool)
    for i in range(0, Q.shape[0], rows):
        d = D[i:i + rows]
        t, ne = term[:d.shape[0]], differ[:d.shape[0]]
        for j in range(Q.shape[1]):
            if nominal[j]:
                np.not_equal(Q[i:i + rows, j, None], PT[j][None, :], out=ne)
                np.multiply(ne, weights[j], out=t)
            else:
                np.subtract(Q[i:i + rows, j, None], PT[j][None, :], out=t)
                np.abs(t, out=t)
                t *= weights[j]
            d += t
    return np.round(D, _DECIMALS, out=D)


def onehot(V, domains):
    """Indicator matrix of each row's value per attribute, shape (m, sum |domain|).

    Rows of ``V`` must take their values in ``domains``. With it, a distance
    that is a sum of per-attribute terms becomes one matrix product:
    ``D = T @ onehot(P).T`` where ``T[i, (k, v)]`` is the term between query
    ``i`` and value ``v`` of attribute ``k`` (rounded afterwards).
    """
    sizes = [d.shape[0] for d in domains]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    H = np.zeros((V.shape[0], offsets[-1]))
    rows = np.arange(V.shape[0])
    for k, dom in enumerate(domains):
        H[rows, offsets[k] + np.searchsorted(dom, V[:, k])] = 1.0
    return H


def expected_k(D, count, pos, k):
    """Expected positives among the ``k`` nearest records, over all tie-breaks.

    Parameters
    ----------
    D : ndarray of shape (b, u)
        Distances from each query to each unit.
    count : ndarray of shape (b, u)
        Copies of each unit available to each query.
    pos : ndarray of shape (u,)
        1.0 for a unit with the positive decision.
    k : int

    Returns
    -------
    pos_k : ndarray of shape (b,)
        ``pos_below + r * tie_pos / tie_n``.
    n_k : ndarray of shape (b,)
        Testers: ``min(k, available)``.
    d_k : ndarray of shape (b,)
        The ``k``-th distance (inf when nothing is available).
    frac : ndarray of shape (b,)
        The probability that a record of the tie group is taken, ``r / tie_n``.
    w2 : ndarray of shape (b,)
        The sum of the squared weights, ``n_below + tie_n * frac ** 2``: the
        rate is a weighted mean of the decisions, with variance
        ``p (1 - p) w2 / n_k ** 2``.
    """
    b, u = D.shape
    D = np.where(count > 0, D, np.inf)
    avail = count.sum(axis=1)
    kk = np.minimum(float(k), avail)
    m = min(k, u)
    if m == 0 or b == 0:
        z = np.zeros(b)
        return z, z.copy(), np.full(b, np.inf), z.copy(), z.copy()
    # Each unit holds at least one record, so the k nearest records lie in the
    # k nearest units: a partial sort of k columns finds the k-th distance.
    idx = np.argpartition(D, m - 1, axis=1)[:, :m] if m < u else np.tile(np.arange(u), (b, 1))
    d_sub = np.take_along_axis(D, idx, axis=1)
    c_sub = np.take_along_axis(count, idx, axis=1)
    order = np.argsort(d_sub, axis=1, kind="stable")
    d_sub = np.take_along_axis(d_sub, order, axis=1)
    c_cum = np.cumsum(np.take_along_axis(c_sub, order, axis=1), axis=1)
    reach = np.argmax(c_cum >= kk[:, None] - 1e-9, axis=1)
    d_k = d_sub[np.arange(b), reach]
    d_k = np.where(kk > 0, d_k, np.inf)
    below = count * (D < d_k[:, None])
    tie = count * (D == d_k[:, None])
    n_below = below.sum(axis=1)
    tie_n = tie.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(tie_n > 0, (kk - n_below) / tie_n, 0.0)
    frac = np.clip(frac, 0.0, 1.0)
    pos_k = below @ pos + frac * (tie @ pos)
    return pos_k, kk, d_k, frac, n_below + tie_n * frac ** 2


def _counted(func, reporter):
    """``func``, telling ``reporter`` of each block done."""
    def run(task):
        result = func(task)
        reporter.advance()
        return result
    return run


class KNNSelector:
    """The fitted units of one data set, for KNN-DD.

    Parameters
    ----------
    R : ndarray of shape (n_units, r)
        Compared attributes of each unit (numeric codes; interval values raw).
    unit_count : ndarray of shape (n_units,)
        Records in each unit.
    unit_group : ndarray of shape (n_units,), dtype bool
        True for a unit of the protected group ``c-``.
    unit_pos : ndarray of shape (n_units,), dtype bool
    nominal : ndarray of shape (r,), dtype bool
    ranges : ndarray of shape (r,)
    rows_of_unit : callable
        Unit id -> its fitted rows (for the evidence).
    algorithm : {"auto", "kd_tree", "brute"}, default="auto"
        ``"brute"``: full rows of distances; ``"kd_tree"``: the exact index
        on every side with more than ``k + 1 + EXTRA`` units; ``"auto"``: the
        index on a side of at least ``MIN_UNITS`` units whose embedding has
        at most ``MAX_DIM`` columns. The testers are the same.
    """

    def __init__(self, R, unit_count, unit_group, unit_pos, nominal, ranges, rows_of_unit,
                 algorithm="auto"):
        r = R.shape[1]
        self.algorithm = algorithm
        self.rows_of_unit = rows_of_unit
        self.nominal = nominal
        scale = np.where(nominal, 1.0, 1.0 / np.where(ranges > 0, ranges, 1.0))
        self.weights = scale / max(r, 1)
        self.profiles, unit_prof = np.unique(R, axis=0, return_inverse=True)
        unit_prof = unit_prof.reshape(-1)
        self.domains = [np.unique(R[:, j]) for j in range(r)]
        self.use_onehot = sum(d.shape[0] for d in self.domains) <= _MAX_ONEHOT
        self.sides = []
        for g in (False, True):  # S+ from the unprotected group, S- from the protected
            u = np.flatnonzero(unit_group == g)
            col_of_unit = np.full(unit_group.shape[0], -1, dtype=np.intp)
            col_of_unit[u] = np.arange(u.shape[0])
            self.sides.append({
                "units": u,
                "prof": unit_prof[u],
                "count": unit_count[u].astype(np.float64),
                "pos": unit_pos[u].astype(np.float64),
                "col_of_unit": col_of_unit,
                "onehot_T": (onehot(self.profiles[unit_prof[u]], self.domains).T.copy()
                             if self.use_onehot else None),
                "P": self.profiles[unit_prof[u]],
                "index": None,
            })
        self.width = embedding_width(self.domains, nominal)

    def _uses_index(self, side, k):
        n_units = side["units"].shape[0]
        if self.algorithm == "brute" or n_units <= k + 1 + EXTRA:
            return False
        return self.algorithm == "kd_tree" or (n_units >= MIN_UNITS and self.width <= MAX_DIM)

    def _index(self, side):
        if side["index"] is None:  # built once, before the blocks run (no race)
            side["index"] = SideIndex(side["P"], side["count"], side["pos"], self.domains,
                                      self.weights, self.nominal)
        return side["index"]

    # --- the selector interface --------------------------------------------------------
    def rates(self, Qr, self_unit, k, *, n_jobs=None, cells=False):
        """Expected positives and testers of each query, both sides.

        Parameters
        ----------
        Qr : ndarray of shape (m, r)
            Compared attributes of the queries.
        self_unit : ndarray of shape (m,), dtype intp
            The fitted unit each query is a copy of (one copy is left out of
            its testers), or -1.
        k : int
        n_jobs : int or None
        cells : bool
            Also return the testers (see ``Returns``).

        Returns
        -------
        pos, n, w2 : ndarray of shape (m, 2)
            Expected positives, testers and the sum of the testers' squared
            weights in ``S+`` (column 0) and ``S-`` (column 1).
        cells : dict of ndarray, only with ``cells=True``
            One entry per (query, side, unit) taken with a positive weight:
            ``query``, ``side`` (0: S+, 1: S-), ``cell`` (the unit),
            ``distance``, ``n_records`` (copies available), ``n_positive``
            (of them positive), ``weight`` (probability that each copy is a
            tester: 1 for the certain testers).
        """
        m = Qr.shape[0]
        uq, q_prof = np.unique(Qr, axis=0, return_inverse=True)
        q_prof = q_prof.reshape(-1)
        pos = np.zeros((m, 2))
        n = np.zeros((m, 2))
        w2 = np.zeros((m, 2))
        found, plans = [], []
        for s, side in enumerate(self.sides):
            col = np.where(self_unit >= 0, side["col_of_unit"][np.maximum(self_unit, 0)], -1)
            keys, inv = np.unique(np.column_stack([q_prof, col]), axis=0, return_inverse=True)
            inv = inv.reshape(-1)
            tree = self._uses_index(side, k)
            n_cols = k + 1 + EXTRA if tree else side["units"].shape[0]
            cells_per_block = min(_CHUNK_CELLS, working_memory_bytes() // _BYTES_PER_CELL)
            rows_per_block = max(1, cells_per_block // max(n_cols, 1))
            if tree:
                self._index(side)
                rows_per_block = min(rows_per_block, 8192)  # blocks for the workers
            tasks = [(uq, keys[i:i + rows_per_block], s, k, cells)
                     for i in range(0, keys.shape[0], rows_per_block)]
            plans.append((s, side, inv, tree, rows_per_block, tasks))
        reporter = REPORTER.get()
        if reporter is not None:
            reporter.begin(sum(len(plan[-1]) for plan in plans),
                           f"{m:,} queries x {len(self.sides)} sides")
        for s, side, inv, tree, rows_per_block, tasks in plans:
            func = self._tree_block if tree else self._block
            out = run_blocks(func if reporter is None else _counted(func, reporter), tasks,
                             n_jobs=n_jobs)
            if out:
                kpos = np.concatenate([o[0] for o in out])
                kn = np.concatenate([o[1] for o in out])
                kw = np.concatenate([o[2] for o in out])
                pos[:, s] = kpos[inv]
                n[:, s] = kn[inv]
                w2[:, s] = kw[inv]
            if cells:
                found.append(self._cells_of(out, tasks, inv, s, rows_per_block))
        if not cells:
            return pos, n, w2
        merged = {key: np.concatenate([f.pop(key) for f in found]) for key in list(found[0])}
        return pos, n, w2, merged

    def within(self, Qr, self_unit, radius, cap, *, n_jobs=None):
        """Testers of each side within ``radius`` of each query, at most ``cap``: (m, 2).

        One copy of the query's own unit is left out, as in ``rates``. A side
        searched through the index counts among the ``cap + 1`` nearest units
        (which hold more than ``cap`` records when they all lie within).
        """
        m = Qr.shape[0]
        uq, q_prof = np.unique(Qr, axis=0, return_inverse=True)
        q_prof = q_prof.reshape(-1)
        out = np.zeros((m, 2))
        for s, side in enumerate(self.sides):
            col = np.where(self_unit >= 0, side["col_of_unit"][np.maximum(self_unit, 0)], -1)
            tree = self._uses_index(side, cap)
            if tree:
                self._index(side)
            # a block holds _CHUNK_CELLS distances: the cap + 1 nearest units of each query
            # through the index, every unit otherwise
            width = int(cap) + 1 if tree else side["units"].shape[0]
            rows = max(1, _CHUNK_CELLS // max(width, 1))
            tasks = [(uq[i:i + rows], s, radius, cap if tree else None)
                     for i in range(0, uq.shape[0], rows)]
            parts = run_blocks(self._within_block, tasks, n_jobs=n_jobs)
            count = np.concatenate(parts)[q_prof] if parts else np.zeros(m)
            out[:, s] = np.minimum(count - (col >= 0), cap)
        return out

    def _within_block(self, task):
        V, s, radius, cap = task
        side = self.sides[s]
        if cap is not None:  # through the index
            return side["index"].within(V, radius, cap)
        if self.use_onehot:
            D = self._terms(V) @ side["onehot_T"]
            np.round(D, _DECIMALS, out=D)
        else:
            D = knn_profile_distances(V, side["P"], self.weights, self.nominal)
        return (D <= radius + 1e-12) @ side["count"]

    def _cells_of(self, out, tasks, inv, s, rows_per_block):
        """Expand the cells found per key to the queries holding that key."""
        parts = [o[3] for o in out]
        if not parts:
            parts = [(np.zeros(0, np.intp),) * 2 + (np.zeros(0),) * 3]
        key = np.concatenate([p[0] + b * rows_per_block for b, p in enumerate(parts)])
        col, dist, cnt, wt = (np.concatenate([p[i] for p in parts]) for i in range(1, 5))
        query, cell = expand_to_queries(inv, key)
        side = self.sides[s]
        return {"query": query, "side": np.full(query.shape[0], s, dtype=np.intp),
                "cell": side["units"][col[cell]], "distance": dist[cell],
                "n_records": cnt[cell], "n_positive": cnt[cell] * side["pos"][col[cell]],
                "weight": wt[cell]}

    def _block(self, task):
        uq, keys, s, k, cells = task
        side = self.sides[s]
        prof_needed, local = np.unique(keys[:, 0], return_inverse=True)
        local = local.reshape(-1)
        if self.use_onehot:
            T = self._terms(uq[prof_needed])[local]
            D = T @ side["onehot_T"]
            np.round(D, _DECIMALS, out=D)
        else:
            D = knn_profile_distances(uq[prof_needed], side["P"], self.weights,
                                      self.nominal)[local]
        count = np.broadcast_to(side["count"], D.shape).copy()
        has_self = np.flatnonzero(keys[:, 1] >= 0)
        count[has_self, keys[has_self, 1]] -= 1.0
        pos_k, n_k, d_k, frac, w2 = expected_k(D, count, side["pos"], k)
        if not cells:
            return pos_k, n_k, w2
        below = (D < d_k[:, None]) & (count > 0)
        tie = (D == d_k[:, None]) & (count > 0) & (frac[:, None] > 0)
        ki, ci = np.nonzero(below | tie)
        weight = np.where(below[ki, ci], 1.0, frac[ki])
        return pos_k, n_k, w2, (ki, ci, D[ki, ci], count[ki, ci], weight)

    def _tree_block(self, task):
        uq, keys, s, k, cells = task
        return self.sides[s]["index"].testers(uq[keys[:, 0]], keys[:, 1], k, cells=cells)

    def _terms(self, Q):
        """Per-attribute distance from each query to each fitted value, (m, sum |dom|)."""
        parts = []
        for j, dom in enumerate(self.domains):
            if self.nominal[j]:
                parts.append((Q[:, j, None] != dom[None, :]) * self.weights[j])
            else:
                parts.append(np.abs(Q[:, j, None] - dom[None, :]) * self.weights[j])
        return np.hstack(parts) if parts else np.zeros((Q.shape[0], 0))

    def rows_of(self, cell, side):
        """Fitted rows of a cell (a unit), lowest first."""
        return self.rows_of_unit(cell)

    def pair_distances(self, V, W):
        """Luong et al.'s distance between each row of ``V`` and each row of ``W``."""
        return knn_profile_distances(V, W, self.weights, self.nominal)
