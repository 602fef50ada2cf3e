"""The metrics and scorers of a continuous prediction against plain references."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from skfair_manifold.metrics import (
    bounded_group_loss,
    distribution_distance,
    error_difference,
    fairness_report,
    mean_prediction_difference,
)

pd = pytest.importorskip("pandas")


def data(n=500, seed=0):
    rng = np.random.default_rng(seed)
    sex = rng.choice(["f", "m"], n)
    region = rng.choice(["a", "b", "c"], n)
    y = rng.normal(50, 10, n)
    pred = y + rng.normal(0, 3, n) - 4 * (sex == "f") + 2 * (region == "c")
    return y, pred, pd.DataFrame({"sex": sex, "region": region})


def test_each_metric_is_its_plain_groupby():
    y, pred, A = data()
    frame = A.assign(y=y, p=pred, e=np.abs(pred - y), s=(pred - y) ** 2)
    for attr in ("sex", "region"):
        means = frame.groupby(attr)[["p", "e", "s"]].mean()
        assert_allclose(mean_prediction_difference(y, pred, sensitive_features=A[attr]),
                        np.ptp(means.p), rtol=1e-12)
        assert_allclose(error_difference(y, pred, sensitive_features=A[attr]),
                        np.ptp(means.e), rtol=1e-12)
        assert_allclose(error_difference(y, pred, sensitive_features=A[attr],
                                         loss="squared"), np.ptp(means.s), rtol=1e-12)
        assert_allclose(bounded_group_loss(y, pred, sensitive_features=A[attr]),
                        means.e.max(), rtol=1e-12)
    per = [mean_prediction_difference(y, pred, sensitive_features=A[c]) for c in A.columns]
    assert_allclose(mean_prediction_difference(y, pred, sensitive_features=A), max(per))
    assert_allclose(mean_prediction_difference(y, pred, sensitive_features=A,
                                               aggregate="mean"), np.mean(per))


def test_the_metrics_equal_the_reports_gaps():
    y, pred, A = data(seed=1)
    gaps = fairness_report(y, pred, sensitive_features=A, min_group_size=1).gaps
    for attr in ("sex", "region"):
        row = gaps.loc[attr]
        a = A[attr]
        assert_allclose(mean_prediction_difference(y, pred, sensitive_features=a),
                        row["mean_prediction_difference"], rtol=1e-12)
        assert_allclose(error_difference(y, pred, sensitive_features=a),
                        row["mean_absolute_error_difference"], rtol=1e-12)
        assert_allclose(bounded_group_loss(y, pred, sensitive_features=a),
                        row["bounded_group_loss"], rtol=1e-12)
        assert_allclose(distribution_distance(y, pred, sensitive_features=a),
                        row["ks_distance"], rtol=1e-12)
        assert_allclose(distribution_distance(y, pred, sensitive_features=a,
                                              distance="wasserstein"),
                        row["wasserstein_distance"], rtol=1e-12)


def test_text_values_are_refused_with_the_argument_named():
    with pytest.raises(ValueError, match="y_pred must hold numbers"):
        mean_prediction_difference([1.0, 2.0], ["a", "b"], sensitive_features=["f", "m"])


@pytest.fixture
def routing():
    import sklearn

    sklearn.set_config(enable_metadata_routing=True)
    yield
    sklearn.set_config(enable_metadata_routing=False)


def test_a_search_over_regressors_keeps_the_most_accurate_within_the_bound(routing):
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV

    from skfair_manifold.scorers import (
        MostAccurateWithin,
        make_fairness_scorer,
        mean_prediction_difference_scorer,
    )

    rng = np.random.default_rng(0)
    n = 600
    sex = rng.integers(0, 2, n)
    x = rng.normal(size=(n, 3))
    X = np.column_stack([x, sex])
    y = x @ [1.0, 2.0, 3.0] + 5 * sex + rng.normal(size=n)
    search = GridSearchCV(
        Ridge(), {"alpha": [0.1, 10.0, 1000.0]},
        scoring={"mae": "neg_mean_absolute_error", "gap": mean_prediction_difference_scorer},
        refit=MostAccurateWithin(1.0, fairness="gap", score="mae"))
    search.fit(X, y, sensitive_features=sex)
    gaps = -search.cv_results_["mean_test_gap"]
    assert gaps[2] <= 1.0 < gaps[1] and search.best_index_ == 2
    # the scorer's value is the negated metric on the held-out rows
    model = search.best_estimator_
    assert_allclose(mean_prediction_difference_scorer(model, X, y, sensitive_features=sex),
                    -mean_prediction_difference(y, model.predict(X), sensitive_features=sex))
    inside = make_fairness_scorer("error_difference", sensitive=3, loss="squared")
    assert_allclose(inside(model, X, y), -error_difference(
        y, model.predict(X), sensitive_features=sex, loss="squared"), rtol=1e-12)


def test_class_scorers_point_to_the_quantity_scorers_and_scores_are_refused():
    from sklearn.linear_model import Ridge

    from skfair_manifold.scorers import make_fairness_scorer

    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(size=100), rng.integers(0, 2, 100)])
    y = X[:, 0] + rng.normal(size=100)
    model = Ridge().fit(X, y)
    with pytest.raises(ValueError, match="mean_prediction_difference_scorer"):
        make_fairness_scorer("demographic_parity", sensitive=1)(model, X, y)
    with pytest.raises(ValueError, match="come from predict"):
        make_fairness_scorer("bounded_group_loss", sensitive=1,
                             response_method="predict_proba")
