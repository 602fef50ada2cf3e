"""The harmonic fairness measure via manifolds (HFM), HFM paper Eq. 8.

``df = log(D_f / D)``: ``D`` is the extended distance between groups of Eq. 6
(maximal) or Eq. 7 (average) with the true labels as the first coordinate of
every point, ``D_f`` the same with the predictions. Both come from one call to
the distance engine: the exact engine computes the feature part of the
distances once and derives both labels and every attribute from it.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from statistics import NormalDist
from typing import Literal

import numpy as np
from sklearn.utils import Bunch, check_random_state

from ..distances._approx import approx_row_distances, draw_projections, resolve_settings
from ..distances._certified import certify, mean_covariance, mean_estimate
from ..distances._exact import ExactEngine, nearest_rows
from ..distances._reuse import exact_rows
from ..distances._sample_size import adaptive_sample
from ..distances._numerics import distance_features
from ..utils._docstring import Substitution
from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ..utils._typing import ArrayLike, MatrixLike, RandomStateLike, SensitiveLike
from ..utils._validation import (
    MSG_LENGTH,
    MSG_TOO_FEW_ROWS,
    check_features,
    encode_sensitive,
    label_coordinates,
)
from ._common import UndefinedFairnessWarning
from ._hfm_bootstrap import hfm_row_intervals

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

#: Repetitions of the projections of the certified approximation (the paper: 25).
DEFAULT_M1 = 5
#: Rows checked for the maxima at least (``sample_size="auto"``), and the sample of
#: ``exact_is_cheaper``'s rule.
DEFAULT_SAMPLE_SIZE = 4000
#: Crossover of ``method="auto"`` in rows (see :func:`exact_is_cheaper`).
AUTO_ROWS = 12_500

MSG_X_REQUIRED = (
    "X is required: HFM measures distances between the groups in the space of the features "
    "X and the label. A scorer made with sklearn.metrics.make_scorer(hfm_avg) or "
    "make_scorer(hfm_max) cannot pass X (it sees only y_true, y_pred and metadata): use "
    "skfair_manifold.scorers.hfm_avg_scorer or hfm_max_scorer, or make_hfm_scorer(...) for "
    "other options."
)

#: ``df`` in the base-10 logarithm of the authors' code is ``df * LOG10_FACTOR``.
LOG10_FACTOR = 1.0 / np.log(10.0)

_PARAMS = {
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
        ``"auto"``: exact where it is the faster engine (a rule in the
        number of rows and features measured on this package's engines, see
        the user guide), the certified approximation beyond; the report's
        ``method`` says which ran.

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
        approximation's error, and the sample grows to the size that gives
        the interval of ``d_avg`` (and ``d_f_avg``) a relative half-width of
        2% (see the user guide).

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
    y_true, y_pred = label_coordinates(y_true, y_pred)
    if y_true.shape[0] != n_samples:
        raise ValueError(MSG_LENGTH.format(name="y_true", got=y_true.shape[0], other="X",
                                           expected=n_samples))
    return y_true, y_pred


def _min_max(X):
    lo = X.min(axis=0)
    span = X.max(axis=0) - lo
    span[span == 0] = 1.0
    return (X - lo) / span


def _prepare(y_true, y_pred, X, sensitive_features, *, scale):
    if X is None:
        raise TypeError(MSG_X_REQUIRED)
    X = check_features(distance_features(X))
    n = X.shape[0]
    if n < 2:
        raise ValueError(MSG_TOO_FEW_ROWS.format(name="X"))
    y_true, y_pred = _encode_labels(y_true, y_pred, n)
    codes, names, groups = encode_sensitive(sensitive_features, n)
    if scale:
        X = _min_max(X)
    return X, y_true, y_pred, codes, names, groups


def exact_is_cheaper(n_samples, n_features, *, sample_size=DEFAULT_SAMPLE_SIZE):
    """The crossover rule of ``method="auto"``: ``True`` where exact is the faster engine.

    Exact costs about ``n^2 (p + 3)`` multiply-adds; the certified
    approximation (default ``m1``) costs ``n`` times a per-row term of the
    projections plus ``(sample_size + checks) * n * (p + 3)`` for its exact
    checks. Both grow about linearly with the number of features ``p``, so
    the crossover is a number of rows, which grows with the sample: with a
    sample of 4,000 rows it was measured at about 12,500 rows with 20
    features and between 10,000 and 20,000 (within the noise of the machine)
    with 100; with the adaptive size (``"auto"``, a pilot of 1,000 rows on
    the uniform data of ``benchmarks/bench_hfm.py --crossover``) at about
    12,500 with 20 and between 12,500 and 17,500 with 100 (see the user
    guide). The rule is ``n <= max(sample_size, AUTO_ROWS)`` (``AUTO_ROWS``
    for ``"auto"``); ``n_features`` is taken so that a rule measured
    otherwise can use it.
    """
    del n_features  # no measured move of the crossover with it (20 to 100)
    if not isinstance(sample_size, Integral):  # "auto": the size is known after the pilot
        sample_size = 0
    return n_samples <= max(sample_size, AUTO_ROWS)


def _row_distances(X, y_true, y_pred, codes, *, method, m1, m2, n_vectors, rng, n_jobs,
                   candidates):
    if method == "exact":
        # Reused across the calls of a search (same rows, new predictions);
        # equal bit for bit to exact_row_distances.
        return exact_rows(X, [y_true, y_pred], codes, n_jobs=n_jobs)
    n = X.shape[0]
    # The same vectors for both labels: D and D_f differ only by the label.
    W = draw_projections(X.shape[1] + 1, m1, n_vectors, rng)
    return np.stack([
        approx_row_distances(X, y, codes, m1=m1, m2=m2, n_vectors=n_vectors,
                             random_state=None, n_jobs=n_jobs, projections=W,
                             candidates=candidates)
        for y in (y_true, y_pred)])


def _compute(y_true, y_pred, X, sensitive_features, *, method, scale, m1, m2, n_vectors,
             random_state, n_jobs, candidates, sample_size="auto",
             max_checks=None, confidence=0.95, want_max=True, want_avg=True,
             with_witnesses=False, n_boot=0):
    """Validated inputs -> the full report (see :func:`hfm_report`)."""
    X, y_true, y_pred, codes, names, groups = _prepare(y_true, y_pred, X,
                                                       sensitive_features, scale=scale)
    report = _compute_report(X, y_true, y_pred, codes, names, method=method, m1=m1, m2=m2,
                             n_vectors=n_vectors, random_state=random_state, n_jobs=n_jobs,
                             candidates=candidates, sample_size=sample_size,
                             max_checks=max_checks, confidence=confidence,
                             want_max=want_max)
    if with_witnesses:
        report.witnesses = _witnesses(X, (y_true, y_pred), codes, names, groups, report)
    report.row_ci = None if not n_boot else hfm_row_intervals(
        X, (y_true, y_pred), codes, report, n_boot=n_boot, confidence=confidence,
        random_state=random_state, sample=report.get("sample_rows"),
        sample_exact=report.get("sample_distances"))
    return report


def _compute_report(X, y_true, y_pred, codes, names, *, method, m1, m2, n_vectors,
                    random_state, n_jobs, candidates, sample_size, max_checks, confidence,
                    want_max):
    n, p = X.shape
    m2 = resolve_settings(n, p, m2, n_vectors)  # checks n_vectors for every method
    requested = method
    if method == "auto":
        method = "exact" if exact_is_cheaper(n, p, sample_size=sample_size) else "approx"
    extras = {"requested_method": requested, "confidence": confidence}
    if method == "exact":
        rows = _row_distances(X, y_true, y_pred, codes, method="exact", m1=m1, m2=m2,
                              n_vectors=n_vectors, rng=None, n_jobs=n_jobs,
                              candidates=candidates)
        return _exact_summary(rows, names, extras)
    rng = check_random_state(random_state)
    rows = _row_distances(X, y_true, y_pred, codes, method="approx", m1=m1, m2=m2,
                          n_vectors=n_vectors, rng=rng, n_jobs=n_jobs, candidates=candidates)
    engine = ExactEngine(X, [y_true, y_pred], codes)
    if sample_size == "auto":  # the size from a pilot (distances/_sample_size.py)
        sample, engine, _ = adaptive_sample(rows, engine, rng, confidence=confidence,
                                            n_jobs=n_jobs)
        budget = max(sample.size, DEFAULT_SAMPLE_SIZE) if max_checks is None else max_checks
    else:
        sample = np.sort(rng.choice(n, size=min(sample_size, n), replace=False))
        budget = sample_size if max_checks is None else max_checks
    cert = certify(rows, engine, sample, max_checks=budget, want_max=want_max,
                   n_jobs=n_jobs)
    extras.update(m1=m1, m2=m2, n_vectors=n_vectors, candidates=candidates,
                  sample_size=int(sample.size), sample_rows=sample,
                  sample_distances=cert.sample_exact)
    return _certified_summary(rows, cert, sample, names, extras, budget)


#: Rows in the table of the rows whose distance the model changed most.
N_CHANGED = 10
_LABELS = ("y_true", "y_pred")


def _witnesses(X, labels, codes, names, groups, report):
    """The people behind the maxima, and the rows the model moved most.

    ``maxima``: per label vector and attribute, the row of the largest row
    distance (the first such row; with the approximation, the largest
    approximate one), the nearest row of another group found by a plain
    search over all rows, both groups and the exact distance between them;
    ``overall`` marks the attribute of Eq. 6's maximum. ``changed``: the
    ``N_CHANGED`` rows whose mean distance over the attributes moved most
    from the true labels to the predictions (``d_f - d``, largest magnitude
    first, ties by row).
    """
    rows = np.stack([report.row_distances_true.T, report.row_distances_pred.T])
    maxima = []
    for l, name in enumerate(_LABELS):
        found = []
        for k, attribute in enumerate(names):
            i = int(np.argmax(rows[l, k]))
            j, dist = nearest_rows(X, labels[l], codes[k], [i])
            found.append(Bunch(labels=name, attribute=attribute, row=i,
                               group=groups[k][codes[k][i]], nearest_row=int(j[0]),
                               nearest_group=groups[k][codes[k][j[0]]],
                               distance=float(dist[0]), overall=False))
        top = max(range(len(found)), key=lambda k: (found[k].distance, -k))
        found[top].overall = True
        maxima.extend(found)
    d, d_f = rows[0].mean(axis=0), rows[1].mean(axis=0)
    change = d_f - d
    order = np.lexsort((np.arange(change.size), -np.abs(change)))[:N_CHANGED]
    changed = [Bunch(row=int(i), d=float(d[i]), d_f=float(d_f[i]), change=float(change[i]))
               for i in order]
    return Bunch(maxima=maxima, changed=changed)


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


def _pair(low, high):
    return (float(low), float(high))


def _pairs(low, high):
    return np.column_stack([np.asarray(low, dtype=float), np.asarray(high, dtype=float)])


def _values(d_attr, a_attr):
    """Eq. 6-8 from the per-attribute maxima (2, K) and means (2, K)."""
    D, D_f = float(d_attr[0].max()), float(d_attr[1].max())  # Eq. 6
    A, A_f = float(a_attr[0].mean()), float(a_attr[1].mean())  # Eq. 7
    return Bunch(
        hfm_max=float(_log_ratio(D_f, D)), hfm_avg=float(_log_ratio(A_f, A)),
        d_max=D, d_f_max=D_f, d_avg=A, d_f_avg=A_f,
        per_attribute=Bunch(
            hfm_max=_log_ratio(d_attr[1], d_attr[0]),
            hfm_avg=_log_ratio(a_attr[1], a_attr[0]),
            d_max=d_attr[0], d_f_max=d_attr[1], d_avg=a_attr[0], d_f_avg=a_attr[1],
        ),
    )


def _report(values, raw, ci, ci_attr, rows, names, method, extras):
    values.per_attribute.ci = ci_attr
    return Bunch(
        **{k: v for k, v in values.items()},
        ci=ci,
        raw=raw,
        attributes=list(names),
        row_distances_true=rows[0].T.copy(),
        row_distances_pred=rows[1].T.copy(),
        method=method,
        log_base="e",
        **extras,
    )


def _exact_summary(rows, names, extras):
    values = _values(rows.max(axis=2), rows.mean(axis=2))
    keys = ("d_max", "d_f_max", "d_avg", "d_f_avg", "hfm_max", "hfm_avg")
    ci = Bunch(**{k: _pair(values[k], values[k]) for k in keys})
    per = values.per_attribute
    ci_attr = Bunch(**{k: _pairs(per[k], per[k]) for k in keys})
    raw = _values(rows.max(axis=2), rows.mean(axis=2))
    n_attr = rows.shape[1]
    extras = dict(extras, max_check=Bunch(
        n_checked=0, budget=0, d_max_exact=True, d_f_max_exact=True,
        per_attribute_exact=np.ones((2, n_attr), dtype=bool)))
    return _report(values, raw, ci, ci_attr, rows, names, "exact", extras)


def _log_ratio_interval(num, den, var_num, var_den, cov, z):
    """Delta-method interval of ``log(num / den)`` with correlated estimates."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    centre = _log_ratio(num, den)
    ok = (num > 0) & (den > 0)
    safe_num, safe_den = np.where(ok, num, 1.0), np.where(ok, den, 1.0)
    var = var_num / safe_num ** 2 + var_den / safe_den ** 2 - 2 * cov / (safe_num * safe_den)
    half = z * np.sqrt(np.maximum(var, 0.0))
    return np.where(ok, centre - half, np.nan), np.where(ok, centre + half, np.nan)


