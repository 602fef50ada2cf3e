"""The distances between sets by random projections (Algorithms 1-3 of the HFM paper)."""

from __future__ import annotations

from numbers import Integral
from typing import Literal

import numpy as np

from skfair_manifold.utils._sklearn_compat import Interval, StrOptions, validate_params
from skfair_manifold.utils._typing import ArrayLike, MatrixLike, RandomStateLike, SensitiveLike
from skfair_manifold.utils._sizes import MAX_PROJECTIONS, check_size
from skfair_manifold.utils._validation import column_1d
from skfair_manifold.distances._approx import approx_row_distances
from skfair_manifold.distances._approx_settings import resolve_settings
from skfair_manifold.distances._api import (
    MSG_W_NON_NUMERIC,
    _COMMON,
    _check_inputs,
    _result,
    _summarise,
)


@validate_params(
    {
        "X": ["array-like"],
        "y": ["array-like"],
        "a": ["array-like"],
        "w": ["array-like"],
        "m2": [Interval(Integral, 1, None, closed="left")],
        "candidates": [StrOptions({"positions", "others"})],
    },
    prefer_skip_nested_validation=True,
)
def accele_dist(
    X: MatrixLike,
    y: ArrayLike,
    a: ArrayLike,
    w: ArrayLike,
    *,
    m2: int,
    candidates: Literal["positions", "others"] = "positions",
) -> tuple[float, float]:
    """Distance between groups along one projection (Algorithm 3, AcceleDist).

    The rows are sorted by the projection ``(y_i, x_i) . w``. Each row is
    compared with the rows at the ``m2`` positions just below and just above
    it; those of another group are its candidates (when one side holds none,
    the nearest row of another group on that side is taken, so every row has
    a candidate). The row's distance is the smallest true Euclidean distance
    to a candidate, hence never below its exact distance to the other groups.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Non-sensitive features, numeric.
    y : array-like of shape (n_samples,)
        Numeric label or prediction.
    a : array-like of shape (n_samples,)
        The sensitive attribute, 2 or more groups.
    w : array-like of shape (1 + n_features,)
        The projection vector, label coordinate first (Eq. 9); non-zero.
    m2 : int
        Positions compared on each side (``>= 1``).
    candidates : {"positions", "others"}, default="positions"
        ``"positions"``: the rows of other groups among the ``m2`` positions
        on each side. ``"others"``: the ``m2`` rows of other groups nearest in
        projected order on each side (the paper's reading), however far they
        lie in that order; tighter on attributes with a dominant group.

    Returns
    -------
    d_max : float
        The largest row distance.
    d_sum : float
        The sum of the row distances (``n`` times the average, as in the
        paper).

    References
    ----------
    HFM paper, Algorithm 3 and Eq. (9).

    Examples
    --------
    >>> from skfair_manifold.distances import accele_dist
    >>> X = [[0.0], [1.0], [3.0], [4.0]]
    >>> d_max, d_sum = accele_dist(X, [0, 0, 1, 1], ["u", "v", "u", "v"], [0.0, 1.0], m2=1)
    >>> float(d_max), float(d_sum)
    (1.0, 4.0)
    """
    X, y, codes, names, groups = _check_inputs(
        X, y, a, single=("accele_dist", "extend_dist"))
    w = column_1d(w, "w")
    if w.dtype.kind not in "biuf":
        raise TypeError(MSG_W_NON_NUMERIC.format(example=w[0] if w.size else None))
    w = w.astype(np.float64)
    if w.shape[0] != X.shape[1] + 1:
        raise ValueError(
            f"w must have 1 + n_features = {X.shape[1] + 1} coordinates (label first); "
            f"got {w.shape[0]}.")
    if not np.all(np.isfinite(w)) or not np.any(w):
        raise ValueError("w must be a finite, non-zero projection vector.")
    rows = approx_row_distances(X, y, codes, m1=1, m2=m2, n_vectors=1, random_state=None,
                                projections=w[:, None], candidates=candidates)[0]
    return float(rows.max()), float(rows.sum())


_APPROX = {
    **_COMMON,
    "m1": [Interval(Integral, 1, None, closed="left")],
    "m2": [Interval(Integral, 1, None, closed="left"), None],
    "n_vectors": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state"],
    "reduce": [StrOptions({"row", "total"})],
    "candidates": [StrOptions({"positions", "others"})],
}


