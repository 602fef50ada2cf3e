"""make_hfm_scorer and the ready HFM scorers (Eq. 8a and 8b, negated)."""

from collections.abc import Callable
from typing import Any, Literal
from numbers import Real

from ..utils._sklearn_compat import StrOptions, validate_params
from ._group import _SENSITIVE, _check_kwargs
from ._scorer import _FairnessScorer, _METRICS, _RESPONSE_METHODS


@validate_params(
    {
        "kind": [StrOptions({"max", "avg"})],
        "sensitive": _SENSITIVE,
        "drop_sensitive": ["boolean"],
        "features": [StrOptions({"transformed", "input"})],
        "response_method": [StrOptions(set(_RESPONSE_METHODS))],
        "threshold": [Real, None],
    },
    prefer_skip_nested_validation=True,
)
def make_hfm_scorer(
    kind: Literal["avg", "max"] = "avg",
    *,
    sensitive: str | int | list | None = None,
    drop_sensitive: bool = True,
    features: Literal["transformed", "input"] = "transformed",
    response_method: str = "predict",
    threshold: float | None = None,
    **metric_kwargs: Any,
) -> Callable:
    """An HFM scorer (``-hfm_max`` or ``-hfm_avg``), routed or with sensitive columns in X.

    Parameters
    ----------
    kind : {"max", "avg"}, default="avg"
        :func:`~skfair_manifold.metrics.hfm_max` (Eq. 8a) or
        :func:`~skfair_manifold.metrics.hfm_avg` (Eq. 8b).

    sensitive : str, int, list or None, default=None
        ``None``: ``sensitive_features`` come through metadata routing.
        Otherwise the sensitive columns of ``X`` (DataFrame column names or
        integer positions), which then needs no routing.

    drop_sensitive : bool, default=True
        Leave the ``sensitive`` columns out of the features of the distance
        (the paper's ``x`` without ``a``); the estimator still sees them.

    features : {"transformed", "input"}, default="transformed"
        With a Pipeline: ``"transformed"`` measures distances on the output
        of the steps before the last (the features the final estimator sees,
        say one-hot encoded), without the outputs of the sensitive columns
        (those named by ``sensitive``, or the routed ``sensitive_features``'
        names found in ``X``); ``"input"`` on the ``X`` the search passes,
        which must then be numeric. Without a Pipeline both are ``X``.

    response_method : {"predict", "predict_proba", "decision_function"}, \
default="predict"
        How the predicted classes are obtained; a score method is cut at
        ``threshold`` (binary classifiers only).

    threshold : float or None, default=None
        With a score method, the score at or above which the second class
        of ``classes_`` is predicted (default 0.5 for probabilities, 0 for
        decision values).

    **metric_kwargs
        Options of the metric: ``method`` ("auto", the default, "approx" or
        "exact"), ``scale``,
        ``m1``, ``m2``, ``n_vectors``, ``random_state`` (default 0 here, so
        that every candidate is measured with the same projections),
        ``n_jobs``.

    Returns
    -------
    scorer : callable
        Negated HFM: the fairest model has the largest score.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from skfair_manifold.scorers import make_hfm_scorer
    >>> X = pd.DataFrame({"x": [0.0, 0.1, 0.3, 0.6, 0.8, 1.0], "sex": [0, 1, 0, 1, 0, 1]})
    >>> y = [0, 0, 0, 1, 1, 1]
    >>> # a model that learnt a biased labelling: row 1 (sex 1) gets a 1
    >>> clf = DecisionTreeClassifier().fit(X, [0, 1, 0, 1, 1, 1])
    >>> scorer = make_hfm_scorer("max", sensitive="sex", method="exact")
    >>> round(scorer(clf, X, y), 4)  # -hfm_max: the model pushed the groups apart
    -1.629
    """
    metric_kwargs.setdefault("random_state", 0)
    _check_kwargs(_METRICS[f"hfm_{kind}"], metric_kwargs,
                  reserved={"X", "sensitive_features"})
    return _FairnessScorer(f"hfm_{kind}", metric_kwargs, sensitive=sensitive,
                           drop_sensitive=drop_sensitive, features=features,
                           response_method=response_method, threshold=threshold)


hfm_max_scorer = _FairnessScorer("hfm_max", {"random_state": 0}, label="hfm_max_scorer")

hfm_avg_scorer = _FairnessScorer("hfm_avg", {"random_state": 0}, label="hfm_avg_scorer")
