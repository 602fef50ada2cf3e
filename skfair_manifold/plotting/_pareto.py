"""The Pareto front of a fairness-performance trade-off (numpy only)."""

import numpy as np
from numpy.typing import ArrayLike

MSG_PARETO_SHAPES = (
    "unfairness and performance must be 1-D and of the same length; got shapes {a} and {b}."
)
MSG_PARETO_NAN = (
    "unfairness and performance contain NaN at positions {positions}; drop those candidates "
    "(a scorer that failed during the search leaves NaN in cv_results_)."
)


def pareto_front(unfairness: ArrayLike, performance: ArrayLike) -> np.ndarray:
    """Indices of the candidates that no other candidate beats on both counts.

    A candidate is on the front when no other one is at least as fair (lower
    or equal ``unfairness``) and at least as good (higher or equal
    ``performance``) while strictly better on one of the two. Exact ties are
    all kept.

    Parameters
    ----------
    unfairness : array-like of shape (n_candidates,)
        Lower is fairer (for example ``hfm_avg``, or demographic parity).
    performance : array-like of shape (n_candidates,)
        Higher is better (for example the accuracy).

    Returns
    -------
    front : ndarray of int
        Indices of the candidates on the front, by increasing unfairness
        (and so, along the front, increasing performance).

    Examples
    --------
    >>> from skfair_manifold.plotting import pareto_front
    >>> pareto_front([0.1, 0.2, 0.3, 0.15], [0.70, 0.80, 0.75, 0.70])
    array([0, 1])
    """
    u = np.asarray(unfairness, dtype=np.float64)
    p = np.asarray(performance, dtype=np.float64)
    if u.ndim != 1 or p.shape != u.shape:
        raise ValueError(MSG_PARETO_SHAPES.format(a=u.shape, b=p.shape))
    bad = np.flatnonzero(np.isnan(u) | np.isnan(p))
    if bad.size:
        raise ValueError(MSG_PARETO_NAN.format(positions=bad.tolist()))
    # Sort by unfairness, best performance first among equals; a candidate is
    # on the front when its performance beats everything fairer than it.
    order = np.lexsort((-p, u))
    front = []
    best = -np.inf
    best_u = None
    for i in order:
        if p[i] > best:
            front.append(i)
            best, best_u = p[i], u[i]
        elif p[i] == best and u[i] == best_u:  # an exact tie with the last front point
            front.append(i)
    return np.asarray(front, dtype=np.intp)
