"""CBN-DD tester selection (Zhang, Wu and Wu, 2016, Algorithm 1 and Lemma 3).

Given ``Q = Par(E) \\ {C}``, the records fall into subgroups ``g_l`` of equal
value ``q^l`` of Q. The distance from a target with profile ``q`` to the
subgroup ``l`` is (Definition 3, Eq. 5)::

    d(q, q^l) = sum_k |CE(q_k, q^l_k) * VD(q_k, q^l_k)|

with ``VD`` the normalised Manhattan distance (ordinal/interval) or the
overlap (nominal), and, by Lemma 3::

    CE(q_k, q'_k) = sum_c [P(e+ | c, q) - P(e+ | c, q'_k, q \\ q_k)] P(c)

Smoothing. ``P(e+ | c, q)`` is estimated with an m-estimate towards the
group's overall rate: ``(n+(c, q) + m P(e+ | c)) / (n(c, q) + m)``, with
``m = smoothing``. An unseen combination therefore gets ``P(e+ | c)``, and a
rare one is pulled towards it. ``P(c)`` is the group's share of the rows.

What Lemma 3 needs is precomputed at fit: for each observed profile ``q^l``,
each attribute ``k`` and each value ``v`` of it, the mixture
``A[l, k, v] = sum_c P(c) P(e+ | c, q^l with q_k := v)``, so that
``CE(q_k, v) = A[l, k, q_k] - A[l, k, v]``.

Selection (Algorithm 1, lines 9-17): subgroups are visited by increasing
distance (ties between subgroups: by their seeded priority); from each,
``min(|g+|, |g-|, K - n)`` records are taken on both sides, so the pairing is
one to one. Inside a side, records are taken in priority order (a seeded hash
of the record, see ``_auditor._record_priority``).
"""

import numpy as np

from ._knn import _MAX_ONEHOT, onehot

_DECIMALS = 10


