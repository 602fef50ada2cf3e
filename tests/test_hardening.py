"""Bad input across the public surface: each case a clear error naming the problem.

One test per case of the hardening sweep, asserting the exception type and
the message constant (or its distinctive part) that a user sees.
"""

import numpy as np
import pandas as pd
import pytest

from skfair_manifold.datasets import (
    load_adult,
    load_compas,
    load_dutch_census,
    load_german_credit,
    load_ricci,
    make_paper_preprocessor,
)
from skfair_manifold.datasets import _base as B
from skfair_manifold.distances import accele_dist
from skfair_manifold.distances._api import MSG_W_NON_NUMERIC
from skfair_manifold.metrics import demographic_parity, discriminative_risk, hfm_max
from skfair_manifold.utils import _validation as V

RNG = np.random.default_rng(1)
N = 40
X = RNG.random((N, 2))
Y = RNG.integers(0, 2, N)
P = RNG.integers(0, 2, N)
A = RNG.integers(0, 3, N)


def _head(message):
    """The fixed text of a message constant up to its first placeholder."""
    return message.split("{")[0]


# --------------------------------------------------------------------------- NaN policy

def test_nan_prediction_in_dp_is_not_a_negative():
    with pytest.raises(ValueError, match=r"y_pred contains NaN or infinity"):
        demographic_parity(Y, np.r_[np.nan, P[1:]], sensitive_features=A, pos_label=1)


def test_float_nan_in_sensitive_column_of_dr_is_not_a_group():
    from sklearn.tree import DecisionTreeClassifier

    Xs = np.column_stack([X, A.astype(float)])
    clf = DecisionTreeClassifier(random_state=0).fit(Xs, Y)
    Xs[3, 2] = np.nan
    with pytest.raises(ValueError, match=r"sensitive attribute 2 contains missing values"):
        discriminative_risk(clf, Xs, sensitive=2, random_state=0)


def test_string_and_integer_labels_are_refused_in_hfm():
    with pytest.raises(TypeError, match=_head(V.MSG_LABEL_KINDS)):
        hfm_max(np.array(["a", "b"])[Y], P, X=X, sensitive_features=A, method="exact")


def test_preprocessor_refuses_a_bare_string():
    with pytest.raises(TypeError, match="numerical_features must be a list of column names; "
                                        "got the string 'abc'"):
        make_paper_preprocessor("abc", [])


# --------------------------------------------------------------------------- unclear errors

def test_string_sample_weight():
    with pytest.raises(TypeError, match=_head(V.MSG_WEIGHT_NON_NUMERIC)):
        demographic_parity(Y, P, sensitive_features=A, sample_weight=["a"] * N)


def test_string_projection_vector():
    with pytest.raises(TypeError, match=_head(MSG_W_NON_NUMERIC)):
        accele_dist(X[:5], Y[:5], [0, 1, 0, 1, 0], ["a"] * 3, m2=1)


def test_object_features_with_none_among_numbers():
    Xo = X.astype(object)
    Xo[4, 1] = None
    with pytest.raises(ValueError, match=r"X contains missing values \(NaN, None or NA\) in "
                                         r"column 1: 1 row\(s\), first at row 4"):
        hfm_max(Y, P, X=Xo, sensitive_features=A, method="exact")


RICCI_OK = "Position,Oral,Written,Race,Combine\nCaptain,89.5,95,W,92.8\nLieutenant,60,80,B,70\n"

LOADERS = {
    "ricci.csv": load_ricci,
    "german.csv": load_german_credit,
    "adult.csv": load_adult,
    "compas.csv": load_compas,
    "dutch.csv": load_dutch_census,
}


@pytest.mark.parametrize("name", list(LOADERS))
def test_loader_empty_file(tmp_path, name):
    path = tmp_path / name
    path.write_text("")
    with pytest.raises(ValueError, match=f"{name}: the file is empty"):
        LOADERS[name](path=path)


@pytest.mark.parametrize("name", list(LOADERS))
def test_loader_not_utf8(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"Position,Race\n\xff\xfeW,B\n")
    with pytest.raises(ValueError, match=f"{name}: the file is not UTF-8 text"):
        LOADERS[name](path=path)


def test_loader_non_numeric_score(tmp_path):
    path = tmp_path / "ricci.csv"
    path.write_text(RICCI_OK + "Captain,70,60,W,abc\n")
    with pytest.raises(ValueError, match=r"ricci.csv: column 'Combine' must hold numbers .* "
                                         r"row 2 \(line 4 of the file\) holds 'abc'"):
        load_ricci(path=path)
    path.write_text(RICCI_OK)
    assert load_ricci(path=path).data.shape == (2, 5)


