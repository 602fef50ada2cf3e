"""Tests of skfair_manifold.plotting with the Agg backend."""

import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from skfair_manifold.plotting import (  # noqa: E402
    pareto_front,
    plot_approx_vs_exact,
    plot_causal_graph,
    plot_fairness_tradeoff,
    plot_hfm_by_attribute,
)
from skfair_manifold.plotting._base import MSG_MATPLOTLIB  # noqa: E402
from skfair_manifold.plotting._graph import MSG_NO_DECISION  # noqa: E402
from skfair_manifold.plotting._pareto import MSG_PARETO_NAN, MSG_PARETO_SHAPES  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def _brute_force_front(u, p):
    """A candidate is on the front if no other one dominates it."""
    n = len(u)
    keep = []
    for i in range(n):
        dominated = any(
            u[j] <= u[i] and p[j] >= p[i] and (u[j] < u[i] or p[j] > p[i]) for j in range(n)
        )
        if not dominated:
            keep.append(i)
    return keep


@pytest.mark.parametrize("seed", range(20))
def test_pareto_front_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 40)
    # rounded values so that ties happen
    u = np.round(rng.random(n), 1)
    p = np.round(rng.random(n), 1)
    front = pareto_front(u, p)
    assert sorted(front.tolist()) == _brute_force_front(u, p)
    # along the front, unfairness and performance both increase
    assert np.all(np.diff(u[front]) >= 0)
    assert np.all(np.diff(p[front]) >= 0)


def test_pareto_front_errors():
    with pytest.raises(ValueError, match=MSG_PARETO_SHAPES.format(a=(2,), b=(3,))
                       .replace("(", r"\(").replace(")", r"\)")):
        pareto_front([1, 2], [1, 2, 3])
    with pytest.raises(ValueError) as excinfo:
        pareto_front([0.1, np.nan], [0.5, 0.6])
    assert str(excinfo.value) == MSG_PARETO_NAN.format(positions=[1])


def test_tradeoff_from_cv_results_and_from_a_search():
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV

    rng = np.random.default_rng(0)
    X = rng.random((120, 3))
    y = (X[:, 0] + 0.2 * rng.standard_normal(120) > 0.5).astype(int)

    def fake_unfairness(est, X, y):  # a scorer in the negated convention
        return -float(np.mean(est.predict(X)))

    search = GridSearchCV(LogisticRegression(), {"C": [0.01, 0.1, 1, 10]}, cv=3,
                          scoring={"acc": "accuracy", "hfm": fake_unfairness},
                          refit=False).fit(X, y)
    ax = plot_fairness_tradeoff(search, fairness="hfm", performance="acc", annotate=True)
    unfair = -search.cv_results_["mean_test_hfm"]
    acc = search.cv_results_["mean_test_acc"]
    np.testing.assert_array_equal(ax.front_, pareto_front(unfair, acc))
    offsets = ax.collections[0].get_offsets()
    np.testing.assert_allclose(offsets[:, 0], unfair)
    np.testing.assert_allclose(offsets[:, 1], acc)
    assert "lower is fairer" in ax.get_xlabel()
    # the same from the dict
    ax2 = plot_fairness_tradeoff(search.cv_results_, fairness="hfm", performance="acc")
    np.testing.assert_array_equal(ax2.front_, ax.front_)


def test_tradeoff_without_negation_and_with_nan():
    results = {"mean_test_acc": [0.7, 0.8, np.nan, 0.9],
               "mean_test_dp": [0.1, 0.2, 0.05, 0.4]}
    ax = plot_fairness_tradeoff(results, fairness="dp", performance="acc",
                                negate_fairness=False)
    assert ax.front_.tolist() == [0, 1, 3]


def test_tradeoff_missing_key_names_the_available_scorers():
    with pytest.raises(KeyError, match="mean_test_hfm.*'acc', 'dp'"):
        plot_fairness_tradeoff({"mean_test_acc": [1.0], "mean_test_dp": [0.1]},
                               performance="acc")


def test_tradeoff_draws_on_given_axes():
    _, ax = plt.subplots()
    out = plot_fairness_tradeoff({"mean_test_acc": [0.7], "mean_test_hfm": [-0.1]},
                                 performance="acc", ax=ax)
    assert out is ax


def test_bars_from_nested_mapping_with_overall():
    breakdown = {"sex": {"df": 0.12, "df_avg": 0.03}, "race": {"df": 0.40, "df_avg": 0.10},
                 "age": {"df": -0.05, "df_avg": 0.01}}
    ax = plot_hfm_by_attribute(breakdown, overall={"df": 0.40, "df_avg": 0.0467})
    heights = [patch.get_height() for patch in ax.patches]
    assert heights == [0.12, 0.40, -0.05, 0.03, 0.10, 0.01]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["sex", "race", "age"]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "df, all attributes" in labels


