"""The paper's toy admission example (Zhang, Wu and Wu 2016, Figure 1, Table 1).

Table 1 is not in the text we have, so this table is built to match what the
prose says of it: tuple 2 has tuple 1's major and score; tuples 3 and 7 differ
from tuple 1 in one attribute (score, major); scores A and B admit half the
time, C never; height and weight are unrelated to admission.
"""

from fractions import Fraction as F

import numpy as np
import pytest

from skfair_manifold.situation_testing import SituationTestingAuditor

pd = pytest.importorskip("pandas")

# score: A=1, B=2, C=3 (ordinal); major nominal; height, weight interval.
ROWS = [
    # id  gender major score height weight admission
    (1, "F", "CS", 1, 160, 50, 0),
    (2, "M", "CS", 1, 190, 90, 1),
    (3, "F", "CS", 2, 160, 50, 0),
    (4, "M", "CS", 2, 175, 70, 1),
    (5, "F", "CS", 3, 165, 55, 0),
    (6, "M", "CS", 3, 180, 80, 0),
    (7, "F", "Bio", 1, 160, 50, 1),
    (8, "M", "Bio", 1, 170, 65, 0),
    (9, "F", "Bio", 2, 155, 45, 1),
    (10, "M", "Bio", 2, 185, 85, 0),
    (11, "F", "Bio", 3, 150, 60, 0),
    (12, "M", "Bio", 3, 170, 75, 0),
    (13, "M", "CS", 2, 180, 80, 0),
    (14, "M", "CS", 2, 185, 85, 1),
    (15, "M", "Bio", 2, 175, 70, 1),
    (16, "M", "Bio", 2, 165, 65, 0),
]
# Figure 1: gender, major and score cause admission; height and weight do not.
GRAPH = {
    "admission": ["gender", "major", "score"],
    "major": ["gender"],
    "height": ["gender"],
    "weight": ["gender", "height"],
}


def toy():
    df = pd.DataFrame(ROWS, columns=["id", "gender", "major", "score", "height", "weight",
                                     "admission"]).set_index("id")
    y = df.pop("admission")
    return df, y


def fitted(method, **kw):
    """The toy fitted with the paper's Eq. 5 (the pooled causal effect of Lemma 3)."""
    X, y = toy()
    if method == "cbn":
        kw.setdefault("causal_effect", "pooled")
    est = SituationTestingAuditor(protected="gender", protected_value="F", method=method,
                                  k=2, graph=GRAPH, smoothing=0.0, **kw)
    return est.fit(X, y), X, y


def test_table_matches_the_prose():
    X, y = toy()
    rate = y.groupby(X["score"]).mean()
    assert rate[1] == 0.5 and rate[2] == 0.5 and rate[3] == 0.0
    assert tuple(X.loc[2, ["major", "score"]]) == tuple(X.loc[1, ["major", "score"]])
    for t in (3, 7):
        assert (X.loc[t].drop("gender") != X.loc[1].drop("gender")).sum() == 1


def test_q_is_major_and_score():
    est, _, _ = fitted("cbn")
    assert est.q_ == ["major", "score"]
    assert est.decision_name_ == "admission"
    assert set(est.graph_["admission"]) == {"gender", "major", "score"}


def test_tuple_2_closest_under_cbn_dd_knn_prefers_3_and_7():
    cbn, X, _ = fitted("cbn")
    d = pd.Series(cbn.pairwise(X.loc[[1]], X)[0], index=X.index).drop(1)
    assert d[2] == 0.0
    assert (d.drop(2) > 0).all()
    knn, _, _ = fitted("knn", nominal=["major"], ordinal=["score"],
                       interval=["height", "weight"])
    d = pd.Series(knn.pairwise(X.loc[[1]], X)[0], index=X.index).drop(1)
    assert set(d.nsmallest(2).index) == {3, 7}
    assert d[2] > d[3] and d[2] > d[7]
    # by hand: mean over 4 attributes; ranges height 40, weight 45, score 2
    assert d[3] == pytest.approx((1 / 2) / 4)
    assert d[7] == pytest.approx(1 / 4)
    assert d[2] == pytest.approx((30 / 40 + 40 / 45) / 4)


# The hand computation (smoothing 0, every (gender, major, score) is observed):
# P(F) = 6/16, P(M) = 10/16.
# P(e+|F, .): CS,A 0  CS,B 0    CS,C 0  Bio,A 1  Bio,B 1    Bio,C 0
# P(e+|M, .): CS,A 1  CS,B 2/3  CS,C 0  Bio,A 0  Bio,B 1/3  Bio,C 0
# a(q) = sum_c P(c) P(e+|c, q):
A_MIX = {("CS", 1): F(5, 8), ("CS", 2): F(5, 12), ("CS", 3): F(0),
         ("Bio", 1): F(3, 8), ("Bio", 2): F(7, 12), ("Bio", 3): F(0)}


