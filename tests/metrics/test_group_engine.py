"""The group engine: the cell table against plain loops, intervals by their coverage where
the truth is known, small groups, the named extremes, the verdict and the views."""

import html
import html.parser
import itertools
import warnings

import numpy as np
import pytest
from scipy import stats

from skfair_manifold.metrics import UndefinedFairnessWarning, fairness_report
from skfair_manifold.metrics._groups._cells import cell_table
from skfair_manifold.metrics._groups._intervals import wilson_cc
from skfair_manifold.utils._validation import encode_sensitive

pd = pytest.importorskip("pandas")

SIZES = (4, 5, 8, 15, 30, 100, 1000)


# ----------------------------------------------------------------------------- cell table

def _loop_cells(A, t, p, w):
    """Count, weight and squared weight per (groups, t, p), by a dictionary over rows."""
    out = {}
    for i in range(len(t)):
        key = (*(str(A[c].iloc[i]) for c in A.columns), int(t[i]), int(p[i]))
        c, s, s2 = out.get(key, (0, 0.0, 0.0))
        out[key] = (c + 1, s + w[i], s2 + w[i] ** 2)
    return out


@pytest.mark.parametrize("n_attributes,n_values", [(2, 3), (8, 4), (8, 290), (70, 2)])
def test_cell_table_against_a_loop_without_overflow(n_attributes, n_values):
    """Every keying: dense counts (2 x 3), a sorted int64 key (8 x 4), rows of codes when the
    key cannot fit in int64 (8 x 290, 70 x 2)."""
    rng = np.random.default_rng(n_attributes)
    n = 400
    A = pd.DataFrame({f"a{k}": rng.integers(0, n_values, n).astype(str)
                      for k in range(n_attributes)})
    t = rng.random(n) < 0.5
    p = rng.random(n) < 0.4
    w = rng.uniform(0.5, 2.0, n)
    codes, names, groups = encode_sensitive(A, n)
    table = cell_table(codes, names, groups, t, p, w)
    got = {}
    for i in range(table.count.shape[0]):
        key = (*(str(groups[k][table.codes[i, k]]) for k in range(n_attributes)),
               int(table.y_true[i]), int(table.y_pred[i]))
        got[key] = (int(table.count[i]), table.weight[i], table.weight_sq[i])
    expected = _loop_cells(A, t, p, w)
    assert got.keys() == expected.keys()
    for key, (c, s, s2) in expected.items():
        assert got[key][0] == c
        assert got[key][1] == pytest.approx(s, rel=1e-12)
        assert got[key][2] == pytest.approx(s2, rel=1e-12)
    # the intersection's groups are exactly the combinations present, labelled by them
    inter = table.intersect()
    present = {" & ".join(str(v) for v in row) for row in A.itertuples(index=False)}
    assert set(inter.groups[0].tolist()) == present


def test_intersection_report_labels_and_intervals_with_many_attributes():
    rng = np.random.default_rng(1)
    n = 600
    A = pd.DataFrame({f"b{k}": rng.integers(0, 2, n) for k in range(70)})
    y = rng.integers(0, 2, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedFairnessWarning)  # 1-row groups: 0/0 rates
        report = fairness_report(y, y, sensitive_features=A, intersect=True, min_group_size=1)
    labels = report.by_group.index.get_level_values(1)
    present = {" & ".join(str(v) for v in row) for row in A.itertuples(index=False)}
    assert set(labels) == present and len(labels) == n  # every row its own combination
    counts = report.by_group["count"].to_numpy()
    assert (counts == 1).all()


# ----------------------------------------------------------------------------- intervals

@pytest.mark.parametrize("n", SIZES)
def test_rate_interval_coverage_is_exact_and_at_least_nominal(n):
    """Coverage computed from the binomial law itself: at least 90% for every true rate."""
    x = np.arange(n + 1)
    low, high = wilson_cc(x, np.full(n + 1, n), 0.9)
    for p in np.linspace(0.01, 0.99, 99):
        coverage = stats.binom.pmf(x, n, p)[(low <= p) & (p <= high)].sum()
        assert coverage >= 0.9 - 1e-9, (n, p, coverage)
    assert (high - low > 0).all()  # never of zero width, all-selected groups included


def _population(rng, sizes, rates, label_rate=0.5):
    """Rows of groups of the given sizes whose selection rates are ``rates``."""
    group = np.repeat(np.arange(len(sizes)), sizes)
    y_pred = (rng.random(group.shape[0]) < np.asarray(rates)[group]).astype(int)
    y_true = (rng.random(group.shape[0]) < label_rate).astype(int)
    return y_true, y_pred, group