def test_bars_from_flat_mapping_and_dataframe():
    ax = plot_hfm_by_attribute({"a": 0.1, "b": 0.2}, overall=0.2)
    assert [p.get_height() for p in ax.patches] == [0.1, 0.2]
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"df": [0.3, 0.1], "df_avg": [0.2, 0.05], "D": [1.0, 2.0]},
                         index=["s0", "s1"])
    ax = plot_hfm_by_attribute(frame, measures=["df", "df_avg"])
    assert [p.get_height() for p in ax.patches] == [0.3, 0.1, 0.2, 0.05]


def test_bars_bad_input():
    with pytest.raises(TypeError, match="breakdown must map"):
        plot_hfm_by_attribute([0.1, 0.2])
    with pytest.raises(TypeError, match="not numbers"):
        plot_hfm_by_attribute({"a": "high"})


def test_scatter_fit_identity_and_correlation():
    rng = np.random.default_rng(0)
    exact = rng.random(50)
    approx = 1.1 * exact + 0.02
    ax = plot_approx_vs_exact(exact, approx, label="folds")
    slope, intercept, r = ax.fit_
    assert slope == pytest.approx(1.1)
    assert intercept == pytest.approx(0.02)
    assert r == pytest.approx(1.0)
    identity = [line for line in ax.lines if "identity" in line.get_label()][0]
    x, y = identity.get_data()
    np.testing.assert_array_equal(x, y)
    assert len(ax.lines) == 2


def test_scatter_constant_exact_has_no_fit_and_bad_shapes_raise():
    ax = plot_approx_vs_exact([0.5, 0.5, 0.5], [0.5, 0.6, 0.7])
    assert np.isnan(ax.fit_[0])
    with pytest.raises(ValueError, match="same length"):
        plot_approx_vs_exact([0.1, 0.2], [0.1])
    with pytest.raises(ValueError, match="at least 2"):
        plot_approx_vs_exact([0.1], [0.1])


ADMISSION = {"admission": ["gender", "major", "score"], "major": ["gender"],
             "height": ["gender"], "weight": ["height"], "score": []}


def test_causal_graph_from_mapping():
    ax = plot_causal_graph(ADMISSION, decision="admission", protected="gender")
    # the decision on the right, its parents one column left; height and weight not drawn
    assert ax.positions_["admission"] == (0.0, 0.0)
    assert {n for n, (x, _) in ax.positions_.items() if x == -1.0} == {"gender", "major",
                                                                       "score"}
    assert "height" not in ax.positions_
    texts = {t.get_text(): t for t in ax.texts}
    assert texts["gender"].get_bbox_patch().get_facecolor()[:3] == pytest.approx(
        matplotlib.colors.to_rgb("salmon"))
    assert texts["major"].get_bbox_patch().get_facecolor()[:3] == pytest.approx(
        matplotlib.colors.to_rgb("lightskyblue"))
    # arrows: gender->admission, major->admission, score->admission, gender->major
    assert len([c for c in ax.texts if c.get_text() == ""]) == 4
    assert "Q = {major, score}" in ax.get_title()


def test_causal_graph_depth_and_digraph_like_and_auditor_like():
    class DiGraph:
        def __init__(self, parents):
            self._parents = parents

        @property
        def nodes(self):
            return list(self._parents)

        def predecessors(self, node):
            return iter(self._parents.get(node, []))

    graph = {"y": ["a"], "a": ["b"], "b": ["c"], "c": []}
    ax = plot_causal_graph(DiGraph(graph), depth=1)
    assert set(ax.positions_) == {"y", "a"}
    ax = plot_causal_graph(DiGraph(graph), depth=5)
    assert set(ax.positions_) == {"y", "a", "b", "c"}

    class Auditor:
        def __init__(self):
            self.graph_ = ADMISSION
            self.q_ = ["major", "score"]

        def fit(self):  # pragma: no cover - never called
            return self

        def get_params(self):
            return {"protected": "gender"}

    ax = plot_causal_graph(Auditor(), decision="admission")
    assert "Q = {major, score}" in ax.get_title()


def test_causal_graph_errors():
    with pytest.raises(ValueError) as excinfo:
        plot_causal_graph({"a": ["b"]}, decision="y")
    assert str(excinfo.value) == MSG_NO_DECISION.format(decision="y", nodes=["a", "b"])
    with pytest.raises(TypeError, match="mapping child -> parents"):
        plot_causal_graph([("a", "y")])


