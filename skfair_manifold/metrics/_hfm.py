"""The harmonic fairness measure via manifolds (HFM), HFM paper Eq. 8.

``df = log(D_f / D)``: ``D`` is the extended distance between groups of Eq. 6
(maximal) or Eq. 7 (average) with the true labels as the first coordinate of
every point, ``D_f`` the same with the predictions. Both come from one call to
the distance engine: the exact engine computes the feature part of the
distances once and derives both labels and every attribute from it.
"""

import warnings
from numbers import Integral

import numpy as np
from sklearn.utils import Bunch
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from .._validation import check_features, check_label, check_sensitive
from ..distances._approx import approx_row_distances, draw_projections, resolve_settings
from ..distances._exact import exact_row_distances
from ..distances._numerics import centre_integer_columns
from ._common import UndefinedFairnessWarning, check_pair

MSG_D_ZERO = (
    "{name} is undefined: D = 0 with the true labels, i.e. every row has an identical row "
    "(same features, same label) in another group{attr}, so the data give no distance to "
    "compare the model with. Returning nan (policy: undefined values are nan, never a "
    "sentinel)."
)
MSG_DF_ZERO = (
    "{name} is undefined: D_f = 0 with the predictions, i.e. every row has an identical "
    "row (same features, same prediction) in another group{attr}, and log(0) = -inf. "
    "Returning nan (policy: undefined values are nan, never a sentinel)."
)

#: ``df`` in the base-10 logarithm of the authors' code is ``df * LOG10_FACTOR``.
LOG10_FACTOR = 1.0 / np.log(10.0)

_PARAMS = {
    "y_true": ["array-like"],
    "y_pred": ["array-like"],
    "X": ["array-like"],
    "sensitive_features": ["array-like"],
    "method": [StrOptions({"approx", "exact"})],
    "scale": ["boolean"],
    "m1": [Interval(Integral, 1, None, closed="left")],
    "m2": [Interval(Integral, 1, None, closed="left"), None],
    "n_vectors": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state"],
    "n_jobs": [Integral, None],
    "candidates": [StrOptions({"positions", "others"})],
}

_PARAMS_DOC = """
    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels. Numeric labels are used as they are (the label is the
        first coordinate of each point, so multi-class labels 0..k-1 work as
        is); other labels (strings) are coded 0..k-1 in sorted order over
        ``y_true`` and ``y_pred`` together.

    y_pred : array-like of shape (n_samples,)
        Predicted labels, coded like ``y_true``.

    X : array-like of shape (n_samples, n_features)
        The non-sensitive features (the paper's ``x`` without ``a``), numeric.

    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        One or several sensitive columns (1-D or 2-D array, Series,
        DataFrame), any hashable values, 2 or more groups each.

    method : {"approx", "exact"}, default="approx"
        ``"approx"``: ExtendDist (Algorithm 1) with the per-row minimum over
        projections; both ``D`` and ``D_f`` use the same projection vectors.
        Each is an upper bound of its exact value, so their ratio carries no
        bound, only the approximation's error. ``"exact"``: Eq. 6 and 7.

    scale : bool, default=True
        Min-max scale every column of ``X`` to [0, 1] on the rows scored
        (constant columns become 0), as the paper does, so that a raw column
        such as an income in dollars cannot drown the label coordinate.

    m1 : int, default=25
        Repetitions of the projections (``method="approx"`` only).

    m2 : int, default=None
        Positions compared on each side of a row in projected order;
        ``None`` means ``ceil(2 * log10(n_samples))`` (``method="approx"``).

    n_vectors : int, default=2
        Orthonormal vectors per repetition (``method="approx"``), at most
        ``1 + n_features``.

    random_state : int, RandomState instance or None, default=None
        Draws the projection vectors (``method="approx"``).

    n_jobs : int, default=None
        Workers for the distance engine (joblib); the value does not depend
        on it.

    candidates : {"positions", "others"}, default="positions"
        Rows compared in projected order (``method="approx"``): the rows of
        other groups among the ``m2`` positions on each side (fast), or the
        ``m2`` rows of other groups nearest on each side (the paper's
        reading; tighter when one group dominates an attribute). See
        :func:`skfair_manifold.distances.accele_dist`."""

