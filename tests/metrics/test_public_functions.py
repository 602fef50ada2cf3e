"""One sweep over the public functions: keyword-only options, each validated."""

import inspect

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier
from skfair_manifold.utils._sklearn_compat import InvalidParameterError

from skfair_manifold import metrics, scorers

X = np.random.default_rng(0).random((12, 2))
Y = np.array([0, 1] * 6)
A = np.array([0, 0, 1] * 4)
XA = np.c_[X, A]
CLF = DecisionTreeClassifier().fit(XA, Y)

CALLS = {
    "hfm_max": ((Y, Y), dict(X=X, sensitive_features=A)),
    "hfm_avg": ((Y, Y), dict(X=X, sensitive_features=A)),
    "hfm_report": ((Y, Y), dict(X=X, sensitive_features=A)),
    "demographic_parity": ((Y, Y), dict(sensitive_features=A, min_group_size=1)),
    "equal_opportunity": ((Y, Y), dict(sensitive_features=A, min_group_size=1)),
    "predictive_quality_parity": ((Y, Y), dict(sensitive_features=A, min_group_size=1)),
    "discriminative_risk": ((CLF, XA), dict(sensitive=2)),
    "fairness_report": ((Y, Y), dict(sensitive_features=A, min_group_size=1)),
    "mean_prediction_difference": ((X[:, 0], X[:, 1]),
                                   dict(sensitive_features=A, min_group_size=1)),
    "error_difference": ((X[:, 0], X[:, 1]), dict(sensitive_features=A, min_group_size=1)),
    "bounded_group_loss": ((X[:, 0], X[:, 1]), dict(sensitive_features=A, min_group_size=1)),
    "distribution_distance": ((X[:, 0], X[:, 1]), dict(sensitive_features=A, min_group_size=1)),
    "bias_audit": ((Y,), dict(sensitive_features=A)),
}
FUNCTIONS = [getattr(metrics, name) for name in CALLS]


def test_every_public_metric_is_swept():
    public = {n for n in metrics.__all__ if callable(getattr(metrics, n))
              and not isinstance(getattr(metrics, n), type)}
    assert public == set(CALLS)


@pytest.mark.parametrize("func", FUNCTIONS, ids=lambda f: f.__name__)
def test_options_are_keyword_only_and_validated(func):
    args, kwargs = CALLS[func.__name__]
    func(*args, **kwargs)  # the valid call works
    params = inspect.signature(func).parameters
    positional = [n for n, p in params.items() if p.kind == p.POSITIONAL_OR_KEYWORD]
    assert len(positional) == len(args), positional
    for name, p in params.items():
        if p.kind != p.KEYWORD_ONLY:
            continue
        with pytest.raises(InvalidParameterError, match=f"'{name}' parameter"):
            func(*args, **{**kwargs, name: object()})


@pytest.mark.parametrize("factory", [scorers.make_hfm_scorer, scorers.make_fairness_scorer,
                                     scorers.make_dr_scorer])
def test_scorer_factories_are_validated(factory):
    with pytest.raises((InvalidParameterError, TypeError)):
        factory(object())
    with pytest.raises(InvalidParameterError, match="'sensitive' parameter"):
        factory(*(() if factory is scorers.make_dr_scorer else ("max",) if
                  factory is scorers.make_hfm_scorer else ("hfm_max",)),
                sensitive=object())
