"""Scorers inside scikit-learn's model selection, with and without metadata routing."""

import pickle

import numpy as np
import pandas as pd
import pytest

from skfair_manifold.utils._sklearn_compat import InvalidParameterError
import sklearn
from numpy.testing import assert_allclose
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    RandomizedSearchCV,
    cross_validate,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier

import skfair_manifold
from skfair_manifold.metrics import (
    demographic_parity,
    discriminative_risk,
    equal_opportunity,
    hfm_avg,
    hfm_max,
    predictive_quality_parity,
)
from skfair_manifold.scorers import (
    MSG_STATE_OFF,
    MSG_STATE_ON,
    demographic_parity_scorer,
    equal_opportunity_scorer,
    hfm_avg_scorer,
    hfm_max_scorer,
    make_dr_scorer,
    make_fairness_scorer,
    make_hfm_scorer,
    predictive_quality_parity_scorer,
)

CV = KFold(3, shuffle=True, random_state=0)


@pytest.fixture(scope="module")
def data():
    """Four features, two multi-valued sensitive columns (5 and 4 values), binary label."""
    rng = np.random.default_rng(0)
    n = 360
    A = pd.DataFrame({"race": rng.choice(list("abcde"), n),
                      "age": rng.choice(["<25", "25-40", "40-60", ">60"], n)})
    X = pd.DataFrame(rng.random((n, 4)), columns=["w", "x", "y", "z"])
    X["income"] = 20_000 + 80_000 * rng.random(n)  # raw dollars: scale=True handles it
    logit = 3 * (X.w - 0.5) + 0.8 * (A.race == "a") - 0.6 * (A.age == ">60")
    y = (logit + 0.5 * rng.standard_normal(n) > 0).astype(int).to_numpy()
    return X, A, y


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def lr(**kw):
    return make_pipeline(StandardScaler(), LogisticRegression(**kw))


def with_codes(X, A):
    """X with the sensitive columns inside, integer coded."""
    return pd.concat([X, A.apply(lambda c: pd.factorize(c, sort=True)[0])], axis=1)


def test_exported_from_the_package_root():
    for name in ("hfm_max_scorer", "hfm_avg_scorer", "make_hfm_scorer", "make_dr_scorer",
                 "demographic_parity_scorer", "make_fairness_scorer", "hfm_report"):
        assert name in skfair_manifold.__all__ and hasattr(skfair_manifold, name)


def test_direct_call_is_the_negated_metric_without_routing(data):
    X, A, y = data
    clf = lr().fit(X, y)
    pred = clf.predict(X)
    pairs = [(hfm_max_scorer, hfm_max, dict(X=X, random_state=0)),
             (hfm_avg_scorer, hfm_avg, dict(X=X, random_state=0)),
             (demographic_parity_scorer, demographic_parity, {}),
             (equal_opportunity_scorer, equal_opportunity, {}),
             (predictive_quality_parity_scorer, predictive_quality_parity, {})]
    for scorer, metric, kw in pairs:
        # a Pipeline's HFM is measured on its scaled features: the same up to round-off,
        # since HFM rescales every feature to [0, 1]
        assert scorer(clf, X, y, sensitive_features=A) == pytest.approx(
            -metric(y, pred, sensitive_features=A, **kw), rel=1e-12, abs=1e-15)


def test_grid_search_with_routing_multimetric(data, routing):
    X, A, y = data
    # folds of 120 rows hold race groups of about 24 rows: every group compared
    # (min_group_size=1), as fairlearn does; the ready scorers leave them out, as the report
    scoring = {"acc": "accuracy", "hfm_avg": hfm_avg_scorer, "hfm_max": hfm_max_scorer,
               **{key: make_fairness_scorer(metric, min_group_size=1) for key, metric in (
                   ("dp", "demographic_parity"), ("eo", "equal_opportunity"),
                   ("pqp", "predictive_quality_parity"))}}
    search = GridSearchCV(make_pipeline(StandardScaler(), LogisticRegression()),
                          {"logisticregression__C": [0.01, 1.0]}, scoring=scoring,
                          refit="acc", cv=CV).fit(X, y, sensitive_features=A)
    res = search.cv_results_
    for key in scoring:
        assert np.isfinite(res[f"mean_test_{key}"]).all(), key
    # the figure of one fold, recomputed by hand on that fold
    train, test = next(CV.split(X))
    model = make_pipeline(StandardScaler(), LogisticRegression(C=0.01)).fit(
        X.iloc[train], y[train])
    expected = -hfm_avg(y[test], model.predict(X.iloc[test]), X=X.iloc[test],
                        sensitive_features=A.iloc[test], random_state=0)
    assert_allclose(res["split0_test_hfm_avg"][0], expected, rtol=1e-12)


