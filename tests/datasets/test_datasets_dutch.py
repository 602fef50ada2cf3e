"""Tests of load_dutch_census on tiny files written in the raw formats."""

import numpy as np
import pandas as pd
import pytest

from skfair_manifold.datasets import load_dutch_census
from skfair_manifold.datasets._base import ENV_DATA_HOME

HEADER = ("sex,age,household_position,household_size,prev_residence_place,citizenship,"
          "country_birth,edu_level,economic_status,cur_eco_activity,marital_status,occupation")
# The same four rows in both formats (the first rows of the real files).
CSV_ROWS = [
    "male,6,1131,112,1,1,1,5,111,135,1,1",
    "female,10,1122,113,1,1,1,2,111,122,2,0",
    "male,8,1122,113,1,1,1,2,111,122,2,1",
    "female,4,1110,114,1,1,1,2,111,138,1,0",
]
ARFF = """@relation dutch_census_data-weka.filters.unsupervised.instance.RemoveWithValues

@attribute sex {2,1}
@attribute age {17,15,16,13,14,11,12,3,2,1,10,7,6,5,4,9,8}
@attribute household_position {1110,1132,1210,1131,1121,1140,1122,1220}
@attribute household_size {125,126,114,112,113,111}
@attribute prev_residence_place {2,1,9}
@attribute citizenship {3,2,1}
@attribute country_birth {3,2,1}
@attribute edu_level {3,2,1,0,5,4,9}
@attribute economic_status {221,222,210,223,112,224,111,120}
@attribute cur_eco_activity {134,135,132,133,138,122,139,200,136,137,124,111,131}
@attribute Marital_status {3,2,1,4}
@attribute occupation {5_4_9,2_1}

@data

1,6,1131,112,1,1,1,5,111,135,1,2_1
2,10,1122,113,1,1,1,2,111,122,2,5_4_9
1,8,1122,113,1,1,1,2,111,122,2,2_1
2,4,1110,114,1,1,1,2,111,138,1,5_4_9
"""


@pytest.fixture
def csv_file(tmp_path):
    folder = tmp_path / "dutch_census"
    folder.mkdir()
    path = folder / "dutch.csv"
    path.write_text("\n".join([HEADER] + CSV_ROWS) + "\n")
    return path


@pytest.fixture
def arff_file(tmp_path):
    path = tmp_path / "dutch_census_2001.arff"
    path.write_text(ARFF)
    return path


def test_csv_bunch(csv_file):
    bunch = load_dutch_census(csv_file)
    assert bunch.data.shape == (4, 11)
    assert "occupation" not in bunch.data.columns
    assert bunch.feature_names == list(bunch.data.columns)
    assert bunch.feature_names[0] == "sex"
    assert bunch.target.name == "occupation"
    assert bunch.target.tolist() == [1, 0, 1, 0]
    assert list(bunch.sensitive.columns) == ["sex"]
    assert bunch.sensitive["sex"].tolist() == ["male", "female", "male", "female"]
    assert bunch.privileged == {"sex": "male"}
    assert bunch.numerical_features == ["age", "edu_level"]
    assert "sex" not in bunch.categorical_features
    assert set(bunch.numerical_features + bunch.categorical_features + ["sex"]) == set(
        bunch.feature_names)
    assert "Dutch" in bunch.DESCR
    assert bunch.data["age"].dtype == np.int64


def test_arff_equals_csv(csv_file, arff_file):
    from_csv = load_dutch_census(csv_file)
    from_arff = load_dutch_census(arff_file)
    pd.testing.assert_frame_equal(from_csv.data, from_arff.data, check_dtype=False)
    pd.testing.assert_series_equal(from_csv.target, from_arff.target)
    assert from_arff.data.columns.tolist() == from_csv.data.columns.tolist()


def test_data_home_layouts(csv_file, arff_file, tmp_path):
    # <data_home>/dutch_census/dutch.csv is preferred over a flat ARFF.
    bunch = load_dutch_census(data_home=tmp_path)
    assert bunch.filename == str(csv_file)
    csv_file.unlink()
    bunch = load_dutch_census(data_home=tmp_path)
    assert bunch.filename == str(arff_file)


def test_env_data_home(csv_file, tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_DATA_HOME, str(tmp_path))
    assert load_dutch_census().data.shape == (4, 11)


def test_return_X_y_and_numpy(csv_file):
    X, y, A = load_dutch_census(csv_file, return_X_y=True)
    assert isinstance(X, pd.DataFrame) and isinstance(y, pd.Series)
    assert isinstance(A, pd.DataFrame)
    X, y, A = load_dutch_census(csv_file, return_X_y=True, as_frame=False)
    assert isinstance(X, np.ndarray) and X.shape == (4, 11)
    assert y.tolist() == [1, 0, 1, 0]
    assert A.shape == (4, 1)


def test_missing_file_says_where_to_get_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="tailequy/fairness_dataset") as info:
        load_dutch_census(data_home=tmp_path)
    assert str(tmp_path / "dutch_census" / "dutch.csv") in str(info.value)
    with pytest.raises(FileNotFoundError, match="not found"):
        load_dutch_census(tmp_path / "nope.csv")
    with pytest.raises(FileNotFoundError, match="is a folder"):
        load_dutch_census(tmp_path)


def test_wrong_file(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="lacks the column"):
        load_dutch_census(path)


@pytest.mark.parametrize("kwargs, match", [
    ({"as_frame": 1}, "as_frame must be True or False"),
    ({"return_X_y": "yes"}, "return_X_y must be True or False"),
    ({"data_home": 3}, "data_home must be a str"),
])
def test_bad_options(kwargs, match):
    with pytest.raises(TypeError, match=match):
        load_dutch_census(**kwargs)
