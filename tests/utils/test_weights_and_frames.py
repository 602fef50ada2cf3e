"""Weights near float64's limits and pandas column names narwhals cannot take (issue 21, item 7)."""

import numpy as np
import pandas as pd
import pytest

from skfair_manifold.metrics import demographic_parity, fairness_report, hfm_report
from skfair_manifold.utils._validation import check_sample_weight

rng = np.random.default_rng(3)
N = 80
Y = rng.integers(0, 2, N)
P = rng.integers(0, 2, N)
SEX = np.array(["f", "m"])[rng.integers(0, 2, N)]
REGION = np.array(["n", "s", "e"])[rng.integers(0, 3, N)]


def test_huge_weights_give_the_rates_of_unit_weights():
    # sums of 1e308 overflowed to inf and every rate was inf / inf = nan
    w = rng.random(N) + 0.5
    expected = demographic_parity(Y, P, sensitive_features=SEX, sample_weight=w)
    got = demographic_parity(Y, P, sensitive_features=SEX, sample_weight=w * 1e308 / 1.5)
    assert np.isfinite(got)
    assert got == pytest.approx(expected, rel=1e-12)


def test_subnormal_weights_keep_their_precision():
    w = rng.random(N) + 0.5
    expected = fairness_report(Y, P, sensitive_features=SEX, sample_weight=w).gaps
    got = fairness_report(Y, P, sensitive_features=SEX, sample_weight=w * 1e-310).gaps
    np.testing.assert_allclose(got.iloc[:, 0], expected.iloc[:, 0], rtol=1e-12)


def test_weights_rescaled_only_when_needed_and_never_in_place():
    w = np.array([1.0, 2.0, 3.0])
    assert check_sample_weight(w, 3) is not None
    np.testing.assert_array_equal(check_sample_weight(w, 3), w)
    big = np.array([1e308, 5e307, 0.0])
    out = check_sample_weight(big, 3)
    np.testing.assert_allclose(out, [1.0, 0.5, 0.0])
    assert big[0] == 1e308  # the caller's array is untouched


def test_multiindex_columns_as_sensitive_features():
    frame = pd.DataFrame({("who", "sex"): SEX, ("who", "region"): REGION})
    flat = pd.DataFrame({"who / sex": SEX, "who / region": REGION})
    assert demographic_parity(Y, P, sensitive_features=frame, min_group_size=1) == \
        demographic_parity(Y, P, sensitive_features=flat, min_group_size=1)
    report = fairness_report(Y, P, sensitive_features=frame, min_group_size=1)
    assert list(report.gaps.index[:2]) == ["who / sex", "who / region"]
    pd.testing.assert_frame_equal(
        report.gaps, fairness_report(Y, P, sensitive_features=flat, min_group_size=1).gaps)


def test_multiindex_and_integer_named_feature_columns():
    X = rng.random((N, 2))
    expected = hfm_report(Y, P, X=X, sensitive_features=SEX, method="exact").hfm_max
    multi = pd.DataFrame(X, columns=pd.MultiIndex.from_tuples([("x", "1"), ("x", "2")]))
    mixed = pd.DataFrame({1: X[:, 0], "2": X[:, 1]})
    for frame in (multi, mixed):
        assert hfm_report(Y, P, X=frame, sensitive_features=SEX,
                          method="exact").hfm_max == pytest.approx(expected)


@pytest.mark.parametrize("frame", [
    pd.DataFrame({1: SEX, "1": REGION}),
    pd.concat([pd.Series(SEX, name="a"), pd.Series(REGION, name="a")], axis=1),
])
def test_names_that_read_the_same_are_refused(frame):
    with pytest.raises(ValueError, match="columns named .* must be distinct as text"):
        demographic_parity(Y, P, sensitive_features=frame)


@pytest.mark.parametrize("column", [
    pd.Series(["a", None, "b"] * 3, dtype=object),
    pd.Series(["a", None, "b"] * 3, dtype="string"),
    pd.Series([1.0, None, 2.0] * 3, dtype="Float64"),
    pd.Series([1.0, np.nan, 2.0] * 3),
])
def test_check_complete_names_the_column_and_the_row(column):
    from skfair_manifold.utils._validation import check_complete

    frame = pd.DataFrame({"ok": range(9), "city": column})
    with pytest.raises(ValueError, match="missing values \\(NaN, None or NA\\) in column "
                                         "'city': 3 row\\(s\\), first at row 1"):
        check_complete(frame)
    array = frame.to_numpy(dtype=object)
    with pytest.raises(ValueError, match="in column 1: 3 row"):
        check_complete(array)
    check_complete(frame.dropna())
