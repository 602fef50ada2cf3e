"""Messages that name the problem and the fix where numpy's or scikit-learn's reached the user.

Each case of the input sweep: the exception's type, and words of the message
that say what is wrong and what to do.
"""

import numpy as np
import pytest

from skfair_manifold.cli import main
from skfair_manifold.metrics import demographic_parity, fairness_report
from skfair_manifold.scorers import MostAccurateWithin, make_fairness_scorer
from skfair_manifold.situation_testing import SituationTestingAuditor

pd = pytest.importorskip("pandas")


def _wages(n=200, seed=0):
    rng = np.random.default_rng(seed)
    sex = np.array(["f", "m"])[rng.integers(0, 2, n)]
    return rng.integers(20_000, 90_000, n), rng.integers(20_000, 90_000, n), sex


def test_a_constant_prediction_is_not_called_two_classes():
    rng = np.random.default_rng(0)
    y = rng.normal(50_000, 9_000, 100)
    with pytest.raises(ValueError, match=r"y_pred holds a single value \(3.0\)") as info:
        fairness_report(y, np.full(100, 3.0), sensitive_features=np.tile(["f", "m"], 50))
    assert "two classes" not in str(info.value)
    assert "target_type='continuous'" in str(info.value)


def test_integer_amounts_are_told_of_target_type_continuous():
    wage, predicted, sex = _wages()
    with pytest.raises(ValueError, match="pos_label") as info:
        fairness_report(wage, predicted, sensitive_features=sex)
    assert "target_type='continuous'" in str(info.value)
    with pytest.raises(ValueError, match="pos_label") as info:
        demographic_parity(wage, predicted, sensitive_features=sex)
    assert "mean_prediction_difference" in str(info.value)
    with pytest.raises(ValueError, match="pos_label") as info:  # a few classes: no hint
        demographic_parity(wage % 3, predicted % 3, sensitive_features=sex)
    assert "amounts" not in str(info.value)


def test_the_report_command_speaks_of_its_own_options(tmp_path, capsys):
    wage, predicted, sex = _wages()
    path = tmp_path / "wages.csv"
    pd.DataFrame({"wage": wage, "pred": predicted, "sex": sex}).to_csv(path, index=False)
    code = main(["report", str(path), "--label", "wage", "--prediction", "pred",
                 "--sensitive", "sex", "--no-hfm", "-o", str(tmp_path / "r.html")])
    err = capsys.readouterr().err
    assert code == 1 and "--target-type continuous" in err and "--pos-label" in err
    assert "target_type=" not in err and "Traceback" not in err


def test_a_ready_scorers_request_is_refused_and_an_own_ones_keeps_its_routing():
    import sklearn

    from skfair_manifold.scorers import demographic_parity_scorer

    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(ValueError, match="shared by the whole process") as info:
            demographic_parity_scorer.set_score_request(sensitive_features=False)
        assert 'make_fairness_scorer("demographic_parity").set_score_request' in str(
            info.value)
        requests = demographic_parity_scorer.get_metadata_routing().score.requests
        assert requests == {"sensitive_features": True}
        own = make_fairness_scorer("demographic_parity").set_score_request(
            sample_weight=True)
        assert own.get_metadata_routing().score.requests == {"sensitive_features": True,
                                                             "sample_weight": True}


@pytest.mark.parametrize("bound, error", [("0.05", TypeError), (None, TypeError),
                                          (np.nan, ValueError), (True, TypeError)])
def test_a_bound_that_is_not_a_number_is_refused_by_name(bound, error):
    with pytest.raises(error, match="bound must be a finite number"):
        MostAccurateWithin(bound)


def test_most_accurate_within_names_an_empty_search_and_undefined_scores():
    rule = MostAccurateWithin(0.1, fairness="dp", score="acc")
    with pytest.raises(ValueError, match="holds no candidate"):
        rule({"mean_test_acc": [], "mean_test_dp": []})
    with pytest.raises(ValueError, match="every candidate's mean 'dp' score is nan"):
        rule({"mean_test_acc": [0.9, 0.8], "mean_test_dp": [np.nan, np.nan]})
    assert rule({"mean_test_acc": [0.9, 0.8], "mean_test_dp": [np.nan, -0.05]}) == 1


@pytest.mark.parametrize("graph", [["a", "sex"], None])
def test_an_empty_lazy_frame_is_said_to_have_no_rows(graph):
    polars = pytest.importorskip("polars")
    frame = polars.DataFrame({"sex": ["f", "m"] * 50, "a": np.arange(100) % 3,
                              "y": np.arange(100) % 2})
    empty = frame.lazy().filter(polars.col("a") > 10)
    auditor = SituationTestingAuditor(protected="sex", protected_value="f", k=5, graph=graph)
    with pytest.raises(ValueError, match="has no rows") as info:
        auditor.fit(empty, "y")
    assert "missing" not in str(info.value) and "sample(s)" not in str(info.value)
