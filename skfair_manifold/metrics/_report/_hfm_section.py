"""The report's HFM section: HFM per attribute on the model's features, intervals, witnesses."""

from __future__ import annotations

import warnings

import numpy as np

from ...utils._interval import ConfidenceInterval
from ...utils._pipeline import _is_pipeline, transformed_features
from ...utils._summary_row import ALL_ATTRIBUTES
from ...utils._validation import is_dataframe
from .._common import UndefinedFairnessWarning
from .._hfm._metrics import hfm_report as _hfm_report
from .._hfm._witnesses import witness_records
from .._risk import column_risk

#: an attribute without an interval, or with an exact value
_NO_INTERVAL = ConfidenceInterval(np.nan, np.nan)


def _hfm_section(y_true, y_pred, X, X_hfm, sensitive, estimator, options, caught, label,
                 index=None):
    """HFM per attribute on the features the model sees.

    ``sensitive`` is the call's :class:`~...utils._validation.SensitiveFeatures`
    (HFM reads its encoding); ``index``: the caller's index labels of the rows
    (None: they are named by position). Returns (frame, bunch, features, witnesses):
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
                                feature_names=features, scale=options.get("scale", True),
                                index=index)
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
    ci = report.get("ci")  # hfm_report's: a ConfidenceInterval per value
    if ci is not None:
        per_ci = per.get("ci") or {}  # an array (n_attributes, 2) per value
        for q in quantities:
            if ci.get(q) is None:
                continue
            intervals = [_interval(per_ci.get(q), k) for k in range(len(names))]
            intervals.append(ConfidenceInterval(*map(float, ci[q])))
            # An exact value (the exact engine, a maximum checked to the end) is a
            # value, not a zero-width interval: nan, shown as the value alone.
            intervals = [_NO_INTERVAL if iv.low == iv.high else iv for iv in intervals]
            if all(np.isnan(iv.low) for iv in intervals):
                continue
            frame[f"{q}_low"] = [iv.low for iv in intervals]
            frame[f"{q}_high"] = [iv.high for iv in intervals]
    row_ci = report.get("row_ci")
    if row_ci is not None:  # sampling of the rows (hfm_report's n_boot)
        for q in ("d_avg", "d_f_avg", "hfm_avg"):
            intervals = [_interval(row_ci["per_attribute"][q], k) for k in range(len(names))]
            intervals.append(ConfidenceInterval(*row_ci[q]))
            frame[f"{q}_rows_low"] = [iv.low for iv in intervals]
            frame[f"{q}_rows_high"] = [iv.high for iv in intervals]
    frame.index.name = "attribute"
    return frame


def _interval(per_attribute, k):
    """Attribute ``k``'s interval of an array (n_attributes, 2) of hfm_report (or none)."""
    if per_attribute is None:
        return _NO_INTERVAL
    low, high = np.asarray(per_attribute, dtype=np.float64)[k]
    return ConfidenceInterval(float(low), float(high))


def _dr_section(estimator, X, sensitive, attributes, options, summary_label):
    """The discriminative risk of each sensitive column of ``X`` (perturbed in the raw
    ``X``, found and encoded once in ``sensitive``) and their mean (the summary row)."""
    import pandas as pd

    values = {name: column_risk(estimator, X, [sensitive.positions[k]],
                                [sensitive.x_names[k]], encoded=[sensitive.encoded(k)],
                                **options)
              for k, name in enumerate(attributes)}
    values[summary_label] = float(np.mean(list(values.values())))
    return pd.Series(values, name="discriminative_risk")
