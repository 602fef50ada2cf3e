"""CBN-DD tester selection (Zhang, Wu and Wu, 2016, Algorithm 1 and Lemma 3).

Given ``Q = Par(E) \\ {C}``, the records fall into subgroups ``g_l`` of equal
value ``q^l`` of Q. The distance from a target with profile ``q`` to the
subgroup ``l`` is (Definition 3, Eq. 5)::

    d(q, q^l) = sum_k |CE(q_k, q^l_k) * VD(q_k, q^l_k)|

with ``VD`` the normalised Manhattan distance (ordinal/interval) or the
overlap (nominal), and, by Lemma 3::

    CE(q_k, q'_k) = sum_c [P(e+ | c, q) - P(e+ | c, q'_k, q \\ q_k)] P(c)

That is ``causal_effect="pooled"``, the paper's. The default,
``causal_effect="max_over_groups"``, weighs each change by its larger effect
within one group::

    CE_max(q_k, q'_k) = max_c |P(e+ | c, q) - P(e+ | c, q'_k, q \\ q_k)|

It equals ``|CE|`` whenever the change moves both groups' rates alike, in
particular when the decision does not depend on ``c``; it is larger where a
group is treated differently in the two situations (bias planted in some
regions: the pooled effect makes a biased region near an unbiased one with a
close effect for the other group, and the testers cross between them).

Smoothing. ``P(e+ | c, q)`` is estimated with an m-estimate towards the
group's overall rate: ``(n+(c, q) + m P(e+ | c)) / (n(c, q) + m)``, with
``m = smoothing``. An unseen combination therefore gets ``P(e+ | c)``, and a
rare one is pulled towards it. ``P(c)`` is the group's share of the rows.

For a profile ``q``, each attribute ``k`` and each value ``v`` of it, the
rates ``A[k][q, v, c] = P(e+ | c, q with q_k := v)`` give both effects:
``CE(q_k, v) = sum_c P(c) (A[k][q, q_k, c] - A[k][q, v, c])`` and ``CE_max``
the largest ``|A[k][q, q_k, c] - A[k][q, v, c]|``.

Selection (Algorithm 1, lines 9-17), without tie-breaking: subgroups are
visited by increasing distance; from each, ``min(|g+|, |g-|, K - n)`` records
are taken on both sides, so the pairing is one to one. Which records of a
subgroup are taken is a free choice, and so is the order of subgroups at
equal distance: subgroups at one distance form a *tier* whose pairs are one
pool. When a tier straddles ``K`` with ``P`` pairs and ``R`` still to take,
each of its pairs is taken with probability ``R / P``, and a record of side
``s`` of subgroup ``l`` with probability ``pairs_l R / P / |g_l^s|``. The
rates are the expectations over all these choices: every record taken for
certain counts fully, a partly taken subgroup contributes the number taken
from it times its positive share. They are the same for any seed and any row
order, and equal the mean over all tie-breaks.
"""

import numpy as np

from ._cbn_selection import CBNSelection
from ._knn import _MAX_ONEHOT, onehot

_DECIMALS = 10
_MAX_MIXTURE_CELLS = 50_000_000  # Lemma 3's table: profiles x attribute values

#: How Eq. 5 weighs a change of one attribute (see the module's docstring), in words
#: CBN-DD's distance in words; ``{outcome}``: "rates" (yes/no) or "mean decisions" (amount)
CAUSAL_EFFECT_NOTES = {
    "max_over_groups": "each cause of the decision weighed by its larger effect on the two "
                       "groups' {outcome}",
    "pooled": "each cause of the decision weighed by its causal effect (the paper's Lemma 3)",
}
CAUSAL_EFFECTS = tuple(CAUSAL_EFFECT_NOTES)

MSG_TOO_MANY_PROFILES = (
    "CBN-DD would need a table of {cells:,} causal effects ({profiles:,} distinct profiles of "
    "Q = {q} times {values:,} attribute values; column {most!r} has {most_values:,} of "
    "them); give fewer or coarser parents: leave that column out of the graph's parents of "
    "the decision (or out of X), group its values into fewer, or declare a many-valued "
    "numeric column interval (it is then binned)."
)


