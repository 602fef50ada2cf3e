"""The per-person p-value, the false discovery rate of an audit, the verdicts, the evidence."""

import pickle
import warnings
from math import comb

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.situation_testing._testing import encoded, settings
from skfair_manifold.situation_testing._stats._pvalue import fisher_pvalue, q_values
from skfair_manifold.datasets import make_planted_bias
from skfair_manifold.datasets._situation_testing import null_decisions
from skfair_manifold.situation_testing._constants import MIN_EFFECTIVE_TESTERS


# --- the FDR procedure against a plain reference ------------------------------------------
def _plain_step_up(p, level, c=1.0):
    """Benjamini-Hochberg's step-up rule as written: reject p_(1..k*), k* the last k with
    p_(k) <= k level / (c m)."""
    finite = [i for i in range(len(p)) if np.isfinite(p[i])]
    m = len(finite)
    ranked = sorted(finite, key=lambda i: p[i])
    k_star = 0
    for k in range(1, m + 1):
        if p[ranked[k - 1]] <= k * level / (c * m):
            k_star = k
    return set(ranked[:k_star])


def _plain_q(p, c=1.0):
    """q_i = min over the p-values at least p_i of c m p_(j) / j (capped at 1)."""
    finite = [i for i in range(len(p)) if np.isfinite(p[i])]
    m = len(finite)
    ranked = sorted(finite, key=lambda i: p[i])
    q = [np.nan] * len(p)
    for i in finite:
        q[i] = min(min(1.0, c * m * p[ranked[j - 1]] / j)
                   for j in range(1, m + 1) if p[ranked[j - 1]] >= p[i])
    return np.array(q)