@pytest.mark.parametrize("size", [4, 15, 100, 1000])
def test_simulated_coverage_of_rates_and_gaps(size):
    """90% intervals from fairness_report cover the known rates and gaps >= 88% of the time."""
    rng = np.random.default_rng(size)
    rates = [0.2, 0.5, 0.55, 0.9]
    true_diff = max(rates) - min(rates)
    true_ratio = min(rates) / max(rates)
    reps = 150
    hits = {"rate": 0, "difference": 0, "ratio": 0}
    zero_width = 0
    for _ in range(reps):
        y_true, y_pred, group = _population(rng, [size] * 4, rates)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedFairnessWarning)
            report = fairness_report(y_true, y_pred, sensitive_features=group,
                                     confidence=0.9, min_group_size=1)
        iv = report.intervals
        low, high = iv.by_group.loc[(0, 0), ["selection_rate_low", "selection_rate_high"]]
        hits["rate"] += low <= rates[0] <= high
        zero_width += int((iv.by_group["selection_rate_high"]
                           <= iv.by_group["selection_rate_low"]).sum())
        g = iv.gaps.loc[0]
        hits["difference"] += (g["demographic_parity_difference_low"] <= true_diff
                               <= g["demographic_parity_difference_high"])
        hits["ratio"] += (g["demographic_parity_ratio_low"] <= true_ratio
                          <= g["demographic_parity_ratio_high"])
    for what, count in hits.items():
        assert count / reps >= 0.88, (what, size, count / reps)
    assert zero_width == 0


def test_gap_coverage_when_every_group_has_the_same_rate():
    """No true gap, many small groups: the sample gap is biased upwards, the interval is not."""
    rng = np.random.default_rng(3)
    reps, hits, above = 200, 0, 0
    for _ in range(reps):
        y_true, y_pred, group = _population(rng, [10] * 12, [0.5] * 12)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedFairnessWarning)
            report = fairness_report(y_true, y_pred, sensitive_features=group,
                                     confidence=0.9, min_group_size=1)
        g = report.intervals.gaps.loc[0]
        hits += g["demographic_parity_difference_low"] <= 0.0
        above += report.gaps.loc[0, "demographic_parity_difference"] > 0.3
    assert hits / reps >= 0.88
    assert above / reps > 0.5  # the point estimate alone would mislead


def test_weighted_interval_uses_the_effective_sample_size():
    rng = np.random.default_rng(0)
    n = 200
    group = np.repeat([0, 1], n // 2)
    y = rng.integers(0, 2, n)
    plain = fairness_report(y, y, sensitive_features=group, min_group_size=1)
    doubled = fairness_report(y, y, sensitive_features=group, sample_weight=np.full(n, 2.0),
                              min_group_size=1)
    # constant weights: same effective size, same intervals
    pd.testing.assert_frame_equal(plain.intervals.by_group, doubled.intervals.by_group)
    uneven = np.where(np.arange(n) % 2 == 0, 1.0, 9.0)
    wide = fairness_report(y, y, sensitive_features=group, sample_weight=uneven,
                           min_group_size=1)
    width = (wide.intervals.by_group["selection_rate_high"]
             - wide.intervals.by_group["selection_rate_low"])
    base = (plain.intervals.by_group["selection_rate_high"]
            - plain.intervals.by_group["selection_rate_low"])
    assert (width > base).all()  # uneven weights carry less information


def test_bootstrap_of_the_cells_is_seeded_and_brackets_the_gap():
    rng = np.random.default_rng(0)
    y_true, y_pred, group = _population(rng, [400, 400, 400], [0.3, 0.5, 0.6])
    first = fairness_report(y_true, y_pred, sensitive_features=group, n_boot=300,
                            random_state=4)
    second = fairness_report(y_true, y_pred, sensitive_features=group, n_boot=300,
                             random_state=4)
    pd.testing.assert_frame_equal(first.intervals.gaps, second.intervals.gaps)
    assert first.intervals.method == "bootstrap"
    g, iv = first.gaps.loc[0], first.intervals.gaps.loc[0]
    assert iv["demographic_parity_difference_low"] < g["demographic_parity_difference"] \
        < iv["demographic_parity_difference_high"]
    with pytest.raises(ValueError, match="n_boot"):
        fairness_report(y_true, y_pred, sensitive_features=group, n_boot=10**8)


# ----------------------------------------------------------------------------- small groups

def test_min_group_size_marks_and_leaves_out_small_groups():
    rng = np.random.default_rng(0)
    y_true, y_pred, group = _population(rng, [500, 500, 5], [0.5, 0.5, 1.0])
    y_pred[-5:] = 1  # a group of 5, all selected
    y_true[-5:] = 1  # and all positive: its false positive rate is 0/0
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedFairnessWarning)  # a group not compared: silent
        report = fairness_report(y_true, y_pred, sensitive_features=group)
    assert report.by_group["compared"].tolist() == [True, True, False]
    gaps = report.gaps.loc[0]
    assert gaps["groups_left_out"] == 1 and gaps["rows_left_out"] == 5
    assert 2 not in (gaps["demographic_parity_group_high"], gaps["demographic_parity_group_low"])
    with pytest.warns(UndefinedFairnessWarning, match="false_positive_rate of 0=2"):
        every = fairness_report(y_true, y_pred, sensitive_features=group, min_group_size=1)
    assert every.gaps.loc[0, "demographic_parity_group_high"] == 2
    assert "5 rows" in report.headline[0] or gaps["four_fifths"] == "passes"


