"""Probability scores by group: AUC and calibration against references and simulation."""

import json

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from skfair_manifold.metrics import fairness_report
from skfair_manifold.metrics._report._scores import auc_interval, weighted_auc

pd = pytest.importorskip("pandas")


def scored(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    sex = rng.choice(["f", "m"], n)
    y = rng.integers(0, 2, n)
    score = np.clip(0.5 + 0.25 * (y - 0.5) + rng.normal(0, 0.2, n) + 0.1 * (sex == "f"), 0, 1)
    score = np.round(score, 2)  # ties on purpose
    return y, score, sex


def test_auc_by_group_is_scikit_learns_with_and_without_weights():
    from sklearn.metrics import roc_auc_score

    y, score, sex = scored()
    w = np.random.default_rng(1).uniform(0.2, 3.0, y.shape[0])
    for weights in (None, w):
        report = fairness_report(y, (score > 0.5).astype(int), sensitive_features=sex,
                                 y_score=score, sample_weight=weights)
        for group in ("f", "m"):
            m = sex == group
            ref = roc_auc_score(y[m], score[m],
                                sample_weight=None if weights is None else weights[m])
            assert_allclose(report.scores.loc[(0, group), "auc"], ref, rtol=1e-12)


def test_calibration_error_and_reliability_table_are_the_plain_bins():
    y, score, sex = scored(seed=2)
    report = fairness_report(y, (score > 0.5).astype(int), sensitive_features=sex,
                             y_score=score)
    for group in ("f", "m"):
        s, t = score[sex == group], y[sex == group]
        bins = np.minimum((s * 10).astype(int), 9)
        ece = sum((bins == b).sum() * abs(s[bins == b].mean() - t[bins == b].mean())
                  for b in range(10) if (bins == b).any()) / s.shape[0]
        assert_allclose(report.scores.loc[(0, group), "ece"], ece, rtol=1e-12)
        table = report.score_reliability.query("group == @group")
        assert table["count"].sum() == s.shape[0] and len(table) == 10
    worst = report.scores["ece"].idxmax()[1]
    assert report.score_gaps.loc[0, "ece_worst_group"] == worst
    json.dumps(report.to_dict(), allow_nan=False)
    assert "scores" in report.to_dict()
    plain = fairness_report(y, (score > 0.5).astype(int), sensitive_features=sex)
    assert "scores" not in plain.to_dict()  # the binary report without scores is as it was


@pytest.mark.parametrize("shift, sizes", [(1.0, (10, 50, 1000)), (2.3, (10, 50, 1000)),
                                          (3.3, (10, 45)), (4.4, (10, 45))])
def test_the_auc_interval_keeps_its_coverage_from_10_to_1000_rows(shift, sizes):
    """Binormal scores (AUC 0.76, 0.95, 0.990 and 0.999, where a perfect ranking is common:
    63% and 94% of the samples at 10 rows a class): the score interval of Hanley and
    McNeil's variance covers the true AUC at least 93% of the time over 600 repeats
    (measured 0.952 to 1.000 over 1,000 repeats)."""
    rng = np.random.default_rng(0)
    true = stats.norm.cdf(shift / np.sqrt(2))
    for n in sizes:
        hits = 0
        labels = np.r_[np.ones(n, dtype=bool), np.zeros(n, dtype=bool)]
        for _ in range(600):
            score = np.r_[rng.normal(shift, 1, n), rng.normal(0, 1, n)]
            low, high = auc_interval(weighted_auc(score, labels, None), n, n, 0.95)
            hits += low <= true <= high
        assert hits / 600 >= 0.93, (n, shift, hits / 600)


def _variance(a, n_pos, n_neg):
    """Hanley and McNeil (1982), Table 1's formula, term by term."""
    q1 = a / (2 - a)
    q2 = 2 * a ** 2 / (1 + a)
    return (a * (1 - a) + (n_pos - 1) * (q1 - a ** 2) + (n_neg - 1) * (q2 - a ** 2)) / (
        n_pos * n_neg)


@pytest.mark.parametrize("auc, n_pos, n_neg", [(1.0, 45, 46), (0.0, 45, 46), (1.0, 5, 3),
                                               (0.99, 45, 46), (0.7, 200, 30)])
def test_the_auc_interval_is_the_score_interval_and_not_degenerate_at_0_and_1(
        auc, n_pos, n_neg):
    """Each end is where (auc - A)**2 = z**2 V(A) (or 0 or 1), the estimate inside; a perfect
    ranking of 45 and 46 people is not compatible with an AUC of 0.5."""
    low, high = auc_interval(auc, n_pos, n_neg, 0.95)
    z2 = stats.norm.ppf(0.975) ** 2
    assert low <= auc <= high
    for end in (low, high):
        if 0.0 < end < 1.0:
            assert (auc - end) ** 2 == pytest.approx(z2 * _variance(end, n_pos, n_neg),
                                                     rel=1e-7)
    grid = np.linspace(0, 1, 20001)
    inside = grid[(auc - grid) ** 2 <= z2 * _variance(grid, n_pos, n_neg)]
    assert low == pytest.approx(inside.min(), abs=1e-4)
    assert high == pytest.approx(inside.max(), abs=1e-4)
    if (auc, n_pos) == (1.0, 45):
        assert low > 0.9 and high == 1.0


def test_scores_that_are_not_probabilities_have_an_auc_but_no_calibration():
    y, score, sex = scored(n=400)
    report = fairness_report(y, (score > 0.5).astype(int), sensitive_features=sex,
                             y_score=10 * score - 5)
    assert report.scores["auc"].notna().all() and report.scores["ece"].isna().all()
    assert report.score_reliability.empty


def test_bad_scores_and_lazy_frames_are_refused():
    y, score, sex = scored(n=100)
    bad = score.copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match="y_score holds 1 NaN"):
        fairness_report(y, (score > 0.5).astype(int), sensitive_features=sex, y_score=bad)
    with pytest.raises(ValueError, match="y_score has 99 rows"):
        fairness_report(y, (score > 0.5).astype(int), sensitive_features=sex,
                        y_score=score[:-1])
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"y": y, "p": (score > 0.5).astype(int), "s": score, "sex": sex})
    eager = fairness_report("y", "p", sensitive_features="sex", data=frame, y_score="s")
    assert_allclose(eager.scores["auc"].to_numpy(), fairness_report(
        y, (score > 0.5).astype(int), sensitive_features=sex,
        y_score=score).scores["auc"].to_numpy(), rtol=1e-15)
    with pytest.raises(ValueError, match="y_score"):
        fairness_report("y", "p", sensitive_features="sex", data=frame.lazy(), y_score="s")


