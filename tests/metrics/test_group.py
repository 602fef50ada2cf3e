"""DP, EO and PQP against a plain per-group computation written here.

The references compare every group, as fairlearn does: the metrics are called with
``min_group_size=1`` (their default leaves groups of fewer than 30 rows out, as the
report does; see ``tests/metrics/test_group_rule.py``).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from skfair_manifold.metrics import (
    UndefinedFairnessWarning,
    demographic_parity,
    equal_opportunity,
    predictive_quality_parity,
)
from skfair_manifold.metrics._common import (
    MSG_GROUP_UNDEFINED,
    MSG_GROUPS_LEFT_OUT,
    MSG_POS_LABEL_ABSENT,
    MSG_POS_LABEL_NEEDED,
)

METRICS = [demographic_parity, equal_opportunity, predictive_quality_parity]


def plain_gap(metric, y_true, y_pred, a, pos=1, method="between_groups", w=None):
    """One attribute, a Python loop over groups: the reference."""
    y_true, y_pred, a = map(np.asarray, (y_true, y_pred, a))
    w = np.ones(len(a)) if w is None else np.asarray(w, dtype=float)
    t, p = y_true == pos, y_pred == pos

    def den_of(mask):
        if metric is demographic_parity:
            return mask
        return (t if metric is equal_opportunity else p) & mask

    def rate(mask):
        return np.sum(w[p & t & mask if metric is not demographic_parity else p & mask]) \
            / np.sum(w[den_of(mask)])

    # the policy: a group whose rate is 0/0 is left out; fewer than 2 left is nan
    rates = [rate(a == g) for g in sorted(set(a.tolist())) if np.sum(w[den_of(a == g)]) > 0]
    if len(rates) < 2:
        return np.nan
    if method == "between_groups":
        return max(rates) - min(rates)
    overall = rate(np.ones(len(a), dtype=bool))
    return max(abs(r - overall) for r in rates)


def make(seed, n=400, n_groups=(3,)):
    rng = np.random.default_rng(seed)
    A = np.column_stack([rng.integers(0, g, n) for g in n_groups])
    # every group has positives among labels and predictions
    A[: 2 * max(n_groups)] = np.repeat(np.arange(max(n_groups)), 2)[:, None] % n_groups
    y_true = rng.integers(0, 2, n)
    y_pred = rng.integers(0, 2, n)
    y_true[: 2 * max(n_groups)] = 1
    y_pred[: 2 * max(n_groups)] = 1
    return y_true, y_pred, A


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("n_groups", [2, 3, 6])
@pytest.mark.parametrize("method", ["between_groups", "to_overall"])
@pytest.mark.parametrize("seed", range(3))
def test_one_attribute_matches_plain(metric, n_groups, method, seed):
    y_true, y_pred, A = make(seed, n_groups=(n_groups,))
    got = metric(y_true, y_pred, min_group_size=1, sensitive_features=A[:, 0], method=method)
    assert_allclose(got, plain_gap(metric, y_true, y_pred, A[:, 0], method=method),
                    rtol=0, atol=1e-12)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("method", ["between_groups", "to_overall"])
def test_two_attributes_max_and_mean(metric, method):
    y_true, y_pred, A = make(7, n_groups=(3, 6))
    gaps = [plain_gap(metric, y_true, y_pred, A[:, k], method=method) for k in range(2)]
    assert_allclose(metric(y_true, y_pred, min_group_size=1, sensitive_features=A,
                           method=method), max(gaps), atol=1e-12)
    assert_allclose(metric(y_true, y_pred, min_group_size=1, sensitive_features=A, method=method,
                           aggregate="mean"), np.mean(gaps), atol=1e-12)


@pytest.mark.parametrize("metric", METRICS)
def test_dataframe_with_string_columns_and_weights(metric):
    y_true, y_pred, A = make(3, n_groups=(2, 6))
    frame = pd.DataFrame({"sex": np.array(["f", "m"])[A[:, 0]],
                          "race": pd.Categorical(np.array(list("abcdef"))[A[:, 1]])})
    w = np.random.default_rng(0).random(len(y_true))
    expected = max(plain_gap(metric, y_true, y_pred, frame[c], w=w) for c in frame)
    got = metric(y_true, y_pred, min_group_size=1, sensitive_features=frame, sample_weight=w)
    assert_allclose(got, expected, atol=1e-12)
    # same value through the O(n) integer path and the shared encoder
    assert_allclose(metric(y_true, y_pred, min_group_size=1, sensitive_features=A,
                           sample_weight=w), got, atol=1e-12)


@pytest.mark.parametrize("metric", METRICS)
def test_relabelling_groups_changes_nothing(metric):
    y_true, y_pred, A = make(5, n_groups=(6,))
    perm = np.array([3, 5, 0, 1, 4, 2]) * 10 - 7
    assert_allclose(metric(y_true, y_pred, min_group_size=1, sensitive_features=perm[A[:, 0]]),
                    metric(y_true, y_pred, min_group_size=1, sensitive_features=A[:, 0]),
                    atol=1e-12)


def test_pos_label_rules():
    y_true = np.array(["yes", "no", "yes", "no"])
    y_pred = np.array(["yes", "yes", "no", "no"])
    a = [0, 0, 1, 1]
    with pytest.raises(ValueError, match="Pass pos_label=<the favourable class>"):
        demographic_parity(y_true, y_pred, min_group_size=1, sensitive_features=a)
    assert demographic_parity(y_true, y_pred, min_group_size=1, sensitive_features=a,
                              pos_label="yes") == 1.0
    with pytest.raises(ValueError, match=r"pos_label='Yes' occurs neither"):
        demographic_parity(y_true, y_pred, min_group_size=1, sensitive_features=a, pos_label="Yes")
    # -1/1 and booleans are binary: 1 / True is positive
    assert demographic_parity([-1, 1, 1, -1], [1, 1, -1, -1], min_group_size=1,
                              sensitive_features=a) == 1.0
    assert demographic_parity([True, False] * 2, [True, True, False, False],
                              min_group_size=1, sensitive_features=a) == 1.0
    assert "No class is chosen for you" in MSG_POS_LABEL_NEEDED
    assert "Check its spelling" in MSG_POS_LABEL_ABSENT


def test_multiclass_needs_pos_label_and_never_picks_one():
    y_true = np.array([0, 1, 2, 2, 1, 0])
    y_pred = np.array([2, 1, 2, 0, 1, 0])
    a = [0, 0, 0, 1, 1, 1]
    for metric in METRICS:
        with pytest.raises(ValueError, match=r"classes found: \[0, 1, 2\]"):
            metric(y_true, y_pred, min_group_size=1, sensitive_features=a)
    # explicit: class 2 against the rest
    assert demographic_parity(y_true, y_pred, min_group_size=1, sensitive_features=a,
                              pos_label=2) == \
        pytest.approx(plain_gap(demographic_parity, y_true, y_pred, a, pos=2))
    assert equal_opportunity(y_true, y_pred, min_group_size=1, sensitive_features=a,
                             pos_label=2) == \
        pytest.approx(plain_gap(equal_opportunity, y_true, y_pred, a, pos=2))


def test_undefined_group_is_left_out_with_one_warning():
    # group "w" has no positive label (EO) and no positive prediction (PQP): 0/0
    y_true = [1, 1, 0, 1, 0, 1, 0, 0, 0]
    y_pred = [1, 0, 1, 1, 1, 0, 0, 0, 0]
    a = ["u", "u", "u", "v", "v", "v", "w", "w", "w"]
    for metric, what in [(equal_opportunity, "y_true"), (predictive_quality_parity, "y_pred")]:
        with pytest.warns(UndefinedFairnessWarning) as record:
            got = metric(y_true, y_pred, min_group_size=1, sensitive_features=a)
        assert len(record) == 1
        message = str(record[0].message)
        assert f"row with {what} == pos_label" in message
        assert "attribute 0, group(s) ['w']" in message and "left out" in message
        assert "2 groups with a defined rate" in message
        assert np.isfinite(got)
        # the gap of the two defined groups alone
        assert got == pytest.approx(metric(y_true[:6], y_pred[:6], min_group_size=1,
                                           sensitive_features=a[:6]))
        assert got == pytest.approx(plain_gap(metric, y_true, y_pred, a))
    assert "left out of this attribute's gap" in MSG_GROUPS_LEFT_OUT


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("method", ["between_groups", "to_overall"])
@pytest.mark.parametrize("seed", range(4))
def test_rare_groups_match_plain_with_the_undefined_left_out(metric, method, seed):
    # like a small race group in a cross-validation fold: some groups have no positives
    rng = np.random.default_rng(seed)
    n = 300
    A = np.column_stack([rng.integers(0, 2, n), rng.choice(6, n, p=[.4, .3, .2, .06, .02, .02])])
    y_true = (rng.random(n) < 0.25).astype(int)
    y_pred = (rng.random(n) < 0.25).astype(int)
    rare = A[:, 1] >= 3
    y_true[rare & (A[:, 1] % 2 == 1)] = 0
    y_pred[rare & (A[:, 1] >= 4)] = 0
    w = rng.random(n)
    w[A[:, 1] == 5] = 0  # DP: a group of zero weight has no rate either
    gaps = [plain_gap(metric, y_true, y_pred, A[:, k], method=method, w=w) for k in range(2)]
    assert np.isfinite(gaps).all()
    with pytest.warns(UndefinedFairnessWarning, match="attribute 1, group.*left out") as record:
        got_max = metric(y_true, y_pred, min_group_size=1, sensitive_features=A, method=method,
                         sample_weight=w)
        got_mean = metric(y_true, y_pred, min_group_size=1, sensitive_features=A, method=method,
                          sample_weight=w, aggregate="mean")
    assert len(record) == 2  # one per call: only attribute 1 has groups left out
    assert_allclose(got_max, max(gaps), rtol=0, atol=1e-12)
    assert_allclose(got_mean, np.mean(gaps), rtol=0, atol=1e-12)


def test_fewer_than_two_defined_groups_is_nan():
    # all groups but one lack a positive label: no gap to measure
    y_true = [1, 1, 0, 0, 0, 0, 0, 0]
    y_pred = [1, 0, 1, 0, 0, 1, 1, 0]
    a = ["u", "u", "v", "v", "w", "w", "x", "x"]
    with pytest.warns(UndefinedFairnessWarning) as record:
        assert np.isnan(equal_opportunity(y_true, y_pred, min_group_size=1, sensitive_features=a))
    assert len(record) == 1
    message = str(record[0].message)
    assert "undefined for sensitive attribute 0: group(s) ['v', 'w', 'x']" in message
    assert "leaves 1 group(s) with a defined rate" in message
    assert np.isnan(plain_gap(equal_opportunity, y_true, y_pred, a))
    # PQP, two groups, one without a positive prediction
    with pytest.warns(UndefinedFairnessWarning, match=r"group\(s\) \['v'\].*Returning nan"):
        assert np.isnan(predictive_quality_parity([1, 0, 1, 0, 1, 0], [1, 1, 0, 0, 0, 0],
                                                  min_group_size=1,
                                                  sensitive_features=list("uuuvvv")))
    # one undefined attribute makes the aggregate undefined, and is named in the message
    frame = pd.DataFrame({"s": a, "t": [0, 1] * 4})
    with pytest.warns(UndefinedFairnessWarning, match="attribute 's'"):
        assert np.isnan(equal_opportunity(y_true, y_pred, min_group_size=1,
                                          sensitive_features=frame, aggregate="mean"))
    # no positive label at all: every group undefined
    with pytest.warns(UndefinedFairnessWarning, match="leaves 0 group"):
        assert np.isnan(equal_opportunity([0] * 4, [1, 0, 1, 0], min_group_size=1,
                                          sensitive_features=[0, 0, 1, 1]))
    assert "never a sentinel" in MSG_GROUP_UNDEFINED


def test_dp_without_weights_is_always_defined():
    y_true = [1, 1, 0, 0, 0, 0]
    y_pred = [1, 0, 1, 0, 0, 1]
    a = ["u", "u", "u", "v", "v", "v"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert demographic_parity(y_true, y_pred, min_group_size=1,
                                  sensitive_features=a) == pytest.approx(1 / 3)


def test_no_positive_anywhere_is_defined_for_dp():
    assert demographic_parity([0, 0, 0, 0], [0, 0, 0, 0], min_group_size=1,
                              sensitive_features=[0, 1, 0, 1]) == 0


@pytest.mark.parametrize("metric", METRICS)
def test_bad_input(metric):
    with pytest.raises(ValueError, match="single group"):
        metric([0, 1], [1, 1], min_group_size=1, sensitive_features=[3, 3])
    with pytest.raises(ValueError, match="rows"):
        metric([0, 1, 1], [1, 1], min_group_size=1, sensitive_features=[0, 1])
    with pytest.raises(ValueError, match="sensitive_features 0"):
        metric([0, 1, 1], [1, 1, 0], min_group_size=1, sensitive_features=[0, 1])
    with pytest.raises(ValueError, match="missing values"):
        metric([0, 1, 1], [1, 1, 0], min_group_size=1, sensitive_features=[0.0, np.nan, 1.0])
    with pytest.raises(ValueError, match="non-negative"):
        metric([0, 1], [1, 1], min_group_size=1, sensitive_features=[0, 1], sample_weight=[1, -1])


@pytest.mark.parametrize("kind", ["int", "negative", "float", "str", "frame", "series"])
def test_encoding_equals_a_plain_unique(kind):
    """The one encoder (fast paths included) against np.unique per column."""
    from skfair_manifold.utils._validation import encode_sensitive

    rng = np.random.default_rng(0)
    A = rng.integers(0, 6, (300, 2))
    value = {"int": A, "negative": A * 7 - 20, "float": A / 2.0,
             "str": np.array(list("abcdef"))[A],
             "frame": pd.DataFrame({"s": np.array(list("abcdef"))[A[:, 0]],
                                    "c": pd.Categorical(A[:, 1]), "i": A[:, 0] - 3}),
             "series": pd.Series(np.array(list("abcdef"))[A[:, 0]], name="race")}[kind]
    codes, names, groups = encode_sensitive(value, 300)
    if isinstance(value, pd.DataFrame):
        columns, expected_names = [value[c].to_numpy() for c in value.columns], list(value)
    elif isinstance(value, pd.Series):
        columns, expected_names = [value.to_numpy()], ["race"]
    else:
        columns = [value[:, k] for k in range(value.shape[1])]
        expected_names = list(range(value.shape[1]))
    assert names == expected_names
    for col, code, group in zip(columns, codes, groups):
        values, inverse = np.unique(np.asarray(col).astype(object if col.dtype == object
                                                           else col.dtype),
                                    return_inverse=True)
        np.testing.assert_array_equal(code, inverse.reshape(-1))
        assert list(group) == list(values)