def test_randomized_search_two_jobs_lightgbm_pipeline(data, routing):
    lightgbm = pytest.importorskip("lightgbm")
    X, A, y = data
    model = make_pipeline(StandardScaler(),
                          lightgbm.LGBMClassifier(n_estimators=20, verbose=-1, n_jobs=1))
    search = RandomizedSearchCV(
        model, {"lgbmclassifier__num_leaves": [4, 8, 16], "lgbmclassifier__max_depth": [2, 3]},
        n_iter=3, scoring={"acc": "accuracy", "hfm": hfm_avg_scorer}, refit="acc",
        cv=CV, n_jobs=2, random_state=0).fit(X, y, sensitive_features=A)
    scores = search.cv_results_["mean_test_hfm"]
    assert np.isfinite(scores).all()
    serial = RandomizedSearchCV(
        model, search.param_distributions, n_iter=3,
        scoring={"acc": "accuracy", "hfm": hfm_avg_scorer}, refit="acc", cv=CV, n_jobs=1,
        random_state=0).fit(X, y, sensitive_features=A)
    assert_allclose(serial.cv_results_["mean_test_hfm"], scores, rtol=1e-12)


def test_cross_validate_with_routing(data, routing):
    X, A, y = data
    res = cross_validate(DecisionTreeClassifier(max_depth=3, random_state=0), X, y, cv=CV,
                         scoring={"hfm_max": make_hfm_scorer("max", method="exact"),
                                  "dp": make_fairness_scorer("demographic_parity",
                                                             aggregate="mean",
                                                             min_group_size=1)},
                         params={"sensitive_features": A})
    assert res["test_hfm_max"].shape == (3,) and np.isfinite(res["test_hfm_max"]).all()
    assert (res["test_dp"] <= 0).all()


def test_sensitive_columns_inside_x_need_no_routing(data):
    X, A, y = data
    XA = with_codes(X, A)
    assert not sklearn.get_config()["enable_metadata_routing"]
    scorer = make_hfm_scorer("avg", sensitive=["race", "age"], method="exact")
    res = cross_validate(make_pipeline(StandardScaler(), LogisticRegression()), XA, y, cv=CV,
                         scoring={"hfm": scorer, "acc": "accuracy"})
    # equals the routed metric on X without the sensitive columns
    train, test = next(CV.split(XA))
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(XA.iloc[train], y[train])
    expected = -hfm_avg(y[test], model.predict(XA.iloc[test]), X=X.iloc[test],
                        sensitive_features=A.iloc[test], method="exact")
    assert_allclose(res["test_hfm"][0], expected, rtol=1e-12)
    # positions work too, and drop_sensitive=False keeps them among the features
    by_pos = make_hfm_scorer("avg", sensitive=[5, 6], method="exact")
    assert by_pos(model, XA.iloc[test], y[test]) == res["test_hfm"][0]
    kept = make_hfm_scorer("avg", sensitive=[5, 6], method="exact", drop_sensitive=False)
    expected_kept = -hfm_avg(y[test], model.predict(XA.iloc[test]), X=XA.iloc[test],
                             sensitive_features=A.iloc[test], method="exact")
    assert_allclose(kept(model, XA.iloc[test], y[test]), expected_kept, rtol=1e-12)


def test_string_sensitive_columns_in_x_with_an_encoding_pipeline(data):
    X, A, y = data
    XA = pd.concat([X, A], axis=1)
    model = make_pipeline(
        make_column_transformer((OneHotEncoder(), ["race", "age"]), remainder=StandardScaler()),
        LogisticRegression())
    search = GridSearchCV(model, {"logisticregression__C": [0.1, 1.0]}, cv=CV, refit="acc",
                          scoring={"acc": "accuracy",
                                   "hfm": make_hfm_scorer(sensitive=["race", "age"]),
                                   "eo": make_fairness_scorer("equal_opportunity",
                                                              sensitive=["race", "age"],
                                                              min_group_size=1),
                                   "dr": make_dr_scorer(sensitive=["race", "age"])})
    search.fit(XA, y)
    for key in ("hfm", "eo", "dr"):
        assert np.isfinite(search.cv_results_[f"mean_test_{key}"]).all()
    assert (search.cv_results_["mean_test_dr"] < 0).all()  # the model uses race and age
    best = search.best_estimator_
    assert make_dr_scorer(sensitive=["race", "age"])(best, XA, y) == \
        -discriminative_risk(best, XA, sensitive=["race", "age"], random_state=0)


def test_callable_refit_keeps_most_accurate_model_under_an_hfm_bound(data, routing):
    X, A, y = data
    bound = -0.02  # HFM below 0: predictions bring the groups closer than the labels

    def refit(cv_results):
        hfm = -np.asarray(cv_results["mean_test_hfm"])  # undo the sign
        acc = np.asarray(cv_results["mean_test_acc"])
        ok = np.flatnonzero(hfm <= bound)
        if ok.size == 0:
            return int(np.nanargmin(hfm))
        return int(ok[np.argmax(acc[ok])])

    grid = {"max_depth": [1, 2, 4, 8, None]}
    search = GridSearchCV(DecisionTreeClassifier(random_state=0), grid, cv=CV, refit=refit,
                          scoring={"acc": "accuracy", "hfm": hfm_avg_scorer})
    search.fit(X, y, sensitive_features=A)
    hfm = -search.cv_results_["mean_test_hfm"]
    acc = search.cv_results_["mean_test_acc"]
    i = search.best_index_
    assert hfm[i] <= bound
    assert acc[i] == acc[hfm <= bound].max()
    assert (hfm > bound).any()  # the bound did rule something out
    assert hasattr(search, "best_estimator_")


