"""Scorers on the standard pipeline (raw strings encoded inside), make_scorer, score methods."""

import numpy as np
import pytest
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from skfair_manifold.metrics import (
    demographic_parity,
    equal_opportunity,
    hfm_avg,
    hfm_max,
    hfm_report,
)
from skfair_manifold.scorers import (
    MSG_NOT_BINARY_SCORES,
    demographic_parity_scorer,
    equal_opportunity_scorer,
    hfm_avg_scorer,
    make_fairness_scorer,
    make_hfm_scorer,
)
from skfair_manifold.utils._pipeline import transformed_features

pd = pytest.importorskip("pandas")
CV = KFold(3, shuffle=True, random_state=0)


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


@pytest.fixture(scope="module")
def raw():
    """Raw columns as users have them: strings for city and sex, numbers for the rest."""
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({"age": rng.integers(18, 70, n).astype(float),
                      "hours": rng.random(n) * 60,
                      "city": rng.choice(["north", "south", "east"], n),
                      "sex": rng.choice(["female", "male"], n)})
    y = ((X["hours"] / 60 + 0.3 * (X["sex"] == "male") + 0.2 * rng.standard_normal(n))
         > 0.6).astype(int).to_numpy()
    return X, y


def pipeline():
    encode = ColumnTransformer([("onehot", OneHotEncoder(), ["city", "sex"]),
                                ("scale", StandardScaler(), ["age", "hours"])])
    return Pipeline([("encode", encode), ("model", LogisticRegression(max_iter=500))])


def test_grid_search_with_routing_on_raw_strings(raw, routing):
    X, y = raw
    A = X[["sex"]]
    search = GridSearchCV(pipeline(), {"model__C": [0.1, 1.0]},
                          scoring={"acc": "accuracy", "hfm": hfm_avg_scorer,
                                   "dp": demographic_parity_scorer},
                          refit="acc", cv=CV, error_score="raise").fit(X, y,
                                                                       sensitive_features=A)
    assert np.isfinite(search.cv_results_["mean_test_hfm"]).all()
    # one fold by hand: HFM on what the model sees, the one-hot columns of sex left out
    train, test = next(CV.split(X))
    model = pipeline().set_params(model__C=0.1).fit(X.iloc[train], y[train])
    Xt = model[:-1].transform(X.iloc[test])
    names = list(model[:-1].get_feature_names_out())
    keep = [j for j, name in enumerate(names) if not name.startswith("onehot__sex_")]
    assert len(keep) == len(names) - 2
    expected = -hfm_avg(y[test], model.predict(X.iloc[test]), X=Xt[:, keep],
                        sensitive_features=A.iloc[test], random_state=0)
    assert search.cv_results_["split0_test_hfm"][0] == pytest.approx(expected, rel=1e-12)


def test_sensitive_columns_in_x_need_no_routing(raw):
    X, y = raw
    scorer = make_hfm_scorer("avg", sensitive="sex", method="exact")
    scores = cross_validate(pipeline(), X, y, scoring=scorer, cv=CV, error_score="raise")
    assert np.isfinite(scores["test_score"]).all()
    model = pipeline().fit(X, y)
    Xt, names = transformed_features(model, X, ["sex"])
    assert not any("sex" in n for n in names) and Xt.shape[1] == 3 + 2
    assert scorer(model, X, y) == pytest.approx(
        -hfm_avg(y, model.predict(X), X=Xt, sensitive_features=X["sex"], method="exact"))


def test_features_input_measures_on_the_raw_x(raw):
    X, y = raw
    model = pipeline().fit(X, y)
    scorer = make_hfm_scorer("avg", sensitive="sex", features="input")
    with pytest.raises((TypeError, ValueError), match="numeric"):
        scorer(model, X, y)  # the raw strings have no distance
    numeric = X[["age", "hours", "sex"]].assign(sex=(X["sex"] == "male").astype(int))
    bare = LogisticRegression().fit(numeric, y)
    transformed = make_hfm_scorer("avg", sensitive="sex", method="exact")
    as_input = make_hfm_scorer("avg", sensitive="sex", method="exact", features="input")
    assert transformed(bare, numeric, y) == as_input(bare, numeric, y)  # no pipeline


def test_make_scorer_with_the_group_metrics(raw, routing):
    X, y = raw
    A = X["sex"]
    dp = make_scorer(demographic_parity, greater_is_better=False).set_score_request(
        sensitive_features=True)
    eo = make_scorer(equal_opportunity, greater_is_better=False).set_score_request(
        sensitive_features=True)
    ours = cross_validate(pipeline(), X, y, cv=CV, params={"sensitive_features": A},
                          scoring={"dp": demographic_parity_scorer,
                                   "eo": equal_opportunity_scorer})
    theirs = cross_validate(pipeline(), X, y, cv=CV, params={"sensitive_features": A},
                            scoring={"dp": dp, "eo": eo}, error_score="raise")
    np.testing.assert_allclose(ours["test_dp"], theirs["test_dp"])
    np.testing.assert_allclose(ours["test_eo"], theirs["test_eo"])


def test_make_scorer_with_hfm_fails_at_the_first_call(raw, routing):
    X, y = raw
    scorer = make_scorer(hfm_avg, greater_is_better=False).set_score_request(
        sensitive_features=True)
    with pytest.raises(TypeError, match=r"X is required.*make_scorer\(hfm_avg\).*use "
                                        r"skfair_manifold.scorers.hfm_avg_scorer or "
                                        r"hfm_max_scorer, or make_hfm_scorer"):
        cross_validate(pipeline(), X, y, cv=CV, params={"sensitive_features": X["sex"]},
                       scoring=scorer, error_score="raise")
    for metric in (hfm_max, hfm_report):
        with pytest.raises(TypeError, match="X is required"):
            metric(y, y, sensitive_features=X["sex"])


