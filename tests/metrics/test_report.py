"""fairness_report against plain references: a loop over groups, the group metrics,
fairlearn's MetricFrame, and the coverage of its bootstrap intervals."""

import itertools
import json
import warnings

import numpy as np
import pytest

from skfair_manifold.metrics import (
    FairnessReport,
    UndefinedFairnessWarning,
    demographic_parity,
    equal_opportunity,
    fairness_report,
    hfm_report,
    predictive_quality_parity,
)

pd = pytest.importorskip("pandas")


def _data(n=600, seed=0, weights=False):
    rng = np.random.default_rng(seed)
    A = pd.DataFrame({"sex": rng.choice(["f", "m"], n, p=[0.4, 0.6]),
                      "race": rng.integers(0, 3, n),
                      "age": rng.choice(["young", "mid", "old"], n)})
    y_true = (rng.random(n) < 0.4 + 0.2 * (A["sex"] == "m")).astype(int)
    y_pred = np.where(rng.random(n) < 0.8, y_true, 1 - y_true)
    w = rng.uniform(0.1, 3.0, n) if weights else None
    return y_true, y_pred, A, w


def _loop_rates(y_true, y_pred, mask, w):
    """Weighted rates of the rows in ``mask``, written out one by one."""
    w = np.ones(len(y_true)) if w is None else w
    t, p = y_true == 1, y_pred == 1

    def ratio(num, den):
        den_w = w[mask & den].sum()
        return np.nan if den_w == 0 else w[mask & den & num].sum() / den_w

    everything = np.ones(len(y_true), dtype=bool)
    return {
        "count": int(mask.sum()),
        "base_rate": ratio(t, everything),
        "selection_rate": ratio(p, everything),
        "true_positive_rate": ratio(p, t),
        "false_positive_rate": ratio(p, ~t),
        "precision": ratio(t, p),
        "accuracy": ratio(t == p, everything),
    }


@pytest.mark.parametrize("weights", [False, True])
def test_by_group_against_a_loop(weights):
    y_true, y_pred, A, w = _data(weights=weights)
    report = fairness_report(y_true, y_pred, sensitive_features=A, sample_weight=w,
                             min_group_size=1)
    assert isinstance(report, FairnessReport)
    assert report.by_group.index.names == ["attribute", "group"]
    seen = 0
    for column in A.columns:
        for value in sorted(A[column].unique()):
            expected = _loop_rates(y_true, y_pred, (A[column] == value).to_numpy(), w)
            row = report.by_group.loc[(column, value)]
            for quantity, number in expected.items():
                assert row[quantity] == pytest.approx(number, rel=1e-12, nan_ok=True), \
                    (column, value, quantity)
            seen += 1
    assert seen == len(report.by_group) == 2 + 3 + 3
    overall = _loop_rates(y_true, y_pred, np.ones(len(y_true), dtype=bool), w)
    for quantity, number in overall.items():
        assert report.overall[quantity] == pytest.approx(number, rel=1e-12)
    if weights:
        assert report.by_group.loc["sex", "weight"].sum() == pytest.approx(w.sum())


@pytest.mark.parametrize("weights", [False, True])
def test_intersect_groups_are_the_combinations(weights):
    y_true, y_pred, A, w = _data(weights=weights)
    report = fairness_report(y_true, y_pred, sensitive_features=A[["sex", "race"]],
                             sample_weight=w, intersect=True, min_group_size=1)
    assert list(report.gaps.index) == ["sex & race"]
    combos = list(itertools.product(sorted(A["sex"].unique()), sorted(A["race"].unique())))
    assert len(report.by_group) == len(combos)
    rates = []
    for sex, race in combos:
        mask = ((A["sex"] == sex) & (A["race"] == race)).to_numpy()
        expected = _loop_rates(y_true, y_pred, mask, w)
        row = report.by_group.loc[("sex & race", f"{sex} & {race}")]
        for quantity, number in expected.items():
            assert row[quantity] == pytest.approx(number, rel=1e-12)
        rates.append(expected["selection_rate"])
    gap = report.gaps.loc["sex & race"]
    assert gap["demographic_parity_difference"] == pytest.approx(max(rates) - min(rates))
    assert gap["demographic_parity_ratio"] == pytest.approx(min(rates) / max(rates))
    assert gap["passes_four_fifths"] == (min(rates) / max(rates) >= 0.8)
    # the metric functions give the same with intersect=True
    assert demographic_parity(y_true, y_pred, sensitive_features=A[["sex", "race"]],
                              sample_weight=w, intersect=True) == pytest.approx(
        max(rates) - min(rates))


