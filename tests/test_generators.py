"""Tests of make_biased_decisions: shapes, reproducibility, and the ground truth."""

import numpy as np
import pytest
from skfair_manifold.utils._sklearn_compat import InvalidParameterError

from skfair_manifold.datasets import make_biased_decisions
from skfair_manifold.datasets._generators import (
    MSG_BIAS_LENGTH,
    MSG_BIAS_RANGE,
    MSG_GROUPS,
    MSG_INFORMATIVE,
    MSG_PROXY,
)


def test_shapes_names_and_types():
    data = make_biased_decisions(500, n_features=4, n_informative=2, n_levels=3,
                                 n_groups=(2, 5), bias=0.3, random_state=0)
    assert data.data.shape == (500, 4)
    assert data.sensitive.shape == (500, 2)
    assert data.target.shape == data.fair_target.shape == data.discriminated.shape == (500,)
    assert data.discriminated_by.shape == (500, 2)
    assert data.feature_names == ["x0", "x1", "x2", "x3"]
    assert data.sensitive_names == ["s0", "s1"]
    assert data.informative == ["x0", "x1"]
    assert data.privileged == {"s0": 0, "s1": 0}
    assert set(np.unique(data.data)) <= {0, 1, 2}
    assert set(np.unique(data.sensitive[:, 1])) == {0, 1, 2, 3, 4}
    assert set(np.unique(data.target)) == {0, 1}
    assert data.discriminated.dtype == bool
    assert data.frame is None
    assert "prejudice" in data.DESCR.lower()


def test_reproducible_with_seed_and_different_across_seeds():
    a = make_biased_decisions(300, random_state=42)
    b = make_biased_decisions(300, random_state=42)
    c = make_biased_decisions(300, random_state=43)
    for key in ("data", "target", "sensitive", "fair_target", "discriminated_by"):
        np.testing.assert_array_equal(a[key], b[key])
    assert not np.array_equal(a.data, c.data)


def test_ground_truth_is_consistent():
    data = make_biased_decisions(3000, random_state=1)
    disc = data.discriminated
    assert disc.any()
    # A discriminated row deserved a positive decision and received a negative one.
    assert (data.fair_target[disc] == 1).all()
    assert (data.target[disc] == 0).all()
    # Every other row received its fair decision.
    np.testing.assert_array_equal(data.target[~disc], data.fair_target[~disc])
    np.testing.assert_array_equal(disc, data.discriminated_by.any(axis=1))
    # The privileged group of an attribute is never discriminated on that ground.
    for k in range(data.sensitive.shape[1]):
        assert not data.discriminated_by[data.sensitive[:, k] == 0, k].any()


def test_privileged_group_is_the_largest():
    data = make_biased_decisions(5000, n_groups=(2, 3, 6), random_state=0)
    for k in range(3):
        counts = np.bincount(data.sensitive[:, k])
        assert counts[0] == counts.max()


def test_bias_rates_follow_the_parameter():
    n = 40_000
    data = make_biased_decisions(n, n_groups=(2, 3), bias=(0.5, 0.3), random_state=0)
    deserved = data.fair_target == 1
    for k, (bias, n_groups) in enumerate([(0.5, 2), (0.3, 3)]):
        for g in range(n_groups):
            rows = deserved & (data.sensitive[:, k] == g)
            rate = data.discriminated_by[rows, k].mean()
            expected = bias * g / (n_groups - 1)
            # binomial standard error at these counts is below 0.01
            assert abs(rate - expected) < 0.03, (k, g, rate, expected)


def test_zero_bias_plants_nothing():
    data = make_biased_decisions(1000, bias=0.0, random_state=0)
    assert not data.discriminated.any()
    np.testing.assert_array_equal(data.target, data.fair_target)


