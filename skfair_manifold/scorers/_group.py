"""make_fairness_scorer (any metric of the package) and the group metrics' ready scorers."""

import inspect
from collections.abc import Callable
from typing import Any, Literal
from numbers import Integral, Real

from ..utils._sklearn_compat import StrOptions, validate_params
from ._scorer import _FairnessScorer, _METRICS, _NEEDS_X, _RESPONSE_METHODS


def _check_kwargs(metric, metric_kwargs, reserved):
    params = inspect.signature(metric).parameters
    allowed = {k for k, p in params.items() if p.kind == p.KEYWORD_ONLY} - set(reserved)
    unknown = set(metric_kwargs) - allowed
    if unknown:
        raise TypeError(
            f"{metric.__name__} takes no option(s) {sorted(unknown)}; its options are "
            f"{sorted(allowed)}.")


_SENSITIVE = [str, Integral, list, tuple, None]


@validate_params(
    {
        "metric": [StrOptions(set(_METRICS))],
        "sensitive": _SENSITIVE,
        "drop_sensitive": ["boolean"],
        "features": [StrOptions({"transformed", "input"})],
        "response_method": [StrOptions(set(_RESPONSE_METHODS))],
        "threshold": [Real, None],
    },
    prefer_skip_nested_validation=True,
)
def make_fairness_scorer(
    metric: str,
    *,
    sensitive: str | int | list | None = None,
    drop_sensitive: bool = True,
    features: Literal["transformed", "input"] = "transformed",
    response_method: str = "predict",
    threshold: float | None = None,
    **metric_kwargs: Any,
) -> Callable:
    """A scorer (negated, higher is fairer) for any fairness metric of the package.

    Parameters
    ----------
    metric : {"hfm_max", "hfm_avg", "demographic_parity", "equal_opportunity", \
"predictive_quality_parity", "mean_prediction_difference", "error_difference", \
"bounded_group_loss", "distribution_distance"}
        The metric of :mod:`skfair_manifold.metrics`; the last four measure a
        regressor's predictions (``response_method="predict"``).

    sensitive : str, int, list or None, default=None
        ``None``: the scorer requests ``sensitive_features`` through
        metadata routing. Otherwise the sensitive columns of ``X`` (DataFrame
        column names or integer positions): they are taken from the ``X``
        the scorer receives and no routing is needed.

    drop_sensitive : bool, default=True
        HFM only: leave the ``sensitive`` columns out of the features of the
        distance (the paper's ``x`` without ``a``).

    features : {"transformed", "input"}, default="transformed"
        HFM only: with a Pipeline, measure distances on the output of its
        steps before the last (what the final estimator sees), without the
        outputs of the sensitive columns; or on the pipeline's input ``X``.
        Without a Pipeline both are ``X``.

    response_method : {"predict", "predict_proba", "decision_function"}, default="predict"
        How the classes are obtained; the two score methods are cut at
        ``threshold`` (binary classifiers only).

    threshold : float or None, default=None
        With a score method: the score at or above which the second class
        of ``classes_`` is predicted (default 0.5 for ``predict_proba``, 0
        for ``decision_function``).

    **metric_kwargs
        Options of the metric (``method``, ``pos_label``, ``m1``, ...). HFM
        with ``method="approx"`` gets ``random_state=0`` unless given. The
        group metrics leave groups of fewer than ``min_group_size`` rows (30)
        out of the gap, as :func:`~skfair_manifold.metrics.fairness_report`
        does, so a score is the report's gap on the same rows;
        ``min_group_size=1`` compares every group, as fairlearn does (small
        validation folds may need it, or a smaller size).

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y_true, sensitive_features=None)``, usable as
        ``scoring=`` in ``GridSearchCV``, ``RandomizedSearchCV`` and
        ``cross_validate``.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skfair_manifold.scorers import make_fairness_scorer
    >>> X = pd.DataFrame({"x": [0.1, 0.4, 0.35, 0.8, 0.7, 0.2], "sex": [0, 1, 0, 1, 1, 0]})
    >>> y = [0, 1, 0, 1, 1, 0]
    >>> clf = LogisticRegression().fit(X, y)
    >>> dp = make_fairness_scorer("demographic_parity", sensitive="sex", min_group_size=1)
    >>> dp(clf, X, y)
    -1.0
    """
    if metric in _NEEDS_X:
        metric_kwargs.setdefault("random_state", 0)
    _check_kwargs(_METRICS[metric], metric_kwargs, reserved={"X", "sensitive_features"})
    return _FairnessScorer(metric, metric_kwargs, sensitive=sensitive,
                           drop_sensitive=drop_sensitive, features=features,
                           response_method=response_method, threshold=threshold)


demographic_parity_scorer = _FairnessScorer(
    "demographic_parity", {}, label="demographic_parity_scorer")

equal_opportunity_scorer = _FairnessScorer(
    "equal_opportunity", {}, label="equal_opportunity_scorer")

predictive_quality_parity_scorer = _FairnessScorer(
    "predictive_quality_parity", {}, label="predictive_quality_parity_scorer")