@pytest.mark.parametrize("method", ["bh", "by"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_q_values_match_the_plain_step_up_rule(method, seed):
    rng = np.random.RandomState(seed)
    p = np.concatenate([rng.uniform(size=40), rng.uniform(0, 0.01, size=10),
                        [np.nan, 0.5, 0.5, 0.0]])
    rng.shuffle(p)
    m = int(np.isfinite(p).sum())
    c = 1.0 if method == "bh" else sum(1.0 / i for i in range(1, m + 1))
    q = q_values(p, method=method)
    np.testing.assert_allclose(q, _plain_q(p, c), equal_nan=True)
    for level in (0.01, 0.05, 0.1, 0.2, 0.5):
        assert set(np.flatnonzero(q <= level)) == _plain_step_up(p, level, c)
    assert np.isnan(q[np.isnan(p)]).all()
    one = q_values(np.array([0.07]))
    assert one.tolist() == [0.07]  # a single test keeps its p-value


# --- the exact test against enumeration of the relabellings ------------------------------------
def test_fisher_pvalue_enumerates_the_relabellings():
    for x1, m1, x2, m2 in [(3, 5, 1, 6), (0, 4, 4, 4), (7, 7, 0, 3), (2, 9, 2, 9), (5, 20, 9, 12)]:
        n, s = m1 + m2, x1 + x2
        tail = sum(comb(s, j) * comb(n - s, m1 - j) for j in range(x1, min(s, m1) + 1))
        assert fisher_pvalue(x1, m1, x2, m2) == pytest.approx(tail / comb(n, m1))
    assert np.isnan(fisher_pvalue(np.nan, 5, 1, 5))


def test_randomised_pvalue_is_uniform_under_relabelling():
    # decisions exchangeable between the sides: the randomised p-value is exactly uniform,
    # the exact one never below it
    rng = np.random.RandomState(0)
    m1, m2 = 30, 25
    pos = rng.binomial(m1 + m2, 0.3, size=2000)
    x1 = np.array([rng.permutation(np.r_[np.ones(s), np.zeros(m1 + m2 - s)])[:m1].sum()
                   for s in pos])
    x2 = pos - x1
    rand = fisher_pvalue(x1, m1, x2, m2, u=rng.uniform(size=x1.shape[0]))
    exact = fisher_pvalue(x1, m1, x2, m2)
    assert stats.kstest(rand, "uniform").pvalue > 0.01
    assert (exact >= rand).all()


# --- calibration on null data: both methods, continuous and nominal attributes ----------------

@pytest.mark.parametrize("kind", ["continuous", "nominal"])
@pytest.mark.parametrize("method", ["knn", "cbn"])
def test_pvalues_are_valid_onnull_decisions(method, kind):
    # one candidate per independent data set, so the p-values are independent; the decision
    # does not depend on sex. Valid: never stochastically below the uniform law.
    rng = np.random.RandomState(1)
    p = []
    for _ in range(120):
        X, y = null_decisions(200, rng, kind)
        est = SituationTestingAuditor(protected="sex", protected_value="f", method=method,
                                      k=15, graph=list(X.columns)).fit(X, y)
        cand = np.flatnonzero((X["sex"] == "f").to_numpy() & (y == 0))
        i = cand[rng.randint(cand.shape[0])]
        p.append(est.transform(X.iloc[[i]])[0, 5])
    p = np.array(p)
    assert np.isfinite(p).all()
    assert stats.kstest(p, "uniform", alternative="greater").pvalue > 0.01
    assert (p <= 0.1).mean() <= 0.1 + 2 * np.sqrt(0.09 / p.shape[0])


@pytest.mark.parametrize("method", ["knn", "cbn"])
def test_a_null_audit_flags_at_most_one_percent(method):
    X, y, _, _ = make_planted_bias(3000, bias_share=0.0, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = SituationTestingAuditor(protected="sex", protected_value="female",
                                      method=method).fit(X, y)
        # tested one by one at 10%, several percent of the same people would be flagged
        alone = SituationTestingAuditor(protected="sex", protected_value="female",
                                        method=method, fdr=None).fit(X, y).flag(X, y)
    if method == "cbn":  # the learned graph has no arc sex -> decision, and says so
        assert est.structure_info_["protected_arc"] is False
        assert any("no arc 'sex'" in str(w.message) for w in caught)
    candidates = (X["sex"] == "female").to_numpy() & (y == 0)
    flags = est.flag(X, y)
    assert flags.sum() <= 0.01 * candidates.sum()
    assert alone.sum() > flags.sum()


def _two_sided(n_each=200, seed=0):
    rng = np.random.RandomState(seed)
    n = 2 * n_each
    sex = np.repeat(["m", "f"], n_each).astype(object)
    x = rng.uniform(0, 1, n)
    base = 0.2 + 0.6 * x
    y = (rng.rand(n) < np.where(sex == "m", base, base - 0.35)).astype(int)
    return pd.DataFrame({"sex": sex, "x": x}), y


def test_the_single_complainant_keeps_the_per_person_test():
    X, y = _two_sided()
    est = SituationTestingAuditor(protected="sex", protected_value="f", method="knn",
                                  k=20).fit(X, y)
    out = est.transform(X)
    cand = np.flatnonzero((X["sex"] == "f").to_numpy() & (y == 0))
    for i in cand[:15]:
        alone = est.flag(X.iloc[[i]], y[[i]])[0]
        assert alone == bool(out[i, 2] > est.tau and out[i, 5] <= est.alpha_test)
    rep = est.report(X, y)
    q = rep.audit["q_value"]
    np.testing.assert_allclose(q[cand], q_values(out[cand, 5]))
    assert np.isnan(q[~np.isin(np.arange(len(y)), cand)]).all()
    np.testing.assert_array_equal(rep.summary["q_value"], q[rep.summary["row"]])
    assert (rep.summary["q_value"] <= est.fdr).all()


# --- the paper's premise ------------------------------------------------------------------------
def test_no_arc_from_the_protected_attribute_warns_and_makes_flags_fragile():
    X, y = _two_sided()
    with pytest.warns(UserWarning, match="no arc 'sex' -> 'y'"):
        est = SituationTestingAuditor(protected="sex", protected_value="f", k=20,
                                      graph=["x"]).fit(X, y)
    assert est.structure_info_["protected_arc"] is False
    rep = est.report(X, y)
    assert len(rep) > 0 and set(rep.summary["verdict"]) == {"fragile"}
    assert all("no arc" in r for r in rep.summary["verdict_reason"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok = SituationTestingAuditor(protected="sex", protected_value="f", k=20,
                                     graph=["sex", "x"]).fit(X, y)
    assert ok.structure_info_["protected_arc"] is True
    assert "fragile" not in set(ok.report(X, y).summary["verdict"])


# --- verdicts on small cases built to be each ------------------------------------------------------
def _line(men_pos, women_pos):
    """Men at 1, 3, 5, ..., women at 2, 4, 6, ... and the claimant (a woman) at 0."""
    x = np.r_[0.0, np.arange(len(men_pos)) * 2 + 1.0, np.arange(len(women_pos)) * 2 + 2.0]
    sex = np.r_[["f"], ["m"] * len(men_pos), ["f"] * len(women_pos)].astype(object)
    y = np.r_[0, men_pos, women_pos].astype(int)
    return pd.DataFrame({"sex": sex, "x": x}), y


def _verdict_of_claimant(X, y, k):
    est = SituationTestingAuditor(protected="sex", protected_value="f", method="knn",
                                  k=k, interval=["x"]).fit(X, y)
    return est.report(X, y).audit["verdict"][0], est


def test_verdict_discriminated_when_the_flag_holds_at_k_half_and_double():
    X, y = _line(np.ones(80), np.zeros(80))
    verdict, est = _verdict_of_claimant(X, y, 20)
    assert est.flag(X, y)[0] and verdict == "discriminated"


def test_verdict_fragile_when_the_flag_changes_with_k():
    # the 20 nearest men are all positive, the 20 nearest women all negative; farther out
    # it is the other way round, so with 2K = 40 testers the gap is gone
    K = 20
    X, y = _line(np.r_[np.ones(K), np.zeros(2 * K)], np.r_[np.zeros(K - 1), np.ones(2 * K + 1)])
    verdict, est = _verdict_of_claimant(X, y, K)
    rep = est.report(X, y)
    assert est.flag(X, y)[0] and verdict == "fragile"
    assert "not flagged at K=40" in rep.audit["verdict_reason"][0]


def test_verdict_insufficient_with_few_testers():
    X, y = _line(np.ones(80), np.zeros(80))
    k = MIN_EFFECTIVE_TESTERS // 2
    verdict, est = _verdict_of_claimant(X, y, k)
    assert verdict == "insufficient"


def test_verdict_not_discriminated_without_a_gap():
    X, y = _line(np.tile([1, 0], 40), np.tile([1, 0], 40))
    verdict, est = _verdict_of_claimant(X, y, 20)
    assert not est.flag(X, y)[0] and verdict == "not discriminated"
    audit = est.report(X, y).audit
    assert (audit["verdict"][~audit["candidate"]] == "").all()


# --- the evidence: picklable, and the rates of flag reused -------------------------------------
@pytest.mark.parametrize("method", ["knn", "cbn"])
def test_the_evidence_pickles(method):
    X, y = _two_sided()
    est = SituationTestingAuditor(protected="sex", protected_value="f", method=method, k=20,
                                  graph=["sex", "x"] if method == "cbn" else None).fit(X, y)
    rep = est.report(X, y)
    assert len(rep) > 0
    back = pickle.loads(pickle.dumps(rep))
    for i in (0, len(rep) - 1):
        a, b = rep[i], back[i]
        assert a.keys() == b.keys()
        for key in a:
            if isinstance(a[key], np.ndarray):
                np.testing.assert_array_equal(a[key], b[key])
            else:
                assert a[key] == b[key]
    assert back.provenance == rep.provenance
    assert rep.provenance["column_kinds"]["x"] == {"kind": "interval", "how": "inferred"}
    assert rep.provenance["package"].startswith("skfair_manifold ")
    assert rep.provenance["options"]["k"] == "20"
    est.set_params(positive_label=np.int64(1))  # numbers shown plainly, not as numpy's repr
    assert est.fit(X, y).report(X, y).provenance["options"]["positive_label"] == "1"


def test_report_after_flag_does_not_recompute_the_rates():
    X, y = _two_sided()
    est = SituationTestingAuditor(protected="sex", protected_value="f", method="knn",
                                  k=20).fit(X, y)
    flags = est.flag(X, y)
    assert est._fitted.rate_cache.passes == 1
    candidates = ((X["sex"] == "f").to_numpy() & (np.asarray(y) == 0)).sum()
    assert est._fitted.rate_cache.rows_computed == candidates  # flag computes the candidates only
    rep = est.report(X, y)
    # report adds one pass: the rows its harm's calibration reads (this small audit: every
    # other row, each once), never the candidates again
    assert est._fitted.rate_cache.passes == 2
    assert est._fitted.rate_cache.rows_computed == len(X)
    out = est.transform(X)  # nothing left to compute
    assert est._fitted.rate_cache.passes == 2
    assert est._fitted.rate_cache.rows_computed == len(X)
    np.testing.assert_array_equal(rep.summary["row"], np.flatnonzero(flags))
    out[:] = 0.0  # the caller's copy, not the cache
    est.flag(X.iloc[:100], y[:100])
    assert est._fitted.rate_cache.passes == 3
    np.testing.assert_array_equal(est.flag(X, y), flags)


# --- insufficient by distance, fragile under the structure bootstrap -----------------------------
def _dense_and_far(claimant_x, n_each=40):
    """Men (all positive) and women (all negative) packed in [0, 0.08], one of each at 1.0
    to stretch the range, and the claimant (a woman, negative) at claimant_x."""
    base = np.arange(n_each) * 0.002
    x = np.r_[claimant_x, base, 1.0, base + 0.001, 1.0]
    sex = np.r_[["f"], ["m"] * (n_each + 1), ["f"] * (n_each + 1)].astype(object)
    y = np.r_[0, np.ones(n_each + 1), np.zeros(n_each + 1)].astype(int)
    return pd.DataFrame({"sex": sex, "x": x}), y


def test_verdict_insufficient_when_the_testers_lie_far_from_the_claimant():
    from skfair_manifold.situation_testing._constants import NEAR_DISTANCE

    X, y = _dense_and_far(0.0)
    verdict, est = _verdict_of_claimant(X, y, 20)
    assert est.flag(X, y)[0] and verdict == "discriminated"
    X, y = _dense_and_far(0.6)  # the same testers, all more than 0.2 of the range away
    verdict, est = _verdict_of_claimant(X, y, 20)
    reason = est.report(X, y).audit["verdict_reason"][0]
    assert est.flag(X, y)[0] and verdict == "insufficient"
    assert f"within distance {NEAR_DISTANCE['knn']:g}" in reason


def test_verdicts_fragile_when_the_structure_bootstrap_loses_the_flag():
    from skfair_manifold.situation_testing._verdict import verdicts

    flagged = np.array([True, True, False])
    verdict, reason = verdicts(candidate=np.ones(3, dtype=bool), flagged=flagged,
                               n_eff=np.full((3, 2), 50.0), held_at={}, no_arc=False,
                               structure_held=np.array([0.9, 0.3, np.nan]))
    assert verdict.tolist() == ["discriminated", "fragile", "not discriminated"]
    assert reason[1] == "held in 30% of the structure bootstrap"


def test_structure_bootstrap_keeps_flags_resting_on_a_stable_graph():
    from skfair_manifold.situation_testing._verdict import structure_bootstrap

    rng = np.random.RandomState(0)
    n = 3000
    sex = np.where(rng.rand(n) < 0.5, "f", "m").astype(object)
    skill = rng.randint(0, 3, n)
    y = (rng.rand(n) < 0.2 + 0.25 * skill - 0.3 * (sex == "f") * (skill == 2)).astype(int)
    X = pd.DataFrame({"sex": sex, "skill": skill, "noise": rng.randint(0, 3, n)})
    est = SituationTestingAuditor(protected="sex", protected_value="f", k=30,
                                  structure_bootstrap=4, random_state=0).fit(X, y)
    assert est.q_ == ["skill"]
    rep = est.report(X, y)
    assert len(rep) > 0 and set(rep.summary["verdict"]) == {"discriminated"}
    Z = encoded(est, X)
    rows = rep.summary["row"]
    share, qs = structure_bootstrap(est._fitted, settings(est), Z, rows, est._fitted.units.lookup(Z[rows]),
                                    lambda out: np.ones(out.shape[0], dtype=bool),
                                    n_replicates=3, random_state=1)
    assert len(qs) == 3 and all(q == (est._fitted.q_idx[0],) for q in qs)
    assert (share == 1.0).all()


def _weak_parent_records(female_share):
    """40,000 rows: s (3 levels) a strong parent, w (12 levels) a weak one (a shift of
    0.04), sex a parent; 36 subgroups over (s, w)."""
    rng = np.random.RandomState(1)
    n = 40000
    sex = np.where(rng.rand(n) < female_share, "f", "m").astype(object)
    s, w = rng.randint(0, 3, n), rng.randint(0, 12, n)
    y = (rng.rand(n) < 0.2 + 0.15 * s + 0.04 * (w >= 6) - 0.1 * (sex == "f")).astype(int)
    return pd.DataFrame({"sex": sex, "s": s, "w": w}), y


def test_structure_bootstrap_leaves_the_weak_parents_out_of_q_as_fit_does():
    from skfair_manifold.situation_testing._verdict import structure_bootstrap

    # 3% women: 36 subgroups of about 33 women, too few for K = 50 testers a side
    X, y = _weak_parent_records(0.03)
    est = SituationTestingAuditor(protected="sex", protected_value="f").fit(X, y)
    assert est.q_ == ["s"] and "w" in est.graph_["y"]

    Z = encoded(est, X)
    rows = np.flatnonzero(est.flag(X, y))[:50]
    assert rows.size
    _, qs = structure_bootstrap(est._fitted, settings(est), Z, rows, est._fitted.units.lookup(Z[rows]),
                                lambda out: np.ones(out.shape[0], dtype=bool),
                                n_replicates=2, random_state=0)
    assert qs == [(1,), (1,)]


def test_a_large_k_does_not_make_the_weak_parent_rule_coarser():
    # 20% women; w, weak, of 12 levels: 36 subgroups of about 220 women, enough for
    # the rule's 50 testers a side though not for k = 300 (the rule caps k at 50)
    from skfair_manifold.situation_testing._selection._weak_parents import RULE_TESTERS, rule_k

    assert RULE_TESTERS == 50 and rule_k(300) == 50 and rule_k(20) == 20
    X, y = _weak_parent_records(0.2)
    est = SituationTestingAuditor(protected="sex", protected_value="f", k=300).fit(X, y)
    assert est.q_ == ["s", "w"] and est.structure_info_["weak_parents"] == []


@pytest.mark.parametrize("method", ["knn", "cbn"])
def test_a_planted_bias_is_found_by_the_default_audit_at_a_small_size(method):
    # every positive woman of two regions turned negative, 4,000 rows, every default
    X, y, flipped, clean = make_planted_bias(4000, bias_share=1.0, random_state=1)
    est = SituationTestingAuditor(protected="sex", protected_value="female",
                                  method=method).fit(X, y)
    flags = est.flag(X, y)
    tp, fp = int((flags & flipped).sum()), int((flags & clean).sum())
    assert tp / flipped.sum() >= 0.85  # measured 0.942 (cbn) and 1.000 (knn)
    assert tp / (tp + fp) >= 0.85  # measured 0.972 and 0.970
