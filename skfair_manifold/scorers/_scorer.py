"""The scorer of every fairness metric: sensitive attributes routed or taken from X."""

import sklearn
from sklearn.utils.metadata_routing import MetadataRequest

from ..metrics import (
    bounded_group_loss,
    demographic_parity,
    distribution_distance,
    equal_opportunity,
    error_difference,
    hfm_avg,
    hfm_max,
    mean_prediction_difference,
    predictive_quality_parity,
)
from ..utils._sklearn_compat import _BaseScorer
from ..utils._validation import resolve_columns, split_columns
from ._hfm_reuse import hfm_value
from ._messages import (
    MSG_BOTH,
    MSG_CONTINUOUS_RESPONSE,
    MSG_FEATURES,
    MSG_HFM_NO_WEIGHTS,
    MSG_NOT_BINARY_SCORES,
    MSG_NO_SENSITIVE,
    MSG_REGRESSION,
    MSG_RESPONSE,
    MSG_SHARED_REQUEST,
    MSG_STATE_OFF,
    MSG_STATE_ON,
    MSG_THRESHOLD,
)


_METRICS = {
    "hfm_max": hfm_max,
    "hfm_avg": hfm_avg,
    "demographic_parity": demographic_parity,
    "equal_opportunity": equal_opportunity,
    "predictive_quality_parity": predictive_quality_parity,
    "mean_prediction_difference": mean_prediction_difference,
    "error_difference": error_difference,
    "bounded_group_loss": bounded_group_loss,
    "distribution_distance": distribution_distance,
}

_NEEDS_X = {"hfm_max", "hfm_avg"}

#: the metrics of a continuous target (a regressor's predictions): no class, no threshold
_CONTINUOUS = {"mean_prediction_difference", "error_difference", "bounded_group_loss",
               "distribution_distance"}

_RESPONSE_METHODS = ("predict", "predict_proba", "decision_function")

_DEFAULT_THRESHOLD = {"predict_proba": 0.5, "decision_function": 0.0}


def _predict(estimator, response_method, X, **kwargs):
    return getattr(estimator, response_method)(X)


