"""Bad inputs, the structure search, graph input and the Wald bound."""

import re

import numpy as np
import pytest
from scipy import stats

from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.situation_testing import _checks as A
from skfair_manifold.situation_testing import _records as R
from skfair_manifold.situation_testing._selection import _structure as S
from skfair_manifold.situation_testing._selection._citests import g_test
from skfair_manifold.situation_testing._selection._parent_search import local_parent_search


def data(n=400, seed=0):
    rng = np.random.RandomState(seed)
    c = rng.randint(0, 2, n)
    a = rng.randint(0, 3, n)
    b = (a + rng.randint(0, 2, n)) % 3  # b depends on a only: not a parent of y
    noise = rng.randint(0, 4, n)
    y = (rng.rand(n) < 0.15 + 0.3 * a - 0.2 * c).astype(int)
    return np.column_stack([c, a, b, noise]).astype(float), y


def msg(template):
    """A regex matching a message template whatever its fields."""
    parts = re.split(r"\{[^}]*\}", template)
    return ".*".join(re.escape(p) for p in parts)


def est(**kw):
    base = dict(protected=0, protected_value=1, k=5)
    base.update(kw)
    return SituationTestingAuditor(**base)


@pytest.mark.parametrize("kw, yfun, template", [
    (dict(protected_value=7), None, A.MSG_UNKNOWN_PROTECTED_VALUE),
    (dict(k=10_000), None, A.MSG_K_TOO_LARGE),
    (dict(), lambda y: np.zeros_like(y), A.MSG_SINGLE_DECISION),
    (dict(protected=None), None, A.MSG_NO_PROTECTED),
    (dict(protected_value=None), None, A.MSG_NO_PROTECTED_VALUE),
    (dict(protected="sex"), None, A.MSG_PROTECTED_NAME_NO_NAMES),
    (dict(protected=9), None, A.MSG_PROTECTED_NOT_FOUND),
    (dict(positive_label=5), None, A.MSG_UNKNOWN_POSITIVE),
    (dict(graph={"y": [1], 1: [2], 2: [1]}), None, S.MSG_GRAPH_CYCLE),
    (dict(graph={1: [2]}), None, S.MSG_GRAPH_NO_DECISION),
    (dict(graph={"y": [1], 0: [1]}), None, S.MSG_GRAPH_INTO_PROTECTED),
    (dict(graph={"y": [1], 2: ["y"]}), None, S.MSG_GRAPH_DECISION_PARENT),
    (dict(graph={"y": ["nope"]}), None, S.MSG_GRAPH_UNKNOWN_NODE),
    (dict(ordinal=[9]), None, R.MSG_KIND_COLUMN),
    (dict(ordinal=[1], nominal=[1]), None, R.MSG_KIND_TWICE),
    (dict(interval=[0]), None, A.MSG_PROTECTED_KIND),
])
def test_bad_input_has_a_clear_error(kw, yfun, template):
    X, y = data()
    if yfun is not None:
        y = yfun(y)
    with pytest.raises(ValueError, match=msg(template)):
        est(**kw).fit(X, y)


def test_single_protected_group_is_an_error():
    X, y = data()
    X[:, 0] = 1
    with pytest.raises(ValueError, match=msg(A.MSG_SINGLE_GROUP)):
        est().fit(X, y)


@pytest.mark.filterwarnings("ignore:the causal graph has no arc")
def test_multiclass_decision_needs_positive_label():
    X, y = data()
    y3 = y + (np.arange(y.shape[0]) % 7 == 0)
    with pytest.raises(ValueError, match=msg(A.MSG_NOT_BINARY)):
        est().fit(X, y3)
    assert est(positive_label=2).fit(X, y3).positive_label_ == 2


def test_nan_is_an_error():
    X, y = data()
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est().fit(X, y)


def test_graph_type_error():
    X, y = data()
    with pytest.raises(TypeError, match=msg(S.MSG_GRAPH_TYPE)):
        est(graph=3.5).fit(X, y)


