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

Scorers whose metric is randomised (HFM with the certified approximation,
which ``method="auto"`` uses beyond its crossover, and DR) use
``random_state=0`` unless told otherwise, so that every candidate of a search
is measured with the same projections or perturbation.
"""

import inspect
from numbers import Integral

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
from .utils._sklearn_compat import StrOptions, _BaseScorer, validate_params
from .utils._validation import resolve_columns, split_columns

__all__ = [
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


def _predict(estimator, response_method, X, **kwargs):
    return estimator.predict(X)


class _FairnessScorer(_BaseScorer):
    """Negated fairness metric as a scorer; sensitive attributes routed or taken from X."""

    def __init__(self, name, metric_kwargs, *, sensitive=None, drop_sensitive=True,
                 label=None):
        super().__init__(_METRICS[name], -1, dict(metric_kwargs), response_method="predict")
        self._name = name
        self._sensitive = sensitive
        self._drop_sensitive = drop_sensitive
        self._label = label
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
        args += [f"{k}={v!r}" for k, v in self._kwargs.items()]
        return f"make_fairness_scorer({', '.join(args)})"

    def __call__(self, estimator, X, y_true, sample_weight=None, **kwargs):
        """Score a fitted ``estimator`` on ``X``, ``y_true`` (negated fairness value).

        ``sensitive_features`` may be passed directly here, with or without
        metadata routing.
        """
        if sample_weight is not None:
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
        y_pred = method_caller(estimator, "predict", X)
        if self._name in _NEEDS_X:
            kwargs["X"] = X_metric
        return self._sign * self._score_func(
            y_true, y_pred, sensitive_features=A, **{**self._kwargs, **kwargs})


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
    },
    prefer_skip_nested_validation=True,
)
def make_fairness_scorer(metric, *, sensitive=None, drop_sensitive=True, **metric_kwargs):
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
                           drop_sensitive=drop_sensitive)


@validate_params(
    {
        "kind": [StrOptions({"max", "avg"})],
        "sensitive": _SENSITIVE,
        "drop_sensitive": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def make_hfm_scorer(kind="avg", *, sensitive=None, drop_sensitive=True, **metric_kwargs):
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
                           drop_sensitive=drop_sensitive)


@validate_params(
    {"sensitive": [str, Integral, list, tuple]},
    prefer_skip_nested_validation=True,
)
def make_dr_scorer(*, sensitive, **metric_kwargs):
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


hfm_max_scorer = _FairnessScorer("hfm_max", {"random_state": 0}, label="hfm_max_scorer")
hfm_avg_scorer = _FairnessScorer("hfm_avg", {"random_state": 0}, label="hfm_avg_scorer")
demographic_parity_scorer = _FairnessScorer(
    "demographic_parity", {}, label="demographic_parity_scorer")
equal_opportunity_scorer = _FairnessScorer(
    "equal_opportunity", {}, label="equal_opportunity_scorer")
predictive_quality_parity_scorer = _FairnessScorer(
    "predictive_quality_parity", {}, label="predictive_quality_parity_scorer")