def test_causal_effects_match_the_hand_computation():
    est, _, _ = fitted("cbn")
    sel = est._fitted.method.selector
    major_codes = est._fitted.records.categories[est._fitted.columns.index("major")]  # sorted: Bio, CS
    for (major, score), a in A_MIX.items():
        q = [float(np.flatnonzero(major_codes == major)[0]), float(score)]
        ce_major, ce_score = sel.causal_effects(q)
        # Lemma 3: CE(q_k, v) = a(q) - a(q with q_k := v)
        for j, other in enumerate(major_codes):
            assert ce_major[j] == pytest.approx(float(a - A_MIX[(other, score)]))
        for j, s in enumerate((1, 2, 3)):
            assert ce_score[j] == pytest.approx(float(a - A_MIX[(major, s)]))


def test_a_to_b_distance_smaller_than_b_to_c():
    est, X, _ = fitted("cbn")
    # From tuple 3 (CS, B): to (CS, A) is |5/12 - 5/8| * 1/2, to (CS, C) is |5/12 - 0| * 1/2.
    d = pd.Series(est.pairwise(X.loc[[3]], X)[0], index=X.index)
    assert d[2] == pytest.approx(5 / 48)
    assert d[5] == pytest.approx(5 / 24)
    assert d[2] < d[5]
    # From tuple 9 (Bio, B): to A is |7/12 - 3/8| / 2 = 5/48, to C is 7/24.
    d = pd.Series(est.pairwise(X.loc[[9]], X)[0], index=X.index)
    assert d[8] == pytest.approx(5 / 48) and d[11] == pytest.approx(7 / 24)
    # Instance dependence: 3 -> 2 and 3 -> 7 are both A-to-B in score, but differ.
    d = pd.Series(est.pairwise(X.loc[[3]], X)[0], index=X.index)
    assert d[7] == pytest.approx(5 / 48 + 1 / 6)
    # Tuple 1: tuple 2 at 0, tuple 3 at 5/48, tuple 7 at 1/4.
    d = pd.Series(est.pairwise(X.loc[[1]], X)[0], index=X.index)
    assert (d[2], d[3], d[7]) == pytest.approx((0.0, 5 / 48, 1 / 4))


def test_the_group_maximum_by_hand():
    # causal_effect="max_over_groups": the larger of the change's effects on the
    # women's and on the men's rate (the table above), times the value distance.
    est, X, _ = fitted("cbn", causal_effect="max_over_groups")
    # From tuple 3 (CS, B): to (CS, A) women 0 -> 0, men 2/3 -> 1: 1/3 * 1/2;
    # to (CS, C) men 2/3 -> 0: 2/3 * 1/2; to (Bio, B) women 0 -> 1: 1 * 1.
    d = pd.Series(est.pairwise(X.loc[[3]], X)[0], index=X.index)
    assert d[2] == pytest.approx(1 / 6) and d[5] == pytest.approx(1 / 3)
    assert d[9] == pytest.approx(1.0)
    # (Bio, A) from (CS, B): score B -> A (men 2/3 -> 1, 1/3 * 1/2) plus major
    # CS -> Bio at score B (women 0 -> 1: 1)
    assert d[7] == pytest.approx(1 / 6 + 1.0)
    # never below the pooled distance (|sum_c P(c) x_c| <= max_c |x_c|)
    pooled, _, _ = fitted("cbn")
    assert (est.pairwise(X, X) >= pooled.pairwise(X, X) - 1e-12).all()


def test_toy_testers_follow_algorithm_1():
    est, X, y = fitted("cbn")
    out = est.transform(X.loc[[1]])
    # Subgroup (CS, A) holds no other woman, so no pair; (CS, B) at 5/48 gives one
    # pair: tuple 3 and one man among 4, 13, 14 (a free choice: each with weight 1/3);
    # then (Bio, A) at 1/4: tuples 7 and 8.
    assert out[0, 1] == pytest.approx((y[3] + y[7]) / 2)
    assert out[0, 0] == pytest.approx((y[[4, 13, 14]].mean() + y[8]) / 2)
    est.set_params(tau=-1.0, flag_rule="tau")  # flag tuple 1 whatever its diff
    rep = est.report(X, y)
    entry = rep.person(0)
    assert sorted(X.index[entry["testers_protected"]]) == [3, 7]
    assert entry["weights_protected"].tolist() == [1.0, 1.0]
    weights = dict(zip(X.index[entry["testers_unprotected"]], entry["weights_unprotected"]))
    assert weights == pytest.approx({4: 1 / 3, 13: 1 / 3, 14: 1 / 3, 8: 1.0})
    assert entry["p1"] == pytest.approx(out[0, 0])


@pytest.mark.parametrize("method, effect, words", [
    ("cbn", "max_over_groups", "larger effect on the two groups"),
    ("cbn", "pooled", "its causal effect (the paper"),
    ("knn", "max_over_groups", None),
])
def test_the_page_says_how_the_causes_are_weighed(method, effect, words):
    est, X, y = fitted(method, causal_effect=effect)
    rep = est.report(X, y)
    method_row = rep.to_html().split('class="text">method</th><td>')[1].split("</td>")[0]
    if words is None:
        assert rep.settings["distance"] is None and "(" not in method_row
    else:
        assert words in rep.settings["distance"] and words in method_row
