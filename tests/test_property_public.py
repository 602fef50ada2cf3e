"""A property of the whole public surface, on generated inputs of many kinds.

Each public metric and distance, given arrays of many dtypes, shapes and
values (numbers, NaN, infinity, strings, None, mixed objects, nullable pandas
columns, wrong lengths, a single group), either raises ``ValueError`` or
``TypeError``, or returns a finite value, or returns ``nan`` with the
documented :class:`UndefinedFairnessWarning`. Never another exception, never
an unexplained ``nan`` or ``inf``.

The number of examples is set by ``MAX_EXAMPLES`` below (the whole test runs in
well under a minute).
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skfair_manifold.distances import (
    approx_dist,
    extend_dist,
    extended_set_distance,
    set_distance,
)
from skfair_manifold.metrics import (
    UndefinedFairnessWarning,
    demographic_parity,
    equal_opportunity,
    hfm_avg,
    hfm_max,
    hfm_report,
    predictive_quality_parity,
)

MAX_EXAMPLES = 100

# Values the generated columns may hold. Magnitudes stay within 1e6: overflow
# of the distance algebra near 1e300 has tests of its own with the engine.
NUMBERS = st.one_of(st.integers(-3, 3), st.floats(-1e6, 1e6, allow_nan=False, width=64))
ODD = st.sampled_from([np.nan, np.inf, -np.inf, None, "a", "b", True, 1.5, 0, 1])


@st.composite
def column(draw, n, kind=None):
    """A column of length ``n`` of one of many kinds."""
    kind = kind or draw(st.sampled_from(
        ["int", "binary", "float", "bool", "str", "odd", "nullable", "string", "one"]))
    if kind == "int":
        return np.array(draw(st.lists(st.integers(-2, 4), min_size=n, max_size=n)))
    if kind == "binary":
        return np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    if kind == "float":
        return np.array(draw(st.lists(NUMBERS, min_size=n, max_size=n)), dtype=float)
    if kind == "bool":
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    if kind == "str":
        return np.array(draw(st.lists(st.sampled_from(["x", "y", "z"]), min_size=n,
                                      max_size=n)))
    if kind == "odd":
        return np.array(draw(st.lists(ODD, min_size=n, max_size=n)), dtype=object)
    if kind == "nullable":
        values = draw(st.lists(st.one_of(st.integers(0, 2), st.none()), min_size=n,
                               max_size=n))
        return pd.Series(pd.array(values, dtype="Int64"))
    if kind == "string":
        values = draw(st.lists(st.one_of(st.sampled_from(["p", "q"]), st.none()), min_size=n,
                               max_size=n))
        return pd.Series(pd.array(values, dtype="string"))
    return np.zeros(n, dtype=int)  # "one": a single value


@st.composite
def inputs(draw):
    n = draw(st.one_of(st.integers(0, 3), st.integers(4, 12), st.integers(4, 12)))
    mismatch = draw(st.integers(0, 5)) == 0 and n > 0
    n_y = n + draw(st.sampled_from([-1, 1])) if mismatch else n
    y_true = draw(column(max(n_y, 0), draw(st.sampled_from(["binary", "binary", None]))))
    y_pred = draw(column(n, draw(st.sampled_from(["binary", "binary", None]))))
    n_attr = draw(st.integers(1, 2))
    A = [draw(column(n, draw(st.sampled_from(["binary", "int", "str", None]))))
         for _ in range(n_attr)]
    A = A[0] if n_attr == 1 else pd.DataFrame({f"s{k}": np.asarray(a, dtype=object)
                                               for k, a in enumerate(A)})
    d = draw(st.integers(0, 3))
    X_kind = draw(st.sampled_from(["float", "float", "float", "int", "odd", "nullable", "str",
                                   "1d", "3d"]))
    if X_kind == "1d":
        X = draw(column(n, "float"))
    elif X_kind == "3d":
        X = np.zeros((n, d, 2))
    else:
        cols = [draw(column(n, X_kind)) for _ in range(d)]
        X = np.column_stack(cols) if cols else np.zeros((n, 0))
    return y_true, y_pred, A, X


def _check_outcome(func, *args, **kwargs):
    """Call ``func``: a ValueError/TypeError, or finite values, or nan with the warning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = func(*args, **kwargs)
        except (ValueError, TypeError):
            return
    values = result if isinstance(result, tuple) else (result,)
    if hasattr(result, "hfm_max"):  # an hfm_report Bunch
        values = (result.hfm_max, result.hfm_avg, result.d_max, result.d_avg)
    warned = any(issubclass(w.category, UndefinedFairnessWarning) for w in caught)
    for value in values:
        value = float(value)
        assert math.isfinite(value) or (math.isnan(value) and warned), (
            f"{func.__name__} returned {value} without a warning")


SETTINGS = settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("metric", [demographic_parity, equal_opportunity,
                                    predictive_quality_parity])
@SETTINGS
@given(data=inputs(), pos_label=st.sampled_from([None, 1, "x"]))
def test_group_metrics(metric, data, pos_label):
    y_true, y_pred, A, _ = data
    _check_outcome(metric, y_true, y_pred, sensitive_features=A, pos_label=pos_label)


@pytest.mark.parametrize("metric", [hfm_max, hfm_avg, hfm_report])
@pytest.mark.parametrize("method", ["exact", "approx"])
@SETTINGS
@given(data=inputs())
def test_hfm(metric, method, data):
    y_true, y_pred, A, X = data
    _check_outcome(metric, y_true, y_pred, X=X, sensitive_features=A, method=method,
                   random_state=0)


@pytest.mark.parametrize("func", [set_distance, extended_set_distance, approx_dist,
                                  extend_dist])
@SETTINGS
@given(data=inputs())
def test_distances(func, data):
    y, _, A, X = data
    if func in (set_distance, approx_dist) and isinstance(A, pd.DataFrame):
        A = A.iloc[:, 0]
    kwargs = {"random_state": 0} if func in (approx_dist, extend_dist) else {}
    _check_outcome(func, X, y, A, **kwargs)
