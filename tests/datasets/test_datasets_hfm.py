"""Tests of the HFM paper's loaders on tiny files written in the raw formats.

Each file holds a few rows chosen to hit one rule of the preprocessing (a
boundary, a filter condition, a missing value), so that every count below can
be checked by reading the rows.
"""

import numpy as np
import pandas as pd
import pytest

from skfair_manifold.datasets import (
    load_adult,
    load_compas,
    load_german_credit,
    load_ricci,
    make_paper_preprocessor,
)
from skfair_manifold.datasets._base import MSG_SENSITIVE_OPTION

RICCI = """Position,Oral,Written,Race,Combine
Captain,89.52,95,W,92.808
Lieutenant,60,80,B,70
Lieutenant,50,70,H,69.99
Captain,70,60,W,64
"""

GERMAN_HEADER = (
    "status,month,credit_history,purpose,credit_amount,savings,employment,"
    "investment_as_income_percentage,personal_status,other_debtors,residence_since,"
    "property,age,installment_plans,housing,number_of_credits,skill_level,"
    "people_liable_for,telephone,foreign_worker,credit")
GERMAN_ROWS = [
    "A11,6,A34,A43,1169,A65,A75,4,A93,A101,4,A121,67,A143,A152,2,A173,1,A192,A201,1",
    "A12,48,A32,A43,5951,A61,A73,2,A92,A101,2,A121,22,A143,A152,1,A173,1,A191,A201,2",
    "A14,12,A34,A46,2096,A61,A74,2,A95,A101,3,A121,25,A143,A152,1,A172,2,A191,A201,1",
    "A11,42,A32,A42,7882,A61,A74,2,A91,A103,4,A122,24,A143,A153,1,A173,2,A191,A201,2",
    "A11,24,A33,A40,4870,A61,A73,3,A94,A101,4,A124,53,A143,A153,2,A173,2,A191,A201,1",
]

ADULT = """age,workclass,fnlwgt,education,education-num,marital-status,occupation,relationship,race,sex,capital-gain,capital-loss,hours-per-week,native-country,income-per-year
39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K
50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, >50K
38, ?, 215646, HS-grad, 9, Divorced, ?, Not-in-family, White, Male, 0, 0, 40, United-States, <=50K
28, Private, 338409, Bachelors, 13, Married-civ-spouse, Prof-specialty, Wife, Black, Female, 0, 0, 40, Cuba, >50K.
37, Private, 284582, Masters, 14, Married-civ-spouse, Exec-managerial, Wife, Asian-Pac-Islander, Female, 0, 0, 40, ?, <=50K
"""

COMPAS_COLUMNS = [
    "id", "sex", "age", "age_cat", "race", "juv_fel_count", "decile_score",
    "juv_misd_count", "juv_other_count", "priors_count", "days_b_screening_arrest",
    "c_charge_degree", "c_charge_desc", "is_recid", "score_text", "two_year_recid",
]
# id: what the row tests (kept rows first).
COMPAS_ROWS = [
    [1, "Male", 69, "Greater than 45", "Other", 0, 1, 0, 0, 0, -1, "F",
     "Aggravated Assault w/Firearm", 0, "Low", 0],
    [2, "Male", 34, "25 - 45", "African-American", 0, 3, 0, 0, 0, 30, "F",
     "Felony Battery w/Prior Convict", 1, "Low", 1],
    [3, "Female", 24, "Less than 25", "Caucasian", 0, 4, 0, 1, 4, -30, "M",
     "Possession of Cocaine", 1, "Low", 1],
    [4, "Male", 23, "Less than 25", "Caucasian", 0, 8, 1, 0, 1, 31, "F",
     "Possession of Cocaine", 1, "High", 1],          # days > 30
    [5, "Male", 43, "25 - 45", "Other", 0, 1, 0, 0, 2, -31, "F",
     "Battery", 0, "Low", 0],                          # days < -30
    [6, "Female", 44, "25 - 45", "Hispanic", 0, 1, 0, 0, 0, 0, "M",
     "Battery", -1, "Low", 0],                         # is_recid == -1
    [7, "Male", 41, "25 - 45", "Caucasian", 0, 6, 0, 0, 14, 0, "O",
     "Battery", 1, "Medium", 1],                       # c_charge_degree == "O"
    [8, "Male", 39, "25 - 45", "Caucasian", 0, 1, 0, 0, 0, 0, "M",
     "", 0, "Low", 0],                                 # no c_charge_desc
    [9, "Male", 27, "25 - 45", "Caucasian", 0, 4, 0, 0, 0, "", "F",
     "Battery", 0, "Low", 0],                          # no days_b_screening_arrest
    [10, "Female", 29, "25 - 45", "Asian", 0, 1, 0, 0, 0, 0, "F",
     "Battery", 0, "N/A", 0],                          # score_text N/A
]