def test_fair_decision_depends_only_on_informative_features():
    data = make_biased_decisions(2000, n_informative=2, noise=0.0, random_state=0)
    profiles = data.data[:, :2]
    _, inverse = np.unique(profiles, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    for code in np.unique(inverse):
        assert len(np.unique(data.fair_target[inverse == code])) == 1
    # ... and the fair decision rises with the informative features.
    score = profiles.sum(axis=1)
    assert data.fair_target[score == score.max()].all()
    assert not data.fair_target[score == score.min()].any()


def test_positive_rate_is_lower_for_discriminated_groups():
    data = make_biased_decisions(20_000, n_groups=(2,), bias=0.4, random_state=0)
    s = data.sensitive[:, 0]
    gap = data.target[s == 0].mean() - data.target[s == 1].mean()
    fair_gap = data.fair_target[s == 0].mean() - data.fair_target[s == 1].mean()
    assert abs(fair_gap) < 0.03
    assert gap > 0.15


def test_as_frame_matches_arrays():
    pd = pytest.importorskip("pandas")
    arrays = make_biased_decisions(200, random_state=3)
    frames = make_biased_decisions(200, random_state=3, as_frame=True)
    assert isinstance(frames.data, pd.DataFrame)
    assert isinstance(frames.sensitive, pd.DataFrame)
    assert isinstance(frames.target, pd.Series)
    assert frames.target.name == "decision"
    np.testing.assert_array_equal(frames.data.to_numpy(), arrays.data)
    np.testing.assert_array_equal(frames.sensitive.to_numpy(), arrays.sensitive)
    np.testing.assert_array_equal(frames.target.to_numpy(), arrays.target)
    assert list(frames.frame.columns) == (arrays.feature_names + arrays.sensitive_names
                                          + ["decision"])


def test_return_X_y_matches_bunch():
    data = make_biased_decisions(200, random_state=5)
    X, y, A = make_biased_decisions(200, random_state=5, return_X_y=True)
    np.testing.assert_array_equal(X, data.data)
    np.testing.assert_array_equal(y, data.target)
    np.testing.assert_array_equal(A, data.sensitive)


def test_proxy_reveals_the_first_attribute_and_changes_nothing_else():
    plain = make_biased_decisions(4000, proxy=0.0, random_state=0)
    proxied = make_biased_decisions(4000, proxy=0.8, random_state=0)
    assert plain.proxies == [] and proxied.proxies == ["x5"]
    for key in ("target", "fair_target", "sensitive", "discriminated_by"):
        np.testing.assert_array_equal(plain[key], proxied[key])
    np.testing.assert_array_equal(plain.data[:, :-1], proxied.data[:, :-1])
    s0, last = proxied.sensitive[:, 0], proxied.data[:, -1]
    # with n_levels=5 and 2 groups, group 0 maps to level 0 and group 1 to level 4
    revealed = np.where(s0 == 0, last == 0, last == 4)
    assert revealed.mean() > 0.8
    assert abs(np.corrcoef(s0, last)[0, 1]) > 0.6
    assert abs(np.corrcoef(plain.sensitive[:, 0], plain.data[:, -1])[0, 1]) < 0.05


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n_features": 2, "n_informative": 3},
         MSG_INFORMATIVE.format(n_informative=3, n_features=2)),
        ({"n_groups": (2, 3), "bias": (0.1, 0.2, 0.3)},
         MSG_BIAS_LENGTH.format(got=3, expected=2)),
        ({"bias": (0.1, 1.5, 0.2)}, MSG_BIAS_RANGE.format(bias=(0.1, 1.5, 0.2))),
        ({"n_groups": (2, 1)}, MSG_GROUPS.format(n_groups=(2, 1))),
        ({"n_groups": ()}, MSG_GROUPS.format(n_groups=())),
        ({"n_features": 3, "n_informative": 3, "proxy": 0.5},
         MSG_PROXY.format(n_features=3, n_informative=3)),
    ],
)
def test_bad_options_raise_clear_errors(kwargs, message):
    with pytest.raises(ValueError) as excinfo:
        make_biased_decisions(100, random_state=0, **kwargs)
    assert str(excinfo.value) == message


@pytest.mark.parametrize(
    "kwargs",
    [{"n_samples": 5}, {"n_features": 0}, {"n_levels": 1}, {"noise": -1.0}, {"bias": 2.0}, {"proxy": 1.5},
     {"random_state": "seed"}, {"as_frame": "yes"}],
)
def test_parameter_validation(kwargs):
    kwargs = {"n_samples": 100, **kwargs}
    with pytest.raises(InvalidParameterError):
        make_biased_decisions(**kwargs)
