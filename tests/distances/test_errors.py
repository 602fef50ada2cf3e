import numpy as np
import pytest

from skfair_manifold.utils import _validation as V
from skfair_manifold.distances import (
    accele_dist,
    approx_dist,
    extend_dist,
    extended_set_distance,
    set_distance,
)

X = np.random.default_rng(0).random((10, 3))
y = np.array([0, 1] * 5, dtype=float)
a = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0])
A = np.column_stack([a, a % 2])
w = np.ones(4)

ALL = [
    lambda X, y, a: set_distance(X, y, a),
    lambda X, y, a: extended_set_distance(X, y, a),
    lambda X, y, a: approx_dist(X, y, a, m1=2),
    lambda X, y, a: extend_dist(X, y, a, m1=2),
    lambda X, y, a: accele_dist(X, y, a, w, m2=2),
]


@pytest.mark.parametrize("func", ALL)
def test_mismatched_lengths(func):
    with pytest.raises(ValueError, match="has 9 rows but X has 10"):
        func(X, y[:9], a)
    with pytest.raises(ValueError, match="has 8 rows but X has 10"):
        func(X, y, a[:8])


@pytest.mark.parametrize("func", ALL)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite(func, bad):
    Xb = X.copy()
    Xb[3, 1] = bad
    with pytest.raises(ValueError, match="NaN or infinity"):
        func(Xb, y, a)
    yb = y.copy()
    yb[0] = bad
    with pytest.raises(ValueError, match="NaN or infinity"):
        func(X, yb, a)


@pytest.mark.parametrize("func", ALL)
def test_single_group_is_an_error_not_a_sentinel(func):
    with pytest.raises(ValueError, match="has a single group"):
        func(X, y, np.zeros(10))


def test_single_group_in_one_of_several_attributes():
    with pytest.raises(ValueError, match="'b' has a single group"):
        pd = pytest.importorskip("pandas")
        extended_set_distance(X, y, pd.DataFrame({"a": a, "b": ["x"] * 10}))


@pytest.mark.parametrize("func", ALL)
def test_empty_input(func):
    with pytest.raises(ValueError, match="empty"):
        func(np.empty((0, 3)), np.empty(0), np.empty(0))


@pytest.mark.parametrize("func", ALL)
def test_non_numeric_X_and_y(func):
    with pytest.raises(TypeError, match="must be numeric"):
        func(X.astype(str), y, a)
    with pytest.raises(TypeError, match="must be numeric"):
        func(X, np.array(["yes", "no"] * 5), a)


def test_non_numeric_dataframe_column():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"f": X[:, 0], "city": ["x"] * 10})
    with pytest.raises(TypeError, match="city"):
        set_distance(df, y, a)


def test_missing_sensitive_value():
    with pytest.raises(ValueError, match="missing values"):
        set_distance(X, y, np.array([0.0, 1.0, np.nan] + [0.0] * 7))
    with pytest.raises(ValueError, match="missing values"):
        set_distance(X, y, np.array(["u", None] + ["v"] * 8, dtype=object))


@pytest.mark.parametrize("param", ["m1", "m2", "n_vectors"])
@pytest.mark.parametrize("value", [0, -1])
def test_counts_must_be_positive(param, value):
    with pytest.raises(ValueError, match=param):
        approx_dist(X, y, a, **{param: value})
    with pytest.raises(ValueError, match=param):
        extend_dist(X, y, A, **{param: value})


def test_m2_of_accele_dist_and_projection_vector():
    with pytest.raises(ValueError, match="m2"):
        accele_dist(X, y, a, w, m2=0)
    with pytest.raises(ValueError, match="1 \\+ n_features = 4"):
        accele_dist(X, y, a, np.ones(3), m2=1)
    with pytest.raises(ValueError, match="non-zero"):
        accele_dist(X, y, a, np.zeros(4), m2=1)


def test_too_many_orthogonal_vectors():
    with pytest.raises(ValueError, match="n_vectors=5"):
        approx_dist(X, y, a, n_vectors=5)


def test_one_attribute_functions_reject_several():
    with pytest.raises(ValueError, match="Use extended_set_distance"):
        set_distance(X, y, A)
    with pytest.raises(ValueError, match="Use extend_dist"):
        approx_dist(X, y, A)


def test_messages_are_module_constants():
    assert "single group" in V.MSG_SINGLE_GROUP
    assert "NaN or infinity" in V.MSG_NON_FINITE