def _write_compas(path, violent):
    columns = list(COMPAS_COLUMNS)
    rows = [list(r) for r in COMPAS_ROWS]
    if violent:  # the violent file repeats two_year_recid in its header
        columns.append("two_year_recid")
        rows = [r + [r[-1]] for r in rows]
    lines = [",".join(columns)] + [",".join(str(v) for v in r) for r in rows]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def data_home(tmp_path):
    (tmp_path / "ricci").mkdir()
    (tmp_path / "ricci" / "ricci.csv").write_text(RICCI)
    (tmp_path / "german_credit").mkdir()
    (tmp_path / "german_credit" / "german.csv").write_text(
        "\n".join([GERMAN_HEADER] + GERMAN_ROWS) + "\n")
    (tmp_path / "adult").mkdir()
    (tmp_path / "adult" / "adult.csv").write_text(ADULT)
    _write_compas(tmp_path / "compas_recid" / "compas-scores-two-years.csv", False)
    _write_compas(tmp_path / "compas_violent" / "compas-scores-two-years-violent.csv", True)
    return tmp_path


LOADERS = {
    "ricci": load_ricci,
    "german": load_german_credit,
    "adult": load_adult,
    "compas": load_compas,
    "compas_violent": lambda **kw: load_compas(violent=True, **kw),
}


def test_ricci(data_home):
    b = load_ricci(data_home=data_home)
    assert b.data.shape == (4, 5)
    # Combine >= 70 passes: 70 passes, 69.99 fails.
    assert b.target.tolist() == [1, 1, 0, 0]
    assert b.target_name == "Class" and b.target.name == "Class"
    assert b.sensitive["Race"].tolist() == ["W", "B", "H", "W"]
    assert b.privileged == {"Race": "W"}
    assert b.raw_columns == ["Position", "Oral", "Written", "Race", "Combine"]


def test_german_sex_and_age_groups(data_home):
    b = load_german_credit(data_home=data_home)
    assert b.data.shape == (5, 20)
    assert "personal_status" not in b.data.columns and "credit" not in b.data.columns
    assert b.sensitive["sex"].tolist() == ["male", "female", "female", "male", "male"]
    # age >= 25 is "adult": 25 is adult, 24 is youth.
    assert b.sensitive["age"].tolist() == ["adult", "youth", "adult", "youth", "adult"]
    assert b.target.tolist() == [1, 0, 1, 0, 1]
    assert len(b.raw_columns) == 21 and "sex" in b.raw_columns
    assert set(b.numerical_features + b.categorical_features + b.sensitive_features) == set(
        b.feature_names)


def test_adult_missing_rows_and_labels(data_home):
    b = load_adult(data_home=data_home)
    # Rows with "?" are dropped, fnlwgt is not kept, spaces are stripped.
    assert b.data.shape == (3, 13)
    assert "fnlwgt" not in b.data.columns
    assert b.sensitive["race"].tolist() == ["White", "White", "Black"]
    # ">50K." (UCI test split spelling) counts as positive.
    assert b.target.tolist() == [0, 1, 1]
    assert len(b.raw_columns) == 14


@pytest.mark.parametrize("violent", [False, True])
def test_compas_filters(data_home, violent):
    b = load_compas(violent=violent, data_home=data_home)
    # Only ids 1-3 survive: every other row breaks one rule.
    assert b.data.shape == (3, 10)
    assert b.target.tolist() == [0, 1, 1]
    assert b.sensitive.columns.tolist() == ["sex", "race"]
    assert b.privileged == {"sex": "Male", "race": "Caucasian"}
    assert len(b.raw_columns) == 11
    assert "two_year_recid.1" not in b.data.columns
    for dropped in ("days_b_screening_arrest", "is_recid", "decile_score", "score_text", "id"):
        assert dropped not in b.data.columns
    assert set(b.numerical_features + b.categorical_features + b.sensitive_features) == set(
        b.feature_names)


