"""Bins of an interval attribute for CBN-DD and the structure search.

Two rules, both kept as sorted bin edges (a value ``v`` falls in bin
``searchsorted(edges, v, side="right")``):

* ``"quantile"``: ``n_bins`` equal-frequency bins (fewer when quantiles
  coincide). Blind to the decision: a step in the decision rate that falls
  inside a bin is averaged away, and bins with equal rates split the
  subgroups of CBN-DD for nothing.
* ``"mdlp"``: the minimum description length rule of Fayyad and Irani
  (1993), supervised by the decision. A segment of the sorted values is cut
  where the class entropy drops most, and only if the drop pays for the cut
  under the MDL criterion::

      Gain(S, T) > (log2(N - 1) + Delta(S, T)) / N,
      Delta = log2(3**k - 2) - (k Ent(S) - k1 Ent(S1) - k2 Ent(S2)),

  with ``k``, ``k1``, ``k2`` the number of classes present in ``S`` and its
  two parts. Cuts are made best first (largest entropy drop, in bits times
  rows) until none is accepted or there are ``n_bins`` bins. An attribute
  unrelated to the decision gets no cut (one bin), so it drops out of the
  structure search; a step of the decision rate gets a cut at the step.

Cost: one sort per column and one pass over each segment's boundaries per
accepted cut, ``O(n log n + n * n_bins)``.
"""

import heapq

import numpy as np
from scipy import special

BINNINGS = ("mdlp", "quantile")


def _entropy(pos, n):
    """Binary entropy in bits of ``pos`` positives among ``n`` (0 where n is 0)."""
    p = pos / np.where(n > 0, n, 1)
    return (special.entr(p) + special.entr(1 - p)) / np.log(2)


def _classes(pos, n):
    return (pos > 0).astype(np.intp) + (pos < n).astype(np.intp)


def _best_cut(cum, starts, lo, hi):
    """The MDL-accepted cut of segment ``[lo, hi)`` of the sorted rows, or None.

    ``cum[i]`` is the number of positives among the first ``i`` sorted rows;
    ``starts`` holds the row positions where a new distinct value begins.
    Returns ``(score, cut)``: the entropy drop times the rows, and the row
    position of the cut.
    """
    cand = starts[(starts > lo) & (starts < hi)]
    if cand.shape[0] == 0:
        return None
    N = hi - lo
    pos = cum[hi] - cum[lo]
    n1 = (cand - lo).astype(np.float64)
    p1 = (cum[cand] - cum[lo]).astype(np.float64)
    n2 = N - n1
    p2 = pos - p1
    e, e1, e2 = _entropy(np.float64(pos), np.float64(N)), _entropy(p1, n1), _entropy(p2, n2)
    split = (n1 * e1 + n2 * e2) / N
    i = int(np.argmin(split))
    gain = e - split[i]
    k = int(_classes(np.float64(pos), np.float64(N)))
    k1, k2 = int(_classes(p1[i], n1[i])), int(_classes(p2[i], n2[i]))
    delta = np.log2(3.0 ** k - 2) - (k * e - k1 * e1[i] - k2 * e2[i])
    if gain <= (np.log2(N - 1) + delta) / N:
        return None
    return gain * N, int(cand[i])


def mdlp_edges(x, y, max_bins):
    """Fayyad and Irani's MDL bin edges of ``x`` for the binary decision ``y``.

    Parameters
    ----------
    x : ndarray of shape (n,)
        Finite values of one interval attribute.
    y : ndarray of shape (n,), dtype bool
        The positive decision.
    max_bins : int
        The largest number of bins.

    Returns
    -------
    edges : ndarray
        Sorted edges (at most ``max_bins - 1``); empty for one bin.
    """
    n = x.shape[0]
    if n < 2 or max_bins < 2:
        return np.empty(0)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    cum = np.concatenate([[0], np.cumsum(y[order].astype(np.int64))])
    starts = np.flatnonzero(xs[1:] != xs[:-1]) + 1
    heap, cuts = [], []
    first = _best_cut(cum, starts, 0, n)
    if first is not None:
        heapq.heappush(heap, (-first[0], 0, n, first[1]))
    while heap and len(cuts) + 1 < max_bins:
        _, lo, hi, cut = heapq.heappop(heap)
        cuts.append(cut)
        for a, b in ((lo, cut), (cut, hi)):
            best = _best_cut(cum, starts, a, b)
            if best is not None:
                heapq.heappush(heap, (-best[0], a, b, best[1]))
    return np.sort(xs[np.asarray(cuts, dtype=np.intp)]) if cuts else np.empty(0)


def quantile_edges(x, n_bins):
    """Edges of ``n_bins`` equal-frequency bins (fewer when quantiles coincide)."""
    if x.shape[0] == 0:
        return np.empty(0)
    return np.unique(np.quantile(x, np.linspace(0, 1, n_bins + 1)[1:-1]))


def bin_edges(x, y, *, n_bins, binning):
    """Edges of one interval column by ``binning`` (``"mdlp"`` or ``"quantile"``)."""
    if binning == "mdlp":
        return mdlp_edges(x, y, n_bins)
    return quantile_edges(x, n_bins)