_LOG_NOTE = """
    Notes
    -----
    The logarithm is natural. The authors' code uses base 10: multiply by
    ``1 / ln(10) = 0.4343`` (``LOG10_FACTOR``) to compare with their figures.
    Negative values mean the predictions bring the groups closer together
    than the true labels do; positive values mean the model adds distance
    between groups (extra bias). Undefined values (``D = 0`` or ``D_f = 0``)
    give ``nan`` with an :class:`UndefinedFairnessWarning`."""


def _encode_labels(y_true, y_pred, n_samples):
    """Both label vectors as float64; non-numeric labels coded jointly 0..k-1."""
    y_true, y_pred = check_pair(y_true, y_pred)
    numeric = all(y.dtype.kind in "biuf" for y in (y_true, y_pred))
    if not numeric:
        try:
            classes = np.union1d(y_true, y_pred)
        except TypeError:
            raise TypeError(
                "y_true and y_pred mix values that cannot be compared; use one type.")
        y_true = np.searchsorted(classes, y_true)
        y_pred = np.searchsorted(classes, y_pred)
    return (check_label(y_true, n_samples, name="y_true"),
            check_label(y_pred, n_samples, name="y_pred"))


def _min_max(X):
    lo = X.min(axis=0)
    span = X.max(axis=0) - lo
    span[span == 0] = 1.0
    return (X - lo) / span


def _row_distances(y_true, y_pred, X, sensitive_features, *, method, scale, m1, m2,
                   n_vectors, random_state, n_jobs, candidates="positions"):
    """Validated inputs -> row distances (2, n_attributes, n_samples), names, extras."""
    X = check_features(centre_integer_columns(X))
    n = X.shape[0]
    if n < 2:
        raise ValueError("X has a single row: at least 2 rows are needed.")
    y_true, y_pred = _encode_labels(y_true, y_pred, n)
    codes, names, _ = check_sensitive(sensitive_features, n, name="sensitive_features")
    if scale:
        X = _min_max(X)
    if method == "exact":
        return exact_row_distances(X, [y_true, y_pred], codes, n_jobs=n_jobs), names, {}
    m2 = resolve_settings(n, X.shape[1], m2, n_vectors)
    # The same vectors for both labels: D and D_f differ only by the label.
    W = draw_projections(X.shape[1] + 1, m1, n_vectors, random_state)
    rows = np.stack([
        approx_row_distances(X, y, codes, m1=m1, m2=m2, n_vectors=n_vectors,
                             random_state=None, n_jobs=n_jobs, projections=W,
                             candidates=candidates)
        for y in (y_true, y_pred)])
    return rows, names, {"m1": m1, "m2": m2, "n_vectors": n_vectors, "candidates": candidates}


