"""The continuous report and metrics at any magnitude, with no weight, and one row.

References: plain numpy per group (means, sample standard deviations, Student's t
interval) at scale 1, and ``math.fsum`` for the means of a 1e12 offset.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from skfair_manifold.metrics import (
    UndefinedFairnessWarning,
    bounded_group_loss,
    distribution_distance,
    error_difference,
    fairness_report,
    mean_prediction_difference,
)

COLUMNS = ["mean_prediction", "mean_target", "mean_absolute_error", "root_mean_squared_error",
           "mean_residual"]


def _data(n=240, seed=0):
    rng = np.random.default_rng(seed)
    sex = np.array(["f", "m", "x"])[rng.integers(0, 3, n)]
    y_true = rng.normal(5.0, 1.0, n)
    y_pred = y_true + rng.normal(0.2, 0.5, n) + (sex == "f") * 0.3
    return y_true, y_pred, sex


def _plain(y_true, y_pred, sex):
    """Each group's five quantities and the t interval of its mean prediction."""
    out = {}
    for g in np.unique(sex):
        t, p = y_true[sex == g], y_pred[sex == g]
        r = p - t
        half = stats.t.ppf(0.975, len(p) - 1) * p.std(ddof=1) / np.sqrt(len(p))
        out[g] = [p.mean(), t.mean(), np.abs(r).mean(), np.sqrt((r * r).mean()), r.mean(),
                  p.mean() - half, p.mean() + half]
    return out


def _report(y_true, y_pred, sex, **kw):
    return fairness_report(y_true, y_pred, sensitive_features=sex, target_type="continuous",
                           **kw)


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e160, 1e300])
def test_every_continuous_quantity_is_scale_equivariant(scale):
    y_true, y_pred, sex = _data()
    plain = _plain(y_true, y_pred, sex)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow, no underflow, nothing undefined
        report = _report(y_true * scale, y_pred * scale, sex)
    for g, values in plain.items():
        row = report.by_group.loc[(0, g)]
        np.testing.assert_allclose(row[COLUMNS].to_numpy(float) / scale, values[:5],
                                   rtol=1e-12)
        iv = report.intervals.by_group.loc[(0, g)]
        np.testing.assert_allclose(
            [iv["mean_prediction_low"] / scale, iv["mean_prediction_high"] / scale],
            values[5:], rtol=1e-12)
    assert report.gaps.loc[0, "wasserstein_distance"] / scale == pytest.approx(
        _report(y_true, y_pred, sex).gaps.loc[0, "wasserstein_distance"], rel=1e-12)
    assert "e+" in report.headline[0] or "e-" in report.headline[0]  # no 300-digit numbers
    assert max(len(w) for w in report.headline[0].split()) < 30
    means = [v[0] for v in plain.values()]
    assert mean_prediction_difference(y_true * scale, y_pred * scale,
                                      sensitive_features=sex) / scale == pytest.approx(
        max(means) - min(means), rel=1e-12)
    assert error_difference(y_true * scale, y_pred * scale, sensitive_features=sex) / scale \
        == pytest.approx(np.ptp([v[2] for v in plain.values()]), rel=1e-12)
    assert distribution_distance(y_true * scale, y_pred * scale, sensitive_features=sex,
                                 distance="wasserstein") / scale == pytest.approx(
        distribution_distance(y_true, y_pred, sensitive_features=sex,
                              distance="wasserstein"), rel=1e-12)


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_a_mean_squared_error_outside_float64_is_refused_by_name(scale):
    y_true, y_pred, sex = _data()
    with pytest.raises(ValueError, match="loss='absolute'"):
        error_difference(y_true * scale, y_pred * scale, sensitive_features=sex,
                         loss="squared")
    with pytest.raises(ValueError, match="outside the range of a float64"):
        bounded_group_loss(y_true * scale, y_pred * scale, sensitive_features=sex,
                           loss="squared")


def test_a_large_offset_keeps_the_digits_of_the_means():
    y_true, y_pred, sex = _data()
    y_true, y_pred = y_true + 1e12, y_pred + 1e12
    report = _report(y_true, y_pred, sex)
    for g in np.unique(sex):
        exact = math.fsum(y_pred[sex == g] - 1e12) / (sex == g).sum()  # each term exact
        assert report.by_group.loc[(0, g), "mean_prediction"] - 1e12 == pytest.approx(
            exact, abs=2e-4)  # a few ulps of 1e12; plain sums were 2.8e-3 off