def test_routing_enabled_but_nothing_passed_says_what_to_do(data, routing):
    X, A, y = data
    with pytest.raises(ValueError) as err:
        cross_validate(lr(), X, y, cv=CV, scoring=hfm_avg_scorer,
                       error_score="raise")
    msg = str(err.value)
    assert MSG_STATE_ON in msg and "fit(X, y, sensitive_features=A)" in msg
    assert "params={'sensitive_features': A}" in msg
    assert 'make_hfm_scorer("avg", sensitive=[' in msg


def test_routing_disabled_says_what_to_do(data):
    X, A, y = data
    with pytest.raises(ValueError) as err:
        GridSearchCV(lr(), {"logisticregression__C": [1.0]}, scoring=demographic_parity_scorer,
                     cv=CV, error_score="raise").fit(X, y)
    msg = str(err.value)
    assert MSG_STATE_OFF in msg and "sklearn.set_config(enable_metadata_routing=True)" in msg
    assert 'make_fairness_scorer("demographic_parity", sensitive=[' in msg
    # with the default error_score the search goes on, nan scores, our message in the warning
    with pytest.warns(UserWarning, match="needs the sensitive attributes"):
        res = cross_validate(lr(), X, y, cv=CV, scoring=hfm_max_scorer)
    assert np.isnan(res["test_score"]).all()


def test_routed_scorer_requests_sensitive_features_and_copies_pickle(routing):
    for scorer in (hfm_max_scorer, hfm_avg_scorer, demographic_parity_scorer):
        request = scorer.get_metadata_routing()
        assert request.consumes("score", ["sensitive_features"]) == {"sensitive_features"}
        clone = pickle.loads(pickle.dumps(scorer))
        assert repr(clone) == repr(scorer)
    in_x = make_hfm_scorer(sensitive=["race"])
    assert in_x.get_metadata_routing().consumes("score", ["sensitive_features"]) == set()


def test_factories_check_their_options(data):
    X, A, y = data
    with pytest.raises(TypeError, match="takes no option"):
        make_hfm_scorer("max", pos_label=1)
    with pytest.raises(TypeError, match="takes no option"):
        make_fairness_scorer("demographic_parity", method_="x")
    with pytest.raises(InvalidParameterError):
        make_hfm_scorer("median")
    scorer = make_fairness_scorer("equal_opportunity", sensitive="race")
    clf = lr().fit(with_codes(X, A), y)
    with pytest.raises(ValueError, match="do not also pass sensitive_features"):
        scorer(clf, with_codes(X, A), y, sensitive_features=A)
    with pytest.raises(ValueError, match="'sex' is not in X"):
        make_hfm_scorer(sensitive="sex")(clf, with_codes(X, A), y)


@pytest.mark.parametrize("method", ["exact", "approx"])
def test_max_and_avg_scorers_of_one_call_share_the_exact_report(data, routing, monkeypatch,
                                                                method):
    """In one multi-metric call the second HFM scorer reads the exact report of the
    first (values equal to the metrics bit for bit); the approximation's report,
    which depends on the kind, is computed for each."""
    from skfair_manifold.scorers import _hfm_reuse as _hfm  # where the scorers look it up

    X, A, y = data
    calls = []
    original = _hfm.scorer_report
    monkeypatch.setattr(_hfm, "scorer_report",
                        lambda *a, **k: calls.append(a[0]) or original(*a, **k))
    kw = dict(method=method, sample_size=60) if method == "approx" else dict(method=method)
    scoring = {"acc": "accuracy", "avg": make_hfm_scorer("avg", **kw),
               "max": make_hfm_scorer("max", **kw)}
    model = DecisionTreeClassifier(max_depth=3, random_state=0)
    res = cross_validate(model, X, y, cv=CV, scoring=scoring,
                         params={"sensitive_features": A})
    assert len(calls) == (3 if method == "exact" else 6)
    for fold, (train, test) in enumerate(CV.split(X)):
        pred = DecisionTreeClassifier(max_depth=3, random_state=0).fit(
            X.iloc[train], y[train]).predict(X.iloc[test])
        args = (y[test], pred)
        kw_m = dict(X=X.iloc[test], sensitive_features=A.iloc[test], random_state=0, **kw)
        assert res["test_avg"][fold] == -hfm_avg(*args, **kw_m)
        assert res["test_max"][fold] == -hfm_max(*args, **kw_m)
