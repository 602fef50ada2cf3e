"""Scorers for model selection: thin wrappers over :mod:`skfair_manifold.metrics`.

Lower fairness values are fairer, so every scorer returns the *negated* value
(``greater_is_better=False``, as scikit-learn does for losses): the search
keeps the largest score, i.e. the fairest model.

Two ways to give the scorer the sensitive attributes of the rows it scores:

1. Metadata routing (the ready objects ``hfm_max_scorer``, ``hfm_avg_scorer``,
   ``demographic_parity_scorer``, ...): they already request
   ``sensitive_features``, so after ``sklearn.set_config(enable_metadata_routing=True)``::

       GridSearchCV(est, grid, scoring={"acc": "accuracy", "hfm": hfm_avg_scorer},
                    refit="acc").fit(X, y, sensitive_features=A)
       cross_validate(est, X, y, scoring=hfm_avg_scorer, params={"sensitive_features": A})

   Without routing, scikit-learn hands ``fit(X, y, sensitive_features=A)`` to the
   estimator's own ``fit``, which fails with "unexpected keyword argument
   'sensitive_features'" before any scorer runs: enable routing first. A scorer
   that receives no ``sensitive_features`` raises a message that lists both ways.

2. Sensitive columns kept inside ``X``: ``make_hfm_scorer(sensitive=["sex", "race"])``
   (or any ``make_*_scorer(sensitive=...)``) takes them from ``X`` itself and needs
   no routing at all. For HFM they are dropped from the features of the
   distance (the paper's ``x`` without ``a``) unless ``drop_sensitive=False``.

Which features HFM measures distances on: with ``features="transformed"``
(the default) and a :class:`~sklearn.pipeline.Pipeline`, the features as the
final estimator sees them, i.e. the output of the pipeline's steps before the
last (one-hot encoded, scaled), with the outputs of the sensitive columns left
out; with ``features="input"``, the ``X`` the search hands to the scorer
(which must then be numeric). The transformed features are the default
because the distance between people should be measured on what the model
compares, and because a pipeline's raw input (strings) has no distance.

``response_method="predict_proba"`` or ``"decision_function"`` with a
``threshold`` turns scores into the two classes of a binary classifier; the
group metrics need classes, and a regression target is refused with a clear
error.

Scorers whose metric is randomised (HFM with the certified approximation,
which ``method="auto"`` uses beyond its crossover, and DR) use
``random_state=0`` unless told otherwise, so that every candidate of a search
is measured with the same projections or perturbation.
"""

import inspect
from collections.abc import Callable
from typing import Any, Literal
from numbers import Integral, Real

import sklearn
from sklearn.utils.metadata_routing import MetadataRequest

from .metrics import (
    demographic_parity,
    discriminative_risk,
    equal_opportunity,
    hfm_avg,
    hfm_max,
    predictive_quality_parity,
)
from .utils._pipeline import _is_pipeline, transformed_features
from .utils._sklearn_compat import StrOptions, _BaseScorer, validate_params
from .utils._validation import resolve_columns, split_columns

__all__ = [
    "MostAccurateWithin",
    "demographic_parity_scorer",
    "equal_opportunity_scorer",
    "hfm_avg_scorer",
    "hfm_max_scorer",
    "make_dr_scorer",
    "make_fairness_scorer",
    "make_hfm_scorer",
    "predictive_quality_parity_scorer",
]

_METRICS = {
    "hfm_max": hfm_max,
    "hfm_avg": hfm_avg,
    "demographic_parity": demographic_parity,
    "equal_opportunity": equal_opportunity,
    "predictive_quality_parity": predictive_quality_parity,
}
_NEEDS_X = {"hfm_max", "hfm_avg"}

