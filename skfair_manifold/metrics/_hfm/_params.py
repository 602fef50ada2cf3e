"""The options of the HFM metrics: their validation and their documentation.

Shared by :func:`hfm_max`, :func:`hfm_avg` and :func:`hfm_report` (``metrics/_hfm.py``),
which take the same options.
"""

from numbers import Integral, Real

from ...utils._sklearn_compat import Interval, StrOptions

PARAMS = {
    "y_true": ["array-like"],
    "y_pred": ["array-like"],
    "X": ["array-like", None],
    "sensitive_features": ["array-like"],
    "method": [StrOptions({"auto", "approx", "exact"})],
    "scale": ["boolean"],
    "m1": [Interval(Integral, 1, None, closed="left")],
    "m2": [Interval(Integral, 1, None, closed="left"), None],
    "n_vectors": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state"],
    "n_jobs": [Integral, None],
    "candidates": [StrOptions({"positions", "others"})],
    "sample_size": [Interval(Integral, 2, None, closed="left"), StrOptions({"auto"})],
    "max_checks": [Interval(Integral, 0, None, closed="left"), None],
    "confidence": [Interval(Real, 0, 1, closed="neither")],
    "n_boot": [Interval(Integral, 0, None, closed="left")],
}

PARAMS_DOC = """
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
        Required (keyword with no usable default: ``None`` raises and names the
        scorers to use instead of ``make_scorer``).

    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        One or several sensitive columns (1-D or 2-D array, Series,
        DataFrame), any hashable values, 2 or more groups each.

    method : {"auto", "approx", "exact"}, default="auto"
        ``"exact"``: Eq. 6 and 7. ``"approx"``: the certified approximation:
        ExtendDist (Algorithm 1, per-row minimum over projections, the same
        vectors for ``D`` and ``D_f``), its means corrected by the exact
        distances of a random sample of ``sample_size`` rows and its maxima
        made exact by checking rows in decreasing order of approximate
        distance (at most ``max_checks`` of them); see the user guide.
        ``"auto"``: the engine a cost model predicts faster on these rows
        (it counts the unique rows, which the exact engine computes once;
        constants measured on this package's engines, see the user guide);
        where it is exact the result is ``method="exact"``'s bit for bit.
        ``hfm_report(...).method`` says which ran, ``.auto`` the predictions.

    scale : bool, default=True
        Min-max scale every column of ``X`` to [0, 1] on the rows scored
        (constant columns become 0), as the paper does, so that a raw column
        such as an income in dollars cannot drown the label coordinate.

    m1 : int, default=5
        Repetitions of the projections (approximation only). The paper uses
        25; with the correction, 5 gives nearly the same interval of the
        means at a third of the time (measured in the user guide); pass
        ``m1=25`` for the paper's raw estimates (``report.raw``).

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
        :func:`skfair_manifold.distances.accele_dist`.

    sample_size : int or "auto", default="auto"
        Rows drawn at random (seeded by ``random_state``) whose exact
        distances correct the approximate means (approximation only). With
        ``sample_size >= n_samples`` the approximation gives the exact values.
        ``"auto"``: a pilot of 1,000 rows measures the spread of the
        approximation's error, and the sample grows to the size at which the
        relative error of ``d_avg`` (and ``d_f_avg``) passes 1% with a
        probability of about 1% (a 99% half-width of 1%; see the user guide).

    max_checks : int, default=None
        Rows checked exactly, beyond the sample, to make the maxima exact
        (approximation only); ``None`` means ``sample_size``. When the budget
        ends first, the maximum is the largest exact distance found and its
        interval in ``hfm_report(...).ci`` says how far it may be off. With
        ``sample_size="auto"``, ``None`` means the larger of the sample and
        4,000 rows.

    confidence : float, default=0.95
        Level of the intervals of the means in ``hfm_report(...).ci`` (and
        ``row_ci``)."""

LOG_NOTE = """
    Notes
    -----
    The logarithm is natural. The authors' code uses base 10: multiply by
    ``1 / ln(10) = 0.4343`` (``LOG10_FACTOR``) to compare with their figures.
    Negative values mean the predictions bring the groups closer together
    than the true labels do; positive values mean the model adds distance
    between groups (extra bias). Undefined values (``D = 0`` or ``D_f = 0``)
    give ``nan`` with an :class:`UndefinedFairnessWarning`."""