def test_the_page_shows_the_scores_beside_the_rates_only_when_given():
    y, score, sex = scored(n=600, seed=4)
    with_scores = fairness_report(y, (score > 0.5).astype(int), sensitive_features=sex,
                                  y_score=score).to_html()
    assert 'id="scores-table"' in with_scores and "calibration error" in with_scores
    assert 'id="groups-table"' in with_scores  # the thresholded rates stay
    without = fairness_report(y, (score > 0.5).astype(int), sensitive_features=sex).to_html()
    assert 'id="scores-table"' not in without


def test_an_auc_undefined_for_one_class_or_no_weight_is_warned():
    from skfair_manifold.metrics import UndefinedFairnessWarning

    y, score, sex = scored(n=400, seed=5)
    y = np.where(sex == "f", 1, y)  # every woman has the favourable label
    pred = (score > 0.5).astype(int)
    with pytest.warns(UndefinedFairnessWarning) as record:  # the FPR's 0/0 beside it
        report = fairness_report(y, pred, sensitive_features=sex, y_score=score)
    assert any("AUC of group(s) ['f']" in str(w.message) for w in record)
    assert np.isnan(report.scores.loc[(0, "f"), "auc"])
    assert any("AUC of group" in w for w in report.warnings)
    y, score, sex = scored(n=400, seed=6)
    weights = np.where(sex == "f", 0.0, 1.0)
    with pytest.warns(UndefinedFairnessWarning) as record:  # numpy's ZeroDivisionError before
        report = fairness_report(y, (score > 0.5).astype(int), sensitive_features=sex,
                                 y_score=score, sample_weight=weights)
    assert any("have no row of non-zero weight: their AUC" in str(w.message) for w in record)
    assert np.isnan(report.scores.loc[(0, "f"), ["auc", "mean_score", "ece"]].to_numpy(
        float)).all()
    m = sex == "m"
    assert report.scores.loc[(0, "m"), "mean_score"] == pytest.approx(score[m].mean())
