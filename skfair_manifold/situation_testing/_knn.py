"""KNN-DD tester selection (Luong, Ruggieri and Turini, 2011).

The distance between two people is the mean over the non-protected
attributes of a per-attribute distance: ``|a - b| / range`` for ordinal or
interval attributes (normalised Manhattan) and ``a != b`` for nominal ones
(overlap). The testers of a person are its ``k`` nearest records in the
unprotected group (``S+``) and its ``k`` nearest in the protected group
(``S-``).

Speed comes from two reductions, both exact:

* the fitted records are grouped into *units*: identical records (every
  column, group and decision) are one unit with a count;
* queries with the same non-protected profile share one row of distances.

Ties. Distances are rounded to 10 decimals, so that mathematically equal
distances compare equal. Among records at the same distance, units are taken
in the order of their priority (a seeded hash of the record's values, see
``_auditor._record_priority``), so the result never depends on the order of
the rows. Inside one unit the copies are interchangeable.
"""

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs

_DECIMALS = 10
_CHUNK_CELLS = 2_000_000  # distance cells per block: bounded memory


def knn_profile_distances(Q, P, weights, nominal):
    """Luong et al.'s distance between each row of ``Q`` and each row of ``P``.

    Parameters
    ----------
    Q : ndarray of shape (m, r)
    P : ndarray of shape (n, r)
    weights : ndarray of shape (r,)
        ``1 / (range * r)`` for ordinal attributes, ``1 / r`` for nominal.
    nominal : ndarray of shape (r,), dtype bool

    Returns
    -------
    D : ndarray of shape (m, n), rounded to 10 decimals.
    """
    D = np.zeros((Q.shape[0], P.shape[0]))
    for j in range(Q.shape[1]):
        if nominal[j]:
            D += (Q[:, j, None] != P[None, :, j]) * weights[j]
        else:
            D += np.abs(Q[:, j, None] - P[None, :, j]) * weights[j]
    return np.round(D, _DECIMALS, out=D)


_MAX_ONEHOT = 1024  # above this many attribute values, distances are summed column by column


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


