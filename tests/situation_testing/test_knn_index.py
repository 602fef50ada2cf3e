"""KNN-DD's exact index against the full distance rows (``algorithm="brute"``).

The index must give the brute-force path's testers bit for bit: the rates,
the p-values, the flags and the testers of the evidence, on mixed records
(continuous, ordinal and nominal columns, where ``"auto"`` takes the index),
on tied integer codes (tie groups that only the radius query completes), on
new data holding a value the fit never saw, for any row order, ``n_jobs`` and
working memory. ``expected_from_pairs`` is checked against ``expected_k``
on full random rows.
"""

import numpy as np
import pytest
from sklearn import config_context

from skfair_manifold.datasets import make_planted_bias
from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.situation_testing._selection import _knn_index
from skfair_manifold.situation_testing._selection._knn import expected_k
from skfair_manifold.situation_testing._selection._knn_index import expected_from_pairs

KW = dict(protected="sex", protected_value="female", method="knn", k=20)


def mixed(n=5000, seed=0):
    X, y, _, _ = make_planted_bias(n, random_state=seed)
    return X, y


def audit(X, y, algorithm, **kw):
    est = SituationTestingAuditor(algorithm=algorithm, **{**KW, **kw}).fit(X, y)
    return est, est.transform(X), est.flag(X, y)


def test_auto_takes_the_index_on_mixed_records_and_agrees_bit_for_bit():
    X, y = mixed(9000)
    rule = dict(flag_rule="tau", tau=0.1)  # many flags, to compare their evidence
    brute, out_b, flag_b = audit(X, y, "brute", **rule)
    auto, out_a, flag_a = audit(X, y, "auto", **rule)
    sel = auto._fitted.method.selector
    assert [sel._uses_index(side, 20) for side in sel.sides] == [
        side["units"].shape[0] >= _knn_index.MIN_UNITS for side in sel.sides]
    assert any(sel._uses_index(side, 20) for side in sel.sides)
    assert not any(brute._fitted.method.selector._uses_index(side, 20) for side in sel.sides)
    np.testing.assert_array_equal(out_a, out_b)
    np.testing.assert_array_equal(flag_a, flag_b)
    assert flag_a.sum() > 0
    rep_a, rep_b = auto.report(X, y), brute.report(X, y)
    assert rep_a.summary["row"].tolist() == rep_b.summary["row"].tolist()
    for key in ("row", "side", "testers", "positives"):
        np.testing.assert_array_equal(np.asarray(rep_a.testers[key]),
                                      np.asarray(rep_b.testers[key]))
    for entry in list(rep_a)[:20]:
        other = rep_b.person(entry["row"])
        for side in ("unprotected", "protected"):
            np.testing.assert_array_equal(entry[f"testers_{side}"], other[f"testers_{side}"])
            np.testing.assert_array_equal(entry[f"weights_{side}"], other[f"weights_{side}"])


@pytest.mark.parametrize("seed", [1, 2])
def test_any_row_order_n_jobs_and_working_memory(seed):
    X, y = mixed(3000, seed=10 + seed)
    _, ref, flags = audit(X, y, "brute")
    perm = np.random.RandomState(seed).permutation(len(X))
    Xp, yp = X.iloc[perm].reset_index(drop=True), y[perm]
    with config_context(working_memory=1):  # 1 MiB: many small blocks
        est = SituationTestingAuditor(algorithm="kd_tree", n_jobs=2, **KW).fit(Xp, yp)
        np.testing.assert_array_equal(est.transform(Xp), ref[perm])
        np.testing.assert_array_equal(est.flag(Xp, yp), flags[perm])


def test_tie_groups_beyond_the_first_query_go_through_the_radius_query(monkeypatch):
    rng = np.random.RandomState(3)
    n = 800  # six columns of five codes: most records alone in their unit, many at d_k
    X = np.column_stack([rng.randint(0, 2, n), rng.randint(0, 5, (n, 6))]).astype(float)
    y = (rng.rand(n) < 0.3 + 0.1 * X[:, 1] - 0.2 * X[:, 0]).astype(int)
    kw = dict(protected=0, protected_value=1, method="knn", k=15, ordinal=[1, 2, 3, 4, 5],
              nominal=[6])
    ref = SituationTestingAuditor(algorithm="brute", **kw).fit(X, y).transform(X)
    radius = []
    query_radius = _knn_index.KDTree.query_radius

    def counted(tree, E, r):
        radius.append(len(E))
        return query_radius(tree, E, r=r)

    monkeypatch.setattr(_knn_index, "EXTRA", 0)
    monkeypatch.setattr(_knn_index.KDTree, "query_radius", counted)
    got = SituationTestingAuditor(algorithm="kd_tree", **kw).fit(X, y).transform(X)
    assert sum(radius) > 0
    np.testing.assert_array_equal(got, ref)


def test_a_value_the_fit_never_saw_differs_from_every_record():
    X, y = mixed(3000, seed=4)
    new = X.iloc[:300].copy()
    new["region"] = "atlantis"  # a nominal value absent at fit
    brute = SituationTestingAuditor(algorithm="brute", **KW).fit(X, y)
    tree = SituationTestingAuditor(algorithm="kd_tree", **KW).fit(X, y)
    np.testing.assert_array_equal(tree.transform(new), brute.transform(new))


def test_expected_from_pairs_equals_expected_k_on_full_rows():
    rng = np.random.RandomState(0)
    for trial in range(30):
        b, u, k = rng.randint(1, 8), rng.randint(1, 40), rng.randint(1, 30)
        D = np.round(rng.randint(0, 6, (b, u)) / 5.0, 10)  # many ties
        count = rng.randint(0, 4, (b, u)).astype(float)
        pos = rng.randint(0, 2, u).astype(float)
        pos_k, n_k, d_k, frac, w2 = expected_k(D, count, pos, k)
        row = np.repeat(np.arange(b), u)
        got = expected_from_pairs(row, D.ravel(), count.ravel(), np.tile(pos, b), n_k, b)
        np.testing.assert_array_equal(got[0], pos_k)
        np.testing.assert_array_equal(got[1][n_k > 0], d_k[n_k > 0])
        np.testing.assert_array_equal(got[2], frac)
        np.testing.assert_array_equal(got[3], w2)


def test_the_algorithm_is_checked():
    X, y = mixed(300)
    with pytest.raises(ValueError, match="algorithm"):
        SituationTestingAuditor(algorithm="ball", **KW).fit(X, y)