@pytest.mark.parametrize("method", ["between_groups", "to_overall"])
@pytest.mark.parametrize("kind", ["difference", "ratio"])
@pytest.mark.parametrize("size", [{"min_group_size": 1}, {}], ids=["every-group", "default"])
def test_gaps_agree_with_the_group_metrics(method, kind, size):
    y_true, y_pred, A, w = _data(weights=True)
    report = fairness_report(y_true, y_pred, sensitive_features=A, sample_weight=w, **size)
    suffix = kind + ("" if method == "between_groups" else "_to_overall")
    for metric in (demographic_parity, equal_opportunity, predictive_quality_parity):
        column = f"{metric.__name__}_{suffix}"
        for attribute in A.columns:
            assert report.gaps.loc[attribute, column] == pytest.approx(metric(
                y_true, y_pred, sensitive_features=A[attribute], sample_weight=w,
                method=method, kind=kind, **size), rel=1e-12)
        # "all attributes" is the worst one: what aggregate="max" returns
        assert report.gaps.loc["all attributes", column] == pytest.approx(metric(
            y_true, y_pred, sensitive_features=A, sample_weight=w, method=method,
            kind=kind, aggregate="max", **size), rel=1e-12)


def test_ratio_by_hand():
    y_true = [1, 1, 0, 0, 1, 0, 1, 0]
    y_pred = [1, 1, 1, 0, 1, 0, 0, 0]
    group = ["a"] * 4 + ["b"] * 4
    # selection rates 3/4 and 1/4
    assert demographic_parity(y_true, y_pred, sensitive_features=group, kind="ratio",
                              min_group_size=1) == pytest.approx(1 / 3)
    report = fairness_report(y_true, y_pred, sensitive_features=group, min_group_size=1)
    assert not report.gaps.loc[0, "passes_four_fifths"]
    # 4 people a group: the ratio's interval straddles 0.8, the verdict waits for more
    assert report.gaps.loc[0, "four_fifths"] == "inconclusive"
    # to_overall: overall rate 1/2; min(0.75/0.5, 0.5/0.75, 0.25/0.5, 0.5/0.25) = 0.5
    assert report.gaps.loc[0, "demographic_parity_ratio_to_overall"] == pytest.approx(0.5)


