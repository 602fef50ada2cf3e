"""Options of the other target type are refused with the reason, never silently ignored.

``y_score`` (the binary report's AUC) with a quantity, ``favourable="lower"`` (the
continuous report's) with class labels, in Python and on the command line, and the
auditor's ``bound="newcombe"`` and ``positive_label`` with an amount.
"""

import numpy as np
import pytest

from skfair_manifold.cli import EXIT_OK
from skfair_manifold.datasets import make_biased_wages
from skfair_manifold.metrics import fairness_report
from skfair_manifold.situation_testing import SituationTestingAuditor

pd = pytest.importorskip("pandas")

from _cli import run_cli  # noqa: E402

_cli = run_cli


def _rows(n=200, seed=0):
    rng = np.random.default_rng(seed)
    sex = np.array(["f", "m"])[rng.integers(0, 2, n)]
    return rng.integers(0, 2, n), rng.integers(0, 2, n), rng.normal(5, 1, n), sex


def test_y_score_with_a_quantity_is_refused():
    _, _, wage, sex = _rows()
    with pytest.raises(ValueError, match="y_score= is the binary report's") as info:
        fairness_report(wage, wage + 1, sensitive_features=sex, target_type="continuous",
                        y_score=np.linspace(0, 1, len(wage)))
    assert "target_type='binary'" in str(info.value)
    with pytest.raises(ValueError, match="y_score"):  # read as a quantity by "auto"
        fairness_report(wage, wage + 1, sensitive_features=sex,
                        y_score=np.linspace(0, 1, len(wage)))


def test_favourable_lower_with_class_labels_is_refused():
    y, p, _, sex = _rows()
    with pytest.raises(ValueError, match="pos_label=0") as info:
        fairness_report(y, p, sensitive_features=sex, favourable="lower")
    assert "favourable='lower' is the continuous report's" in str(info.value)
    duckdb = pytest.importorskip("duckdb")
    frame = duckdb.from_df(pd.DataFrame({"y": y, "p": p, "s": sex}))
    with pytest.raises(ValueError, match="favourable='lower'"):
        fairness_report("y", "p", sensitive_features="s", data=frame, favourable="lower")
    fairness_report(y, p, sensitive_features=sex)  # the default stays accepted


def test_the_command_lines_favourable_with_classes_is_refused(tmp_path, capsys):
    y, p, wage, sex = _rows()
    path = tmp_path / "pred.csv"
    pd.DataFrame({"y": y, "p": p, "sex": sex, "wage": wage, "pw": wage + 1}).to_csv(
        path, index=False)
    code, _, err = _cli(capsys, "report", path, "--label", "y", "--prediction", "p",
                        "--sensitive", "sex", "--no-hfm", "--favourable", "lower",
                        "-o", tmp_path / "r.html")
    assert code not in (EXIT_OK, None) and "--favourable lower is for a quantity" in err
    assert "--pos-label 0" in err and "Traceback" not in err
    code, _, err = _cli(capsys, "report", path, "--label", "wage", "--prediction", "pw",
                        "--sensitive", "sex", "--no-hfm", "--target-type", "continuous",
                        "--favourable", "lower", "-o", tmp_path / "c.html")
    assert code == EXIT_OK, err
    assert "lower predictions are taken as favourable" in (tmp_path / "c.html").read_text()


@pytest.mark.parametrize("option, value, fragment", [
    ("bound", "newcombe", "Welch's t bounds"), ("positive_label", 1, "no positive class")])
def test_the_auditors_yes_no_options_with_an_amount_are_refused(option, value, fragment):
    wages = make_biased_wages(400, random_state=0)
    auditor = SituationTestingAuditor(protected="sex", protected_value="female",
                                      decision="continuous", tau=1000.0, method="knn",
                                      k=10, **{option: value})
    with pytest.raises(ValueError, match=fragment) as info:
        auditor.fit(wages.data, wages.target)
    assert f"{option}={value!r} is not available with decision='continuous'" in str(
        info.value)
    fitted = SituationTestingAuditor(protected="sex", protected_value="female",
                                     decision="continuous", tau=1000.0, method="knn",
                                     k=10).fit(wages.data, wages.target)
    fitted.set_params(**{option: value})  # after fit: refused at use
    with pytest.raises(ValueError, match=fragment):
        fitted.flag(wages.data, wages.target)
