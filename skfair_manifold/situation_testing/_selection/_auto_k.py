"""K from the data (``k="auto"``): per person, the testers that stay alike.

The paper leaves the choice of K open. A fixed K either starves a person who
has many similar records (too few testers, little power) or reaches, for a
person with few, into records that are no longer alike (testers from other
situations, a biased comparison). ``k="auto"`` chooses K per person from the
distances alone, before any decision of a tester is looked at (so the test on
the testers' decisions keeps its level, as with a fixed K):

* the *caliper* (:func:`auto_caliper`) is, for CBN-DD, ``tau / 2``: its
  distance (Eq. 5) is the change of the expected decision between two
  situations, so a tester within ``tau / 2`` comes from a situation whose
  rate differs from the person's by at most ``tau / 2``, and the two sides'
  drifts, however they point, cannot together make a gap above ``tau``, the
  legal threshold; for KNN-DD, whose distance knows nothing of the
  decision, the near distance within which the verdict already asks for
  enough testers (``_verdict``), 0.2: one attribute in five differing, or
  every one by a fifth of its range;
* ``within`` is the number of tester pairs within the caliper (CBN-DD, whose
  pairing is one to one) or the smaller of the two sides' testers within it
  (KNN-DD), one copy of the person's own record left out;
* K is the largest value of the geometric grid :data:`AUTO_GRID`
  (``AUTO_FLOOR * 2 ** (j / 4)`` up to :data:`AUTO_CEILING`) not above
  ``within``, and the floor when ``within`` is below it: a person with
  fewer than 50 alike records gets the paper's K = 50, the nearest ones
  (as today); one with 1,000 gets 400. The grid keeps at most 13 distinct K
  in an audit (each a pass of the selector over its people) and takes at
  least 84% of the testers within the caliper.

The ceiling bounds the cost and the memory (a pass costs what one at K = 400
costs); the floor keeps the paper's K where the caliper holds fewer records.
"""

import numpy as np

from .._constants import AUTO_CEILING, AUTO_FLOOR, AUTO_GRID, NEAR_DISTANCE

__all__ = ["AUTO_CEILING", "AUTO_FLOOR", "AUTO_GRID", "auto_caliper", "auto_k", "rates_at",
           "snap_to_grid"]


MSG_NO_WITHIN = (
    "k='auto' chooses each person's K from the testers within a distance, but method "
    "{method!r} does not count them (it has no caliper and within); pass an integer k."
)


def auto_caliper(method, tau):
    """The caliper of ``k="auto"`` for ``method`` ("cbn" or "knn") at the threshold ``tau``."""
    return float(tau) / 2.0 if method == "cbn" else NEAR_DISTANCE["knn"]


def snap_to_grid(within):
    """K of each person from the testers within the caliper: the grid's largest value
    not above ``within``, at least :data:`AUTO_FLOOR` (an int64 array)."""
    within = np.asarray(within, dtype=np.float64)
    at = np.searchsorted(AUTO_GRID, np.floor(within + 1e-9), side="right") - 1
    return AUTO_GRID[np.clip(at, 0, AUTO_GRID.shape[0] - 1)]


def auto_k(selector, Q, self_unit, caliper, *, n_jobs=None):
    """Each query's K under ``k="auto"`` (see the module's docstring).

    Parameters
    ----------
    selector : object
        With ``within(Q, self_unit, radius, cap, *, n_jobs)``: the testers of
        each side within ``radius`` of each query, at most ``cap``, shape (m, 2).
    Q : ndarray of shape (m, r)
        The queries as the selector compares them.
    self_unit : ndarray of shape (m,), dtype intp
    caliper : float
    n_jobs : int or None

    Returns
    -------
    k : ndarray of shape (m,), dtype int64
    """
    within = selector.within(Q, self_unit, caliper, AUTO_CEILING, n_jobs=n_jobs)
    return snap_to_grid(within.min(axis=1) if within.size else np.zeros(Q.shape[0]))


def rates_at(selector, Q, self_unit, k, *, n_jobs=None, cells=False):
    """``selector.rates`` with one K for all queries (an int) or one per query (an array).

    Queries of equal K are one pass of the selector; the results are put back
    in the queries' order (the cells' ``query`` numbers too).
    """
    if np.ndim(k) == 0:
        return selector.rates(Q, self_unit, int(k), n_jobs=n_jobs, cells=cells)
    k = np.asarray(k, dtype=np.int64)
    m = Q.shape[0]
    pos, n, w2 = np.zeros((m, 2)), np.zeros((m, 2)), np.zeros((m, 2))
    found = []
    values = np.unique(k)
    if values.shape[0] == 0:
        values = np.array([AUTO_FLOOR])
    for value in values:
        rows = np.flatnonzero(k == value)
        res = selector.rates(Q[rows], self_unit[rows], int(value), n_jobs=n_jobs,
                             cells=cells)
        pos[rows], n[rows], w2[rows] = res[0], res[1], res[2]
        if cells:
            part = res[3]
            part["query"] = rows[part["query"]]
            found.append(part)
    if not cells:
        return pos, n, w2
    merged = {name: np.concatenate([part[name] for part in found]) for name in found[0]}
    return pos, n, w2, merged