def test_compas_picks_the_right_file(data_home):
    recid = load_compas(data_home=data_home)
    violent = load_compas(violent=True, data_home=data_home)
    assert recid.filename.endswith("compas-scores-two-years.csv")
    assert violent.filename.endswith("compas-scores-two-years-violent.csv")
    with pytest.raises(TypeError, match="violent must be True or False"):
        load_compas(violent="yes", data_home=data_home)


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_return_shapes_and_types(data_home, name):
    b = LOADERS[name](data_home=data_home)
    X, y, A = LOADERS[name](data_home=data_home, return_X_y=True)
    pd.testing.assert_frame_equal(X, b.data)
    pd.testing.assert_series_equal(y, b.target)
    pd.testing.assert_frame_equal(A, b.sensitive)
    pd.testing.assert_frame_equal(A, X[b.sensitive_features])
    assert list(X.index) == list(range(len(X)))
    assert set(np.unique(y)) <= {0, 1}
    assert b.feature_names == list(X.columns)
    assert set(b.privileged) == set(b.sensitive_features)
    Xn, yn, An = LOADERS[name](data_home=data_home, return_X_y=True, as_frame=False)
    assert isinstance(Xn, np.ndarray) and Xn.shape == X.shape
    assert isinstance(yn, np.ndarray) and yn.dtype == np.int64
    assert An.shape == A.shape


@pytest.mark.parametrize("name, source", [
    ("ricci", "algofairness/fairness-comparison"),
    ("german", "algofairness/fairness-comparison"),
    ("adult", "algofairness/fairness-comparison"),
    ("compas", "propublica/compas-analysis"),
    ("compas_violent", "propublica/compas-analysis"),
])
def test_missing_file(tmp_path, name, source):
    with pytest.raises(FileNotFoundError, match=source):
        LOADERS[name](data_home=tmp_path)


def test_flat_layout_and_path(data_home, tmp_path_factory):
    flat = tmp_path_factory.mktemp("flat")
    (flat / "ricci.csv").write_text(RICCI)
    assert load_ricci(data_home=flat).data.shape == (4, 5)
    assert load_ricci(flat / "ricci.csv").data.shape == (4, 5)
    assert load_ricci(str(flat / "ricci.csv")).data.shape == (4, 5)


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_paper_preprocessor_scales_and_encodes(data_home, name):
    b = LOADERS[name](data_home=data_home)
    X = b.data
    n_onehot = sum(X[c].nunique() for c in b.categorical_features)
    n_num = len(b.numerical_features)
    n_sens = len(b.sensitive_features)

    pre = make_paper_preprocessor(b.numerical_features, b.categorical_features,
                                  sensitive_features=b.sensitive_features)
    Z = pre.fit_transform(X)
    assert Z.shape == (len(X), n_num + n_onehot)
    assert Z.min() >= 0.0 and Z.max() <= 1.0 + 1e-12  # MinMaxScaler rounds
    assert not any(s in pre.get_feature_names_out() for s in b.sensitive_features)

    ordinal = make_paper_preprocessor(b.numerical_features, b.categorical_features,
                                      sensitive_features=b.sensitive_features,
                                      sensitive="ordinal")
    Z = ordinal.fit_transform(X)
    assert Z.shape == (len(X), n_num + n_onehot + n_sens)
    assert list(ordinal.get_feature_names_out()[-n_sens:]) == b.sensitive_features

    onehot = make_paper_preprocessor(b.numerical_features, b.categorical_features,
                                     sensitive_features=b.sensitive_features,
                                     sensitive="onehot")
    n_sens_onehot = sum(X[c].nunique() for c in b.sensitive_features)
    assert onehot.fit_transform(X).shape == (len(X), n_num + n_onehot + n_sens_onehot)


def test_paper_preprocessor_unseen_values():
    train = pd.DataFrame({"x": [0.0, 2.0], "c": ["a", "b"], "s": ["p", "q"]})
    test = pd.DataFrame({"x": [1.0], "c": ["z"], "s": ["r"]})
    pre = make_paper_preprocessor(["x"], ["c"], sensitive_features=["s"], sensitive="ordinal")
    pre.fit(train)
    np.testing.assert_array_equal(pre.transform(test), [[0.5, 0.0, 0.0, -1.0]])


def test_paper_preprocessor_bad_option():
    with pytest.raises(ValueError, match="sensitive must be one of") as info:
        make_paper_preprocessor(["x"], [], sensitive_features=["s"], sensitive="keep")
    assert str(info.value) == MSG_SENSITIVE_OPTION.format(
        options=("drop", "ordinal", "onehot"), value="keep")


def test_get_data_home_default(monkeypatch, tmp_path):
    from skfair_manifold.datasets import get_data_home
    monkeypatch.delenv("SKFAIR_MANIFOLD_DATA", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert get_data_home() == tmp_path / "skfair_manifold_data"
    monkeypatch.setenv("SKFAIR_MANIFOLD_DATA", str(tmp_path / "x"))
    assert get_data_home() == tmp_path / "x"