def _approx(X, y, codes, names, groups, *, m1, m2, n_vectors, random_state, n_jobs, reduce,
            candidates):
    n = X.shape[0]
    m2_used = resolve_settings(n, X.shape[1], m2, n_vectors)
    check_size(m1, name="m1", high=MAX_PROJECTIONS, bytes_per_unit=8 * n * n_vectors)
    out = approx_row_distances(X, y, codes, m1=m1, m2=m2_used, n_vectors=n_vectors,
                               random_state=random_state, n_jobs=n_jobs, reduce=reduce,
                               candidates=candidates)
    extra = dict(m1=m1, m2=m2_used, n_vectors=n_vectors, reduce=reduce, candidates=candidates)
    if reduce == "row":
        return _summarise(out, names, groups, **extra)
    rows, totals = out
    d_max_attr = totals[:, :, 0].min(axis=0)
    d_avg_attr = totals[:, :, 1].min(axis=0) / n
    _, _, details = _summarise(rows, names, groups, **extra)
    details.d_max, details.d_avg = d_max_attr, d_avg_attr
    return float(d_max_attr.max()), float(d_avg_attr.mean()), details


@validate_params({**_APPROX, "a": ["array-like"]}, prefer_skip_nested_validation=True)
def approx_dist(
    X: MatrixLike,
    y: ArrayLike,
    a: ArrayLike,
    *,
    m1: int = 25,
    m2: int | None = None,
    n_vectors: int = 2,
    random_state: RandomStateLike = None,
    n_jobs: int | None = None,
    reduce: Literal["row", "total"] = "row",
    candidates: Literal["positions", "others"] = "positions",
    return_details: bool = False,
) -> tuple:
    """Approximate distance between the groups of one attribute (Algorithm 2, ApproxDist).

    ``m1`` times, ``n_vectors`` orthonormal random vectors are drawn and
    :func:`accele_dist` is run along each. With ``reduce="row"`` (default)
    each row keeps the smallest distance found over all projections, and the
    maximum and mean of these row distances are returned. With
    ``reduce="total"`` the paper's aggregation is used instead: the minimum
    over projections of the maximum, and of the mean, each taken separately.
    Both never return less than the exact :func:`set_distance` (every kept
    distance is a true distance to a row of another group), and ``"row"`` is
    never above ``"total"``. With ``m2 >= n_samples - 1`` every row is
    compared with every other row and the result equals the exact one.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Non-sensitive features, numeric.
    y : array-like of shape (n_samples,)
        Numeric label or prediction.
    a : array-like of shape (n_samples,)
        The sensitive attribute, 2 or more groups.
    m1 : int, default=25
        Repetitions (draws of ``n_vectors`` orthonormal vectors).
    m2 : int, default=None
        Positions compared on each side of a row in projected order;
        ``None`` means ``ceil(2 * log10(n_samples))`` as in the paper.
    n_vectors : int, default=2
        Orthonormal vectors per repetition (2 in the paper), at most
        ``1 + n_features``.
    random_state : int, RandomState instance or None, default=None
        Draws the projection vectors; an int makes the result reproducible.
    n_jobs : int, default=None
        Workers over batches of projections (joblib threads). The result
        does not depend on it.
    reduce : {"row", "total"}, default="row"
        Per-row minimum over projections (tighter), or the paper's minimum
        of the totals.
    candidates : {"positions", "others"}, default="positions"
        Which rows near a row in projected order are compared with it (see
        :func:`accele_dist`): ``"positions"``, the rows of other groups among
        the ``m2`` positions on each side (fast); ``"others"``, the ``m2``
        rows of other groups nearest on each side, as the paper reads
        Algorithm 3 (slower, much tighter when one group dominates an
        attribute). Both never underestimate.
    return_details : bool, default=False
        Also return a :class:`~sklearn.utils.Bunch` with ``row_distances``,
        ``d_max``, ``d_avg``, ``attributes``, ``groups``, ``m1``, ``m2`` (the
        value used), ``n_vectors`` and ``reduce``.

    Returns
    -------
    d_max : float
        Approximation of Eq. 4 (never below it).
    d_avg : float
        Approximation of Eq. 5 (never below it).
    details : Bunch
        Only when ``return_details=True``.

    References
    ----------
    HFM paper, Algorithm 2 and Section 3.3.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair_manifold.distances import approx_dist, set_distance
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((300, 5))
    >>> y = (X[:, 0] > 0.5).astype(float)
    >>> a = rng.integers(0, 3, 300)
    >>> approx = approx_dist(X, y, a, random_state=0)
    >>> exact = set_distance(X, y, a)
    >>> # never below, up to the rounding of the two computations
    >>> bool(approx[0] >= exact[0] - 1e-12 and approx[1] >= exact[1] - 1e-12)
    True
    """
    X, y, codes, names, groups = _check_inputs(
        X, y, a, single=("approx_dist", "extend_dist"))
    return _result(*_approx(X, y, codes, names, groups, m1=m1, m2=m2, n_vectors=n_vectors,
                            random_state=random_state, n_jobs=n_jobs, reduce=reduce,
                            candidates=candidates),
                   return_details)


