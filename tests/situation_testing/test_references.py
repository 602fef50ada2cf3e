"""KNN-DD and CBN-DD against plain references written here.

* Closed-form O(n^2) references of the expected rates (every record nearer
  than the k-th distance counts fully, the tie group by its positive share).
* Enumeration of every tie-break on small data: the rates equal the mean of
  the tie-broken rates over all equally likely choices.
* Invariance under random_state and row permutation of transform, flag and
  report.

KNN-DD's tests run on both of its paths (``algorithm="brute"``, the full
distance rows, and ``"kd_tree"``, the exact index): these data are small
integer codes, so that most testers come from tie groups larger than the
index's first query and go through its radius query.
"""

from itertools import combinations, product

import numpy as np
import pytest

from skfair_manifold.situation_testing import SituationTestingAuditor


def make_data(seed, n=120):
    rng = np.random.RandomState(seed)
    c = rng.randint(0, 2, n)  # column 0: 1 is the protected group
    a = rng.randint(0, 3, n)
    b = rng.randint(0, 4, n)
    z = rng.randint(0, 2, n)
    noise = rng.randint(0, 3, n)
    y = (rng.rand(n) < 0.2 + 0.2 * a + 0.1 * z - 0.25 * c).astype(int)
    return np.column_stack([c, a, b, z, noise]).astype(float), y


def comparable_rows(X, y):
    """Rows for which 'leave the row itself out' equals the documented rule
    (leave out a copy with the negative decision when one exists)."""
    keep = []
    for i in range(X.shape[0]):
        twins = np.flatnonzero((X == X[i]).all(axis=1))
        keep.append(y[i] == 0 or not (y[twins] == 0).any())
    return np.array(keep)


def knn_distances(X, i, cols, nominal):
    ranges = X.max(axis=0) - X.min(axis=0)
    d = np.zeros(X.shape[0])
    for j in cols:
        if nominal[j]:
            d += (X[:, j] != X[i, j]) / len(cols)
        else:
            d += np.abs(X[:, j] - X[i, j]) / ranges[j] / len(cols)
    return np.round(d, 10)


def knn_reference(X, y, k, nominal):
    """Expected rates in closed form: certain testers plus the tie group's share."""
    n = X.shape[0]
    out = np.zeros((n, 2))
    for i in range(n):
        d = knn_distances(X, i, [1, 2, 3, 4], nominal)
        for s, g in enumerate((0, 1)):
            cand = np.array([j for j in range(n) if j != i and X[j, 0] == g])
            dk = np.sort(d[cand])[k - 1]
            below = cand[d[cand] < dk]
            tie = cand[d[cand] == dk]
            r = k - below.shape[0]
            out[i, s] = (y[below].sum() + r * y[tie].mean()) / k
    return out


ALGORITHMS = pytest.mark.parametrize("algorithm", ["brute", "kd_tree"])


@ALGORITHMS
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("k", [1, 5, 17])
def test_knn_matches_brute_force(seed, k, algorithm):
    X, y = make_data(seed)
    est = SituationTestingAuditor(protected=0, protected_value=1, method="knn", k=k,
                                  nominal=[3, 4], ordinal=[1, 2], algorithm=algorithm).fit(X, y)
    got = est.transform(X)
    ref = knn_reference(X, y, k, [False, False, False, True, True])
    rows = comparable_rows(X, y)
    np.testing.assert_allclose(got[rows, :2], ref[rows])
    np.testing.assert_allclose(got[:, 2], got[:, 0] - got[:, 1])