def test_import_does_not_load_matplotlib_and_missing_matplotlib_is_clear():
    code = (
        "import sys\n"
        "import skfair_manifold.plotting as p\n"
        "assert 'matplotlib' not in sys.modules, 'imported eagerly'\n"
        "sys.modules['matplotlib'] = None\n"
        "sys.modules['matplotlib.pyplot'] = None\n"
        "try:\n"
        "    p.plot_approx_vs_exact([0, 1], [0, 1])\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == MSG_MATPLOTLIB.format(caller="plot_approx_vs_exact")


# --- plots that take the package's own outputs ------------------------------------


def _report(n_boot=0):
    from skfair_manifold.metrics import fairness_report

    rng = np.random.default_rng(0)
    n = 300
    X = rng.random((n, 3))
    A = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 3, n)])
    y = (X[:, 0] + 0.2 * A[:, 0] > 0.6).astype(int)
    y_pred = (X[:, 0] + 0.3 * A[:, 0] > 0.6).astype(int)
    return fairness_report(y, y_pred, sensitive_features=A, X=X, n_boot=n_boot,
                           random_state=0, hfm_options={"method": "exact"}), (X, y, y_pred, A)


def test_hfm_by_attribute_takes_hfm_report_and_fairness_report():
    from skfair_manifold.metrics import hfm_report

    report, (X, y, y_pred, A) = _report()
    bunch = hfm_report(y, y_pred, X=X, sensitive_features=A, method="exact")
    for source in (bunch, report):
        ax = plot_hfm_by_attribute(source)
        assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1"]
        heights = [p.get_height() for p in ax.patches]
        np.testing.assert_allclose(heights, [*bunch.per_attribute.hfm_max,
                                             *bunch.per_attribute.hfm_avg])
        dashed = sorted(line.get_ydata()[0] for line in ax.lines
                        if line.get_linestyle() == "--")
        np.testing.assert_allclose(dashed, sorted([bunch.hfm_max, bunch.hfm_avg]))
    without_hfm, _ = _report()
    without_hfm.hfm = None
    with pytest.raises(ValueError, match="has no HFM"):
        plot_hfm_by_attribute(without_hfm)


def test_group_rates_with_intervals():
    from skfair_manifold.plotting import plot_group_rates

    report, _ = _report(n_boot=50)
    ax = plot_group_rates(report, rates="selection_rate")
    heights = [p.get_height() for p in ax.patches]
    np.testing.assert_allclose(heights, report.by_group["selection_rate"].to_numpy())
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0=0", "0=1", "1=0", "1=1", "1=2"]
    from matplotlib.container import BarContainer

    bars = [c for c in ax.containers if isinstance(c, BarContainer)][0]
    assert bars.errorbar is not None  # the bootstrap intervals are drawn
    segments = bars.errorbar.lines[2][0].get_segments()
    lows = [seg[0][1] for seg in segments]
    np.testing.assert_allclose(
        lows, report.intervals.by_group["selection_rate_low"].to_numpy())
    ax = plot_group_rates(report, attribute=1)
    assert len(ax.get_xticklabels()) == 3
    with pytest.raises(ValueError, match="not in the report"):
        plot_group_rates(report, attribute="age")
    with pytest.raises(ValueError, match="rates must be columns"):
        plot_group_rates(report, rates=["recall"])
    with pytest.raises(TypeError, match="fairness_report"):
        plot_group_rates({"sex": 0.1})


def test_tradeoff_error_bars_and_chosen_model():
    results = {"mean_test_acc": [0.70, 0.80, 0.75], "std_test_acc": [0.01, 0.02, 0.03],
               "mean_test_hfm": [-0.10, -0.20, -0.30], "std_test_hfm": [0.05, 0.04, 0.03]}
    ax = plot_fairness_tradeoff(results, fairness="hfm", performance="acc", chosen=1)
    assert ax.chosen_ == 1
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "chosen (candidate 1)" in labels and "spread over folds" in labels
    star = [c for c in ax.collections if c.get_label() == "chosen (candidate 1)"][0]
    np.testing.assert_allclose(star.get_offsets()[0], [0.20, 0.80])
    with pytest.raises(ValueError, match="not a candidate"):
        plot_fairness_tradeoff(results, fairness="hfm", performance="acc", chosen=5)
    ax = plot_fairness_tradeoff(results, fairness="hfm", performance="acc", error_bars=False)
    assert ax.chosen_ is None
    assert "spread over folds" not in [t.get_text() for t in ax.get_legend().get_texts()]


def test_hfm_by_attribute_clear_errors():
    from skfair_manifold.plotting._bars import (
        MSG_EMPTY_BREAKDOWN,
        MSG_NO_MEASURES,
    )

    with pytest.raises(ValueError, match="breakdown is empty"):
        plot_hfm_by_attribute({})
    assert "hfm_report" in MSG_EMPTY_BREAKDOWN
    with pytest.raises(ValueError, match=r"measure\(s\) \['nope'\] are not in breakdown"):
        plot_hfm_by_attribute({"sex": {"df": 0.1}}, measures=["nope"])
    with pytest.raises(ValueError, match="measures is empty"):
        plot_hfm_by_attribute({"sex": {"df": 0.1}}, measures=[])
    assert "None for all" in MSG_NO_MEASURES