class KNNSelector:
    """Precomputed units of one fitted data set, for KNN-DD.

    Parameters
    ----------
    R : ndarray of shape (n, r)
        Non-protected attributes of the fitted records (numeric codes).
    unit : ndarray of shape (n,), dtype intp
        Unit id of each record (identical records share one).
    unit_rank : ndarray of shape (n_units,)
        Position of each unit in the tie-breaking order.
    group : ndarray of shape (n,), dtype bool
        True for the protected group ``c-``.
    positive : ndarray of shape (n,), dtype bool
    nominal : ndarray of shape (r,), dtype bool
    ranges : ndarray of shape (r,)
    """

    def __init__(self, R, unit, unit_rank, group, positive, nominal, ranges):
        r = R.shape[1]
        self.nominal = nominal
        scale = np.where(nominal, 1.0, 1.0 / np.where(ranges > 0, ranges, 1.0))
        self.weights = scale / max(r, 1)
        n_units = unit_rank.shape[0]
        first = np.full(n_units, -1, dtype=np.intp)
        first[unit[::-1]] = np.arange(R.shape[0])[::-1]  # first row of each unit
        count = np.bincount(unit, minlength=n_units)
        self.profiles, unit_prof = np.unique(R[first], axis=0, return_inverse=True)
        unit_prof = unit_prof.reshape(-1)
        self.unit_group = group[first]
        self.unit_pos = positive[first]
        self.rows_of_unit = _rows_by_unit(unit, n_units)
        self.domains = [np.unique(R[:, j]) for j in range(r)]
        self.use_onehot = sum(d.shape[0] for d in self.domains) <= _MAX_ONEHOT
        self.sides = []
        for g in (False, True):  # S+ from the unprotected group, S- from the protected
            u = np.flatnonzero(self.unit_group == g)
            u = u[np.argsort(unit_rank[u], kind="stable")]
            self.sides.append({
                "units": u,
                "prof": unit_prof[u],
                "count": count[u].astype(np.float64),
                "pos": self.unit_pos[u].astype(np.float64),
                "col_of_unit": dict(zip(u.tolist(), range(u.shape[0]))),
                "onehot_T": (onehot(self.profiles[unit_prof[u]], self.domains).T.copy()
                             if self.use_onehot else None),
            })

    def rates(self, Qr, self_unit, k, n_jobs=None):
        """Positive counts among the ``k`` testers of each query, both sides.

        Parameters
        ----------
        Qr : ndarray of shape (m, r)
            Non-protected attributes of the queries.
        self_unit : ndarray of shape (m,), dtype intp
            The fitted unit each query is a copy of (one copy is left out of
            its testers), or -1.
        k : int

        Returns
        -------
        pos, n : ndarray of shape (m, 2)
            Positives and testers in ``S+`` (column 0) and ``S-`` (column 1).
        """
        m = Qr.shape[0]
        uq, q_prof = np.unique(Qr, axis=0, return_inverse=True)
        q_prof = q_prof.reshape(-1)
        pos = np.zeros((m, 2))
        n = np.zeros((m, 2))
        for s, side in enumerate(self.sides):
            col = np.array([side["col_of_unit"].get(u, -1) for u in self_unit.tolist()],
                           dtype=np.intp) if m else np.zeros(0, dtype=np.intp)
            keys, inv = np.unique(np.column_stack([q_prof, col]), axis=0, return_inverse=True)
            inv = inv.reshape(-1)
            kpos, kn = self._side_rates(uq, keys, side, k, n_jobs)
            pos[:, s] = kpos[inv]
            n[:, s] = kn[inv]
        return pos, n

    def _side_rates(self, uq, keys, side, k, n_jobs):
        n_cols = side["units"].shape[0]
        rows_per_block = max(1, _CHUNK_CELLS // max(n_cols, 1))
        blocks = [slice(i, i + rows_per_block) for i in range(0, keys.shape[0], rows_per_block)]
        if effective_n_jobs(n_jobs) == 1 or len(blocks) == 1:
            out = [self._block(uq, keys[b], side, k) for b in blocks]
        else:
            out = Parallel(n_jobs=n_jobs, prefer="threads")(
                delayed(self._block)(uq, keys[b], side, k) for b in blocks)
        if not out:
            return np.zeros(0), np.zeros(0)
        return np.concatenate([o[0] for o in out]), np.concatenate([o[1] for o in out])

    def _block(self, uq, keys, side, k):
        prof_needed, local = np.unique(keys[:, 0], return_inverse=True)
        if self.use_onehot:
            T = self._terms(uq[prof_needed])[local.reshape(-1)]
            D = T @ side["onehot_T"]
            np.round(D, _DECIMALS, out=D)
        else:
            Dp = knn_profile_distances(uq[prof_needed], self.profiles, self.weights,
                                       self.nominal)
            D = Dp[local.reshape(-1)][:, side["prof"]]
        count = np.broadcast_to(side["count"], D.shape).copy()
        has_self = np.flatnonzero(keys[:, 1] >= 0)
        count[has_self, keys[has_self, 1]] -= 1.0
        return select_k(D, count, side["pos"], k)

    def _terms(self, Q):
        """Per-attribute distance from each query to each fitted value, (m, sum |dom|)."""
        parts = []
        for j, dom in enumerate(self.domains):
            if self.nominal[j]:
                parts.append((Q[:, j, None] != dom[None, :]) * self.weights[j])
            else:
                parts.append(np.abs(Q[:, j, None] - dom[None, :]) * self.weights[j])
        return np.hstack(parts) if parts else np.zeros((Q.shape[0], 0))

    def testers(self, qr, self_unit, k, self_row=-1):
        """Row ids of one query's testers, ``S+`` then ``S-``.

        ``self_row``, when known, is the copy of ``self_unit`` to leave out
        (default: the copy with the highest row id).
        """
        out = []
        for side in self.sides:
            D = knn_profile_distances(qr[None, :], self.profiles, self.weights,
                                      self.nominal)[0][side["prof"]]
            count = side["count"].copy()
            col = side["col_of_unit"].get(int(self_unit), -1)
            if col >= 0:
                count[col] -= 1
            take = take_k(D, count, k)
            out.append(_expand(take, side["units"], self.rows_of_unit,
                               self_unit if col >= 0 else -1, self_row))
        return out


def select_k(D, count, pos, k):
    """Positives among the ``k`` nearest records, ties in column order.

    Parameters
    ----------
    D : ndarray of shape (b, u)
        Distances from each query to each unit; columns in priority order.
    count : ndarray of shape (b, u)
        Copies of each unit available to each query.
    pos : ndarray of shape (u,)
        1.0 for a unit with the positive decision.
    k : int

    Returns
    -------
    pos_k, n_k : ndarray of shape (b,)
        Positives among the testers, and the number of testers
        (``min(k, available)``).
    """
    b, u = D.shape
    D = np.where(count > 0, D, np.inf)
    avail = count.sum(axis=1)
    kk = np.minimum(float(k), avail)
    m = min(k, u)
    if m == 0:
        return np.zeros(b), np.zeros(b)
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
    below = D < d_k[:, None]
    n_below = (count * below).sum(axis=1)
    pos_below = (count * below) @ pos
    tie_count = count * (D == d_k[:, None])
    before = np.cumsum(tie_count, axis=1) - tie_count
    take = np.clip((kk - n_below)[:, None] - before, 0.0, tie_count)
    empty = kk == 0
    pos_k = pos_below + take @ pos
    pos_k[empty] = 0.0
    return pos_k, kk


def take_k(D, count, k):
    """Copies taken from each unit for one query (the rule of ``select_k``)."""
    D = np.where(count > 0, D, np.inf)
    kk = min(float(k), count.sum())
    order = np.argsort(D, kind="stable")  # columns are in priority order
    take = np.zeros_like(count)
    need = kk
    for j in order:
        if need <= 0:
            break
        t = min(count[j], need)
        take[j] = t
        need -= t
    return take


def _rows_by_unit(unit, n_units):
    order = np.argsort(unit, kind="stable")
    bounds = np.searchsorted(unit[order], np.arange(n_units + 1))
    return [order[bounds[i]:bounds[i + 1]] for i in range(n_units)]


def _expand(take, units, rows_of_unit, self_unit, self_row):
    """Row ids (lowest first within a unit) of the taken copies."""
    ids = []
    for j in np.flatnonzero(take > 0):
        rows = rows_of_unit[units[j]]
        if units[j] == self_unit:  # one copy is the query itself
            rows = rows[rows != self_row] if self_row in rows else rows[:-1]
        ids.extend(rows[: int(take[j])].tolist())
    return np.asarray(ids, dtype=np.intp)