@ALGORITHMS
def test_knn_expectation_equals_the_mean_over_every_tie_break(algorithm):
    X, y = make_data(11, n=40)
    k = 4
    nominal = [False, False, False, True, True]
    est = SituationTestingAuditor(protected=0, protected_value=1, method="knn", k=k,
                                  nominal=[3, 4], ordinal=[1, 2], algorithm=algorithm).fit(X, y)
    got = est.transform(X)
    rows = comparable_rows(X, y)
    checked = 0
    for i in np.flatnonzero(rows):
        d = knn_distances(X, i, [1, 2, 3, 4], nominal)
        for s, g in enumerate((0, 1)):
            cand = [j for j in range(X.shape[0]) if j != i and X[j, 0] == g]
            # every tie-break is an order of the candidates; the k first by
            # (distance, order) are the testers. Equivalently: every k-subset
            # that is a prefix of some such order, each equally likely.
            dk = sorted(d[cand])[k - 1]
            below = [j for j in cand if d[j] < dk]
            tie = [j for j in cand if d[j] == dk]
            rates = [(y[below].sum() + y[list(pick)].sum()) / k
                     for pick in combinations(tie, k - len(below))]
            assert got[i, s] == pytest.approx(np.mean(rates))
            checked += 1
    assert checked > 40


def cbn_profiles(X, q_cols):
    return np.unique(X[:, q_cols], axis=0)


def cbn_distance_fn(X, y, q_cols, smoothing, causal_effect="max_over_groups"):
    c = X[:, 0] == 1
    p_c = {0: np.mean(~c), 1: np.mean(c)}
    rate_c = {0: y[~c].mean(), 1: y[c].mean()}
    ranges = X.max(axis=0) - X.min(axis=0)

    def p_e(g, q):
        rows = (c == g) & (X[:, q_cols] == q).all(axis=1)
        return (y[rows].sum() + smoothing * rate_c[g]) / (rows.sum() + smoothing)

    def effect(q, q_changed):
        if causal_effect == "pooled":  # Lemma 3: the groups' rates mixed by their shares
            return abs(sum(p_c[g] * (p_e(g, q) - p_e(g, q_changed)) for g in (0, 1)))
        return max(abs(p_e(g, q) - p_e(g, q_changed)) for g in (0, 1))

    def dist(q, q2):
        total = 0.0
        for kk, col in enumerate(q_cols):
            q_changed = np.array(q, dtype=float)
            q_changed[kk] = q2[kk]
            total += effect(q, q_changed) * abs(q[kk] - q2[kk]) / ranges[col]
        return round(total, 10)

    return dist


def cbn_sides(X, q_cols, i, prof):
    """Rows of each side of subgroup ``prof``, the target left out."""
    c = X[:, 0] == 1
    in_l = (X[:, q_cols] == prof).all(axis=1)
    return [[j for j in np.flatnonzero(in_l & (c == g)) if j != i] for g in (0, 1)]


def cbn_reference(X, y, k, q_cols, smoothing, causal_effect):
    """Algorithm 1 in expectation, closed form: tiers of equal distance pooled."""
    n = X.shape[0]
    dist = cbn_distance_fn(X, y, q_cols, smoothing, causal_effect)
    profiles = cbn_profiles(X, q_cols)
    out = np.zeros((n, 2))
    for i in range(n):
        q = X[i, q_cols]
        ds = np.array([dist(q, p) for p in profiles])
        got = 0.0
        pos = np.zeros(2)
        for dv in np.unique(ds):
            tier = np.flatnonzero(ds == dv)
            sides = [cbn_sides(X, q_cols, i, profiles[l]) for l in tier]
            pairs = np.array([min(len(a), len(b)) for a, b in sides], dtype=float)
            if pairs.sum() == 0:
                continue
            take = min(k - got, pairs.sum())
            for (a, b), p in zip(sides, pairs):
                t = p * take / pairs.sum()
                if t > 0:
                    pos += [t * y[a].mean(), t * y[b].mean()]
            got += take
            if got >= k:
                break
        out[i] = pos / got
    return out