@validate_params({**_APPROX, "A": ["array-like"]}, prefer_skip_nested_validation=True)
def extend_dist(
    X: MatrixLike,
    y: ArrayLike,
    A: SensitiveLike,
    *,
    m1: int = 25,
    m2: int | None = None,
    n_vectors: int = 2,
    random_state: RandomStateLike = None,
    n_jobs: int | None = None,
    reduce: Literal["row", "total"] = "row",
    candidates: Literal["positions", "others"] = "positions",
    return_details: bool = False,
) -> tuple:
    """Approximate distance between groups over several attributes (Algorithm 1, ExtendDist).

    :func:`approx_dist` for every column of ``A``; returns the largest of the
    per-attribute maxima and the mean of the per-attribute averages
    (approximating Eq. 6 and 7, never below them). The attributes share the
    projections, the sorting and the candidate distances: one pass serves
    them all, so the result for each attribute equals :func:`approx_dist`
    with the same ``random_state``. The projections are spread over
    ``n_jobs`` workers.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Non-sensitive features, numeric.
    y : array-like of shape (n_samples,)
        Numeric label or prediction.
    A : array-like of shape (n_samples,) or (n_samples, n_attributes), or DataFrame
        Sensitive attributes, any hashable values, 2 or more groups each.
    m1 : int, default=25
        Repetitions (draws of ``n_vectors`` orthonormal vectors).
    m2 : int, default=None
        Positions compared on each side; ``None`` means
        ``ceil(2 * log10(n_samples))``.
    n_vectors : int, default=2
        Orthonormal vectors per repetition.
    random_state : int, RandomState instance or None, default=None
        Draws the projection vectors; an int makes the result reproducible.
    n_jobs : int, default=None
        Workers over batches of projections (joblib threads). The result
        does not depend on it.
    reduce : {"row", "total"}, default="row"
        Per-row minimum over projections, or the paper's minimum of totals.
    candidates : {"positions", "others"}, default="positions"
        Which rows near a row in projected order are compared with it (see
        :func:`accele_dist`): ``"positions"``, the rows of other groups among
        the ``m2`` positions on each side (fast); ``"others"``, the ``m2``
        rows of other groups nearest on each side, as the paper reads
        Algorithm 3 (slower, much tighter when one group dominates an
        attribute). Both never underestimate.
    return_details : bool, default=False
        Also return a :class:`~sklearn.utils.Bunch` with the per-attribute
        ``d_max`` and ``d_avg``, ``row_distances`` (n_samples,
        n_attributes), ``attributes``, ``groups`` and the parameters used.

    Returns
    -------
    d_max : float
        Approximation of Eq. 6.
    d_avg : float
        Approximation of Eq. 7.
    details : Bunch
        Only when ``return_details=True``.

    References
    ----------
    HFM paper, Algorithm 1.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair_manifold.distances import extend_dist, extended_set_distance
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((300, 5))
    >>> y = (X[:, 0] > 0.5).astype(float)
    >>> A = np.column_stack([rng.integers(0, 2, 300), rng.integers(0, 5, 300)])
    >>> d_max, d_avg, details = extend_dist(X, y, A, random_state=0, return_details=True)
    >>> exact = extended_set_distance(X, y, A)
    >>> bool(d_max >= exact[0] and d_avg >= exact[1]), details.m2
    (True, 5)
    """
    X, y, codes, names, groups = _check_inputs(X, y, A, single=False)
    return _result(*_approx(X, y, codes, names, groups, m1=m1, m2=m2, n_vectors=n_vectors,
                            random_state=random_state, n_jobs=n_jobs, reduce=reduce,
                            candidates=candidates),
                   return_details)