MSG_HFM_NO_WEIGHTS = (
    "{scorer} takes no sample_weight: HFM (Eq. 8) is a distance between sets of rows, which "
    "the paper defines without row weights. Score without sample_weight (scikit-learn's "
    "searches pass it only to scorers that take it), or use a group scorer such as "
    "demographic_parity_scorer, which weights rows."
)
MSG_NO_SENSITIVE = (
    "{scorer} needs the sensitive attributes of the rows it scores and received none. "
    "{state} Either\n"
    "  (a) enable metadata routing and pass the attributes to fit:\n"
    "        import sklearn; sklearn.set_config(enable_metadata_routing=True)\n"
    "        GridSearchCV(est, grid, scoring=...).fit(X, y, sensitive_features=A)\n"
    "        cross_validate(est, X, y, scoring=..., params={{'sensitive_features': A}})\n"
    "        scorer(fitted_est, X, y, sensitive_features=A)   # a direct call\n"
    "  or (b) keep the sensitive columns in X and build the scorer with\n"
    "        {factory}sensitive=[<column names or positions>]), which needs no routing."
)
MSG_STATE_OFF = "Metadata routing is disabled, so nothing reaches a scorer but X and y."
MSG_STATE_ON = ("Metadata routing is enabled, but no sensitive_features were passed to "
                "fit (or to cross_validate's params).")
MSG_BOTH = (
    "{scorer} takes the sensitive columns from X (sensitive={sensitive!r}); do not also "
    "pass sensitive_features."
)
MSG_REGRESSION = (
    "{scorer}: y_true is a continuous (regression) target, but {metric} compares the rate of "
    "one class across groups. Use it with a classifier's labels; HFM scorers "
    "(make_hfm_scorer) accept numeric targets, whose value is a coordinate of the distance."
)
MSG_NOT_BINARY_SCORES = (
    "{scorer} thresholds {response_method} into two classes, but the estimator has "
    "{n_classes} classes ({classes}); use response_method='predict' with pos_label= for "
    "multi-class targets."
)
MSG_RESPONSE = (
    "response_method must be 'predict', 'predict_proba' or 'decision_function'; got "
    "{value!r}."
)
MSG_FEATURES = "features must be 'transformed' or 'input'; got {value!r}."
MSG_THRESHOLD = (
    "threshold={value!r} needs response_method='predict_proba' or 'decision_function' "
    "(predict already returns classes)."
)
_RESPONSE_METHODS = ("predict", "predict_proba", "decision_function")
_DEFAULT_THRESHOLD = {"predict_proba": 0.5, "decision_function": 0.0}


def _predict(estimator, response_method, X, **kwargs):
    return getattr(estimator, response_method)(X)


def _call_cache(method_caller):
    """The cache of one multi-metric call of scikit-learn (a dict), or None.

    ``method_caller`` is ``functools.partial(_cached_call, cache)`` there
    (``cache`` a dict, or None when one scorer runs); anything else gives
    None, and nothing is shared.
    """
    args = getattr(method_caller, "args", None)
    if args and isinstance(args[0], dict):
        return args[0]
    return None


def _routed_names(A, X):
    """Names of routed sensitive columns that are also columns of ``X``."""
    from .utils._validation import is_dataframe, is_series

    if is_dataframe(A):
        names = list(A.columns)
    elif is_series(A) and getattr(A, "name", None) is not None:
        names = [A.name]
    else:
        return []
    columns = list(X.columns) if is_dataframe(X) else []
    return [n for n in names if n in columns]


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

        if type_of_target(y_true) == "continuous":
            raise ValueError(MSG_REGRESSION.format(scorer=repr(self), metric=self._name))
        return self._sign * self._score_func(
            y_true, y_pred, sensitive_features=A, **{**self._kwargs, **kwargs})

    def _hfm(self, method_caller, estimator, X, X_metric, y_true, A, kwargs):
        """HFM of one call; the max and avg scorers of one multi-metric call share it.

        scikit-learn hands every scorer of one multi-metric call the same
        ``method_caller``, whose cache of predictions lives for that call
        only (one estimator, one ``X``, one ``y``). The exact engine's report
        holds both values, so it is kept there, keyed by the scorer's
        settings and the routed attributes: the second HFM scorer of the call
        reads it (its value is the same bit for bit) instead of transforming
        and checking the inputs again. The approximation's report depends on
        the kind (the maximum's check moves the mean's estimate), so it is not
        shared; nor is anything when an option is not a plain value.
        """
        from .distances._reuse import labellings_follow
        from .metrics._hfm import scorer_report, warn_kind

        kind = self._name[4:]
        options = {**self._kwargs, **kwargs}
        shared = _call_cache(method_caller)
        key = None
        if shared is not None and all(isinstance(v, (bool, int, float, str, type(None)))
                                      for v in options.values()):
            key = ("skfair_manifold.hfm", repr(self._sensitive), self._drop_sensitive,
                   self._features, self._response_method, self._threshold,
                   tuple(sorted(options.items())),
                   # routed attributes: the same object for every scorer of the call
                   id(A) if self._sensitive is None else None)
            report = shared.get(key)
            if report is not None:
                warn_kind(kind, report)
                return report[self._name]
        y_pred = self._predictions(method_caller, estimator, X)
        if self._features == "transformed" and _is_pipeline(estimator):
            drop = []
            if self._sensitive is not None and self._drop_sensitive:
                _, drop = resolve_columns(X, self._sensitive)
            elif self._sensitive is None:
                drop = _routed_names(A, X)
            X_metric, _ = transformed_features(estimator, X, drop, scorer=repr(self))
        with labellings_follow():  # a search scores other candidates on these rows
            report = scorer_report(kind, y_true, y_pred, X=X_metric, sensitive_features=A,
                                   **options)
        if key is not None and report.method == "exact":
            shared[key] = report
        return report[self._name]

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