def test_amounts_of_plus_and_minus_1e308_give_a_report():
    rng = np.random.default_rng(1)
    n = 200
    sex = np.array(["f", "m"])[rng.integers(0, 2, n)]
    y_true = np.where(rng.random(n) < 0.5, 1e308, -1e308)
    y_pred = rng.normal(0.0, 1.0, n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = _report(y_true, y_pred, sex)
    for g in ("f", "m"):
        mine = sex == g
        assert report.by_group.loc[(0, g), "mean_target"] == pytest.approx(
            (np.mean(y_true[mine] / 1e308)) * 1e308, rel=1e-12)
        assert report.by_group.loc[(0, g), "mean_absolute_error"] == pytest.approx(
            np.mean(np.abs(y_pred[mine] / 1e308 - y_true[mine] / 1e308)) * 1e308, rel=1e-12)
    assert np.isfinite(report.by_group["root_mean_squared_error"]).all()


def test_a_group_of_no_weight_is_left_out_with_a_warning_alike_everywhere():
    y_true, y_pred, sex = _data()
    weights = np.where(sex == "x", 0.0, 1.0)
    with pytest.warns(UndefinedFairnessWarning, match=r"\['x'\] have no row of non-zero"):
        report = _report(y_true, y_pred, sex, sample_weight=weights)
    kept = sex != "x"
    expected = _report(y_true[kept], y_pred[kept], sex[kept]).gaps.loc[
        0, "mean_prediction_difference"]
    assert report.gaps.loc[0, "mean_prediction_difference"] == pytest.approx(expected)
    assert not report.by_group.loc[(0, "x"), "compared"]
    with pytest.warns(UndefinedFairnessWarning, match="no row of non-zero weight"):
        got = mean_prediction_difference(y_true, y_pred, sensitive_features=sex,
                                         sample_weight=weights)
    assert got == pytest.approx(expected)
    with pytest.warns(UndefinedFairnessWarning) as record:
        assert np.isnan(mean_prediction_difference(y_true, y_pred, sensitive_features=sex,
                                                   sample_weight=np.zeros(len(sex))))
    assert any("fewer than 2 group" in str(w.message) for w in record)
    with pytest.warns(UndefinedFairnessWarning, match="no row of non-zero weight"):
        nothing = _report(y_true, y_pred, sex, sample_weight=np.zeros(len(sex)))
    assert "nothing compared" in nothing.headline[0]


def test_a_one_row_group_has_its_interval_undefined_with_a_warning():
    y_true, y_pred, sex = _data()
    sex = sex.astype(object)
    sex[0] = "alone"
    with pytest.warns(UndefinedFairnessWarning, match=r"\['alone'\] have a single row"):
        report = _report(y_true, y_pred, sex, min_group_size=1)
    assert np.isnan(report.intervals.by_group.loc[(0, "alone"), "mean_prediction_low"])
    assert np.isnan(report.intervals.gaps.loc[0, "mean_prediction_difference_low"])


def test_constant_predictions_name_no_group_worst_and_best():
    y_true, _, sex = _data()
    report = _report(y_true, np.full(len(y_true), 3.0), sex)
    sentence = report.headline[0]
    assert "same mean prediction" in sentence and "lowest" not in sentence


def test_empty_rows_are_refused_without_speaking_of_distances():
    for metric in (error_difference, mean_prediction_difference):
        with pytest.raises(ValueError, match="y_true is empty") as info:
            metric([], [], sensitive_features=[])
        assert "distance" not in str(info.value)


@pytest.mark.parametrize("scale", [1e298, 1e-300])
def test_a_lazy_frame_at_any_magnitude_gives_the_in_memory_report(scale):
    duckdb = pytest.importorskip("duckdb")
    import pandas as pd

    y_true, y_pred, sex = _data()
    frame = pd.DataFrame({"t": y_true * scale, "p": y_pred * scale, "s": sex})
    if scale > 1:  # a first row far from the others: the second pass's scale
        frame.loc[0, ["t", "p"]] = [0.0, 0.0]
    memory = _report(frame["t"].to_numpy(), frame["p"].to_numpy(), sex)
    lazy = fairness_report("t", "p", sensitive_features="s", data=duckdb.from_df(frame),
                           target_type="continuous")
    np.testing.assert_allclose(lazy.by_group[COLUMNS].to_numpy(float) / scale,
                               memory.by_group[COLUMNS].to_numpy(float) / scale, rtol=1e-9)
    np.testing.assert_allclose(lazy.intervals.by_group.to_numpy(float) / scale,
                               memory.intervals.by_group.to_numpy(float) / scale, rtol=1e-9)