def _log_ratio(num, den):
    """``log(num / den)`` with nan where it is undefined (either side 0)."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    out = np.full(np.broadcast(num, den).shape, np.nan)
    ok = (num > 0) & (den > 0)
    np.log(num / np.where(ok, den, 1.0), out=out, where=ok)
    return out


def _warn_undefined(name, d, d_f, attr=""):
    if d == 0:
        warnings.warn(MSG_D_ZERO.format(name=name, attr=attr), UndefinedFairnessWarning,
                      stacklevel=3)
    elif d_f == 0:
        warnings.warn(MSG_DF_ZERO.format(name=name, attr=attr), UndefinedFairnessWarning,
                      stacklevel=3)


def _summary(rows, names, method, extras):
    d_attr = rows.max(axis=2)  # (2, n_attributes): Eq. 4 per label
    a_attr = rows.mean(axis=2)  # Eq. 5 per label
    D, D_f = float(d_attr[0].max()), float(d_attr[1].max())  # Eq. 6
    A, A_f = float(a_attr[0].mean()), float(a_attr[1].mean())  # Eq. 7
    return Bunch(
        hfm_max=float(_log_ratio(D_f, D)),
        hfm_avg=float(_log_ratio(A_f, A)),
        d_max=D, d_f_max=D_f, d_avg=A, d_f_avg=A_f,
        attributes=list(names),
        per_attribute=Bunch(
            hfm_max=_log_ratio(d_attr[1], d_attr[0]),
            hfm_avg=_log_ratio(a_attr[1], a_attr[0]),
            d_max=d_attr[0], d_f_max=d_attr[1], d_avg=a_attr[0], d_f_avg=a_attr[1],
        ),
        row_distances_true=rows[0].T.copy(),
        row_distances_pred=rows[1].T.copy(),
        method=method,
        log_base="e",
        **extras,
    )


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
def hfm_report(y_true, y_pred, *, X, sensitive_features, method="approx", scale=True, m1=25,
               m2=None, n_vectors=2, random_state=None, n_jobs=None, candidates="positions"):
    """Both HFM values, the four distances and the per-attribute breakdown, in one call.

    One pass of the distance engine gives everything: Eq. 4-7 for the true
    labels (``D``) and the predictions (``D_f``), then Eq. 8a and 8b overall
    and for each attribute alone.
    {params}

    Returns
    -------
    report : :class:`~sklearn.utils.Bunch`
        ``hfm_max``, ``hfm_avg`` (Eq. 8a, 8b, natural log); ``d_max``,
        ``d_f_max`` (Eq. 6 with true labels, with predictions); ``d_avg``,
        ``d_f_avg`` (Eq. 7); ``attributes`` (column names or positions);
        ``per_attribute``, a Bunch of arrays in the order of ``attributes``:
        ``hfm_max``, ``hfm_avg`` (the paper's ``df_i``, ``df_avg_i``),
        ``d_max``, ``d_f_max``, ``d_avg``, ``d_f_avg`` (Eq. 4, 5);
        ``row_distances_true`` and ``row_distances_pred`` of shape
        (n_samples, n_attributes); ``method``, ``log_base`` and, for
        ``method="approx"``, ``m1``, ``m2`` (the value used), ``n_vectors``.
    {notes}

    See Also
    --------
    hfm_max, hfm_avg : one value each.

    References
    ----------
    HFM paper, Section 3.1, Eq. (4)-(8); Table II reports ``df_i`` per attribute.

    Examples
    --------
    >>> import pandas as pd
    >>> from skfair_manifold.metrics import hfm_report
    >>> X = [[0.0], [0.1], [0.3], [0.6], [0.8], [1.0]]
    >>> A = pd.DataFrame({{"sex": [0, 1, 0, 1, 0, 1], "race": list("aabbcc")}})
    >>> y_true = [0, 0, 0, 1, 1, 1]
    >>> y_pred = [0, 1, 0, 1, 1, 1]
    >>> r = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method="exact")
    >>> round(r.hfm_max, 4), round(r.hfm_avg, 4)
    (0.9359, 0.7371)
    >>> pd.DataFrame(r.per_attribute, index=r.attributes).round(3)
          hfm_max  hfm_avg  d_max  d_f_max  d_avg  d_f_avg
    sex     1.629    1.201    0.2     1.02  0.167    0.554
    race    0.223    0.236    0.4     0.50  0.250    0.317
    """
    rows, names, extras = _row_distances(
        y_true, y_pred, X, sensitive_features, method=method, scale=scale, m1=m1, m2=m2,
        n_vectors=n_vectors, random_state=random_state, n_jobs=n_jobs, candidates=candidates)
    report = _summary(rows, names, method, extras)
    _warn_undefined("hfm_max", report.d_max, report.d_f_max)
    _warn_undefined("hfm_avg", report.d_avg, report.d_f_avg)
    return report


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
def hfm_max(y_true, y_pred, *, X, sensitive_features, method="approx", scale=True, m1=25,
            m2=None, n_vectors=2, random_state=None, n_jobs=None, candidates="positions"):
    """Maximal harmonic fairness measure via manifolds, ``df = log(D_f / D)`` (Eq. 8a).

    ``D`` is the largest, over the sensitive attributes and the rows, of the
    distance from a row to the nearest row of another group, with the true
    label as the first coordinate of every point (Eq. 4, 6); ``D_f`` is the
    same with the predictions. Lower is fairer; 0 means the model keeps the
    groups as far apart as the data do.
    {params}

    Returns
    -------
    df : float
        Natural log of ``D_f / D``; ``nan`` when undefined.
    {notes}

    See Also
    --------
    hfm_avg : Eq. 8b, less sensitive to single rows.
    hfm_report : both values and the per-attribute breakdown in one call.

    References
    ----------
    HFM paper, Section 3.1.3, Eq. (6) and (8a).

    Examples
    --------
    >>> from skfair_manifold.metrics import hfm_max
    >>> X = [[0.0], [0.1], [0.3], [0.6], [0.8], [1.0]]
    >>> sex = [0, 1, 0, 1, 0, 1]
    >>> y_true = [0, 0, 0, 1, 1, 1]
    >>> y_pred = [0, 1, 0, 1, 1, 1]
    >>> round(hfm_max(y_true, y_pred, X=X, sensitive_features=sex, method="exact"), 4)
    1.629
    """
    rows, names, extras = _row_distances(
        y_true, y_pred, X, sensitive_features, method=method, scale=scale, m1=m1, m2=m2,
        n_vectors=n_vectors, random_state=random_state, n_jobs=n_jobs, candidates=candidates)
    d, d_f = rows[0].max(), rows[1].max()
    _warn_undefined("hfm_max", d, d_f)
    return float(_log_ratio(d_f, d))


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
def hfm_avg(y_true, y_pred, *, X, sensitive_features, method="approx", scale=True, m1=25,
            m2=None, n_vectors=2, random_state=None, n_jobs=None, candidates="positions"):
    """Average harmonic fairness measure via manifolds, ``log(D_f^avg / D^avg)`` (Eq. 8b).

    ``D^avg`` is the mean over the sensitive attributes (Eq. 7) of the mean
    over all rows of the distance from a row to the nearest row of another
    group, with the true label as the first coordinate of every point
    (Eq. 5); ``D_f^avg`` is the same with the predictions. Lower is fairer.
    {params}

    Returns
    -------
    df_avg : float
        Natural log of ``D_f^avg / D^avg``; ``nan`` when undefined.
    {notes}

    See Also
    --------
    hfm_max : Eq. 8a.
    hfm_report : both values and the per-attribute breakdown in one call.

    References
    ----------
    HFM paper, Section 3.1.3, Eq. (7) and (8b).

    Examples
    --------
    >>> from skfair_manifold.metrics import hfm_avg
    >>> X = [[0.0], [0.1], [0.3], [0.6], [0.8], [1.0]]
    >>> sex = [0, 1, 0, 1, 0, 1]
    >>> y_true = [0, 0, 0, 1, 1, 1]
    >>> y_pred = [0, 1, 0, 1, 1, 1]
    >>> round(hfm_avg(y_true, y_pred, X=X, sensitive_features=sex, method="exact"), 4)
    1.2013
    """
    rows, names, extras = _row_distances(
        y_true, y_pred, X, sensitive_features, method=method, scale=scale, m1=m1, m2=m2,
        n_vectors=n_vectors, random_state=random_state, n_jobs=n_jobs, candidates=candidates)
    d, d_f = rows[0].mean(axis=1).mean(), rows[1].mean(axis=1).mean()
    _warn_undefined("hfm_avg", d, d_f)
    return float(_log_ratio(d_f, d))


for _f in (hfm_report, hfm_max, hfm_avg):
    _f.__doc__ = _f.__doc__.format(params=_PARAMS_DOC, notes=_LOG_NOTE)
del _f
