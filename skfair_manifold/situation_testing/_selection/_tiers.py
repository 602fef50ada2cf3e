"""CBN-DD's visiting order: the subgroups nearest each query profile, whole tiers.

Algorithm 1 (Zhang, Wu and Wu, 2016) visits the subgroups by increasing
distance until ``K`` tester pairs are found; subgroups at one distance form
a *tier* taken as one pool (``_cbn``). :func:`prefix_orders` finds, for each
query profile, the shortest prefix of that order that holds the pairs
needed, with the whole tier where they run out.
"""

import numpy as np

__all__ = ["prefix_orders"]


def prefix_orders(D, pairs, need):
    """Per query profile, the subgroups in visiting order, up to ``need`` pairs.

    ``D`` (u, L): the distance from each query profile to each subgroup;
    ``pairs`` (L,): the tester pairs each subgroup offers.

    Visiting order: increasing distance. The prefix holds the first
    ``need`` pairs and the whole tier (subgroups at equal distance) where
    they run out (``need = k + 1`` leaves room for a query that removes
    itself from one pair). Rows are padded with the empty dummy subgroup
    ``L`` at distance inf. A partial sort of 256 columns is tried first;
    the rows it cannot settle are sorted fully.
    """
    u, L = D.shape
    m = min(L, 256)
    results = []
    todo = np.ones(u, dtype=bool)
    if m < L:
        part = np.argpartition(D, m - 1, axis=1)[:, :m]
        dpart = np.take_along_axis(D, part, axis=1)
        srt = np.argsort(dpart, axis=1, kind="stable")
        part = np.take_along_axis(part, srt, axis=1)
        dpart = np.take_along_axis(dpart, srt, axis=1)
        exact = dpart < dpart[:, -1:]  # strictly below the m-th distance: complete
        cum = np.cumsum(pairs[part] * exact, axis=1)
        ok = cum[:, -1] >= need
        rows = np.flatnonzero(ok)
        results.append((rows, part[rows], dpart[rows], cum[rows]))
        todo[rows] = False
    rows = np.flatnonzero(todo)
    if rows.size:
        full = np.argsort(D[rows], axis=1, kind="stable")
        dfull = np.take_along_axis(D[rows], full, axis=1)
        results.append((rows, full, dfull, np.cumsum(pairs[full], axis=1)))
    widths = []
    for rows, order, dist, cum in results:
        enough = cum[:, -1] >= need
        w0 = np.where(enough, np.argmax(cum >= need, axis=1), order.shape[1] - 1)
        d_last = dist[np.arange(rows.shape[0]), w0]
        widths.append((dist <= d_last[:, None]).sum(axis=1))  # the whole last tier
    W = max((int(w.max()) for w in widths if w.size), default=0)
    orders = np.full((u, W), L, dtype=np.intp)
    dists = np.full((u, W), np.inf)
    for (rows, order, dist, _), w in zip(results, widths):
        width = min(W, order.shape[1])
        keep = np.arange(width)[None, :] < w[:, None]
        orders[rows, :width] = np.where(keep, order[:, :width], L)
        dists[rows, :width] = np.where(keep, dist[:, :width], np.inf)
    return orders, dists
