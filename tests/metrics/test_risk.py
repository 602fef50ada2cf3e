"""Discriminative risk against a plain perturbation written here."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.compose import make_column_transformer
from sklearn.tree import DecisionTreeClassifier
from skfair_manifold.utils._sklearn_compat import InvalidParameterError

from skfair_manifold.metrics import discriminative_risk


class SensitiveRule:
    """predict = 1 when x0 > 0.5, flipped for group 1 of column 1 when `biased`."""

    def __init__(self, biased=True):
        self.biased = biased

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        base = (X[:, 0] > 0.5).astype(int)
        return np.where((X[:, 1] == 1) & self.biased, 1 - base, base)


def make(seed, n=500, groups=2):
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.random(n), rng.integers(0, groups, n), rng.integers(0, 5, n)])


def test_binary_flip_with_ratio_one_is_exact():
    X = make(0)
    flipped = X.copy()
    flipped[:, 1] = 1 - flipped[:, 1]
    est = SensitiveRule()
    plain = np.mean(est.predict(X) != est.predict(flipped))
    assert plain == 1.0
    assert discriminative_risk(est, X, sensitive=1, random_state=0) == plain
    assert discriminative_risk(SensitiveRule(False), X, sensitive=1, random_state=0) == 0.0


def test_ratio_scales_the_risk():
    X = make(1, n=20_000)
    values = [discriminative_risk(SensitiveRule(), X, sensitive=1, ratio=r, random_state=0)
              for r in (0.25, 0.5, 1.0)]
    assert values[2] == 1.0
    assert abs(values[1] - 0.5) < 0.02 and abs(values[0] - 0.25) < 0.02


def test_multivalued_perturbation_is_another_value_uniformly():
    X = make(2, n=30_000, groups=4)
    seen = {}

    class Spy:
        def predict(self, Xq):
            seen.setdefault("calls", []).append(np.asarray(Xq)[:, 1].copy())
            return np.zeros(len(Xq))

    discriminative_risk(Spy(), X, sensitive=1, random_state=0)
    new = seen["calls"][1]
    assert np.all(new != X[:, 1])  # ratio=1: every row changes
    for g in range(4):  # the other three values, about equally often
        share = np.bincount(new[X[:, 1] == g].astype(int), minlength=4) / np.sum(X[:, 1] == g)
        assert share[g] == 0 and np.all(np.abs(np.delete(share, g) - 1 / 3) < 0.03)
    # the authors' scheme: unprivileged -> privileged, privileged -> an unprivileged value
    seen.clear()
    discriminative_risk(Spy(), X, sensitive=1, privileged=[2], random_state=0)
    new = seen["calls"][1]
    assert np.all(new[X[:, 1] != 2] == 2) and np.all(new[X[:, 1] == 2] != 2)


def test_aggregate_over_attributes():
    X = make(3)
    est = SensitiveRule()  # depends on column 1 only
    kw = dict(sensitive=[1, 2], random_state=0)
    assert discriminative_risk(est, X, aggregate="mean", **kw) == 0.5
    assert discriminative_risk(est, X, aggregate="max", **kw) == 1.0
    assert discriminative_risk(est, X, aggregate="joint", **kw) == 1.0


def test_dataframe_with_string_columns_in_a_pipeline():
    rng = np.random.default_rng(4)
    n = 400
    X = pd.DataFrame({"x": rng.random(n), "sex": rng.choice(["f", "m"], n),
                      "race": pd.Categorical(rng.choice(list("abcde"), n))})
    y = ((X.x > 0.5) ^ (X.sex == "m")).astype(int)
    model = make_pipeline(
        make_column_transformer((OneHotEncoder(), ["sex", "race"]), remainder="passthrough"),
        DecisionTreeClassifier(random_state=0)).fit(X, y)
    dr = discriminative_risk(model, X, sensitive=["sex", "race"], aggregate="max",
                             random_state=0)
    assert dr > 0.9
    unaware = make_pipeline(
        make_column_transformer((OneHotEncoder(), ["sex", "race"]), remainder="passthrough"),
        LogisticRegression()).fit(X, X.x > 0.5)
    assert discriminative_risk(unaware, X, sensitive=["sex", "race"], random_state=0) < 0.05
    assert X.dtypes["race"] == "category"  # the caller's frame is not modified


def test_seed_reproduces_and_bad_input():
    X = make(5, groups=3)
    a = discriminative_risk(SensitiveRule(), X, sensitive=1, ratio=0.5, random_state=3)
    assert a == discriminative_risk(SensitiveRule(), X, sensitive=1, ratio=0.5,
                                    random_state=3)
    with pytest.raises(ValueError, match="not in X"):
        discriminative_risk(SensitiveRule(), X, sensitive=7)
    with pytest.raises(ValueError, match="single group"):
        discriminative_risk(SensitiveRule(), np.c_[X[:, :1], np.ones(len(X))], sensitive=1)
    with pytest.raises(ValueError, match="privileged value 9"):
        discriminative_risk(SensitiveRule(), X, sensitive=1, privileged=[9])
    with pytest.raises(ValueError, match="one per column"):
        discriminative_risk(SensitiveRule(), X, sensitive=[1, 2], privileged=[1])
    with pytest.raises(InvalidParameterError, match="ratio"):
        discriminative_risk(SensitiveRule(), X, sensitive=1, ratio=0)
    with pytest.raises(InvalidParameterError, match="estimator"):
        discriminative_risk(object(), X, sensitive=1)