def test_score_methods_and_thresholds(raw):
    X, y = raw
    model = pipeline().fit(X, y)
    proba = model.predict_proba(X)[:, 1]
    for threshold in (0.3, 0.5, 0.7):
        scorer = make_fairness_scorer("demographic_parity", sensitive="sex",
                                      response_method="predict_proba", threshold=threshold)
        expected = demographic_parity(y, (proba >= threshold).astype(int),
                                      sensitive_features=X["sex"])
        assert scorer(model, X, y) == pytest.approx(-expected)
    decision = make_fairness_scorer("demographic_parity", sensitive="sex",
                                    response_method="decision_function")
    default = make_fairness_scorer("demographic_parity", sensitive="sex")
    assert decision(model, X, y) == pytest.approx(default(model, X, y))  # 0 <=> p = 0.5
    hfm = make_hfm_scorer("avg", sensitive="sex", response_method="predict_proba",
                          threshold=0.4, method="exact")
    assert np.isfinite(hfm(model, X, y))
    with pytest.raises(ValueError, match="needs response_method"):
        make_hfm_scorer("avg", threshold=0.5)


def test_multiclass_and_regression_get_clear_errors():
    rng = np.random.default_rng(1)
    X = rng.random((200, 3))
    A = rng.integers(0, 2, 200)
    y3 = rng.integers(0, 3, 200)
    model = LogisticRegression().fit(X, y3)
    with pytest.raises(ValueError, match="pos_label"):
        equal_opportunity_scorer(model, X, y3, sensitive_features=A)
    scorer = make_fairness_scorer("equal_opportunity", pos_label=2)
    scorer._metadata_request = equal_opportunity_scorer._metadata_request
    assert np.isfinite(scorer(model, X, y3, sensitive_features=A))
    proba = make_fairness_scorer("demographic_parity", response_method="predict_proba")
    with pytest.raises(ValueError, match="has 3 classes"):
        proba(model, X, y3, sensitive_features=A)
    assert "thresholds" in MSG_NOT_BINARY_SCORES
    y_cont = rng.random(200)
    reg = LinearRegression().fit(X, y_cont)
    with pytest.raises(ValueError, match="continuous \\(regression\\) target"):
        demographic_parity_scorer(reg, X, y_cont, sensitive_features=A)
    # HFM takes a numeric target as a coordinate of the distance: a documented meaning
    assert np.isfinite(hfm_avg_scorer(reg, X, y_cont, sensitive_features=A))


def test_refit_most_accurate_within_a_bound(raw, routing):
    from skfair_manifold.scorers import MostAccurateWithin

    X, y = raw
    A = X[["sex"]]
    grid = {"model__C": [0.001, 0.01, 0.1, 1.0, 10.0]}
    scoring = {"acc": "accuracy", "dp": demographic_parity_scorer}
    search = GridSearchCV(pipeline(), grid, scoring=scoring, cv=CV,
                          refit=MostAccurateWithin(0.2, fairness="dp", score="acc"))
    search.fit(X, y, sensitive_features=A)
    res = search.cv_results_
    dp, acc = -res["mean_test_dp"], res["mean_test_acc"]
    allowed = [i for i in range(len(dp)) if dp[i] <= 0.2]
    assert allowed, dp
    best = max(allowed, key=lambda i: (acc[i], -dp[i]))
    assert search.best_index_ == best
    with pytest.warns(UserWarning, match="no candidate"):
        choice = MostAccurateWithin(-1.0, fairness="dp", score="acc")(res)
    assert choice == int(np.argmin(dp))
    with pytest.raises(KeyError, match="no scorer named 'hfm'"):
        MostAccurateWithin(0.1)(res)


def test_the_steps_output_is_reused_only_for_the_same_fitted_steps_and_rows(raw, monkeypatch):
    from skfair_manifold import scorers

    X, y = raw
    from skfair_manifold.utils import _pipeline

    memo = _pipeline._TransformMemo()
    monkeypatch.setattr(_pipeline, "_TRANSFORMED", memo)
    calls = []
    compute = memo._compute
    monkeypatch.setattr(memo, "_compute", lambda head, Z: calls.append(1) or compute(head, Z))
    a = pipeline().set_params(model__C=0.1).fit(X, y)
    b = pipeline().set_params(model__C=10.0).fit(X, y)  # same steps, another model
    first, _ = transformed_features(a, X, ["sex"])
    again, _ = transformed_features(b, X.copy(), ["sex"])
    assert len(calls) == 1 and np.array_equal(first, again)
    expected = a[:-1].transform(X)
    assert np.array_equal(first, np.delete(expected, [3, 4], axis=1))
    refit = pipeline().fit(X.iloc[:200], y[:200])  # other fitted steps: computed anew
    other, _ = transformed_features(refit, X, ["sex"])
    assert len(calls) == 2
    assert np.array_equal(other, np.delete(refit[:-1].transform(X), [3, 4], axis=1))
    changed = X.copy()
    changed.loc[0, "hours"] += 1.0  # other rows: computed anew
    transformed_features(a, changed, ["sex"])
    assert len(calls) == 3
    memo.budget = 0  # off
    transformed_features(a, X, ["sex"])
    assert len(calls) == 4
