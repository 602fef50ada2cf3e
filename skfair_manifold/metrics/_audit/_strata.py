"""An estimated characteristic's strata, projected from the GROUP BY of :mod:`._membership`.

A characteristic with an estimated attribute (race from BISG, alone or
crossed with an observed sex) is read as strata: people who share the proxy's
cell (``proxy=``; without it, people who share a probability row), and within
the cell the same observed categories and, for people whose category is known
(a one-hot row: a labelled subset), the same category. Per stratum the people
not selected and selected and their summed membership of each category: the
problem of :mod:`._frechet`. A known person is a stratum of her own category,
whose membership is 0 or 1, so her decision counts where she belongs and the
bounds only range over the others (never wider than counting her as a
probability: the positive part is subadditive).

The intersection multiplies the probabilities: ``P(race = r, sex = s)`` is
``P(race = r) 1{sex = s}`` for an observed sex and ``P(r) P(q)`` for two
estimated attributes, which assumes them independent given the proxy.
"""

from dataclasses import dataclass
from itertools import product

import numpy as np

from ._cells import _sort_key

MSG_OBSERVED_UNKNOWN = (
    "{name} has {count} assessed of unknown category; the intersection with an estimated "
    "attribute needs every observed category. Fill them in, give their probabilities "
    "through membership=, or pass intersect=False."
)


@dataclass
class EstimatedCharacteristic:
    """One characteristic read from membership probabilities (see the module)."""

    name: str
    attributes: list
    cells: list            # tuples of categories
    n0: np.ndarray         # (Z,) per stratum, not selected
    n1: np.ndarray         # (Z,) selected
    m0: np.ndarray         # (Z, K) summed membership of the not selected
    m1: np.ndarray         # (Z, K) of the selected
    hard_n: object         # (K,) the shortcut's assessed, or None (weighted estimate)
    hard_s: object         # (K,) the shortcut's selected
    estimate: str          # what ``n``, ``rate`` and ``impact_ratio`` hold
    labelled: float        # people whose category is known (one-hot rows)
    strata: str            # what the strata are

    @property
    def n(self):
        return self.hard_n if self.hard_n is not None else (self.m0 + self.m1).sum(axis=0)

    @property
    def s(self):
        return self.hard_s if self.hard_s is not None else self.m1.sum(axis=0)

    @property
    def n_rows(self):
        return float(self.n0.sum() + self.n1.sum())

    @property
    def n_unknown(self):
        """The people the shortcut leaves out (under a threshold in every category)."""
        return max(0.0, self.n_rows - float(self.n.sum())) if self.hard_n is not None else 0.0

    @property
    def stratum_sizes(self):
        return self.n0 + self.n1


def estimated_characteristic(grouped, *, name, observed, estimated, selected, estimate,
                             proxy_name, observed_values):
    """The :class:`EstimatedCharacteristic` of some attributes of a GROUP BY.

    ``observed``: positions (in ``grouped.observed``) of its observed
    attributes, ``estimated``: ``(position, Estimated)`` of its estimated ones
    (at least one); ``selected``: bool per group; ``observed_values``: the
    observed attributes' values, None where unknown (one object array each).
    """
    G = grouped.count.shape[0]
    live = grouped.count > 0
    categories, onehots, attributes = [], [], []
    for i, label in observed:
        values = observed_values[i]
        unknown = np.array([v is None for v in values.tolist()]) & live
        if unknown.any():
            raise ValueError(MSG_OBSERVED_UNKNOWN.format(
                name=label, count=int(grouped.count[unknown].sum())))
        cats = sorted(set(values[live].tolist()), key=_sort_key)
        lookup = {v: k for k, v in enumerate(cats)}
        hot = np.zeros((G, len(cats)))
        codes = np.array([lookup.get(v, -1) for v in values.tolist()])
        hot[np.arange(G)[codes >= 0], codes[codes >= 0]] = 1.0
        categories.append(cats)
        onehots.append((hot, codes))
        attributes.append(label)
    positions = [a for a, _ in estimated]
    for _, attr in estimated:
        categories.append(list(attr.categories))
        attributes.append(attr.name)
    if len(estimated) == 1:
        est = grouped.sums[positions[0]]
    else:
        est = grouped.joint
    member = np.ones((G, 1))
    for hot, _ in onehots:
        member = (member[:, :, None] * hot[:, None, :]).reshape(G, -1)
    member = (member[:, :, None] * est[:, None, :]).reshape(G, -1)
    cells = list(product(*categories))
    # the strata: the proxy (or the probability rows), the observed values, the known labels
    keys = [grouped.proxy] if grouped.proxy is not None else \
        [_row_keys(grouped.rows[a]) for a in positions]
    keys += [observed_values[i] for i, _ in observed]
    keys += [grouped.labels[a] for a in positions]
    stratum = _codes(keys)
    Z = int(stratum.max()) + 1 if G else 0
    K = len(cells)
    sel = np.asarray(selected, dtype=bool)
    n0 = np.bincount(stratum[~sel], weights=grouped.count[~sel], minlength=Z)
    n1 = np.bincount(stratum[sel], weights=grouped.count[sel], minlength=Z)
    m0, m1 = np.zeros((Z, K)), np.zeros((Z, K))
    np.add.at(m0, stratum[~sel], member[~sel])
    np.add.at(m1, stratum[sel], member[sel])
    hard_n = hard_s = None
    if grouped.likely is not None:
        hard_n, hard_s = np.zeros(K), np.zeros(K)
        code = np.zeros(G, dtype=np.int64)
        ok = np.ones(G, dtype=bool)
        for (hot, codes), cats in zip(onehots, categories):
            code = code * len(cats) + np.maximum(codes, 0)
            ok &= codes >= 0
        for a, (_, attr) in zip(positions, estimated):
            likely = grouped.likely[a]
            code = code * len(attr.categories) + np.maximum(likely, 0)
            ok &= likely >= 0
        np.add.at(hard_n, code[ok], grouped.count[ok])
        np.add.at(hard_s, code[ok & sel], grouped.count[ok & sel])
    labelled = float(grouped.count[np.all([grouped.labels[a] >= 0 for a in positions],
                                          axis=0)].sum()) if G else 0.0
    keep = (m0 + m1).sum(axis=0) > 0
    if hard_n is not None:
        keep |= hard_n > 0
    where = np.flatnonzero(keep)
    if estimate == "weighted":
        what = "weighted"
    elif estimate == "most_likely":
        what = "most likely"
    else:
        what = f"threshold {float(estimate):g}"
    strata = (f"the cells of {proxy_name}" if proxy_name is not None
              else "the distinct probability rows")
    return EstimatedCharacteristic(
        name=name, attributes=attributes, cells=[cells[k] for k in where], n0=n0, n1=n1,
        m0=m0[:, where], m1=m1[:, where],
        hard_n=None if hard_n is None else hard_n[where],
        hard_s=None if hard_s is None else hard_s[where], estimate=what, labelled=labelled,
        strata=strata)


def _row_keys(rows):
    """Each probability row as one hashable key."""
    keys = np.empty(rows.shape[0], dtype=object)
    keys[:] = [tuple(r) for r in np.round(rows, 12).tolist()]
    return keys


def _codes(keys):
    """The code of each group's combination of keys (0 .. Z - 1)."""
    if not keys or keys[0].shape[0] == 0:
        return np.zeros(0 if not keys else keys[0].shape[0], dtype=np.int64)
    combined = list(zip(*[k.tolist() for k in keys]))
    lookup = {}
    return np.array([lookup.setdefault(key, len(lookup)) for key in combined],
                    dtype=np.int64)
