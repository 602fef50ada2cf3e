"""make_dr_scorer: the discriminative risk (negated) of the estimator's own input."""

from collections.abc import Callable
from typing import Any
from numbers import Integral

from sklearn.utils.metadata_routing import MetadataRequest

from ..metrics import discriminative_risk
from ..utils._sklearn_compat import _BaseScorer, validate_params
from ._group import _check_kwargs
from ._scorer import _predict


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
