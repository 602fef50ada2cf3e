"""One rule for which groups a comparison uses: metric = scorer = report.

The group metrics, their scorers and :func:`fairness_report` leave the groups
of fewer than ``min_group_size`` rows out of a gap, with the same default
(``MIN_GROUP_SIZE``), so the same call gives the same number; a bound read
off the report is one a search can meet. ``min_group_size=1`` compares every
group, as fairlearn does.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.dummy import DummyClassifier
from sklearn.model_selection import GridSearchCV

from skfair_manifold.metrics import (
    UndefinedFairnessWarning,
    demographic_parity,
    equal_opportunity,
    fairness_report,
    predictive_quality_parity,
)
from skfair_manifold.metrics._groups._engine import MIN_GROUP_SIZE
from skfair_manifold.scorers import (
    MostAccurateWithin,
    demographic_parity_scorer,
    equal_opportunity_scorer,
    make_fairness_scorer,
    predictive_quality_parity_scorer,
)

READY = {demographic_parity: demographic_parity_scorer,
         equal_opportunity: equal_opportunity_scorer,
         predictive_quality_parity: predictive_quality_parity_scorer}


class Fixed(DummyClassifier):
    """A classifier whose predictions are a column of X (the rows' own decisions)."""

    def __init__(self, column=0):
        self.column = column

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.asarray(X)[:, self.column].astype(int)


def table(seed=0, small=18):
    """Two large groups of close rates, and one of ``small`` rows selected far more often."""
    rng = np.random.default_rng(seed)
    sizes = {"a": 600, "b": 500, "c": small}
    group = np.repeat(list(sizes), list(sizes.values()))
    rate = pd.Series(group).map({"a": 0.40, "b": 0.36, "c": 0.95}).to_numpy()
    y_pred = (rng.random(group.shape[0]) < rate).astype(int)
    y_true = np.where(rng.random(group.shape[0]) < 0.8, y_pred, 1 - y_pred)
    small_rows = np.flatnonzero(group == "c")
    y_true[small_rows[:3]], y_pred[small_rows[:2]] = 0, 0  # every rate of it defined
    y_pred[small_rows[2]] = 1
    region = rng.choice(["north", "south"], group.shape[0])
    return y_true, y_pred, pd.DataFrame({"group": group, "region": region})


@pytest.mark.parametrize("metric", list(READY), ids=lambda m: m.__name__)
@pytest.mark.parametrize("options", [{}, {"kind": "ratio"}, {"method": "to_overall"},
                                     {"intersect": True}, {"aggregate": "mean"}],
                         ids=lambda o: ",".join(o) or "defaults")
def test_metric_equals_scorer_equals_report_with_a_small_group(metric, options):
    y_true, y_pred, A = table()
    X = y_pred[:, None]
    form = options.get("kind", "difference") + (
        "_to_overall" if options.get("method") == "to_overall" else "")
    for size in ({}, {"min_group_size": 1}, {"min_group_size": 10}):
        report = fairness_report(y_true, y_pred, sensitive_features=A,
                                 intersect=options.get("intersect", False), **size)
        rows = report.gaps.drop(index=report.options["summary_label"], errors="ignore")
        column = rows[f"{metric.__name__}_{form}"]
        if options.get("aggregate") == "mean":
            expected = column.mean()
        else:
            expected = column.max() if form.startswith("difference") else column.min()
        got = metric(y_true, y_pred, sensitive_features=A, **options, **size)
        assert got == pytest.approx(expected, rel=1e-12), size
        scorer = make_fairness_scorer(metric.__name__, **options, **size)
        assert scorer(Fixed().fit(X, y_true), X, y_true, sensitive_features=A) == \
            pytest.approx(-expected, rel=1e-12)
        if not options and not size:  # the ready scorer: the defaults
            assert READY[metric](Fixed().fit(X, y_true), X, y_true, sensitive_features=A) \
                == pytest.approx(-expected, rel=1e-12)


def test_the_small_group_decides_only_when_every_group_is_compared():
    y_true, y_pred, A = table()
    default = demographic_parity(y_true, y_pred, sensitive_features=A["group"])
    every = demographic_parity(y_true, y_pred, sensitive_features=A["group"], min_group_size=1)
    selected = pd.Series(y_pred).groupby(A["group"].to_numpy()).mean()
    assert default == pytest.approx(abs(selected["a"] - selected["b"]), rel=1e-12)
    assert every == pytest.approx(selected.max() - selected.min(), rel=1e-12)
    assert every > 0.4 > 0.1 > default  # the 18-row group's rate is far from the others'
    report = fairness_report(y_true, y_pred, sensitive_features=A["group"])
    assert report.options["min_group_size"] == MIN_GROUP_SIZE
    assert report.gaps.loc["group", "groups_left_out"] == 1
    assert report.gaps.loc["group", "demographic_parity_difference"] == pytest.approx(default)


def test_fairlearn_equality_needs_every_group():
    fairlearn = pytest.importorskip("fairlearn.metrics")
    y_true, y_pred, A = table()
    want = fairlearn.demographic_parity_difference(y_true, y_pred,
                                                   sensitive_features=A["group"])
    assert demographic_parity(y_true, y_pred, sensitive_features=A["group"],
                              min_group_size=1) == pytest.approx(want, rel=1e-12)
    assert demographic_parity(y_true, y_pred, sensitive_features=A["group"]) != \
        pytest.approx(want, rel=1e-3)


def test_fewer_than_two_groups_of_the_size_is_nan_with_the_fix():
    y_true, y_pred, A = table(small=18)
    with pytest.warns(UndefinedFairnessWarning, match=r"1 group\(s\) of at least "
                      r"min_group_size=550 rows.*'c': 18.*min_group_size=1 compares every"):
        assert np.isnan(demographic_parity(y_true, y_pred, sensitive_features=A["group"],
                                           min_group_size=550))
    with pytest.raises(ValueError, match="min_group_size"):
        demographic_parity(y_true, y_pred, sensitive_features=A["group"], min_group_size=0)


def test_a_bound_read_off_the_report_is_met_in_the_search():
    """The search keeps the most accurate candidate whose DP is within the report's bound."""
    y_true, y_pred, A = table(seed=2)
    rng = np.random.default_rng(5)
    noisy = np.where(rng.random(y_pred.shape[0]) < 0.3, 1 - y_pred, y_pred)
    X = np.column_stack([y_pred, noisy])
    bound = fairness_report(y_true, y_pred, sensitive_features=A["group"]).gaps.loc[
        "group", "demographic_parity_difference"] + 1e-9
    search = GridSearchCV(
        Fixed(), {"column": [0, 1]}, cv=[(np.arange(len(y_true)), np.arange(len(y_true)))],
        scoring={"acc": "accuracy",
                 "dp": make_fairness_scorer("demographic_parity", sensitive=None)},
        refit=MostAccurateWithin(bound, fairness="dp", score="acc"))
    import sklearn

    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y_true, sensitive_features=A["group"])
    dp = -search.cv_results_["mean_test_dp"]
    assert dp[0] == pytest.approx(bound, abs=1e-8)  # the report's number, in the search
    assert search.best_params_ == {"column": 0}