@pytest.mark.parametrize("causal_effect", ["max_over_groups", "pooled"])
@pytest.mark.parametrize("smoothing", [0.0, 1.0])
@pytest.mark.parametrize("k", [2, 9])
def test_cbn_matches_plain_algorithm_1(smoothing, k, causal_effect):
    X, y = make_data(3, n=100)
    est = SituationTestingAuditor(protected=0, protected_value=1, k=k, graph=[0, 1, 3],
                                  smoothing=smoothing, ordinal=[1, 3],
                                  causal_effect=causal_effect).fit(X, y)
    assert est.q_ == [1, 3]
    got = est.transform(X)
    ref = cbn_reference(X, y, k, [1, 3], smoothing, causal_effect)
    rows = comparable_rows(X, y)
    np.testing.assert_allclose(got[rows, :2], ref[rows])


def test_the_two_causal_effects_agree_where_the_decision_ignores_the_group():
    # every record twice, once in each group: P(e+ | c, q) is the same for both c
    X, y = make_data(5, n=60)
    X = np.vstack([X, X])
    X[: X.shape[0] // 2, 0], X[X.shape[0] // 2:, 0] = 0, 1
    y = np.concatenate([y, y])
    kw = dict(protected=0, protected_value=1, k=5, graph=[0, 1, 3], ordinal=[1, 3])
    by_group = SituationTestingAuditor(causal_effect="max_over_groups", **kw).fit(X, y)
    pooled = SituationTestingAuditor(causal_effect="pooled", **kw).fit(X, y)
    np.testing.assert_allclose(by_group.pairwise(X, X), pooled.pairwise(X, X), atol=1e-12)
    assert by_group.pairwise(X, X).max() > 0


@pytest.mark.parametrize("causal_effect", ["max_over_groups", "pooled"])
def test_cbn_expectation_equals_the_mean_over_every_tie_break(causal_effect):
    """Enumerate Algorithm 1's free choices: the order of equally distant
    subgroups (the pairs of a tier as one pool) and the records taken from
    each side of each subgroup."""
    rng = np.random.RandomState(4)
    n = 26
    c = rng.randint(0, 2, n)
    a = rng.randint(0, 3, n)
    y = (rng.rand(n) < 0.3 + 0.2 * a - 0.2 * c).astype(int)
    X = np.column_stack([c, a]).astype(float)
    k = 3
    est = SituationTestingAuditor(protected=0, protected_value=1, k=k, graph=[0, 1],
                                  ordinal=[1], causal_effect=causal_effect).fit(X, y)
    got = est.transform(X)
    dist = cbn_distance_fn(X, y, [1], 1.0, causal_effect)
    profiles = cbn_profiles(X, [1])
    rows = comparable_rows(X, y)
    for i in np.flatnonzero(rows):
        ds = np.array([dist(X[i, [1]], p) for p in profiles])
        # the pool of pairs in visiting order: one item per pair, grouped in tiers
        tiers = []
        for dv in np.unique(ds):
            items = []
            for l in np.flatnonzero(ds == dv):
                plus, minus = cbn_sides(X, [1], i, profiles[l])
                items += [(l, plus, minus)] * min(len(plus), len(minus))
            if items:
                tiers.append(items)
        # taking k pairs: whole tiers first, then every R-subset of the boundary tier
        full, need = [], k
        for items in tiers:
            if len(items) <= need:
                full += items
                need -= len(items)
            else:
                break
        boundary = items if need > 0 else []
        picks = list(combinations(range(len(boundary)), need)) if need > 0 else [()]
        rates = []
        for pick in picks:
            chosen = full + [boundary[j] for j in pick]
            per_sub = {}
            for l, plus, minus in chosen:
                per_sub.setdefault(l, [plus, minus, 0])[2] += 1
            # every way to choose t records of each side of each subgroup
            choices = [list(combinations(side, t)) for plus, minus, t in per_sub.values()
                       for side in (plus, minus)]
            for combo in product(*choices):
                plus_rows = [r for j, cmb in enumerate(combo) if j % 2 == 0 for r in cmb]
                minus_rows = [r for j, cmb in enumerate(combo) if j % 2 == 1 for r in cmb]
                rates.append((y[plus_rows].mean(), y[minus_rows].mean()))
        assert got[i, :2] == pytest.approx(np.mean(rates, axis=0))


PERM_KW = dict(protected=0, protected_value=1, k=6, graph=[0, 1, 2], ordinal=[1, 2, 3, 4],
               fdr=None)


@pytest.mark.parametrize("method", ["knn", "cbn", "knn-kd_tree"])
def test_same_results_for_any_seed_and_any_row_order(method):
    X, y = make_data(5)
    method, _, algorithm = method.partition("-")
    kw = dict(PERM_KW, algorithm=algorithm or "auto")
    base = SituationTestingAuditor(method=method, random_state=0, **kw).fit(X, y)
    out, flags = base.transform(X), base.flag(X, y)
    rep = base.report(X, y)
    assert len(rep) > 0
    for seed in (1, 2, 12345):
        perm = np.random.RandomState(seed).permutation(X.shape[0])
        est = SituationTestingAuditor(method=method, random_state=seed, **kw)
        est.fit(X[perm], y[perm])
        np.testing.assert_array_equal(est.transform(X[perm]), out[perm])
        np.testing.assert_array_equal(est.flag(X[perm], y[perm]), flags[perm])
        again = est.report(X[perm], y[perm])
        assert sorted(perm[again.summary["row"]].tolist()) == rep.summary["row"].tolist()
        # the same testers' cells (in fitted-row terms) for every flagged person
        for entry in again:
            orig = rep.person(int(perm[entry["row"]]))
            assert entry["diff_lower"] == orig["diff_lower"]
            for side in ("unprotected", "protected"):
                mine = dict(zip(perm[entry[f"testers_{side}"]].tolist(),
                                entry[f"weights_{side}"]))
                theirs = dict(zip(orig[f"testers_{side}"].tolist(), orig[f"weights_{side}"]))
                assert mine == pytest.approx(theirs)


@pytest.mark.parametrize("algorithm", ["auto", "kd_tree"])
def test_n_jobs_does_not_change_results(algorithm):
    X, y = make_data(6, n=300)
    kw = dict(protected=0, protected_value=1, method="knn", k=10, algorithm=algorithm)
    one = SituationTestingAuditor(n_jobs=1, **kw).fit(X, y).transform(X)
    two = SituationTestingAuditor(n_jobs=2, **kw).fit(X, y).transform(X)
    np.testing.assert_array_equal(one, two)


@pytest.mark.parametrize("method", ["knn", "cbn", "knn-kd_tree"])
def test_report_lists_the_testers_behind_the_rates(method):
    X, y = make_data(8, n=200)
    method, _, algorithm = method.partition("-")
    est = SituationTestingAuditor(protected=0, protected_value=1, method=method, k=8,
                                  graph=[0, 1, 3], tau=0.0, flag_rule="tau",
                                  algorithm=algorithm or "auto").fit(X, y)
    out = est.transform(X)
    flags = est.flag(X, y)
    rep = est.report(X, y)
    assert rep.summary["row"].tolist() == np.flatnonzero(flags).tolist()
    assert len(rep) > 0, "the synthetic bias should flag someone"
    t = rep.testers
    for r in rep:
        i = r["row"]
        assert X[i, 0] == 1 and y[i] == 0 and r["diff"] > 0
        assert i not in r["testers_protected"]
        assert (X[r["testers_unprotected"], 0] == 0).all()
        assert (X[r["testers_protected"], 0] == 1).all()
        for s, side in enumerate(("unprotected", "protected")):
            w = r[f"weights_{side}"]
            assert w.sum() == pytest.approx(8)
            assert ((w > 0) & (w <= 1)).all()
            assert r[("p1", "p2")[s]] == pytest.approx(w @ r[f"decisions_{side}"] / 8)
            # the long table sums to the same testers and positives
            mine = (t["row"] == i) & (t["side"] == side)
            assert t["testers"][mine].sum() == pytest.approx(8)
            assert t["positives"][mine].sum() == pytest.approx(8 * out[i, s])
        assert r["p1"] == out[i, 0] and r["p2"] == out[i, 1]
        assert r["diff_lower"] == out[i, 3] and r["rule"] == "diff > 0"
