"""KNN-DD and CBN-DD against plain O(n^2) references written here."""

import numpy as np
import pytest

from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.situation_testing._auditor import _record_priority


def make_data(seed, n=120):
    rng = np.random.RandomState(seed)
    c = rng.randint(0, 2, n)  # column 0: 1 is the protected group
    a = rng.randint(0, 3, n)
    b = rng.randint(0, 4, n)
    z = rng.randint(0, 2, n)
    noise = rng.randint(0, 3, n)
    y = (rng.rand(n) < 0.2 + 0.2 * a + 0.1 * z - 0.25 * c).astype(int)
    return np.column_stack([c, a, b, z, noise]).astype(float), y


def priorities(X, y, seed):
    return _record_priority(np.column_stack([X, y.astype(float)]), seed)


def comparable_rows(X, y):
    """Rows for which 'leave the row itself out' equals the documented rule
    (leave out a copy with the negative decision when one exists)."""
    keep = []
    for i in range(X.shape[0]):
        twins = np.flatnonzero((X == X[i]).all(axis=1))
        keep.append(y[i] == 0 or not (y[twins] == 0).any())
    return np.array(keep)


def knn_reference(X, y, k, nominal, seed):
    n = X.shape[0]
    cols = [1, 2, 3, 4]
    ranges = X.max(axis=0) - X.min(axis=0)
    prio = priorities(X, y, seed)
    out = np.zeros((n, 2))
    for i in range(n):
        d = np.zeros(n)
        for j in cols:
            if nominal[j]:
                d += (X[:, j] != X[i, j]) / len(cols)
            else:
                d += np.abs(X[:, j] - X[i, j]) / ranges[j] / len(cols)
        d = np.round(d, 10)
        for s, g in enumerate((0, 1)):
            cand = [j for j in range(n) if j != i and X[j, 0] == g]
            cand.sort(key=lambda j: (d[j], prio[j], j))
            out[i, s] = y[cand[:k]].mean()
    return out


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("k", [1, 5, 17])
def test_knn_matches_brute_force(seed, k):
    X, y = make_data(seed)
    nominal = {3: "nominal", 4: "nominal"}
    est = SituationTestingAuditor(protected=0, protected_value=1, method="knn", k=k,
                                  attribute_kinds=nominal, random_state=seed).fit(X, y)
    got = est.transform(X)
    ref = knn_reference(X, y, k, [False, False, False, True, True], est.tie_seed_)
    rows = comparable_rows(X, y)
    np.testing.assert_allclose(got[rows, :2], ref[rows])
    np.testing.assert_allclose(got[:, 2], got[:, 0] - got[:, 1])


def cbn_reference(X, y, k, q_cols, smoothing, seed):
    n = X.shape[0]
    c = X[:, 0] == 1
    p_c = {0: np.mean(~c), 1: np.mean(c)}
    rate_c = {0: y[~c].mean(), 1: y[c].mean()}
    ranges = X.max(axis=0) - X.min(axis=0)

    def p_e(g, q):
        rows = (c == g) & (X[:, q_cols] == q).all(axis=1)
        return (y[rows].sum() + smoothing * rate_c[g]) / (rows.sum() + smoothing)

    def a(q):
        return sum(p_c[g] * p_e(g, q) for g in (0, 1))

    def dist(q, q2):
        total = 0.0
        for kk, col in enumerate(q_cols):
            q_changed = np.array(q, dtype=float)
            q_changed[kk] = q2[kk]
            total += abs((a(q) - a(q_changed)) * abs(q[kk] - q2[kk]) / ranges[col])
        return round(total, 10)

    prio = priorities(X, y, seed)
    profiles = np.unique(X[:, q_cols], axis=0)
    prof_prio = _record_priority(profiles, seed)
    out = np.zeros((n, 2))
    for i in range(n):
        q = X[i, q_cols]
        order = sorted(range(len(profiles)),
                       key=lambda l: (dist(q, profiles[l]), prof_prio[l]))
        taken = {0: [], 1: []}
        got = 0
        for l in order:
            if got >= k:
                break
            in_l = (X[:, q_cols] == profiles[l]).all(axis=1)
            sides = []
            for g in (0, 1):
                rows = [j for j in np.flatnonzero(in_l & (c == g)) if j != i]
                rows.sort(key=lambda j: (prio[j], j))
                sides.append(rows)
            t = min(len(sides[0]), len(sides[1]), k - got)
            taken[0] += sides[0][:t]
            taken[1] += sides[1][:t]
            got += t
        out[i] = [y[taken[0]].mean(), y[taken[1]].mean()]
    return out


@pytest.mark.parametrize("smoothing", [0.0, 1.0])
@pytest.mark.parametrize("k", [2, 9])
def test_cbn_matches_plain_algorithm_1(smoothing, k):
    X, y = make_data(3, n=100)
    est = SituationTestingAuditor(protected=0, protected_value=1, k=k, graph=[0, 1, 3],
                                  smoothing=smoothing, random_state=7).fit(X, y)
    assert est.q_ == [1, 3]
    got = est.transform(X)
    ref = cbn_reference(X, y, k, [1, 3], smoothing, est.tie_seed_)
    rows = comparable_rows(X, y)
    np.testing.assert_allclose(got[rows, :2], ref[rows])


@pytest.mark.parametrize("method", ["knn", "cbn"])
def test_row_order_does_not_matter(method):
    X, y = make_data(5)
    kw = dict(protected=0, protected_value=1, method=method, k=6, graph=[1, 2],
              random_state=3)
    base = SituationTestingAuditor(**kw).fit(X, y).transform(X)
    perm = np.random.RandomState(0).permutation(X.shape[0])
    again = SituationTestingAuditor(**kw).fit(X[perm], y[perm]).transform(X[perm])
    np.testing.assert_allclose(again, base[perm])


def test_n_jobs_does_not_change_results():
    X, y = make_data(6, n=300)
    kw = dict(protected=0, protected_value=1, method="knn", k=10, random_state=0)
    one = SituationTestingAuditor(n_jobs=1, **kw).fit(X, y).transform(X)
    two = SituationTestingAuditor(n_jobs=2, **kw).fit(X, y).transform(X)
    np.testing.assert_array_equal(one, two)


@pytest.mark.parametrize("method", ["knn", "cbn"])
def test_report_lists_the_testers_behind_the_rates(method):
    X, y = make_data(8, n=200)
    est = SituationTestingAuditor(protected=0, protected_value=1, method=method, k=8,
                                  graph=[0, 1, 3], tau=0.0, random_state=0).fit(X, y)
    out = est.transform(X)
    flags = est.flag(X, y)
    rep = est.report(X, y)
    assert [r["row"] for r in rep] == np.flatnonzero(flags).tolist()
    assert rep, "the synthetic bias should flag someone"
    for r in rep:
        i = r["row"]
        assert X[i, 0] == 1 and y[i] == 0 and r["diff"] > 0
        assert i not in r["testers_protected"]
        assert (X[r["testers_unprotected"], 0] == 0).all()
        assert (X[r["testers_protected"], 0] == 1).all()
        assert len(r["testers_unprotected"]) == len(r["testers_protected"]) == 8
        assert r["p1"] == pytest.approx(r["decisions_unprotected"].mean())
        assert r["p2"] == pytest.approx(r["decisions_protected"].mean())
        assert r["p1"] == out[i, 0] and r["p2"] == out[i, 1]