# --------------------------------------------------------------------------- quantities

def wages(seed=0, small=12):
    rng = np.random.default_rng(seed)
    group = np.repeat(["a", "b", "c"], [400, 350, small])
    y = rng.lognormal(10.3, 0.3, group.shape[0])
    shift = pd.Series(group).map({"a": 1.0, "b": 0.97, "c": 1.6}).to_numpy()
    return y, y * shift * rng.lognormal(0.0, 0.05, group.shape[0]), group


#: each metric of a quantity and its column of the report's gaps
QUANTITY_COLUMNS = {"mean_prediction_difference": "mean_prediction_difference",
                    "error_difference": "mean_absolute_error_difference",
                    "bounded_group_loss": "bounded_group_loss",
                    "distribution_distance": "ks_distance"}


@pytest.mark.parametrize("name", list(QUANTITY_COLUMNS))
def test_quantity_metric_equals_scorer_equals_report_with_a_small_group(name):
    from sklearn.dummy import DummyRegressor

    from skfair_manifold import metrics

    class Echo(DummyRegressor):  # predicts the column it is given
        def predict(self, X):
            return np.asarray(X)[:, 0]

    y, pred, group = wages()
    metric = getattr(metrics, name)
    column = QUANTITY_COLUMNS[name]
    values = {}
    for size in ({}, {"min_group_size": 1}):
        report = fairness_report(y, pred, sensitive_features=group, **size)
        expected = report.gaps[column].iloc[0]
        got = metric(y, pred, sensitive_features=group, **size)
        assert got == pytest.approx(expected, rel=1e-12), size
        scorer = make_fairness_scorer(name, **size)
        model = Echo().fit(pred[:, None], y)
        assert scorer(model, pred[:, None], y, sensitive_features=group) == \
            pytest.approx(-expected, rel=1e-12)
        values[size.get("min_group_size", MIN_GROUP_SIZE)] = got
    assert values[1] != pytest.approx(values[MIN_GROUP_SIZE], rel=1e-3)  # group c decides