@pytest.mark.parametrize("sizes,rates,expected", [
    ([3000, 3000], [0.50, 0.51], "passes"),
    ([3000, 3000], [0.20, 0.60], "fails"),
    ([40, 40], [0.45, 0.55], "inconclusive"),
])
def test_three_valued_four_fifths_verdict(sizes, rates, expected):
    group = np.repeat([0, 1], sizes)
    y_pred = np.concatenate([np.arange(s) < round(r * s) for s, r in zip(sizes, rates)])
    y_pred = y_pred.astype(int)
    report = fairness_report(y_pred, y_pred, sensitive_features=group)
    assert report.gaps.loc[0, "four_fifths"] == expected


def test_named_groups_of_each_gap_against_a_brute_force_loop():
    rng = np.random.default_rng(5)
    n = 3000
    A = pd.DataFrame({"s": rng.choice(list("pqrs"), n), "t": rng.choice(["x", "y", "z"], n)})
    y_true = rng.integers(0, 2, n)
    y_pred = (rng.random(n) < np.where(A["s"] == "q", 0.7, 0.4)).astype(int)
    report = fairness_report(y_true, y_pred, sensitive_features=A)
    for column in A.columns:
        for metric, (num, den) in {
            "demographic_parity": (y_pred == 1, np.ones(n, bool)),
            "equal_opportunity": ((y_pred == 1) & (y_true == 1), y_true == 1),
            "predictive_quality_parity": ((y_pred == 1) & (y_true == 1), y_pred == 1),
        }.items():
            rates = {}
            for value in sorted(A[column].unique()):
                mask = (A[column] == value).to_numpy()
                rates[value] = num[mask].sum() / den[mask].sum()
            row = report.gaps.loc[column]
            assert row[f"{metric}_group_high"] == max(rates, key=rates.get)
            assert row[f"{metric}_group_low"] == min(rates, key=rates.get)
            assert row[f"{metric}_difference"] == pytest.approx(
                max(rates.values()) - min(rates.values()))


def test_detectable_difference_shrinks_with_group_size():
    rng = np.random.default_rng(0)
    small = fairness_report(*_population(rng, [50, 50], [0.5, 0.5])[1:2] * 2,
                            sensitive_features=np.repeat([0, 1], 50))
    large = fairness_report(*_population(rng, [5000, 5000], [0.5, 0.5])[1:2] * 2,
                            sensitive_features=np.repeat([0, 1], 5000))
    d_small = small.gaps.loc[0, "demographic_parity_detectable_difference"]
    d_large = large.gaps.loc[0, "demographic_parity_detectable_difference"]
    # (z_0.975 + z_0.8) * sqrt(0.25 * 2 / n): 0.28 at 50 a group, 0.028 at 5,000
    assert d_small == pytest.approx(2.8016 * np.sqrt(0.5 / 50), rel=0.05)
    assert d_large == pytest.approx(2.8016 * np.sqrt(0.5 / 5000), rel=0.05)


# ----------------------------------------------------------------------------- naming

def test_pos_label_is_required_named_and_shown():
    y = pd.Series(["paid", "default", "paid", "paid"] * 20, name="outcome")
    p = pd.Series(["paid", "default", "default", "paid"] * 20, name="model")
    group = np.repeat(["a", "b"], 40)
    with pytest.raises(ValueError, match=r"classes found: \['default', 'paid'\]\)\. Pass pos_label="):
        fairness_report(y, p, sensitive_features=group)
    report = fairness_report(y, p, sensitive_features=group, pos_label="paid")
    text = "prediction = 'paid' in column 'model'"
    assert text in report.options["favourable_text"]
    assert text in repr(report)
    assert text in html.unescape(report.to_html())
    assert report.to_dict()["options"]["favourable"] == "paid"