def test_against_fairlearn_metricframe():
    fairlearn_metrics = pytest.importorskip("fairlearn.metrics")
    from sklearn.metrics import accuracy_score, precision_score

    y_true, y_pred, A, w = _data(n=2000, seed=3, weights=True)
    frame = fairlearn_metrics.MetricFrame(
        metrics={"selection_rate": fairlearn_metrics.selection_rate,
                 "true_positive_rate": fairlearn_metrics.true_positive_rate,
                 "false_positive_rate": fairlearn_metrics.false_positive_rate,
                 "precision": precision_score, "accuracy": accuracy_score,
                 "count": fairlearn_metrics.count},
        y_true=y_true, y_pred=y_pred, sensitive_features=A[["sex", "race"]],
        sample_params={name: {"sample_weight": w} for name in
                       ("selection_rate", "true_positive_rate", "false_positive_rate",
                        "precision", "accuracy")})
    ours = fairness_report(y_true, y_pred, sensitive_features=A[["sex", "race"]],
                           sample_weight=w, intersect=True, min_group_size=1)
    for (sex, race), row in frame.by_group.iterrows():
        mine = ours.by_group.loc[("sex & race", f"{sex} & {race}")]
        for quantity in ("selection_rate", "true_positive_rate", "false_positive_rate",
                         "precision", "accuracy", "count"):
            assert mine[quantity] == pytest.approx(row[quantity], rel=1e-12, abs=1e-15)
    gaps = ours.gaps.loc["sex & race"]
    assert gaps["demographic_parity_difference"] == pytest.approx(
        fairlearn_metrics.demographic_parity_difference(
            y_true, y_pred, sensitive_features=A[["sex", "race"]], sample_weight=w),
        rel=1e-12)
    assert gaps["demographic_parity_ratio"] == pytest.approx(
        fairlearn_metrics.demographic_parity_ratio(
            y_true, y_pred, sensitive_features=A[["sex", "race"]], sample_weight=w),
        rel=1e-12)
    assert gaps["demographic_parity_ratio_to_overall"] == pytest.approx(
        fairlearn_metrics.demographic_parity_ratio(
            y_true, y_pred, sensitive_features=A[["sex", "race"]], sample_weight=w,
            method="to_overall"), rel=1e-12)
    # one attribute at a time, unweighted, against MetricFrame's difference and ratio
    single = fairness_report(y_true, y_pred, sensitive_features=A, min_group_size=1)
    for column in A.columns:
        mf = fairlearn_metrics.MetricFrame(metrics=fairlearn_metrics.true_positive_rate,
                                           y_true=y_true, y_pred=y_pred,
                                           sensitive_features=A[column])
        assert single.gaps.loc[column, "equal_opportunity_difference"] == pytest.approx(
            mf.difference(), rel=1e-12)
        assert single.gaps.loc[column, "equal_opportunity_ratio"] == pytest.approx(
            mf.ratio(), rel=1e-12)
        assert single.gaps.loc[column, "equal_opportunity_difference_to_overall"] == \
            pytest.approx(mf.difference(method="to_overall"), rel=1e-12)


@pytest.mark.parametrize("weights", [False, True])
def test_bootstrap_intervals_cover_the_true_rate(weights):
    """In repeated samples from a known population the 90% intervals cover its rates."""
    rng = np.random.default_rng(7)
    p_select = {"a": 0.3, "b": 0.6}
    n, reps, hits, gap_hits = 400, 120, 0, 0
    for rep in range(reps):
        group = rng.choice(["a", "b"], n)
        y_pred = (rng.random(n) < np.where(group == "a", 0.3, 0.6)).astype(int)
        y_true = rng.integers(0, 2, n)
        w = np.ones(n) if weights else None  # weights of 1: same truth, other code path
        report = fairness_report(y_true, y_pred, sensitive_features=group, sample_weight=w,
                                 n_boot=200, confidence=0.9, random_state=rep)
        iv = report.intervals.by_group.loc[(0, "a")]
        hits += iv["selection_rate_low"] <= p_select["a"] <= iv["selection_rate_high"]
        g = report.intervals.gaps.loc[0]
        gap_hits += (g["demographic_parity_difference_low"] <= 0.3
                     <= g["demographic_parity_difference_high"])
    assert 0.8 <= hits / reps <= 0.98
    assert 0.8 <= gap_hits / reps <= 0.98


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    y_true, y_pred, A, _ = _data()
    first = fairness_report(y_true, y_pred, sensitive_features=A, n_boot=100, random_state=1)
    second = fairness_report(y_true, y_pred, sensitive_features=A, n_boot=100, random_state=1)
    pd.testing.assert_frame_equal(first.intervals.by_group, second.intervals.by_group)
    pd.testing.assert_frame_equal(first.intervals.gaps, second.intervals.gaps)
    iv = first.intervals.by_group
    for quantity in ("selection_rate", "true_positive_rate", "accuracy"):
        assert (iv[f"{quantity}_low"] <= first.by_group[quantity] + 1e-12).all()
        assert (first.by_group[quantity] <= iv[f"{quantity}_high"] + 1e-12).all()
        assert (iv[f"{quantity}_low"] < iv[f"{quantity}_high"]).all()
    assert list(first.intervals.gaps.index) == list(first.gaps.index)