class CBNSelector:
    """Precomputed subgroups and causal effects of one fitted data set.

    Parameters
    ----------
    Qv : ndarray of shape (n, |Q|)
        Values of the parents ``Q`` for the fitted records.
    unit_rank_of_row : ndarray of shape (n,)
        Tie-breaking rank of each record (identical records share one).
    group : ndarray of shape (n,), dtype bool
        True for the protected group.
    positive : ndarray of shape (n,), dtype bool
    nominal : ndarray of shape (|Q|,), dtype bool
    ranges : ndarray of shape (|Q|,)
    smoothing : float
    prof_priority : callable
        Maps the array of observed profiles to one tie-breaking priority each.
    """

    def __init__(self, Qv, unit_rank_of_row, group, positive, nominal, ranges, smoothing,
                 prof_priority):
        n, nq = Qv.shape
        self.nominal = nominal
        self.ranges = np.where(ranges > 0, ranges, 1.0)
        self.smoothing = float(smoothing)
        self.profiles, sub = np.unique(Qv, axis=0, return_inverse=True)
        sub = sub.reshape(-1)
        self.row_sub = sub
        self.row_side = group.astype(np.intp)
        self.row_positive = positive.astype(np.float64)
        L = self.profiles.shape[0]
        self.domains = [np.unique(Qv[:, k]) for k in range(nq)]
        self.p_c = np.array([np.mean(~group), np.mean(group)])
        self.p_e_c = np.array([positive[~group].mean(), positive[group].mean()])
        side = group.astype(np.intp)  # 0: unprotected (S+), 1: protected (S-)
        self.n = np.zeros((L, 2))
        self.npos = np.zeros((L, 2))
        np.add.at(self.n, (sub, side), 1.0)
        np.add.at(self.npos, (sub, side), positive.astype(np.float64))
        # Segments: rows of (subgroup, side) in priority order, their cumulative positives.
        seg = sub * 2 + side
        order = np.lexsort((np.arange(n), unit_rank_of_row, seg))
        self.seg_rows = order
        bounds = np.searchsorted(seg[order], np.arange(2 * L + 1))
        self.seg_start = bounds[:-1].reshape(L, 2)
        ypos = positive[order].astype(np.float64)
        # cum[start + j + seg_index] = positives among the first j rows of the segment
        self.cum = np.concatenate([[0.0], np.cumsum(ypos)])
        self._n_pad = np.vstack([self.n, [[0.0, 0.0]]])  # row L: an empty dummy subgroup
        self._start_pad = np.vstack([self.seg_start, [[0, 0]]])
        self.position_in_seg = np.empty(n, dtype=np.intp)
        self.position_in_seg[order] = np.arange(n) - np.repeat(bounds[:-1], np.diff(bounds))
        self.sub_order = np.argsort(prof_priority(self.profiles), kind="stable")
        self._onehot_T = (onehot(self.profiles, self.domains).T.copy()
                          if sum(d.shape[0] for d in self.domains) <= _MAX_ONEHOT else None)
        # Lemma 3: the mixture A for every observed profile and single-coordinate change.
        self.A = self._mixtures(self.profiles)

    # --- probabilities --------------------------------------------------------------
    def _codes(self, V):
        """Per-attribute value index (unseen value -> len(domain)) and one int key."""
        idx = np.empty(V.shape, dtype=np.int64)
        for k, dom in enumerate(self.domains):
            j = np.searchsorted(dom, V[:, k])
            j = np.minimum(j, dom.shape[0] - 1)
            idx[:, k] = np.where(dom[j] == V[:, k], j, dom.shape[0])
        return idx

    def p_pos(self, V):
        """Smoothed ``P(e+ | c, q)`` for each profile row of ``V``: shape (m, 2)."""
        obs = self._codes(self.profiles)
        qry = self._codes(V)
        allc = np.concatenate([obs, qry])
        _, inv = np.unique(allc, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        key_obs, key_q = inv[: obs.shape[0]], inv[obs.shape[0]:]
        lookup = np.full(int(inv.max()) + 1 if inv.size else 1, -1, dtype=np.intp)
        lookup[key_obs] = np.arange(obs.shape[0])
        l = lookup[key_q]
        seen = l >= 0
        n = np.where(seen[:, None], self.n[np.maximum(l, 0)], 0.0)
        npos = np.where(seen[:, None], self.npos[np.maximum(l, 0)], 0.0)
        m = self.smoothing
        denom = n + m
        with np.errstate(invalid="ignore", divide="ignore"):
            p = (npos + m * self.p_e_c) / denom
        return np.where(denom > 0, p, self.p_e_c)

    def _mixtures(self, V):
        """``A[i][k][v] = sum_c P(c) P(e+ | c, V_i with V_ik := domain_k[v])``."""
        A = []
        for k, dom in enumerate(self.domains):
            W = np.repeat(V, dom.shape[0], axis=0)
            W[:, k] = np.tile(dom, V.shape[0])
            A.append((self.p_pos(W) @ self.p_c).reshape(V.shape[0], dom.shape[0]))
        return A

    def causal_effects(self, q):
        """``CE(q_k, v)`` for every attribute ``k`` and value ``v`` (Lemma 3).

        Returns a list, one array per attribute over its fitted domain.
        """
        q = np.asarray(q, dtype=np.float64)[None, :]
        a_q = self.p_pos(q) @ self.p_c
        return [a_q[0] - Ak[0] for Ak in self._mixtures(q)]

    def distances(self, V):
        """Eq. 5 from each profile row of ``V`` to every subgroup: shape (m, L)."""
        a_q = self.p_pos(V) @ self.p_c
        A = self._mixtures(V)
        if self._onehot_T is not None:
            # |CE * VD| per attribute and fitted value, summed by one matrix product
            parts = []
            for k, dom in enumerate(self.domains):
                ce = a_q[:, None] - A[k]
                if self.nominal[k]:
                    vd = V[:, k, None] != dom[None, :]
                else:
                    vd = np.abs(V[:, k, None] - dom[None, :]) / self.ranges[k]
                parts.append(np.abs(ce * vd))
            T = np.hstack(parts) if parts else np.zeros((V.shape[0], 0))
            D = T @ self._onehot_T
            return np.round(D, _DECIMALS, out=D)
        prof_idx = self._codes(self.profiles)
        D = np.zeros((V.shape[0], self.profiles.shape[0]))
        for k in range(V.shape[1]):
            ce = a_q[:, None] - A[k][:, prof_idx[:, k]]
            if self.nominal[k]:
                vd = V[:, k, None] != self.profiles[None, :, k]
            else:
                vd = np.abs(V[:, k, None] - self.profiles[None, :, k]) / self.ranges[k]
            D += np.abs(ce * vd)
        return np.round(D, _DECIMALS, out=D)

    def pair_distances(self, V, W):
        """Eq. 5 between each row of ``V`` (targets) and each row of ``W``: (m, n).

        Plain and quadratic: meant for explaining a few cases, not for bulk work.
        """
        m, n = V.shape[0], W.shape[0]
        a_v = self.p_pos(V) @ self.p_c
        D = np.zeros((m, n))
        for k in range(V.shape[1]):
            Vk = np.repeat(V, n, axis=0)
            Vk[:, k] = np.tile(W[:, k], m)
            ce = a_v[:, None] - (self.p_pos(Vk) @ self.p_c).reshape(m, n)
            if self.nominal[k]:
                vd = V[:, k, None] != W[None, :, k]
            else:
                vd = np.abs(V[:, k, None] - W[None, :, k]) / self.ranges[k]
            D += np.abs(ce * vd)
        return np.round(D, _DECIMALS, out=D)

    # --- selection --------------------------------------------------------------------
    def rates(self, Qv, self_row, k):
        """Positives and testers on both sides for each query (Algorithm 1).

        Parameters
        ----------
        Qv : ndarray of shape (m, |Q|)
        self_row : ndarray of shape (m,), dtype intp
            A fitted row that the query is a copy of (left out of its
            testers), or -1.
        k : int

        Returns
        -------
        pos, n : ndarray of shape (m, 2)
        """
        m = Qv.shape[0]
        uq, qi = np.unique(Qv, axis=0, return_inverse=True)
        qi = qi.reshape(-1)
        pos = np.zeros((m, 2))
        n = np.zeros((m, 2))
        if m == 0:
            return pos, n
        # A query that is a copy of a fitted row removes it from one segment.
        has_self = self_row >= 0
        s_sub = np.where(has_self, self.row_sub[np.maximum(self_row, 0)], -1)
        s_side = np.where(has_self, self.row_side[np.maximum(self_row, 0)], 0)
        s_pos_in = np.where(has_self, self.position_in_seg[np.maximum(self_row, 0)], 0)
        s_y = np.where(has_self, self.row_positive[np.maximum(self_row, 0)], 0.0)
        keys, inv = np.unique(np.column_stack([qi, s_sub, s_side, s_pos_in, s_y]), axis=0,
                              return_inverse=True)
        inv = inv.reshape(-1)
        L = self.profiles.shape[0]
        step = max(1, 2_000_000 // max(L, 1))
        blocks = [self._prefix_orders(self.distances(uq[i:i + step]), k + 1)
                  for i in range(0, uq.shape[0], step)]
        W = max(b.shape[1] for b in blocks)
        prefix = np.full((uq.shape[0], W), L, dtype=np.intp)
        i = 0
        for b in blocks:
            prefix[i:i + b.shape[0], : b.shape[1]] = b
            i += b.shape[0]
        block = max(1, 2_000_000 // max(prefix.shape[1], 1))
        kpos = np.zeros((keys.shape[0], 2))
        kn = np.zeros((keys.shape[0], 2))
        for start in range(0, keys.shape[0], block):
            kb = keys[start:start + block]
            kpos[start:start + block], kn[start:start + block] = self._select(prefix, kb, k)
        return kpos[inv], kn[inv]

    def _prefix_orders(self, D, need):
        """Per query profile, the subgroups in visiting order, up to ``need`` pairs.

        Visiting order: increasing distance, ties by subgroup priority. Only
        the prefix holding the first ``need`` pairs is kept (``need = k + 1``
        leaves room for a query that removes itself from one pair). Rows are
        padded with the empty dummy subgroup ``L``. A partial sort of 256
        columns is tried first; the rows it cannot settle are sorted fully.
        """
        u, L = D.shape
        Dp = D[:, self.sub_order]  # columns in priority order: stable sorts break ties
        pairs_p = np.minimum(self.n[self.sub_order, 0], self.n[self.sub_order, 1])
        m = min(L, 256)
        orders = np.full((u, L), L, dtype=np.intp)
        width = np.zeros(u, dtype=np.intp)
        todo = np.ones(u, dtype=bool)
        if m < L:
            part = np.argpartition(Dp, m - 1, axis=1)[:, :m]
            dpart = np.take_along_axis(Dp, part, axis=1)
            srt = np.lexsort((part, dpart), axis=1)
            part = np.take_along_axis(part, srt, axis=1)
            dpart = np.take_along_axis(dpart, srt, axis=1)
            exact = dpart < dpart[:, -1:]  # strictly below the m-th distance: complete
            cum = np.cumsum(pairs_p[part] * exact, axis=1)
            ok = cum[:, -1] >= need
            w = np.argmax(cum >= need, axis=1) + 1
            rows = np.flatnonzero(ok)
            for r in rows:
                orders[r, : w[r]] = part[r, : w[r]]
            width[rows] = w[rows]
            todo[rows] = False
        rows = np.flatnonzero(todo)
        if rows.size:
            full = np.argsort(Dp[rows], axis=1, kind="stable")
            cum = np.cumsum(pairs_p[full], axis=1)
            w = np.where(cum[:, -1] >= need, np.argmax(cum >= need, axis=1) + 1, L)
            for i, r in enumerate(rows):
                orders[r, : w[i]] = full[i, : w[i]]
            width[rows] = w
        W = int(width.max()) if u else 0
        orders = orders[:, :W]
        real = orders < L
        orders[real] = self.sub_order[orders[real]]
        return orders

    def _select(self, prefix, keys, k):
        b = keys.shape[0]
        qi = keys[:, 0].astype(np.intp)
        s_sub = keys[:, 1].astype(np.intp)
        s_side = keys[:, 2].astype(np.intp)
        s_pos_in = keys[:, 3].astype(np.intp)
        s_y = keys[:, 4]
        order = prefix[qi]
        n_plus = self._n_pad[order, 0]
        n_minus = self._n_pad[order, 1]
        rows = np.arange(b)
        # where the query's own subgroup sits in its visiting order (if it is visited)
        hit = (order == s_sub[:, None]) & (s_sub[:, None] >= 0)
        found = hit.any(axis=1)
        where = np.argmax(hit, axis=1)
        hs = rows[found]
        n_plus[hs, where[hs]] -= (s_side[hs] == 0)
        n_minus[hs, where[hs]] -= (s_side[hs] == 1)
        pairs = np.minimum(n_plus, n_minus)
        before = np.cumsum(pairs, axis=1) - pairs
        take = np.clip(float(k) - before, 0.0, pairs).astype(np.intp)
        out_pos = np.zeros((b, 2))
        for s in (0, 1):
            start = self._start_pad[order, s]
            got = self.cum[start + take] - self.cum[start]
            hs = rows[found & (s_side == s)]
            if hs.size:
                w = where[hs]
                t = take[hs, w]
                st = start[hs, w]
                shifted = self.cum[st + t + 1] - self.cum[st] - s_y[hs]
                got[hs, w] = np.where(s_pos_in[hs] <= t, shifted, got[hs, w])
            out_pos[:, s] = got.sum(axis=1)
        n_taken = take.sum(axis=1).astype(np.float64)
        return out_pos, np.column_stack([n_taken, n_taken])

    def testers(self, q, self_row, k):
        """Row ids of one query's testers: ``(S+ ids, S- ids)``."""
        D = self.distances(np.asarray(q, dtype=np.float64)[None, :])[0]
        order = self.sub_order[np.argsort(D[self.sub_order], kind="stable")]
        out = ([], [])
        n = 0
        own_sub = self.row_sub[self_row] if self_row >= 0 else -1
        for l in order:
            if n >= k:
                break
            lists = []
            for s in (0, 1):
                st = self.seg_start[l, s]
                rows = self.seg_rows[st: st + int(self.n[l, s])]
                if l == own_sub:
                    rows = rows[rows != self_row]
                lists.append(rows)
            t = min(len(lists[0]), len(lists[1]), k - n)
            out[0].extend(lists[0][:t].tolist())
            out[1].extend(lists[1][:t].tolist())
            n += t
        return np.asarray(out[0], dtype=np.intp), np.asarray(out[1], dtype=np.intp)

