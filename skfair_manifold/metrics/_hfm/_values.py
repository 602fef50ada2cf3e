"""HFM's values from the row distances: Eq. 8 per attribute and overall, with their intervals."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils import Bunch

from ...distances._rows import row_distances
from ...utils._interval import ConfidenceInterval
from ...utils._sizes import MAX_BOOT, check_size
from .._common import UndefinedFairnessWarning
from ._bootstrap import hfm_row_intervals, log_ratio as _log_ratio


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

MSG_X_REQUIRED = (
    "X is required: HFM measures distances between the groups in the space of the features "
    "X and the label. A scorer made with sklearn.metrics.make_scorer(hfm_avg) or "
    "make_scorer(hfm_max) cannot pass X (it sees only y_true, y_pred and metadata): use "
    "skfair_manifold.scorers.hfm_avg_scorer or hfm_max_scorer, or make_hfm_scorer(...) for "
    "other options."
)


def _compute(y_true, y_pred, X, sensitive_features, *, method, scale, m1, m2, n_vectors,
             random_state, n_jobs, candidates, sample_size="auto",
             max_checks=None, confidence=0.95, want_max=True, want_avg=True,
             with_witnesses=False, n_boot=0, search=False):
    """Validated options -> the full report (see :func:`hfm_report`); ``search``: a
    model search's call (the engine's reuse of the rows, see ``row_distances``)."""
    del want_avg  # both means come with the row distances
    if X is None:
        raise TypeError(MSG_X_REQUIRED)
    # a replicate's weights and means: n + 4 floats (before any distance is computed)
    check_size(n_boot, name="n_boot", low=0, high=MAX_BOOT,
               bytes_per_unit=8 * (len(y_true) + 4))
    found = row_distances(X, (y_true, y_pred), sensitive_features, method=method,
                          scale=scale, m1=m1, m2=m2, n_vectors=n_vectors,
                          random_state=random_state, n_jobs=n_jobs, candidates=candidates,
                          sample_size=sample_size, max_checks=max_checks,
                          confidence=confidence, want_max=want_max,
                          with_witnesses=with_witnesses, search=search)
    extras = dict(requested_method=method, confidence=confidence, auto=found.auto,
                  **found.settings)
    report = _summary(found.rows, found.stats, found.names, found.method, extras)
    if with_witnesses:
        report.witnesses = found.witnesses
    report.row_ci = None if not n_boot else hfm_row_intervals(
        found.X, found.labels, found.codes, report, n_boot=n_boot, confidence=confidence,
        random_state=random_state, minmax=found.minmax, sample=report.get("sample_rows"),
        sample_exact=report.get("sample_distances"))
    return report


def _warn_undefined(name, d, d_f, attr=""):
    if d == 0:
        warnings.warn(MSG_D_ZERO.format(name=name, attr=attr), UndefinedFairnessWarning,
                      stacklevel=3)
    elif d_f == 0:
        warnings.warn(MSG_DF_ZERO.format(name=name, attr=attr), UndefinedFairnessWarning,
                      stacklevel=3)


def _pair(low, high):
    return ConfidenceInterval(float(low), float(high))


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


def _log_ratio_interval(num, den, var_num, var_den, cov, z):
    """Delta-method interval of ``log(num / den)`` with correlated estimates."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    centre = _log_ratio(num, den)
    ok = (num > 0) & (den > 0)
    safe_num, safe_den = np.where(ok, num, 1.0), np.where(ok, den, 1.0)
    var = var_num / safe_num ** 2 + var_den / safe_den ** 2 - 2 * cov / (safe_num * safe_den)
    half = z * np.sqrt(np.maximum(var, 0.0))
    return ConfidenceInterval(np.where(ok, centre - half, np.nan),
                              np.where(ok, centre + half, np.nan))


def _summary(rows, stats, names, method, extras):
    """Eq. 6-8 and their intervals from the engine's statistics of the distances.

    The exact engine's statistics have zero-width intervals, so every pair
    of ``ci`` is ``(value, value)`` there. ``ci`` holds a
    :class:`~...utils._interval.ConfidenceInterval` per value, ``per_attribute.ci``
    an array of shape (n_attributes, 2) per value (low, high in its columns).
    """
    z = stats.z
    max_low, max_high = stats.max_low, stats.max_high
    mean_k, mean_all = stats.mean, stats.avg
    values = _values(max_low, mean_k)
    values.d_avg, values.d_f_avg = float(mean_all[0]), float(mean_all[1])
    values.hfm_avg = float(_log_ratio(mean_all[1], mean_all[0]))
    shift_k, shift_all = stats.mean_shift, stats.avg_shift
    avg_lo, avg_hi = _log_ratio_interval(mean_all[1] - shift_all[1],
                                         mean_all[0] - shift_all[0], stats.avg_var[1],
                                         stats.avg_var[0], stats.avg_cov, z)
    avg_lo_k, avg_hi_k = _log_ratio_interval(mean_k[1] - shift_k[1], mean_k[0] - shift_k[0],
                                             stats.mean_var[1], stats.mean_var[0],
                                             stats.mean_cov, z)
    D_lo, D_hi = max_low.max(axis=1), max_high.max(axis=1)  # Eq. 6, per label
    low_all, high_all, low_k, high_k = (stats.avg_low, stats.avg_high, stats.mean_low,
                                        stats.mean_high)
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
    raw = _values(stats.raw_max, stats.raw_mean)
    extras = dict(extras, max_check=Bunch(
        n_checked=int(stats.n_checked), budget=int(stats.budget),
        d_max_exact=bool(D_hi[0] == D_lo[0]), d_f_max_exact=bool(D_hi[1] == D_lo[1]),
        per_attribute_exact=stats.max_complete))
    return _report(values, raw, ci, ci_attr, rows, names, method, extras)