def test_arff_value_outside_its_domain(tmp_path):
    path = tmp_path / "dutch_census_2001.arff"
    path.write_text("@relation t\n@attribute sex {1,2}\n@attribute occupation {2_1,5_4_9}\n"
                    "@data\n1,2_1\n3,5_4_9\n")
    with pytest.raises(ValueError, match=r"could not be read as Weka ARFF \(3 value not in "
                                         r"\('1', '2'\); a value outside its attribute's "
                                         r"declared domain"):
        load_dutch_census(path=path)


def test_loader_messages_are_constants():
    for constant in (B.MSG_EMPTY_FILE, B.MSG_NOT_UTF8, B.MSG_NOT_PARSED,
                     B.MSG_NOT_NUMERIC_COLUMN):
        assert constant.startswith("{filename}: ")


def test_frame_with_int64_and_float64_is_accepted():
    frame = pd.DataFrame({"a": pd.array([1, 2, 3, 4], dtype="Int64"), "b": [0.1, 0.2, 0.3, 0.4]})
    assert hfm_max([0, 1, 0, 1], [0, 1, 1, 1], X=frame, sensitive_features=[0, 0, 1, 1],
                   method="exact") == pytest.approx(
        hfm_max([0, 1, 0, 1], [0, 1, 1, 1], X=frame.to_numpy(float),
                sensitive_features=[0, 0, 1, 1], method="exact"))


# --------------------------------------------------------------------------- plots, scorers

def test_hfm_scorer_with_sample_weight():
    from sklearn.linear_model import LogisticRegression

    from skfair_manifold.scorers import MSG_HFM_NO_WEIGHTS, hfm_avg_scorer

    model = LogisticRegression().fit(X, Y)
    with pytest.raises(TypeError, match=r"takes no sample_weight: HFM \(Eq. 8\)"):
        hfm_avg_scorer(model, X, Y, sensitive_features=A, sample_weight=np.ones(N))
    assert "demographic_parity_scorer" in MSG_HFM_NO_WEIGHTS


@pytest.fixture
def agg():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


@pytest.mark.parametrize("bad, fragment", [
    ([0.1, np.nan, 0.3], r"exact holds 1 NaN or infinite value\(s\), first at position 1"),
    ([0.1, np.inf, 0.3], "NaN or infinite"),
    (["a", "b", "c"], "exact must hold numbers"),
])
def test_scatter_with_bad_values(agg, bad, fragment):
    from skfair_manifold.plotting import plot_approx_vs_exact

    error = TypeError if isinstance(bad[0], str) else ValueError
    with pytest.raises(error, match=fragment):
        plot_approx_vs_exact(bad, [0.1, 0.2, 0.3])


def test_tradeoff_with_bad_results(agg):
    from skfair_manifold.plotting import plot_fairness_tradeoff

    with pytest.raises(ValueError, match="holds 2 values of 'hfm' and 1 of 'acc'"):
        plot_fairness_tradeoff({"mean_test_hfm": [0.1, 0.2], "mean_test_acc": [0.3]},
                               performance="acc")
    with pytest.raises(TypeError, match="must be a search's cv_results_ .* got list"):
        plot_fairness_tradeoff([0.1, 0.2])
    with pytest.raises(TypeError, match=r"cv_results\['mean_test_acc'\] must hold numbers"):
        plot_fairness_tradeoff({"mean_test_hfm": [0.1], "mean_test_acc": ["x"]},
                               performance="acc")


@pytest.mark.parametrize("measures, fragment", [([], "measures"), (["nope"], "nope")])
def test_hfm_bars_with_bad_measures(agg, measures, fragment):
    from skfair_manifold.plotting import plot_hfm_by_attribute

    with pytest.raises(ValueError, match=fragment):
        plot_hfm_by_attribute({"sex": {"df": 0.1}}, measures=measures)
    with pytest.raises(ValueError, match="empty"):
        plot_hfm_by_attribute({})


def test_auditor_and_kinds_suggest_the_column():
    from skfair_manifold.situation_testing import SituationTestingAuditor

    frame = pd.DataFrame({"sex": np.array(["f", "m"])[Y], "x": X[:, 0]})
    with pytest.raises(ValueError, match=r"protected column 'Sexx' is not a column of X "
                                         r"\(\['sex', 'x'\]\). Did you mean 'sex'\?"):
        SituationTestingAuditor(protected="Sexx", protected_value="f", k=3,
                                method="knn").fit(frame, P)
    with pytest.raises(ValueError, match=r"interval names 'xx', which is not a column of X\. "
                                         r"Did you mean 'x'\?"):
        SituationTestingAuditor(protected="sex", protected_value="f", k=3, method="knn",
                                interval=["xx"]).fit(frame, P)


def test_flag_rule_ignores_rounding_ties():
    from skfair_manifold.situation_testing._auditor import exceeds

    assert 0.2 - 0.15 > 0.05  # what float arithmetic says
    assert not exceeds(0.2 - 0.15, 0.05)  # diff == tau exactly: not above it
    assert exceeds(np.array([0.0500001, 0.06, 0.04]), 0.05).tolist() == [True, True, False]
