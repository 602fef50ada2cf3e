"""The same views on every result: one sweep over the result classes.

Every object a public function returns as a result (a report or an audit)
has ``to_frame()`` (a DataFrame), ``to_dict()`` (plain values that
``json.dumps`` takes without NaN), ``to_html()`` (a whole page),
``_repr_html_()`` (a fragment for notebooks), ``headline`` (sentences) and
``provenance`` (a dict); ``to_dict()`` carries the headline and the
provenance.
"""

import inspect
import json

import numpy as np
import pandas as pd
import pytest

from skfair_manifold import metrics, situation_testing
from skfair_manifold.datasets import (
    make_biased_decisions,
    make_biased_wages,
    make_planted_bias,
)
from skfair_manifold.metrics import bias_audit, fairness_report
from skfair_manifold.situation_testing import SituationTestingAuditor

#: the public classes that are not results, each with the reason
NOT_RESULTS = {
    "UndefinedFairnessWarning": "a warning",
    "SituationTestingAuditor": "the estimator that makes a SituationTestingReport",
    "PersonEvidence": "one flagged person's entry of a SituationTestingReport (a dict)",
    "FitData": "the input of a registered selection method",
}


def _binary():
    data = make_biased_decisions(600, random_state=0, as_frame=True)
    frame = data.frame
    y = frame["decision"].to_numpy()
    rng = np.random.default_rng(0)
    pred = np.where(rng.random(y.shape[0]) < 0.85, y, 1 - y)
    return frame, y, pred


def _fairness_report():
    frame, y, pred = _binary()
    return fairness_report(y, pred, sensitive_features=frame[["s0", "s1"]],
                           X=frame[["x0", "x1", "x2"]], hfm_options={"method": "exact"})


def _report_without_labels():
    frame, _, pred = _binary()
    return fairness_report(None, pred, sensitive_features=frame[["s0"]])


def _regression_report():
    wages = make_biased_wages(800, gap=0.1, random_state=0)
    rng = np.random.default_rng(1)
    pred = wages.target * rng.lognormal(0, 0.05, wages.target.shape[0])
    return fairness_report(wages.target, pred, sensitive_features=wages.data[["sex"]])


def _bias_audit():
    frame, _, pred = _binary()
    return bias_audit(pred, sensitive_features=frame[["s0", "s1"]])


def _situation_testing_report(method):
    data = make_biased_decisions(500, random_state=0, as_frame=True)
    X, y = data.frame.drop(columns=["decision"]), data.frame["decision"]
    X = X[[c for c in X.columns if c.startswith(("x", "s"))]]
    auditor = SituationTestingAuditor(protected="s0", protected_value=1, k=10, method=method)
    return auditor.fit(X, y).report(X, y)


def _cbn_report():
    X, y, _, _ = make_planted_bias(3000, bias_share=0.5, random_state=0)
    X = X[["sex", "region", "edu"]].astype({"edu": int})
    auditor = SituationTestingAuditor(protected="sex", protected_value="female", k=50)
    return auditor.fit(X, y).report(X, y)


def _continuous_situation_testing_report():
    wages = make_biased_wages(600, gap=0.2, random_state=1)
    auditor = SituationTestingAuditor(protected="sex", protected_value="female", method="knn",
                                      decision="continuous", tau=1000.0, k=10)
    return auditor.fit(wages.data, wages.target).report(wages.data, wages.target)


RESULTS = {
    "FairnessReport": _fairness_report,
    "FairnessReport without labels": _report_without_labels,
    "RegressionReport": _regression_report,
    "BiasAudit": _bias_audit,
    "SituationTestingReport knn": lambda: _situation_testing_report("knn"),
    "SituationTestingReport cbn": _cbn_report,
    "SituationTestingReport nobody flagged": lambda: _situation_testing_report("cbn"),
    "SituationTestingReport continuous": _continuous_situation_testing_report,
}


def test_every_public_class_is_swept_or_named_as_no_result():
    public = {name for module in (metrics, situation_testing) for name in module.__all__
              if inspect.isclass(getattr(module, name))}
    swept = {name.split()[0] for name in RESULTS}
    assert public == swept | set(NOT_RESULTS)


@pytest.fixture(scope="module", params=sorted(RESULTS))
def result(request):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sweep is of the views, not of the data
        return request.param, RESULTS[request.param]()


def test_the_same_views_on_every_result(result):
    name, obj = result
    assert type(obj).__name__ == name.split()[0]
    frame = obj.to_frame()
    assert isinstance(frame, pd.DataFrame) and frame.shape[1] > 0
    assert (frame.shape[0] == 0) == ("nobody" in name)
    data = obj.to_dict()
    text = json.dumps(data, allow_nan=False)  # plain values, no NaN token
    assert text.startswith("{")
    headline = obj.headline
    assert isinstance(headline, list) and headline and all(isinstance(s, str) and s
                                                           for s in headline)
    assert data["headline"] == headline
    assert isinstance(obj.provenance, dict)
    assert "provenance" in data
    page = obj.to_html()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    fragment = obj._repr_html_()
    assert fragment.startswith('<div class="skfair-report">') and "<html" not in fragment
    assert headline[0].split(":")[0].replace("'", "&#39;")[:30] in fragment \
        or headline[0][:30] in fragment


def test_a_regression_report_frame_holds_its_numbers():
    report = _regression_report()
    frame = report.to_frame()
    assert set(frame["section"]) == {"by_group", "overall", "gaps"}
    by_group = frame[frame["section"] == "by_group"].set_index(["group", "quantity"])
    for (attr, group), row in report.by_group.iterrows():
        assert by_group.loc[(group, "mean_prediction"), "value"] == row["mean_prediction"]
        assert by_group.loc[(group, "mean_prediction"), "low"] == \
            report.intervals.by_group.loc[(attr, group), "mean_prediction_low"]
    gaps = frame[frame["section"] == "gaps"].set_index("quantity")
    assert gaps.loc["mean_prediction_difference", "value"] == \
        report.gaps["mean_prediction_difference"].iloc[0]
    assert not gaps.index.str.endswith(("_group", "_group_high", "_group_low")).any()


def test_group_columns_are_never_numbers_of_the_long_table():
    """Integer groups name the groups high and low: they are not quantities."""
    rng = np.random.default_rng(3)
    y, p = rng.integers(0, 2, 400), rng.integers(0, 2, 400)
    report = fairness_report(y, p, sensitive_features=rng.integers(0, 3, 400))
    quantities = set(report.to_frame()["quantity"])
    assert "demographic_parity_difference" in quantities
    assert not any(q.endswith(("_group_high", "_group_low")) for q in quantities)
