"""The report's HFM section: HFM per attribute on the model's features, intervals, witnesses."""

from __future__ import annotations

import warnings

import numpy as np

from ...utils._pipeline import _is_pipeline, transformed_features
from ...utils._summary_row import ALL_ATTRIBUTES
from ...utils._validation import is_dataframe
from .._common import UndefinedFairnessWarning
from .._hfm._metrics import hfm_report as _hfm_report
from .._hfm._witnesses import witness_records


def _hfm_section(y_true, y_pred, X, X_hfm, sensitive, estimator, options, caught, label):
    """HFM per attribute on the features the model sees.

    ``sensitive`` is the call's :class:`~...utils._validation.SensitiveFeatures`
    (HFM reads its encoding). Returns (frame, bunch, features, witnesses):
    ``witnesses`` as :func:`~.._hfm._witnesses.witness_records` gives them.
    """
    features = None
    positions = sensitive.positions
    if estimator is not None:
        if _is_pipeline(estimator):
            dropped = [list(X.columns)[p] for p in positions] if is_dataframe(X) else positions
            X_hfm, features = transformed_features(estimator, X, dropped,
                                                   scorer="fairness_report")
    if features is None and is_dataframe(X_hfm):
        features = [str(c) for c in X_hfm.columns]
    with warnings.catch_warnings(record=True) as hfm_caught:
        warnings.simplefilter("always", UndefinedFairnessWarning)
        bunch = _hfm_report(y_true, y_pred, X=X_hfm, sensitive_features=sensitive, **options)
    for item in hfm_caught:
        if issubclass(item.category, UndefinedFairnessWarning):
            caught.append(str(item.message))
        else:  # pragma: no cover - re-emit what is not ours to record
            warnings.warn_explicit(item.message, item.category, item.filename, item.lineno)
    witnesses = witness_records(bunch.witnesses, X_hfm, y_true, y_pred,
                                feature_names=features, scale=options.get("scale", True))
    witnesses["method"] = bunch.method
    return _hfm_frame(bunch, sensitive.names, label), bunch, features, witnesses


def _hfm_frame(report, names, label=ALL_ATTRIBUTES):
    """HFM per attribute and overall as a DataFrame (with intervals when the report has them)."""
    import pandas as pd

    per = report.per_attribute
    quantities = ("hfm_max", "hfm_avg", "d_max", "d_f_max", "d_avg", "d_f_avg")
    rows = {str(name): {q: float(per[q][k]) for q in quantities} for k, name in enumerate(names)}
    rows[label] = {q: float(report[q]) for q in quantities}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    ci = getattr(report, "ci", None) if not isinstance(report, dict) else report.get("ci")
    if ci is not None:
        for q in quantities:
            overall = _pair(_get(ci, q))
            per_ci = _get(_get(_get(report, "per_attribute"), "ci"), q)  # per_attribute.ci
            if overall is None:
                continue
            pairs = [_pair(None if per_ci is None else _index(per_ci, k))
                     for k in range(len(names))] + [overall]
            # An exact value (the exact engine, a maximum checked to the end) is a
            # value, not a zero-width interval: nan, shown as the value alone.
            pairs = [(np.nan, np.nan) if pair is None or pair[0] == pair[1] else pair
                     for pair in pairs]
            if all(np.isnan(pair[0]) for pair in pairs):
                continue
            frame[f"{q}_low"] = [pair[0] for pair in pairs]
            frame[f"{q}_high"] = [pair[1] for pair in pairs]
    row_ci = _get(report, "row_ci")
    if row_ci is not None:  # sampling of the rows (hfm_report's n_boot)
        for q in ("d_avg", "d_f_avg", "hfm_avg"):
            per_rows = np.asarray(_get(_get(row_ci, "per_attribute"), q), dtype=np.float64)
            overall = _get(row_ci, q)
            frame[f"{q}_rows_low"] = [*per_rows[:, 0], overall[0]]
            frame[f"{q}_rows_high"] = [*per_rows[:, 1], overall[1]]
    frame.index.name = "attribute"
    return frame


def _get(obj, key):
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def _index(obj, k):
    arr = np.asarray(obj, dtype=np.float64)
    if arr.ndim == 2 and arr.shape[1] == 2:  # (n_attributes, 2)
        return arr[k]
    if arr.ndim == 2 and arr.shape[0] == 2:  # (2, n_attributes)
        return arr[:, k]
    return None


def _pair(obj):
    if obj is None:
        return None
    arr = np.asarray(obj, dtype=np.float64).reshape(-1)
    return (float(arr[0]), float(arr[1])) if arr.shape[0] == 2 else None