def test_hfm_and_dr_sections():
    from sklearn.tree import DecisionTreeClassifier

    from skfair_manifold.metrics import discriminative_risk

    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({"x0": rng.random(n), "x1": rng.random(n),
                      "sex": rng.integers(0, 2, n), "race": rng.integers(0, 3, n)})
    y = ((X["x0"] + 0.3 * X["sex"]) > 0.7).astype(int)
    model = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    y_pred = model.predict(X)
    report = fairness_report(y, y_pred, sensitive_features=["sex", "race"], X=X,
                             estimator=model, hfm_options={"method": "exact"},
                             random_state=0)
    reference = hfm_report(y, y_pred, X=X[["x0", "x1"]], sensitive_features=X[["sex", "race"]],
                           method="exact")
    assert report.hfm.loc["all attributes", "hfm_max"] == pytest.approx(reference.hfm_max)
    assert report.hfm.loc["race", "hfm_avg"] == pytest.approx(
        reference.per_attribute.hfm_avg[1])
    assert list(report.dr.index) == ["sex", "race", "all attributes"]
    assert report.dr["all attributes"] == pytest.approx(report.dr[["sex", "race"]].mean())
    seed = report.dr  # DR of each column alone, recomputed with the seed the report used
    assert 0.0 <= seed["sex"] <= 1.0 and seed["sex"] > seed["race"]
    assert seed["race"] == pytest.approx(0.0)  # the tree never reads race
    assert discriminative_risk(model, X, sensitive=["race"], random_state=0) == 0.0


def test_to_dict_is_json_and_to_frame_is_long():
    y_true = np.array([1, 1, 0, 0, 1, 0, 1, 0, 1, 1])
    y_pred = np.array([1, 1, 1, 0, 1, 0, 0, 0, 1, 1])
    group = np.array(["a"] * 4 + ["b"] * 4 + ["c"] * 2)  # c: no negative label, FPR 0/0
    with pytest.warns(UndefinedFairnessWarning, match="false_positive_rate of 0=c"):
        report = fairness_report(y_true, y_pred, sensitive_features=group, n_boot=20,
                                 random_state=0, min_group_size=1)
    assert np.isnan(report.by_group.loc[(0, "c"), "false_positive_rate"])
    payload = report.to_dict()
    text = json.dumps(payload, allow_nan=False)  # no NaN token anywhere
    back = json.loads(text)
    assert back["by_group"]["0"]["c"]["false_positive_rate"] is None
    assert back["by_group"]["0"]["a"]["selection_rate"] == 0.75
    assert len(back["intervals"]["by_group"]["0"]["a"]["selection_rate"]) == 2
    frame = report.to_frame()
    assert set(frame["section"]) == {"by_group", "overall", "gaps"}
    assert {"low", "high"} <= set(frame.columns)
    row = frame[(frame.section == "by_group") & (frame.group == "a")
                & (frame.quantity == "selection_rate")]
    assert row["value"].item() == 0.75


def test_column_references_and_errors():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.random(50), "sex": rng.integers(0, 2, 50)})
    y = rng.integers(0, 2, 50)
    by_name = fairness_report(y, y, sensitive_features="sex", X=X, min_group_size=1)
    by_array = fairness_report(y, y, sensitive_features=X["sex"], min_group_size=1)
    assert by_name.by_group["count"].tolist() == by_array.by_group["count"].tolist()
    with pytest.raises(ValueError, match="needs X"):
        fairness_report(y, y, sensitive_features="sex")
    with pytest.raises(ValueError, match="must name the sensitive columns of X"):
        from sklearn.dummy import DummyClassifier

        fairness_report(y, y, sensitive_features=X["sex"].to_numpy(), X=X,
                        estimator=DummyClassifier().fit(X, y))
    with pytest.raises(ValueError, match="pos_label"):
        fairness_report(y + 1, y + 1, sensitive_features=X["sex"])