class _FairnessScorer(_BaseScorer):
    """Negated fairness metric as a scorer; sensitive attributes routed or taken from X."""

    def __init__(self, name, metric_kwargs, *, sensitive=None, drop_sensitive=True,
                 label=None, features="transformed", response_method="predict",
                 threshold=None):
        if response_method not in _RESPONSE_METHODS:
            raise ValueError(MSG_RESPONSE.format(value=response_method))
        if features not in ("transformed", "input"):
            raise ValueError(MSG_FEATURES.format(value=features))
        if threshold is not None and response_method == "predict":
            raise ValueError(MSG_THRESHOLD.format(value=threshold))
        if name in _CONTINUOUS and response_method != "predict":
            raise ValueError(MSG_CONTINUOUS_RESPONSE.format(metric=name))
        super().__init__(_METRICS[name], -1, dict(metric_kwargs),
                         response_method=response_method)
        self._name = name
        self._sensitive = sensitive
        self._drop_sensitive = drop_sensitive
        self._label = label
        self._features = features
        self._threshold = threshold
        self._factory = (f'make_hfm_scorer("{name[4:]}", ' if name in _NEEDS_X
                         else f'make_fairness_scorer("{name}", ')
        self._metadata_request = MetadataRequest(owner=self)
        if sensitive is None:  # preset: the user only has to enable routing
            self._metadata_request.score.add_request(param="sensitive_features", alias=True)

    def __repr__(self):
        if self._label is not None:
            return self._label
        args = [repr(self._name)]
        if self._sensitive is not None:
            args += [f"sensitive={self._sensitive!r}"]
            if self._name in _NEEDS_X:
                args += [f"drop_sensitive={self._drop_sensitive!r}"]
        if self._features != "transformed" and self._name in _NEEDS_X:
            args += [f"features={self._features!r}"]
        if self._response_method != "predict":
            args += [f"response_method={self._response_method!r}"]
        if self._threshold is not None:
            args += [f"threshold={self._threshold!r}"]
        args += [f"{k}={v!r}" for k, v in self._kwargs.items()]
        return f"make_fairness_scorer({', '.join(args)})"

    def set_score_request(self, **kwargs):
        """Request metadata for the scorer, keeping its request of ``sensitive_features``.

        scikit-learn's method replaces every request (the preset routing of
        ``sensitive_features`` would be lost); this one adds to them. The
        ready scorers of the package (``demographic_parity_scorer``, ...) are
        shared by the whole process and refuse it: build your own with
        ``make_fairness_scorer`` (or ``make_hfm_scorer``) first.

        Parameters
        ----------
        **kwargs : dict
            ``param_name=alias``, alias one of ``True``, ``False``, ``None`` or a str.

        Returns
        -------
        self : scorer
        """
        if self._label is not None:
            raise ValueError(MSG_SHARED_REQUEST.format(
                scorer=self._label, factory=self._factory.rstrip(", ")))
        kept = {param: alias for param, alias in
                self._metadata_request.score.requests.items() if param not in kwargs}
        super().set_score_request(**kwargs)
        for param, alias in kept.items():
            self._metadata_request.score.add_request(param=param, alias=alias)
        return self

    def __call__(self, estimator, X, y_true, sample_weight=None, **kwargs):
        """Score a fitted ``estimator`` on ``X``, ``y_true`` (negated fairness value).

        ``sensitive_features`` may be passed directly here, with or without
        metadata routing.
        """
        if sample_weight is not None:
            if self._name in _NEEDS_X:
                raise TypeError(MSG_HFM_NO_WEIGHTS.format(scorer=repr(self)))
            kwargs["sample_weight"] = sample_weight
        return self._score(_predict, estimator, X, y_true, **kwargs)

    def _score(self, method_caller, estimator, X, y_true, **kwargs):
        A = kwargs.pop("sensitive_features", None)
        X_metric = X
        if self._sensitive is not None:
            if A is not None:
                raise ValueError(MSG_BOTH.format(scorer=repr(self), sensitive=self._sensitive))
            positions, _ = resolve_columns(X, self._sensitive)
            A, X_metric = split_columns(X, positions, drop=self._drop_sensitive)
        elif A is None:
            state = MSG_STATE_ON if sklearn.get_config()["enable_metadata_routing"] \
                else MSG_STATE_OFF
            raise ValueError(MSG_NO_SENSITIVE.format(scorer=repr(self), state=state,
                                                     factory=self._factory))
        if self._name in _NEEDS_X:
            return self._sign * self._hfm(method_caller, estimator, X, X_metric, y_true, A,
                                          kwargs)
        y_pred = self._predictions(method_caller, estimator, X)
        from sklearn.utils.multiclass import type_of_target

        if self._name not in _CONTINUOUS and type_of_target(y_true) == "continuous":
            raise ValueError(MSG_REGRESSION.format(scorer=repr(self), metric=self._name))
        return self._sign * self._score_func(
            y_true, y_pred, sensitive_features=A, **{**self._kwargs, **kwargs})

    def _hfm(self, method_caller, estimator, X, X_metric, y_true, A, kwargs):
        """HFM of one call, shared by the max and avg scorers of a multi-metric call."""
        return hfm_value(self, method_caller, estimator, X, X_metric, y_true, A, kwargs)

    def _predictions(self, method_caller, estimator, X):
        """Class predictions: ``predict``, or scores cut at the threshold (binary only)."""
        import numpy as np

        if self._response_method == "predict":
            return method_caller(estimator, "predict", X)
        classes = np.asarray(getattr(estimator, "classes_", [0, 1]))
        if classes.shape[0] != 2:
            raise ValueError(MSG_NOT_BINARY_SCORES.format(
                scorer=repr(self), response_method=self._response_method,
                n_classes=classes.shape[0], classes=classes.tolist()[:10]))
        scores = np.asarray(method_caller(estimator, self._response_method, X))
        if scores.ndim == 2:
            scores = scores[:, 1]
        threshold = self._threshold if self._threshold is not None \
            else _DEFAULT_THRESHOLD[self._response_method]
        return np.where(scores >= threshold, classes[1], classes[0])