@pytest.mark.filterwarnings("ignore:the causal graph has no arc")
def test_negative_values_are_accepted():
    X, y = data()
    X[:, 1:] -= 10
    out = est(protected_value=1).fit(X, y).transform(X)
    assert np.isfinite(out).all()


class DiGraphLike:
    """The part of networkx.DiGraph the auditor uses."""

    def __init__(self, edges):
        self._edges = edges

    @property
    def nodes(self):
        return sorted({n for e in self._edges for n in e}, key=str)

    def predecessors(self, node):
        return [u for u, v in self._edges if v == node]


def test_graph_as_digraph_like_and_as_parent_list():
    X, y = data()
    g = DiGraphLike([(0, "y"), (1, "y"), (1, 2), (3, 2)])
    a = est(graph=g).fit(X, y)
    assert a.q_ == [1] and set(a.graph_[2]) == {1, 3}
    assert est(graph=[0, 1]).fit(X, y).q_ == [1]
    assert est(graph={"y": [0, 1]}).fit(X, y).q_ == [1]


def test_networkx_digraph_if_installed():
    nx = pytest.importorskip("networkx")
    X, y = data()
    g = nx.DiGraph([(0, "y"), (1, "y"), (1, 2)])
    assert est(graph=g).fit(X, y).q_ == [1]


def test_local_search_finds_the_parents():
    X, y = data(n=3000, seed=1)
    a = est(alpha=0.01).fit(X, y)
    # true parents of y: c (protected) and a; b depends on y only through a
    assert a.q_ == [1]
    assert set(a.graph_["y"]) == {0, 1}
    assert a.structure_info_["n_tests"] > 0


def test_g_test_agrees_with_scipy_unconditional():
    rng = np.random.RandomState(0)
    x = rng.randint(0, 3, 500)
    e = (rng.rand(500) < 0.3 + 0.2 * (x == 2)).astype(np.intp)
    p, g, dof = g_test(x, e, None, (3, 2))
    table = np.array([[np.sum((x == i) & (e == j)) for j in range(2)] for i in range(3)])
    ref = stats.chi2_contingency(table, correction=False, lambda_="log-likelihood")
    assert dof == ref.dof and g == pytest.approx(ref.statistic) and p == pytest.approx(ref.pvalue)


def test_local_search_conditions_away_an_indirect_cause():
    rng = np.random.RandomState(2)
    n = 5000
    a = rng.randint(0, 3, n)
    m = (a + (rng.rand(n) < 0.2)) % 3  # a -> m -> y
    y = (rng.rand(n) < 0.1 + 0.35 * m).astype(np.intp)
    codes = np.column_stack([rng.randint(0, 2, n), a, m])
    parents, log = local_parent_search(codes, y, alpha=0.01, protected_idx=0)
    assert parents == [2]
    assert 1 in log["sepsets"]


def test_pc_without_causal_learn_says_how_to_install(monkeypatch):
    import sys

    # A None entry in sys.modules makes the import fail as if not installed.
    for name in ("causallearn", "causallearn.search.ConstraintBased.PC",
                 "causallearn.utils.PCUtils.BackgroundKnowledge"):
        monkeypatch.setitem(sys.modules, name, None)
    X, y = data()
    with pytest.raises(ImportError, match=re.escape("skfair_manifold[causal]")):
        est(structure="pc").fit(X, y)


def test_pc_structure_finds_the_parents():
    pytest.importorskip("causallearn")
    rng = np.random.default_rng(0)
    n = 3000
    c = rng.integers(0, 2, n)
    q1, q2 = rng.integers(0, 3, n), rng.integers(0, 2, n)
    noise = rng.integers(0, 3, n)
    child_of_c = (c + rng.integers(0, 2, n)) % 3  # no path to the decision but via c
    e = (rng.random(n) < 0.2 + 0.2 * q1 + 0.2 * q2 - 0.15 * c).astype(int)
    X = np.column_stack([c, q1, q2, noise, child_of_c])
    auditor = SituationTestingAuditor(protected=0, protected_value=1, structure="pc",
                                      k=10).fit(X, e)
    local = SituationTestingAuditor(protected=0, protected_value=1, k=10).fit(X, e)
    assert auditor.q_ == local.q_
    assert list(auditor.q_) == [1, 2]


