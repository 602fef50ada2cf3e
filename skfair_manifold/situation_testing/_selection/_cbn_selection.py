"""CBN-DD's selection (Algorithm 1, lines 9-17): the testers of each query, by tiers.

:class:`CBNSelection` is a mixin of :class:`~._cbn.CBNSelector`, which holds
the subgroups (``n``, ``npos``, their padded copies and the units' subgroup,
side and decision) and the distances (``distances``); see ``_cbn``'s
docstring for the rule.
"""

import numpy as np

from ._blocks import expand_to_queries, run_blocks
from ._tiers import prefix_orders

_CHUNK_CELLS = 2_000_000  # distances (or prefix cells) per block: bounded memory


class CBNSelection:
    """The selection of testers over a selector's subgroups (a mixin)."""

    def rates(self, Qv, self_unit, k, *, n_jobs=None, cells=False):
        """Expected positives and testers on both sides for each query (Algorithm 1).

        Parameters
        ----------
        Qv : ndarray of shape (m, |Q|)
        self_unit : ndarray of shape (m,), dtype intp
            The fitted unit the query is a copy of (one copy is left out of
            its testers), or -1.
        k : int
        n_jobs : int or None
        cells : bool
            Also return the subgroups taken (see ``Returns``).

        Returns
        -------
        pos, n, w2 : ndarray of shape (m, 2)
            Expected positives, testers, and the sum of the testers' squared
            weights (``sum_l take_l ** 2 / |g_l^s|``) on each side.
        cells : dict of ndarray, only with ``cells=True``
            One entry per (query, side, subgroup) with records taken:
            ``query``, ``side``, ``cell`` (the subgroup), ``distance``, ``n_records``
            (records available on that side), ``n_positive`` (their
            positives) and ``weight`` (probability that each is a tester).
        """
        m = Qv.shape[0]
        pos = np.zeros((m, 2))
        n = np.zeros((m, 2))
        if m == 0:
            return (pos, n, n.copy(), _no_cells()) if cells else (pos, n, n.copy())
        uq, qi = np.unique(Qv, axis=0, return_inverse=True)
        qi = qi.reshape(-1)
        has = self_unit >= 0
        u = np.maximum(self_unit, 0)
        s_sub = np.where(has, self.unit_sub[u] if self.unit_sub.size else -1, -1)
        s_side = np.where(has, self.unit_side[u] if self.unit_side.size else 0, 0)
        s_y = np.where(has, self.unit_pos[u] if self.unit_pos.size else 0.0, 0.0)
        keys, inv = np.unique(np.column_stack([qi, s_sub, s_side, s_y]), axis=0,
                              return_inverse=True)
        inv = inv.reshape(-1)
        L = self.profiles.shape[0]
        step = max(1, _CHUNK_CELLS // max(L, 1))
        tasks = [(uq[i:i + step], k + 1) for i in range(0, uq.shape[0], step)]
        blocks = run_blocks(self._prefix_task, tasks, n_jobs=n_jobs)
        W = max(b[0].shape[1] for b in blocks)
        prefix = np.full((uq.shape[0], W), L, dtype=np.intp)
        pdist = np.full((uq.shape[0], W), np.inf)
        i = 0
        for o, d in blocks:
            prefix[i:i + o.shape[0], : o.shape[1]] = o
            pdist[i:i + o.shape[0], : o.shape[1]] = d
            i += o.shape[0]
        block = max(1, _CHUNK_CELLS // 2 // max(W, 1))
        tasks = [(prefix, pdist, keys[s:s + block], k, cells)
                 for s in range(0, keys.shape[0], block)]
        out = run_blocks(self._select, tasks, n_jobs=n_jobs)
        kpos = np.concatenate([o[0] for o in out])
        kn = np.concatenate([o[1] for o in out])
        kw = np.concatenate([o[2] for o in out])
        if not cells:
            return kpos[inv], kn[inv], kw[inv]
        parts = [o[3] for o in out]
        key = np.concatenate([p["key"] + b * block for b, p in enumerate(parts)])
        found = {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
        query, cell = expand_to_queries(inv, key)
        result = {"query": query}
        result.update({name: v[cell] for name, v in found.items() if name != "key"})
        return kpos[inv], kn[inv], kw[inv], result

    def within(self, Qv, self_unit, radius, cap, *, n_jobs=None):
        """Tester pairs within ``radius`` of each query, at most ``cap``: (m, 2), both sides.

        The pairs of a subgroup are ``min(|g+|, |g-|)``; the query's own
        record leaves its subgroup (at distance 0) as in ``rates``. Counted
        over the visiting order's prefix of ``cap + 1`` pairs, which holds
        every subgroup within ``radius`` unless these already hold more.
        """
        m = Qv.shape[0]
        if m == 0:
            return np.zeros((0, 2))
        uq, qi = np.unique(Qv, axis=0, return_inverse=True)
        qi = qi.reshape(-1)
        L = self.profiles.shape[0]
        step = max(1, _CHUNK_CELLS // max(L, 1))
        tasks = [(uq[i:i + step], int(cap) + 1) for i in range(0, uq.shape[0], step)]
        pairs = np.minimum(self._n_pad[:, 0], self._n_pad[:, 1])
        count = np.concatenate([(pairs[order] * (dist <= radius + 1e-12)).sum(axis=1)
                                for order, dist in run_blocks(self._prefix_task, tasks,
                                                              n_jobs=n_jobs)])[qi]
        has = self_unit >= 0
        u = np.maximum(self_unit, 0)
        if self.unit_sub.size:
            sub, side = self.unit_sub[u], self.unit_side[u]
            own, other = self.n[sub, side], self.n[sub, 1 - side]
            count = count - (has & (own <= other))
        count = np.minimum(count, cap)
        return np.column_stack([count, count])

    def _prefix_task(self, task):
        V, need = task
        return prefix_orders(self.distances(V), np.minimum(self.n[:, 0], self.n[:, 1]), need)

    def _select(self, task):
        prefix, pdist, keys, k, cells = task
        b = keys.shape[0]
        qi = keys[:, 0].astype(np.intp)
        s_sub = keys[:, 1].astype(np.intp)
        s_side = keys[:, 2].astype(np.intp)
        s_y = keys[:, 3]
        order = prefix[qi]
        dist = pdist[qi]
        n_side = self._n_pad[order]  # (b, W, 2)
        p_side = self._npos_pad[order]
        # the query's own record leaves its subgroup
        hit = (order == s_sub[:, None]) & (s_sub[:, None] >= 0)
        r, c = np.nonzero(hit)
        n_side[r, c, s_side[r]] -= 1.0
        p_side[r, c, s_side[r]] -= s_y[r]
        pairs = np.minimum(n_side[:, :, 0], n_side[:, :, 1])
        W = order.shape[1]
        cols = np.arange(W)
        new = np.ones((b, W), dtype=bool)
        new[:, 1:] = dist[:, 1:] != dist[:, :-1]
        last = np.ones((b, W), dtype=bool)
        last[:, :-1] = new[:, 1:]
        start = np.maximum.accumulate(np.where(new, cols, 0), axis=1)
        end = np.minimum.accumulate(np.where(last, cols, W)[:, ::-1], axis=1)[:, ::-1]
        C0 = np.zeros((b, W + 1))
        C0[:, 1:] = np.cumsum(pairs, axis=1)
        before = np.take_along_axis(C0, start, axis=1)
        tier = np.take_along_axis(C0, end + 1, axis=1) - before
        taken = np.clip(float(k) - before, 0.0, tier)
        with np.errstate(invalid="ignore", divide="ignore"):
            take = np.where(tier > 0, pairs * taken / tier, 0.0)  # pairs taken per subgroup
            share = np.where(n_side > 0, p_side / n_side, 0.0)
        out_pos = np.einsum("bw,bws->bs", take, share)
        n_taken = take.sum(axis=1)
        n_out = np.column_stack([n_taken, n_taken])
        with np.errstate(invalid="ignore", divide="ignore"):
            w2 = np.einsum("bw,bws->bs", take ** 2, np.where(n_side > 0, 1.0 / n_side, 0.0))
        if not cells:
            return out_pos, n_out, w2
        kr, kc = np.nonzero(take > 1e-12)
        found = {"key": np.repeat(kr, 2), "side": np.tile([0, 1], kr.shape[0]),
                 "cell": np.repeat(order[kr, kc], 2),
                 "distance": np.repeat(dist[kr, kc], 2)}
        nr = n_side[kr, kc].reshape(-1)
        found["n_records"] = nr
        found["n_positive"] = p_side[kr, kc].reshape(-1)
        found["weight"] = np.repeat(take[kr, kc], 2) / np.maximum(nr, 1.0)
        return out_pos, n_out, w2, found


def _no_cells():
    z = np.zeros(0)
    zi = np.zeros(0, dtype=np.intp)
    return {"query": zi, "side": zi, "cell": zi, "distance": z, "n_records": z,
            "n_positive": z, "weight": z}