def _certified_summary(rows, cert, sample, names, extras, budget):
    """Corrected values, certain bounds of the maxima, intervals of the means."""
    n_labels, n_attr, n = rows.shape
    z = NormalDist().inv_cdf(0.5 + extras["confidence"] / 2)
    raw_max, raw_mean = rows.max(axis=2), rows.mean(axis=2)  # (2, K)
    # Rows checked for the maxima are known exactly (a stratum of their own);
    # the sample estimates the mean excess of the n_u other rows.
    checked = cert.checked_rows
    n_u = n - checked.size
    in_rest = ~np.isin(sample, checked)
    excess = rows[:, :, sample[in_rest]] - cert.sample_exact[:, :, in_rest]  # (2, K, s_u)
    known_sum = cert.checked_exact.sum(axis=2)  # (2, K)
    rest_sum = rows.sum(axis=2) - rows[:, :, checked].sum(axis=2)
    weight = n_u / n
    # The exact mean is never above the approximate one: a certain upper bound.
    upper_k = (known_sum + rest_sum) / n

    def corrected(rest_mean, exc, known, upper):
        est, var, shift = mean_estimate(rest_mean, exc, n_u)
        est = np.clip(known / n + weight * est, 0.0, upper)
        var, shift = weight ** 2 * var, weight * shift
        half = z * np.sqrt(var)
        low = np.clip(est - shift - half, 0.0, upper)
        high = np.clip(est - shift + half, 0.0, upper)
        return est, var, shift, low, high

    # Per attribute and label: Eq. 5 corrected.
    mean_k, var_k, shift_k, low_k, high_k = corrected(
        rest_sum / max(n_u, 1), excess, known_sum, upper_k)
    cov_k = weight ** 2 * mean_covariance(excess[0], excess[1], n_u)
    # Eq. 7 over attributes: the mean over attributes of the per-row excess.
    mean_all, var_all, shift_all, low_all, high_all = corrected(
        rest_sum.mean(axis=1) / max(n_u, 1), excess.mean(axis=1), known_sum.mean(axis=1),
        upper_k.mean(axis=1))
    cov_all = weight ** 2 * mean_covariance(excess[0].mean(axis=0), excess[1].mean(axis=0),
                                            n_u)
    # The maxima: the largest exact distance found, with certain bounds.
    max_low, max_high = cert.max_low, cert.max_high
    values = _values(max_low, mean_k)
    values.d_avg, values.d_f_avg = float(mean_all[0]), float(mean_all[1])
    values.hfm_avg = float(_log_ratio(mean_all[1], mean_all[0]))
    avg_lo, avg_hi = _log_ratio_interval(mean_all[1] - shift_all[1],
                                         mean_all[0] - shift_all[0], var_all[1], var_all[0],
                                         cov_all, z)
    avg_lo_k, avg_hi_k = _log_ratio_interval(mean_k[1] - shift_k[1], mean_k[0] - shift_k[0],
                                             var_k[1], var_k[0], cov_k, z)
    D_lo, D_hi = max_low.max(axis=1), max_high.max(axis=1)  # Eq. 6, per label
    ci = Bunch(
        d_max=_pair(D_lo[0], D_hi[0]), d_f_max=_pair(D_lo[1], D_hi[1]),
        d_avg=_pair(low_all[0], high_all[0]), d_f_avg=_pair(low_all[1], high_all[1]),
        hfm_max=_pair(_log_ratio(D_lo[1], D_hi[0]), _log_ratio(D_hi[1], D_lo[0])),
        hfm_avg=_pair(avg_lo, avg_hi),
    )
    ci_attr = Bunch(
        d_max=_pairs(max_low[0], max_high[0]), d_f_max=_pairs(max_low[1], max_high[1]),
        d_avg=_pairs(low_k[0], high_k[0]), d_f_avg=_pairs(low_k[1], high_k[1]),
        hfm_max=_pairs(_log_ratio(max_low[1], max_high[0]),
                       _log_ratio(max_high[1], max_low[0])),
        hfm_avg=_pairs(avg_lo_k, avg_hi_k),
    )
    raw = _values(raw_max, raw_mean)
    exact = cert.max_complete
    extras = dict(extras, max_check=Bunch(
        n_checked=int(cert.n_checked), budget=int(budget),
        d_max_exact=bool(D_hi[0] == D_lo[0]), d_f_max_exact=bool(D_hi[1] == D_lo[1]),
        per_attribute_exact=exact))
    return _report(values, raw, ci, ci_attr, rows, names, "approx", extras)


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
@Substitution(params=_PARAMS_DOC, notes=_LOG_NOTE)
def hfm_report(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    X: MatrixLike = None,
    sensitive_features: SensitiveLike,
    method: Literal["auto", "approx", "exact"] = "auto",
    scale: bool = True,
    m1: int = DEFAULT_M1,
    m2: int | None = None,
    n_vectors: int = 2,
    random_state: RandomStateLike = None,
    n_jobs: int | None = None,
    candidates: Literal["positions", "others"] = "positions",
    sample_size: int | str = "auto",
    max_checks: int | None = None,
    confidence: float = 0.95,
    n_boot: int = 0,
) -> Bunch:
    """Both HFM values, the four distances and the per-attribute breakdown, in one call.

    One pass of the distance engine gives everything: Eq. 4-7 for the true
    labels (``D``) and the predictions (``D_f``), then Eq. 8a and 8b overall
    and for each attribute alone.
    {params}

    n_boot : int, default=0
        Replicates of the intervals of ``d_avg``, ``d_f_avg`` and ``hfm_avg``
        over the sampling of rows (``row_ci``); 0 gives none. Seeded by
        ``random_state``. See the user guide for what they estimate.

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
        (n_samples, n_attributes), the approximate ones for the
        approximation; ``method``, the engine used (``"exact"`` or
        ``"approx"``), ``requested_method``, ``log_base``.

        Uncertainty: ``ci``, a Bunch of ``(low, high)`` pairs for ``d_avg``,
        ``d_f_avg``, ``hfm_avg`` (intervals at level ``confidence``) and
        ``d_max``, ``d_f_max``, ``hfm_max`` (certain bounds), and
        ``per_attribute.ci`` with the same keys as arrays of shape
        (n_attributes, 2); with the exact engine each pair is
        ``(value, value)``. ``raw``, the same values from the approximate
        distances alone (the paper's estimates), with its own
        ``per_attribute``. ``max_check``: ``n_checked`` (rows checked
        for the maxima beyond the sample), ``budget``, ``d_max_exact``,
        ``d_f_max_exact`` (the check completed, so the value is exact) and
        ``per_attribute_exact`` (2, n_attributes). ``confidence`` and, for
        the approximation, ``m1``, ``m2`` (the value used), ``n_vectors``,
        ``candidates``, ``sample_size`` (the rows drawn), ``sample_rows`` and
        ``sample_distances`` (2, n_attributes, sample_size), their exact
        distances with the true labels and the predictions.

        Sampling of the rows: ``row_ci`` (``None`` unless ``n_boot``), a
        Bunch of ``(low, high)`` pairs of ``d_avg``, ``d_f_avg`` and
        ``hfm_avg`` and ``per_attribute`` arrays (n_attributes, 2): how far
        the value may be from its population value because these rows were
        drawn (``ci`` says how far the approximation may be from the exact
        value on these rows). The estimand is the population mean of the
        distance from a person to the nearest person of another group in
        the table scored, the model held fixed (``row_ci.estimand``); the
        maxima have none (``row_ci.maxima`` says why).

        Who the numbers are about: ``witnesses.maxima``, for ``y_true`` and
        ``y_pred`` and each attribute, the row of the largest row distance
        (positions in the rows scored; with the approximation, the largest
        approximate one), the nearest row of another group, both groups and
        the distance between them (``overall`` marks Eq. 6's attribute);
        ``witnesses.changed``, the 10 rows whose mean distance over the
        attributes the model moved most (``d``, ``d_f``, ``change``).
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
    >>> A = pd.DataFrame({"sex": [0, 1, 0, 1, 0, 1], "race": list("aabbcc")})
    >>> y_true = [0, 0, 0, 1, 1, 1]
    >>> y_pred = [0, 1, 0, 1, 1, 1]
    >>> r = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method="exact")
    >>> round(r.hfm_max, 4), round(r.hfm_avg, 4)
    (0.9359, 0.7371)
    >>> columns = ["hfm_max", "hfm_avg", "d_max", "d_f_max", "d_avg", "d_f_avg"]
    >>> pd.DataFrame({c: r.per_attribute[c] for c in columns}, index=r.attributes).round(3)
          hfm_max  hfm_avg  d_max  d_f_max  d_avg  d_f_avg
    sex     1.629    1.201    0.2     1.02  0.167    0.554
    race    0.223    0.236    0.4     0.50  0.250    0.317

    On larger data the certified approximation reports intervals:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((5000, 4))
    >>> A = rng.integers(0, 3, 5000)
    >>> y_true = (X[:, 0] > 0.5).astype(int)
    >>> y_pred = np.where(rng.random(5000) < 0.1, 1 - y_true, y_true)
    >>> r = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method="approx",
    ...                sample_size=500, random_state=0)
    >>> low, high = r.ci.d_avg
    >>> bool(low <= r.d_avg <= high <= r.raw.d_avg), r.max_check.d_max_exact
    (True, True)
    """
    report = _compute(
        y_true, y_pred, X, sensitive_features, method=method, scale=scale, m1=m1, m2=m2,
        n_vectors=n_vectors, random_state=random_state, n_jobs=n_jobs, candidates=candidates,
        sample_size=sample_size, max_checks=max_checks, confidence=confidence,
        with_witnesses=True, n_boot=n_boot)
    _warn_undefined("hfm_max", report.d_max, report.d_f_max)
    _warn_undefined("hfm_avg", report.d_avg, report.d_f_avg)
    return report


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
@Substitution(params=_PARAMS_DOC, notes=_LOG_NOTE)
def hfm_max(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    X: MatrixLike = None,
    sensitive_features: SensitiveLike,
    method: Literal["auto", "approx", "exact"] = "auto",
    scale: bool = True,
    m1: int = DEFAULT_M1,
    m2: int | None = None,
    n_vectors: int = 2,
    random_state: RandomStateLike = None,
    n_jobs: int | None = None,
    candidates: Literal["positions", "others"] = "positions",
    sample_size: int | str = "auto",
    max_checks: int | None = None,
    confidence: float = 0.95,
) -> float:
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
    report = _compute(
        y_true, y_pred, X, sensitive_features, method=method, scale=scale, m1=m1, m2=m2,
        n_vectors=n_vectors, random_state=random_state, n_jobs=n_jobs, candidates=candidates,
        sample_size=sample_size, max_checks=max_checks, confidence=confidence, want_avg=False)
    _warn_undefined("hfm_max", report.d_max, report.d_f_max)
    return report.hfm_max


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
@Substitution(params=_PARAMS_DOC, notes=_LOG_NOTE)
def hfm_avg(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    X: MatrixLike = None,
    sensitive_features: SensitiveLike,
    method: Literal["auto", "approx", "exact"] = "auto",
    scale: bool = True,
    m1: int = DEFAULT_M1,
    m2: int | None = None,
    n_vectors: int = 2,
    random_state: RandomStateLike = None,
    n_jobs: int | None = None,
    candidates: Literal["positions", "others"] = "positions",
    sample_size: int | str = "auto",
    max_checks: int | None = None,
    confidence: float = 0.95,
) -> float:
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
    report = _compute(
        y_true, y_pred, X, sensitive_features, method=method, scale=scale, m1=m1, m2=m2,
        n_vectors=n_vectors, random_state=random_state, n_jobs=n_jobs, candidates=candidates,
        sample_size=sample_size, max_checks=max_checks, confidence=confidence, want_max=False)
    _warn_undefined("hfm_avg", report.d_avg, report.d_f_avg)
    return report.hfm_avg