def test_wald_lower_bound():
    X, y = data(n=600, seed=4)
    a = est(k=30, graph=[0, 1], alpha_test=0.05, bound="wald", flag_rule="bound").fit(X, y)
    out = a.transform(X)
    assert a.get_feature_names_out().tolist() == ["p1", "p2", "diff", "diff_lower",
                                                  "diff_upper", "p_value"]
    flags = a.flag(X, y)
    assert (out[flags, 3] > a.tau).all()
    assert a.flag_rule_ == "diff_lower > 0.05 (wald, one-sided 95%)"
    rep = a.report(X, y)
    s = rep.summary
    p1, p2, diff, low, high, _ = out[s["row"]].T
    # the rates are weighted means of the decisions: n_eff = (sum w)^2 / sum w^2
    for i, entry in enumerate(rep):
        for side, n_eff in (("unprotected", s["n1_eff"][i]), ("protected", s["n2_eff"][i])):
            w = entry[f"weights_{side}"]
            assert n_eff == pytest.approx(w.sum() ** 2 / (w ** 2).sum())
    assert (s["n1_eff"] >= 30 - 1e-9).all() and (s["n1_eff"] > 30).any()
    z = stats.norm.ppf(0.95)
    se = np.sqrt(p1 * (1 - p1) / s["n1_eff"] + p2 * (1 - p2) / s["n2_eff"])
    np.testing.assert_allclose(low, diff - z * se)
    np.testing.assert_allclose(high, diff + z * se)
    loose = est(k=30, graph=[0, 1], flag_rule="tau").fit(X, y).flag(X, y)
    assert flags.sum() <= loose.sum() and not (flags & ~loose).any()
    # the rule diff > tau and diff_lower > 0; with tau >= 0 it lies between the two
    middle = est(k=30, graph=[0, 1], alpha_test=0.05, flag_rule="significant").fit(X, y)
    assert middle.flag_rule_ == "diff > 0.05 and diff_lower > 0 (wald, one-sided 95%)"
    between = middle.flag(X, y)
    assert not (flags & ~between).any() and not (between & ~loose).any()
    assert flags.sum() <= between.sum() <= loose.sum()
    negative_women = (X[:, 0] == 1) & (y == 0)
    expected = negative_women & (out[:, 2] > middle.tau + 1e-12) & (out[:, 3] > 1e-12)
    np.testing.assert_array_equal(between, expected)


def test_string_columns_and_dataframe_names():
    pd = pytest.importorskip("pandas")
    X, y = data()
    df = pd.DataFrame({"sex": np.where(X[:, 0] == 1, "female", "male"), "a": X[:, 1],
                       "b": X[:, 2], "noise": X[:, 3]})
    a = SituationTestingAuditor(protected="sex", protected_value="female", k=5,
                                graph={"hired": ["sex", "a"]})
    a.fit(df, pd.Series(y, name="hired"))
    assert a.q_ == ["a"] and a.attribute_kinds_["sex"] == "nominal"
    assert a.attribute_kinds_["a"] == "ordinal"
    # Strings are coded by sorted category (female 0, male 1); the same codes in an
    # array give the same records, hence the same rates.
    Xc = X.copy()
    Xc[:, 0] = 1 - X[:, 0]
    ref = est(protected_value=0, graph=[0, 1]).fit(Xc, y)
    np.testing.assert_allclose(a.transform(df), ref.transform(Xc))
    with pytest.raises(ValueError, match=msg(A.MSG_UNKNOWN_PROTECTED_VALUE)):
        SituationTestingAuditor(protected="sex", protected_value="F", k=5).fit(df, y)