class CBNSelector(CBNSelection):
    """Precomputed subgroups and causal effects of one fitted data set.

    Parameters
    ----------
    Qv : ndarray of shape (n, |Q|)
        Values of the parents ``Q`` for the fitted records (interval
        attributes as bin indices).
    unit_of_row : ndarray of shape (n,), dtype intp
        The unit (identical records) of each fitted row.
    group : ndarray of shape (n,), dtype bool
        True for the protected group.
    positive : ndarray of shape (n,), dtype bool
    nominal : ndarray of shape (|Q|,), dtype bool
    ranges : ndarray of shape (|Q|,)
    smoothing : float
    q_names : list or None
        The names of Q's columns, for the error messages.
    causal_effect : {"max_over_groups", "pooled"}
        ``CE_max`` or Lemma 3's ``CE`` in Eq. 5 (checked by the auditor's
        parameter constraints, :data:`CAUSAL_EFFECTS`).
    count : ndarray of shape (n,) or None
        The number of records each row stands for (a cell of a table
        aggregated where the data lives, ``_lazy``); None: one each. Only
        the subgroups' counts depend on it, so rates and distances are those
        of the expanded rows (sums of whole numbers, exact in float64).
    unit : float, default=1.0
        A power of two: ``positive`` are amounts divided by it (a continuous
        decision, shifted and scaled to about [-1, 1] so that no sum
        overflows or underflows at any magnitude); distances and effects are
        given back times ``unit``, in the decision's units, after the
        rounding that makes ties exact (relative to the decisions' spread).
    """

    def __init__(self, Qv, unit_of_row, group, positive, nominal, ranges, smoothing,
                 q_names=None, causal_effect="max_over_groups", count=None, unit=1.0):
        n, nq = Qv.shape
        self.unit = float(unit)
        self.causal_effect = causal_effect
        self.nominal = nominal
        self.ranges = np.where(ranges > 0, ranges, 1.0)
        self.smoothing = float(smoothing)
        self.profiles, sub = np.unique(Qv, axis=0, return_inverse=True)
        sub = sub.reshape(-1)
        self.row_sub = sub
        L = self.profiles.shape[0]
        self.domains = [np.unique(Qv[:, k]) for k in range(nq)]
        if count is None:
            self.p_c = np.array([np.mean(~group), np.mean(group)])
            self.p_e_c = np.array([positive[~group].mean(), positive[group].mean()])
            weight = 1.0
        else:
            weight = np.asarray(count, dtype=np.float64)
            sizes = np.array([weight[~group].sum(), weight[group].sum()])
            self.p_c = sizes / sizes.sum()
            self.p_e_c = np.array([weight[~group & positive].sum(),
                                   weight[group & positive].sum()]) / sizes
        side = group.astype(np.intp)  # 0: unprotected (S+), 1: protected (S-)
        self.n = np.zeros((L, 2))
        self.npos = np.zeros((L, 2))
        np.add.at(self.n, (sub, side), weight)
        np.add.at(self.npos, (sub, side), positive.astype(np.float64) * weight)
        n_units = int(unit_of_row.max()) + 1 if n else 0
        self.unit_sub = np.zeros(n_units, dtype=np.intp)
        self.unit_sub[unit_of_row] = sub
        self.unit_side = np.zeros(n_units, dtype=np.intp)
        self.unit_side[unit_of_row] = side
        self.unit_pos = np.zeros(n_units)
        self.unit_pos[unit_of_row] = positive
        self._n_pad = np.vstack([self.n, [[0.0, 0.0]]])  # row L: an empty dummy subgroup
        self._npos_pad = np.vstack([self.npos, [[0.0, 0.0]]])
        seg = sub * 2 + side
        self.seg_rows = np.argsort(seg, kind="stable")
        self.seg_bounds = np.searchsorted(seg[self.seg_rows], np.arange(2 * L + 1))
        self._onehot_T = (onehot(self.profiles, self.domains).T.copy()
                          if sum(d.shape[0] for d in self.domains) <= _MAX_ONEHOT else None)
        # One int64 key per profile (mixed radix over the value indices, unseen
        # values included) when it fits, for the look-up of query profiles.
        radix = [d.shape[0] + 1 for d in self.domains]
        size = 1
        for r in radix:
            size *= r
        if size < 2 ** 62:
            strides = np.ones(nq, dtype=np.int64)
            for k in range(nq - 2, -1, -1):
                strides[k] = strides[k + 1] * radix[k + 1]
            self._strides = strides
            keys = self._codes(self.profiles) @ strides
            self._key_order = np.argsort(keys, kind="stable")
            self._sorted_keys = keys[self._key_order]
        else:
            self._strides = None
        # Lemma 3's rates for every observed profile and single-coordinate change
        # (computed per block of queries by ``distances``) must stay a bounded table.
        cells = L * sum(d.shape[0] for d in self.domains)
        if cells > _MAX_MIXTURE_CELLS:
            most = int(np.argmax([d.shape[0] for d in self.domains]))
            raise ValueError(MSG_TOO_MANY_PROFILES.format(
                cells=cells, profiles=L, q=q_names if q_names is not None else nq,
                values=sum(d.shape[0] for d in self.domains),
                most=q_names[most] if q_names is not None else most,
                most_values=self.domains[most].shape[0]))

    def rows_of(self, sub, side):
        """Fitted rows of subgroup ``sub`` on ``side`` (0: S+, 1: S-), lowest first."""
        seg = 2 * int(sub) + int(side)
        return self.seg_rows[self.seg_bounds[seg]:self.seg_bounds[seg + 1]]

    # --- probabilities --------------------------------------------------------------
    def _codes(self, V):
        """Per-attribute value index (unseen value -> len(domain)) and one int key."""
        idx = np.empty(V.shape, dtype=np.int64)
        for k, dom in enumerate(self.domains):
            j = np.searchsorted(dom, V[:, k])
            j = np.minimum(j, dom.shape[0] - 1)
            idx[:, k] = np.where(dom[j] == V[:, k], j, dom.shape[0])
        return idx

    def _profile_index(self, idx):
        """Row of ``self.profiles`` holding each row of value indices, or -1."""
        if self._strides is not None:
            key = idx @ self._strides
            pos = np.minimum(np.searchsorted(self._sorted_keys, key),
                             max(self._sorted_keys.shape[0] - 1, 0))
            hit = self._sorted_keys[pos] == key if self._sorted_keys.size else \
                np.zeros(key.shape[0], dtype=bool)
            return np.where(hit, self._key_order[pos], -1)
        obs = self._codes(self.profiles)
        allc = np.concatenate([obs, idx])
        _, inv = np.unique(allc, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        key_obs, key_q = inv[: obs.shape[0]], inv[obs.shape[0]:]
        lookup = np.full(int(inv.max()) + 1 if inv.size else 1, -1, dtype=np.intp)
        lookup[key_obs] = np.arange(obs.shape[0])
        return lookup[key_q]

    def p_pos(self, V):
        """Smoothed ``P(e+ | c, q)`` for each profile row of ``V``: shape (m, 2)."""
        l = self._profile_index(self._codes(V))
        seen = l >= 0
        n = np.where(seen[:, None], self.n[np.maximum(l, 0)], 0.0)
        npos = np.where(seen[:, None], self.npos[np.maximum(l, 0)], 0.0)
        m = self.smoothing
        denom = n + m
        with np.errstate(invalid="ignore", divide="ignore"):
            p = (npos + m * self.p_e_c) / denom
        return np.where(denom > 0, p, self.p_e_c)

    def _changed_rates(self, V):
        """``A[k][i, v, c] = P(e+ | c, V_i with V_ik := domain_k[v])``, one array per k."""
        A = []
        for k, dom in enumerate(self.domains):
            W = np.repeat(V, dom.shape[0], axis=0)
            W[:, k] = np.tile(dom, V.shape[0])
            A.append(self.p_pos(W).reshape(V.shape[0], dom.shape[0], 2))
        return A

    def _effect(self, a_q, A_k):
        """The weight of Eq. 5 from the rates of ``q`` (m, 2) and of the changed
        profiles (m, v, 2): ``|CE|`` or ``CE_max``, shape (m, v)."""
        delta = a_q[:, None, :] - A_k
        if self.causal_effect == "pooled":
            return np.abs(delta @ self.p_c)
        return np.abs(delta).max(axis=2)

    def causal_effects(self, q):
        """``CE(q_k, v)`` for every attribute ``k`` and value ``v`` (Lemma 3).

        Signed, pooled over the groups whatever ``causal_effect`` (the one
        the paper defines). Returns a list, one array per attribute over its
        fitted domain.
        """
        q = np.asarray(q, dtype=np.float64)[None, :]
        a_q = self.p_pos(q)
        return [(a_q[0] - Ak[0]) @ self.p_c * self.unit for Ak in self._changed_rates(q)]

    def distances(self, V):
        """Eq. 5 from each profile row of ``V`` to every subgroup: shape (m, L)."""
        a_q = self.p_pos(V)
        A = self._changed_rates(V)
        if self._onehot_T is not None:
            # |CE * VD| per attribute and fitted value, summed by one matrix product
            parts = []
            for k, dom in enumerate(self.domains):
                if self.nominal[k]:
                    vd = V[:, k, None] != dom[None, :]
                else:
                    vd = np.abs(V[:, k, None] - dom[None, :]) / self.ranges[k]
                parts.append(self._effect(a_q, A[k]) * vd)
            T = np.hstack(parts) if parts else np.zeros((V.shape[0], 0))
            return self._rounded(T @ self._onehot_T)
        prof_idx = self._codes(self.profiles)
        D = np.zeros((V.shape[0], self.profiles.shape[0]))
        for k in range(V.shape[1]):
            ce = self._effect(a_q, A[k])[:, prof_idx[:, k]]
            if self.nominal[k]:
                vd = V[:, k, None] != self.profiles[None, :, k]
            else:
                vd = np.abs(V[:, k, None] - self.profiles[None, :, k]) / self.ranges[k]
            D += ce * vd
        return self._rounded(D)

    def _rounded(self, D):
        """Distances rounded (equal ones made exactly equal) and in the decision's units."""
        D = np.round(D, _DECIMALS, out=D)
        return D if self.unit == 1.0 else np.multiply(D, self.unit, out=D)

    def pair_distances(self, V, W):
        """Eq. 5 between each row of ``V`` (targets) and each row of ``W``: (m, n).

        Plain and quadratic: meant for explaining a few cases, not for bulk work.
        """
        m, n = V.shape[0], W.shape[0]
        a_v = self.p_pos(V)
        D = np.zeros((m, n))
        for k in range(V.shape[1]):
            Vk = np.repeat(V, n, axis=0)
            Vk[:, k] = np.tile(W[:, k], m)
            ce = self._effect(a_v, self.p_pos(Vk).reshape(m, n, 2))
            if self.nominal[k]:
                vd = V[:, k, None] != W[None, :, k]
            else:
                vd = np.abs(V[:, k, None] - W[None, :, k]) / self.ranges[k]
            D += ce * vd
        return self._rounded(D)