def test_summary_row_cannot_collide_with_a_column():
    rng = np.random.default_rng(0)
    n = 400
    A = pd.DataFrame({"all attributes": rng.integers(0, 2, n), "b": rng.integers(0, 3, n)})
    y = rng.integers(0, 2, n)
    report = fairness_report(y, y, sensitive_features=A)
    label = report.options["summary_label"]
    assert label != "all attributes" and label in report.gaps.index
    own = fairness_report(y, y, sensitive_features=A[["all attributes"]])
    assert report.gaps.loc["all attributes", "demographic_parity_difference"] == \
        own.gaps.loc["all attributes", "demographic_parity_difference"]


class _Parser(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.text = [], {}

    def handle_starttag(self, tag, attrs):
        ident = dict(attrs).get("id")
        self.stack.append(ident)

    def handle_endtag(self, tag):
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        for ident in self.stack:
            if ident:
                self.text[ident] = self.text.get(ident, "") + " " + data


def test_headline_and_settings_box_in_the_page():
    rng = np.random.default_rng(2)
    y_true, y_pred, group = _population(rng, [800, 800], [0.3, 0.7])
    names = np.array(["Black", "White"])[group]
    report = fairness_report(y_true, y_pred, sensitive_features=pd.Series(names, name="race"),
                             random_state=3)
    parser = _Parser()
    parser.feed(report.to_html())
    head = parser.text["headline"]
    assert "race fails the four-fifths rule" in head
    assert "'Black' is selected at" in head and "'White'" in head
    settings = " ".join(parser.text["settings-table"].split())
    for fragment in ("package skfair_manifold", "label column y_true", "prediction column y_pred",
                     "favourable outcome", "sensitive columns race", "rows used 1600",
                     "random seed 3", "intervals 95%"):
        assert fragment in settings, fragment
    assert "race fails" in report._repr_html_()
    assert "race fails" in repr(report) and repr(report).count("\n") >= 3


def test_pipeline_report_uses_the_features_the_model_sees():
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    from skfair_manifold.metrics import discriminative_risk, hfm_report
    from skfair_manifold.utils._pipeline import transformed_features

    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({"income": rng.normal(size=n), "city": rng.choice(["a", "b", "c"], n),
                      "sex": rng.choice(["f", "m"], n)})
    y = ((X["income"] + (X["sex"] == "m")) > 0.5).astype(int)
    pre = ColumnTransformer([("num", StandardScaler(), ["income"]),
                             ("cat", OneHotEncoder(), ["city", "sex"])])
    model = make_pipeline(pre, LogisticRegression()).fit(X, y)
    y_pred = model.predict(X)
    report = fairness_report(y, y_pred, sensitive_features=X[["sex"]], X=X, estimator=model,
                             hfm_options={"method": "exact"}, random_state=0)
    Xt, names = transformed_features(model, X, ["sex"])
    assert report.options["hfm_features"] == names and not any("sex" in f for f in names)
    reference = hfm_report(y, y_pred, X=Xt, sensitive_features=X[["sex"]], method="exact")
    assert report.hfm.loc["sex", "hfm_avg"] == pytest.approx(reference.hfm_avg)
    seed = np.random.RandomState(0).randint(np.iinfo(np.int32).max)
    assert report.dr["sex"] == discriminative_risk(model, X, sensitive=["sex"],
                                                   random_state=seed)


def test_help_signature_is_short():
    import inspect

    text = str(inspect.signature(fairness_report))
    assert len(text) < 700 and "numpy" not in text and "ArrayLike" in text


@pytest.mark.parametrize("n", [4, 10, 30, 60])
def test_two_group_intervals_exact_coverage(n):
    """Two groups: Newcombe's difference and the MOVER ratio, coverage summed over every
    outcome of the two binomials, at least 90% for 90% intervals."""
    from skfair_manifold.metrics._groups._intervals import _two_groups

    x = np.arange(n + 1)
    low, high = wilson_cc(x, np.full(n + 1, n), 0.9)
    for p1, p2 in itertools.combinations_with_replacement([0.1, 0.5, 0.8], 2):
        true_diff, true_ratio = abs(p1 - p2), min(p1, p2) / max(p1, p2)
        weights = np.outer(stats.binom.pmf(x, n, p1), stats.binom.pmf(x, n, p2))
        covered = {"difference": 0.0, "ratio": 0.0}
        for i in range(n + 1):
            for j in range(n + 1):
                out = _two_groups(np.array([i / n, j / n]), low[[i, j]], high[[i, j]],
                                  {"ratio": (0.0, 1.0)})
                for form, truth in (("difference", true_diff), ("ratio", true_ratio)):
                    if out[form][0] <= truth <= out[form][1]:
                        covered[form] += weights[i, j]
        for form, coverage in covered.items():
            assert coverage >= 0.9, (n, p1, p2, form, coverage)
