"""An order of the rows fixed by their content, so that a seed's draws pick rows, not positions.

The approximation computes its projections on the rows in this order and
breaks their ties (rows of equal projection: binary features, repeated
records) in it (:mod:`._approx`, :mod:`._approx_points`); the certified
approximation draws its exact sample and checks rows of equal approximate
distance for the maxima in it; and copies of one row share the least
distance found for any of them (:func:`shared_by_copies`), so that the
sample's correction does not depend on which copy it drew. The same rows in
another order then give the same values for one seed: each row its own
value, the statistics up to the rounding of sums taken in another order.

The order is a 64-bit hash of each row's labels, features and group codes,
computed a column at a time (no copy of ``X``), sorted stably: copies of a
row are adjacent, and rows of another content share their hash only by a
collision (:func:`shared_by_copies` compares the rows themselves).
"""

import numpy as np

#: splitmix64's multipliers (its finaliser mixes each column into the hash).
_MIX = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


def _columns(X, labels, codes):
    """Each label, each feature and each attribute's codes, one column at a time."""
    for y in labels:
        yield np.asarray(y, dtype=np.float64)
    for j in range(X.shape[1]):
        yield X[:, j]
    for c in codes:
        yield np.asarray(c)


def content_order(X, labels, codes):
    """The rows in an order of their content (an index array of ``n_samples``).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    labels : list of ndarray of shape (n_samples,)
    codes : list of ndarray of shape (n_samples,)
        Group codes per attribute.

    Returns
    -------
    order : ndarray of shape (n_samples,), intp
        Sorted by a hash of each row's values (``-0.0`` as ``0.0``), stably:
        the same rows in any input order give the same sequence of contents.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> a = content_order(X, [np.zeros(3)], [np.array([0, 1, 0])])
    >>> b = content_order(X[::-1], [np.zeros(3)], [np.array([0, 1, 0])])
    >>> bool(np.array_equal(X[a], X[::-1][b]))
    True
    """
    h = np.zeros(X.shape[0], dtype=np.uint64)
    with np.errstate(over="ignore"):
        for col in _columns(X, labels, codes):
            bits = (np.asarray(col, dtype=np.float64) + 0.0).view(np.uint64)
            h ^= bits
            h ^= h >> np.uint64(30)
            h *= _MIX[0]
            h ^= h >> np.uint64(27)
            h *= _MIX[1]
            h ^= h >> np.uint64(31)
    return np.argsort(h, kind="stable")


def shared_by_copies(found, order, X, labels, codes):
    """Each row's distance the least found for any copy of it (same labels, features, groups).

    Every value found is a true distance from that point to a row of another
    group, so the least is one too, and copies get one value whatever their
    positions. ``found`` (..., n_samples) in the rows' order; ``order`` from
    :func:`content_order` on the same arguments. Returns a new array, or
    ``found`` itself when no row has a copy.
    """
    n = X.shape[0]
    if n < 2:
        return found
    same = np.ones(n - 1, dtype=bool)
    for col in _columns(X, labels, codes):
        ordered = np.asarray(col)[order]
        same &= ordered[1:] == ordered[:-1]
    if not same.any():
        return found
    new = np.r_[True, ~same]
    starts = np.flatnonzero(new)
    segment = np.cumsum(new) - 1
    out = np.empty_like(found)
    out[..., order] = np.minimum.reduceat(found[..., order], starts, axis=-1)[..., segment]
    return out
