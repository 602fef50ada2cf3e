"""The exact distances between sets (Eq. 4-7 of the HFM paper)."""

from __future__ import annotations

from skfair_manifold.utils._sklearn_compat import validate_params
from skfair_manifold.utils._typing import ArrayLike, MatrixLike, SensitiveLike
from skfair_manifold.distances._exact import exact_row_distances
from skfair_manifold.distances._api import _COMMON, _check_inputs, _result, _summarise


@validate_params({**_COMMON, "a": ["array-like"]}, prefer_skip_nested_validation=True)
def set_distance(
    X: MatrixLike,
    y: ArrayLike,
    a: ArrayLike,
    *,
    n_jobs: int | None = None,
    return_details: bool = False,
) -> tuple:
    """Exact distance between the groups of one sensitive attribute (Eq. 4 and 5).

    The points are ``(y_i, x_i)``: the label (true label or prediction) as the
    first coordinate, then the non-sensitive features; the distance is
    Euclidean. For every row the distance to the nearest row of *another*
    group is found; ``d_max`` is the largest and ``d_avg`` the mean of these
    distances over all ``n`` rows.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Non-sensitive features, numeric (scale them as the paper does, e.g.
        to [0, 1], since the label is one coordinate among them).
    y : array-like of shape (n_samples,)
        Numeric label or prediction.
    a : array-like of shape (n_samples,)
        The sensitive attribute: any hashable values, 2 or more groups.
    n_jobs : int, default=None
        Number of parallel workers over blocks of rows (joblib, threads by
        default; ``joblib.parallel_config(backend="dask")`` runs them on a
        dask cluster). ``None`` means 1 unless in a ``parallel_config``
        context. The result does not depend on it.
    return_details : bool, default=False
        Also return a :class:`~sklearn.utils.Bunch` with ``row_distances``
        (n_samples, 1), ``d_max``, ``d_avg``, ``attributes`` and ``groups``.

    Returns
    -------
    d_max : float
        Eq. 4, the maximal distance.
    d_avg : float
        Eq. 5, the average distance.
    details : Bunch
        Only when ``return_details=True``.

    See Also
    --------
    extended_set_distance : Eq. 6 and 7, several attributes.
    approx_dist : the approximation of this function (Algorithm 2).

    References
    ----------
    HFM paper, Section 3.1.2, Eq. (4) and (5).

    Examples
    --------
    >>> from skfair_manifold.distances import set_distance
    >>> X = [[0.0], [1.0], [3.0], [4.0]]
    >>> y = [0, 0, 1, 1]
    >>> a = ["u", "v", "u", "v"]
    >>> d_max, d_avg = set_distance(X, y, a)
    >>> round(d_max, 6), round(d_avg, 6)
    (1.0, 1.0)
    """
    X, y, codes, names, groups = _check_inputs(
        X, y, a, single=("set_distance", "extended_set_distance"))
    rows = exact_row_distances(X, [y], codes, n_jobs=n_jobs)[0]
    return _result(*_summarise(rows, names, groups), return_details)


@validate_params({**_COMMON, "A": ["array-like"]}, prefer_skip_nested_validation=True)
def extended_set_distance(
    X: MatrixLike,
    y: ArrayLike,
    A: SensitiveLike,
    *,
    n_jobs: int | None = None,
    return_details: bool = False,
) -> tuple:
    """Exact distance between groups over several sensitive attributes (Eq. 6 and 7).

    Eq. 4 and 5 for each column of ``A``; ``d_max`` is the largest of the
    per-attribute maxima (Eq. 6) and ``d_avg`` the mean of the per-attribute
    averages (Eq. 7). All attributes share one pass over the data.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Non-sensitive features, numeric.
    y : array-like of shape (n_samples,)
        Numeric label or prediction.
    A : array-like of shape (n_samples,) or (n_samples, n_attributes), or DataFrame
        Sensitive attributes, any hashable values, 2 or more groups each.
    n_jobs : int, default=None
        Number of parallel workers over blocks of rows (see
        :func:`set_distance`). The result does not depend on it.
    return_details : bool, default=False
        Also return a :class:`~sklearn.utils.Bunch` with the per-attribute
        ``d_max`` and ``d_avg`` (arrays in the order of ``attributes``), the
        ``row_distances`` (n_samples, n_attributes) and the ``groups``: it
        shows which attribute drives the maximum.

    Returns
    -------
    d_max : float
        Eq. 6.
    d_avg : float
        Eq. 7.
    details : Bunch
        Only when ``return_details=True``.

    References
    ----------
    HFM paper, Section 3.1.3, Eq. (6) and (7).

    Examples
    --------
    >>> import numpy as np
    >>> from skfair_manifold.distances import extended_set_distance
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((200, 3))
    >>> y = (X[:, 0] > 0.5).astype(float)
    >>> A = np.column_stack([rng.integers(0, 2, 200), rng.integers(0, 4, 200)])
    >>> d_max, d_avg, details = extended_set_distance(X, y, A, return_details=True)
    >>> bool(d_max >= d_avg)
    True
    >>> details.d_max.shape, details.row_distances.shape
    ((2,), (200, 2))
    """
    X, y, codes, names, groups = _check_inputs(X, y, A, single=False)
    rows = exact_row_distances(X, [y], codes, n_jobs=n_jobs)[0]
    return _result(*_summarise(rows, names, groups), return_details)
