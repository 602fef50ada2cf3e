"""The harmonic fairness measure via manifolds (HFM), HFM paper Eq. 8.

``df = log(D_f / D)``: ``D`` is the extended distance between groups of Eq. 6
(maximal) or Eq. 7 (average) with the true labels as the first coordinate of
every point, ``D_f`` the same with the predictions. Both come from one call to
the distance engine's entry (``distances._rows.row_distances``), which returns
the row distances of both labels with their statistics (exact, or the
certified approximation's intervals and bounds). The values of Eq. 8 and their
intervals are computed in :mod:`._hfm_values`; this module holds the public
functions (``hfm_report``, ``hfm_max``, ``hfm_avg``) and the scorers' entry.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from sklearn.utils import Bunch

from ...utils._docstring import Substitution
from ...utils._sklearn_compat import validate_params
from ...utils._typing import ArrayLike, MatrixLike, RandomStateLike, SensitiveLike
from ._params import LOG_NOTE, PARAMS, PARAMS_DOC
from ._values import _compute, _warn_undefined

#: Repetitions of the projections of the certified approximation (the paper: 25).
DEFAULT_M1 = 5

#: A fixed sample of the certified approximation (``sample_size=4000``): the size the
#: default ``"auto"`` replaced (it is still the least number of rows checked for the maxima).
DEFAULT_SAMPLE_SIZE = 4000

#: ``df`` in the base-10 logarithm of the authors' code is ``df * LOG10_FACTOR``.
LOG10_FACTOR = 1.0 / np.log(10.0)


@validate_params(PARAMS, prefer_skip_nested_validation=True)
def scorer_report(kind, y_true, y_pred, *, X=None, sensitive_features, method="auto",
                  scale=True, m1=DEFAULT_M1, m2=None, n_vectors=2, random_state=None,
                  n_jobs=None, candidates="positions", sample_size="auto",
                  max_checks=None, confidence=0.95, search=False):
    """The report behind ``hfm_max`` (``kind="max"``) or ``hfm_avg`` (``"avg"``), warned.

    For the scorers: ``report["hfm_" + kind]`` is the metric's value bit for
    bit, and with the exact engine the report also holds the other kind's.
    ``search``: the call is a model search's, which scores other labellings
    of the same rows next (see the engine's ``row_distances``).
    """
    report = _compute(
        y_true, y_pred, X, sensitive_features, method=method, scale=scale, m1=m1, m2=m2,
        n_vectors=n_vectors, random_state=random_state, n_jobs=n_jobs, candidates=candidates,
        sample_size=sample_size, max_checks=max_checks, confidence=confidence,
        want_max=kind == "max", search=search)
    warn_kind(kind, report)
    return report


def warn_kind(kind, report):
    """The metric's warning of an undefined value of ``hfm_<kind>``."""
    _warn_undefined(f"hfm_{kind}", report[f"d_{kind}"], report[f"d_f_{kind}"])


@validate_params(PARAMS, prefer_skip_nested_validation=True)
@Substitution(params=PARAMS_DOC, notes=LOG_NOTE)
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
        ``"approx"``), ``requested_method``, ``log_base``; ``auto``, with
        ``method="auto"``, the cost model's choice (``method``, the predicted
        seconds ``exact_s`` and ``approx_s``, ``exact_path``, ``n_unique``
        rows of the exact engine), else None.

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


@validate_params(PARAMS, prefer_skip_nested_validation=True)
@Substitution(params=PARAMS_DOC, notes=LOG_NOTE)
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


@validate_params(PARAMS, prefer_skip_nested_validation=True)
@Substitution(params=PARAMS_DOC, notes=LOG_NOTE)
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