def test_undefined_gap_warns_once_per_attribute():
    y_true = [0, 0, 1, 1]
    y_pred = [0, 1, 1, 1]
    group = ["a", "a", "b", "b"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = fairness_report(y_true, y_pred, sensitive_features=group, min_group_size=1)
    messages = [str(w.message) for w in caught if w.category is UndefinedFairnessWarning]
    assert any("equal_opportunity is undefined" in m for m in messages)
    assert np.isnan(report.gaps.loc[0, "equal_opportunity_difference"])


def test_hfm_intervals_are_read_when_the_report_has_them():
    """hfm_report gains a ``ci`` Bunch of (low, high) pairs: the report shows them."""
    from sklearn.utils import Bunch

    from skfair_manifold.metrics._report._hfm_section import _hfm_frame

    per = Bunch(hfm_max=np.array([0.1, 0.2]), hfm_avg=np.array([0.05, 0.0]),
                d_max=np.ones(2), d_f_max=np.ones(2), d_avg=np.ones(2), d_f_avg=np.ones(2),
                ci=Bunch(hfm_max=np.array([[0.0, 0.2], [0.1, 0.3]]),  # as hfm_report keeps them
                         hfm_avg=np.array([[0.0, 0.1], [-0.1, 0.1]])))
    bunch = Bunch(hfm_max=0.2, hfm_avg=0.03, d_max=1.0, d_f_max=1.2, d_avg=0.5, d_f_avg=0.6,
                  per_attribute=per, ci=Bunch(hfm_max=(0.15, 0.25), hfm_avg=(0.01, 0.05)))
    frame = _hfm_frame(bunch, ["sex", "race"])
    assert frame.loc["all attributes", ["hfm_max_low", "hfm_max_high"]].tolist() == [0.15, 0.25]
    assert frame.loc["race", ["hfm_avg_low", "hfm_avg_high"]].tolist() == [-0.1, 0.1]
    assert "d_max_low" not in frame.columns  # no interval given, none invented
    without = _hfm_frame(Bunch(**{k: v for k, v in bunch.items() if k != "ci"}),
                         ["sex", "race"])
    assert "hfm_max_low" not in without.columns


def test_the_sensitive_features_are_resolved_and_encoded_once(monkeypatch):
    """The cell table, HFM, DR and the scores read one object: each attribute encoded once."""
    from sklearn.compose import make_column_transformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    from skfair_manifold.metrics import _risk
    from skfair_manifold.utils._validation import _encoding, _sensitive

    y_true, y_pred, A, _ = _data(n=200)
    X = A.assign(x=np.random.default_rng(1).normal(size=200))
    model = make_pipeline(make_column_transformer((OneHotEncoder(), ["sex", "age"]),
                                                  remainder="passthrough"),
                          LogisticRegression()).fit(X, y_true)
    y_pred = model.predict(X)
    encoded, resolved = [], []

    def counting(function, calls):
        def wrapper(*args, **kwargs):
            calls.append(args[1])
            return function(*args, **kwargs)
        return wrapper

    for module in (_encoding, _sensitive, _risk):
        monkeypatch.setattr(module, "encode_column", counting(module.encode_column, encoded))
    for module in (_sensitive, _risk):
        monkeypatch.setattr(module, "resolve_columns",
                            counting(module.resolve_columns, resolved))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedFairnessWarning)  # a 0/0 rate: not the point
        report = fairness_report(y_true, y_pred, sensitive_features=["sex", "race"], X=X,
                                 estimator=model, y_score=model.predict_proba(X)[:, 1],
                                 random_state=0, hfm_options={"method": "exact"})
    assert sorted(encoded) == ["race", "sex"]  # once each, by whichever part asked first
    assert resolved == [["sex", "race"]]  # the columns of X found once, DR included
    assert list(report.dr.index) == ["sex", "race", "all attributes"]
    assert report.hfm is not None and report.scores is not None