class _DRScorer(_BaseScorer):
    """Negated discriminative risk; the sensitive columns are named, taken from X."""

    def __init__(self, metric_kwargs):
        super().__init__(discriminative_risk, -1, dict(metric_kwargs),
                         response_method="predict")
        self._metadata_request = MetadataRequest(owner=self)

    def __repr__(self):
        return "make_dr_scorer(" + ", ".join(
            f"{k}={v!r}" for k, v in self._kwargs.items()) + ")"

    def _accept_sample_weight(self):
        return False

    def __call__(self, estimator, X, y_true, sample_weight=None, **kwargs):
        """Score a fitted ``estimator`` on ``X`` (negated DR; ``y_true`` is not used)."""
        if kwargs:
            raise TypeError(f"{self!r} takes no metadata; got {sorted(kwargs)}.")
        return self._score(_predict, estimator, X, y_true)

    def _score(self, method_caller, estimator, X, y_true, **kwargs):
        return self._sign * discriminative_risk(estimator, X, **self._kwargs)


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
"predictive_quality_parity"}
        The metric of :mod:`skfair_manifold.metrics`.

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
        with ``method="approx"`` gets ``random_state=0`` unless given.

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
    >>> dp = make_fairness_scorer("demographic_parity", sensitive="sex")
    >>> dp(clf, X, y)
    -1.0
    """
    if metric in _NEEDS_X:
        metric_kwargs.setdefault("random_state", 0)
    _check_kwargs(_METRICS[metric], metric_kwargs, reserved={"X", "sensitive_features"})
    return _FairnessScorer(metric, metric_kwargs, sensitive=sensitive,
                           drop_sensitive=drop_sensitive, features=features,
                           response_method=response_method, threshold=threshold)


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


@validate_params(
    {"sensitive": [str, Integral, list, tuple]},
    prefer_skip_nested_validation=True,
)
def make_dr_scorer(*, sensitive: str | int | list, **metric_kwargs: Any) -> Callable:
    """A discriminative-risk scorer (``-DR``); the sensitive columns are named in X.

    DR perturbs the estimator's own input, so the sensitive columns must be
    inside ``X`` and are named here; no routing is involved (attributes passed
    beside ``X`` could not change any prediction). There is no ready-made
    ``dr_scorer`` object for that reason.

    Parameters
    ----------
    sensitive : str, int or list
        The sensitive columns of ``X`` (DataFrame column names or integer
        positions).

    **metric_kwargs
        Options of :func:`~skfair_manifold.metrics.discriminative_risk`:
        ``ratio``, ``privileged``, ``aggregate``, ``random_state`` (default
        0 here, so that every candidate meets the same perturbation).

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y_true)``; ``y_true`` is not used.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from skfair_manifold.scorers import make_dr_scorer
    >>> rng = np.random.RandomState(0)
    >>> X = np.column_stack([rng.rand(100), rng.randint(0, 2, 100)])
    >>> y = (X[:, 1] == 1).astype(int)
    >>> clf = DecisionTreeClassifier(random_state=0).fit(X, y)
    >>> make_dr_scorer(sensitive=1)(clf, X, y)
    -1.0
    """
    metric_kwargs.setdefault("random_state", 0)
    _check_kwargs(discriminative_risk, metric_kwargs, reserved={"sensitive"})
    return _DRScorer({"sensitive": sensitive, **metric_kwargs})


MSG_NONE_WITHIN = (
    "no candidate has a mean {fairness!r} score within the bound {bound} (the fairest "
    "reaches {best:.4g}); refitting the fairest candidate instead."
)


class MostAccurateWithin:
    """A ``refit`` rule: the most accurate candidate whose fairness stays within a bound.

    For ``GridSearchCV(..., scoring={"acc": ..., "hfm": hfm_avg_scorer},
    refit=MostAccurateWithin(0.05, fairness="hfm", score="acc"))``: among
    the candidates whose mean fairness value (the negated score) is at most
    ``bound``, the one with the best mean ``score``; ties go to the fairer.
    When no candidate is within the bound, the fairest is chosen, with a
    warning. Candidates whose fairness is ``nan`` are never within.

    Parameters
    ----------
    bound : float
        The largest fairness value allowed (say 0.05 for HFM avg, or 0.1 for
        a DP gap): the scorers return its negation.

    fairness : str, default="hfm"
        The key of the fairness scorer in ``scoring``.

    score : str, default="acc"
        The key of the performance scorer in ``scoring``.

    Examples
    --------
    >>> from skfair_manifold.scorers import MostAccurateWithin
    >>> rule = MostAccurateWithin(0.1, fairness="dp", score="acc")
    >>> rule({"mean_test_acc": [0.9, 0.85, 0.8], "mean_test_dp": [-0.3, -0.08, -0.02]})
    1
    """

    def __init__(self, bound: float, *, fairness: str = "hfm", score: str = "acc") -> None:
        self.bound = bound
        self.fairness = fairness
        self.score = score

    def __repr__(self):
        return (f"MostAccurateWithin({self.bound!r}, fairness={self.fairness!r}, "
                f"score={self.score!r})")

    def __call__(self, cv_results):
        import warnings

        import numpy as np

        for key in (self.fairness, self.score):
            if f"mean_test_{key}" not in cv_results:
                found = sorted(k[len("mean_test_"):] for k in cv_results
                               if k.startswith("mean_test_"))
                raise KeyError(f"{self!r}: no scorer named {key!r} in scoring; the "
                               f"search has {found}.")
        value = -np.asarray(cv_results[f"mean_test_{self.fairness}"], dtype=np.float64)
        perf = np.asarray(cv_results[f"mean_test_{self.score}"], dtype=np.float64)
        within = np.flatnonzero(np.nan_to_num(value, nan=np.inf) <= self.bound)
        if within.size == 0:
            best = int(np.nanargmin(value))
            warnings.warn(MSG_NONE_WITHIN.format(fairness=self.fairness, bound=self.bound,
                                                 best=value[best]), UserWarning, stacklevel=2)
            return best
        order = np.lexsort((value[within], -np.nan_to_num(perf[within], nan=-np.inf)))
        return int(within[order[0]])


hfm_max_scorer = _FairnessScorer("hfm_max", {"random_state": 0}, label="hfm_max_scorer")
hfm_avg_scorer = _FairnessScorer("hfm_avg", {"random_state": 0}, label="hfm_avg_scorer")
demographic_parity_scorer = _FairnessScorer(
    "demographic_parity", {}, label="demographic_parity_scorer")
equal_opportunity_scorer = _FairnessScorer(
    "equal_opportunity", {}, label="equal_opportunity_scorer")
predictive_quality_parity_scorer = _FairnessScorer(
    "predictive_quality_parity", {}, label="predictive_quality_parity_scorer")
