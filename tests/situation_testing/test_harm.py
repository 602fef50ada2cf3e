"""Harm: pn and shortfall per person, the totals, the counterfactual decisions.

References in plain Python: the posterior of one observation summed over the
grid by hand; the probability of necessity and its exogeneity bound from
their formulas; the logistic and linear calibrations against simulated data
with known coefficients; the totals' variance from its formula. The
calibration, the counts' coverage and the null audits over the package's
generators are measured in ``benchmarks/situation_testing_harm.py``; here
small versions that can fail.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from skfair_manifold.datasets import make_biased_wages, make_planted_bias
from skfair_manifold.situation_testing import (
    SituationTestingAuditor,
    counterfactual_decisions,
)
from skfair_manifold.situation_testing._harm import _empirical_bayes as eb
from skfair_manifold.situation_testing._harm._recalibration import (
    linear_calibration,
    logistic_calibration,
    recalibrated_rates,
)
from skfair_manifold.situation_testing._harm._totals import harm_table


def _report(X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auditor = SituationTestingAuditor(protected="sex", protected_value="female",
                                          **kw).fit(X, y)
        return auditor, auditor.report(X, y)


# ----------------------------------------------------------------- empirical Bayes


def test_the_posterior_is_the_sum_over_the_grid_by_hand():
    rng = np.random.default_rng(0)
    a1, a2 = rng.integers(0, 50, 40).astype(float), rng.integers(0, 50, 40).astype(float)
    n = np.full(40, 50.0)
    out = eb.binary_harm(a1, n, a2, n, confidence=0.9)
    inverse, counts, L, p1, p2 = eb.binary_likelihood(a1, n, a2, n)
    g = eb.npmle(L, counts)  # the prior, on the same input as the module's
    for i in range(40):  # one observation by hand
        row = L[inverse[i]]
        weights = [row[s] * g[s] for s in range(p1.shape[0])]
        total = sum(weights)
        mean = sum(w * (p1[s] - p2[s]) / (1 - p2[s]) for s, w in enumerate(weights)) / total
        assert out["pn"][i] == pytest.approx(mean, rel=1e-9, abs=1e-12)
        assert out["pn_low"][i] <= out["pn"][i] + 1e-12
        assert out["pn_high"][i] >= out["pn"][i] - 1e-12


def test_the_npmle_is_a_fixed_point_and_beats_other_priors():
    rng = np.random.default_rng(1)
    L = rng.random((30, 12))
    w = rng.integers(1, 5, 30).astype(float)
    g = eb.npmle(L, w, tol=1e-13, iterations=30000)

    def loglik(prior):
        return float(w @ np.log(L @ prior))

    post = L * g / (L @ g)[:, None]
    np.testing.assert_allclose((w[:, None] * post).sum(axis=0) / w.sum(), g, atol=1e-5)
    for _ in range(20):
        other = rng.dirichlet(np.ones(12))
        assert loglik(g) >= loglik(other) - 1e-9


def test_with_many_testers_pn_is_the_formula_and_pn_high_the_exogeneity_bound():
    # one situation, a million testers a side: the posterior sits on the rates
    p1, p2 = 0.6, 0.25
    n = np.full(1, 1e6)
    out = eb.binary_harm(np.array([p1 * 1e6]), n, np.array([p2 * 1e6]), n, confidence=0.9)
    # the grid is 30 points a side: within a grid step of the formula's value
    assert out["pn"][0] == pytest.approx((p1 - p2) / (1 - p2), abs=0.03)
    assert out["pn_high"][0] == pytest.approx(min(1.0, p1 / (1 - p2)), abs=0.05)


def test_the_posterior_mean_is_calibrated_when_the_model_holds():
    rng = np.random.default_rng(2)
    m = 20000
    biased = rng.random(m) < 0.4
    pi1 = rng.uniform(0.2, 0.8, m)
    pi2 = np.where(biased, pi1 * 0.5, pi1)
    pn_true = (pi1 - pi2) / (1 - pi2)
    flipped = rng.random(m) < pn_true
    a1, a2 = rng.binomial(50, pi1).astype(float), rng.binomial(50, pi2).astype(float)
    out = eb.binary_harm(a1, np.full(m, 50.0), a2, np.full(m, 50.0), confidence=0.9)
    pn = out["pn"]
    edges = np.quantile(pn, np.linspace(0, 1, 11))
    index = np.clip(np.searchsorted(edges, pn, side="right") - 1, 0, 9)
    for d in range(10):
        inside = index == d
        if inside.sum() >= 50:
            assert abs(pn[inside].mean() - flipped[inside].mean()) < 0.05
    assert pn.sum() == pytest.approx(flipped.sum(), rel=0.06)


def test_the_shortfall_posterior_is_about_the_gap_and_never_negative():
    rng = np.random.default_rng(3)
    delta = np.where(rng.random(5000) < 0.3, 5000.0, 0.0)
    se = np.full(5000, 1500.0)
    d = delta + rng.normal(0, 1500.0, 5000)
    out = eb.amount_harm(d, se, confidence=0.9)
    assert np.all(out["shortfall"] >= 0)
    assert out["shortfall"].sum() == pytest.approx(delta.sum(), rel=0.05)
    assert np.all(out["shortfall_low"] <= out["shortfall"] + 1e-9)
    assert np.all(out["shortfall"] <= out["shortfall_high"] + 1e-9)


# ----------------------------------------------------------------- recalibration


def test_the_logistic_calibration_recovers_known_coefficients():
    rng = np.random.default_rng(4)
    n = np.full(40000, 50.0)
    rate = rng.binomial(50, rng.uniform(0.1, 0.9, 40000)) / 50
    s = (rate * n + 0.5) / (n + 1)
    z = 0.3 + 1.4 * np.log(s / (1 - s))
    outcome = (rng.random(40000) < 1 / (1 + np.exp(-z))).astype(float)
    a, b = logistic_calibration(rate, n, outcome)
    assert a == pytest.approx(0.3, abs=0.05) and b == pytest.approx(1.4, abs=0.05)
    g, n_eff = recalibrated_rates(rate, n, (a, b))
    assert np.all((g > 0) & (g < 1)) and np.all(n_eff > 0)
    assert logistic_calibration(rate[:5], n[:5], outcome[:5]) == (0.0, 1.0)


def test_the_linear_calibration_is_least_squares():
    rng = np.random.default_rng(5)
    x = rng.normal(50000, 8000, 500)
    y = 1000 + 0.9 * x + rng.normal(0, 3000, 500)
    a, b = linear_calibration(x, y)
    want_b, want_a = np.polyfit(x, y, 1)
    assert a == pytest.approx(want_a) and b == pytest.approx(want_b)


def test_a_calibration_that_would_decrease_is_flat():
    rng = np.random.default_rng(6)
    n = np.full(400, 50.0)
    rate = rng.uniform(0.1, 0.9, 400)
    outcome = (rng.random(400) < 1 - rate).astype(float)  # a higher rate, fewer accepted
    a, b = logistic_calibration(rate, n, outcome)
    mean = outcome.mean()
    assert b == 0.0 and a == pytest.approx(np.log(mean / (1 - mean)))
    x = rng.normal(50000, 8000, 400)
    assert linear_calibration(x, -x + rng.normal(0, 100, 400))[1] == 0.0


def test_one_situation_of_many_testers_gets_its_own_pn_not_the_grid_s():
    # 2,000 testers a side at 0.5 and 0.3: (0.5 - 0.3) / 0.7, where the 30-point grid
    # alone gave 0.244
    a1, a2, n = np.full(300, 1000.0), np.full(300, 600.0), np.full(300, 2000.0)
    pn = eb.binary_harm(a1, n, a2, n, confidence=0.9)["pn"]
    assert pn == pytest.approx(np.full(300, 0.2 / 0.7), abs=0.005)


def _no_parents(n, rng, *, flip_share):
    X = pd.DataFrame({"sex": rng.choice(["female", "male"], n), "a": rng.integers(0, 3, n),
                      "b": rng.normal(size=n)})
    fair = (rng.random(n) < 0.5).astype(int)
    flipped = (X.sex.to_numpy() == "female") & (fair == 1) & (rng.random(n) < flip_share)
    return X, np.where(flipped, 0, fair), flipped


@pytest.mark.parametrize("method", ["cbn", "knn"])
def test_random_decisions_harm_nobody_when_nothing_is_matched_on(method):
    # decisions that depend on nothing: the learned graph gives the decision no parent, and
    # every person's testers are her whole side less herself (CBN-DD: one cell); read
    # against her own decision that rate once made 487 of 991 refused women 'harmed'
    X, y, _ = _no_parents(4000, np.random.default_rng(0), flip_share=0.0)
    _, report = _report(X, y, method=method)
    total = report.harm.loc["total"]
    assert total["harmed_low"] == 0.0
    assert total["expected_harmed"] < 0.02 * total["candidates"]
    assert total["harmed_high"] > 10  # one shared situation: its uncertainty counted once
    assert not np.any(report.audit["more_likely_than_not"])
    assert all(b >= 0 for _, b in report.settings["harm"]["calibration"])
    wages = 50000 + 8000 * np.random.default_rng(1).standard_normal(4000)
    _, amounts = _report(X, wages, method=method, decision="continuous", tau=1000.0)
    owed = amounts.harm.loc["total"]
    assert owed["shortfall_low"] == 0.0
    assert owed["total_shortfall"] < 0.05 * 8000 * owed["candidates"]  # a twentieth of a sd


def test_a_gap_with_nothing_to_match_on_is_the_sides_gap():
    X, y, flipped = _no_parents(4000, np.random.default_rng(1), flip_share=0.4)
    _, report = _report(X, y, method="cbn")
    total = report.harm.loc["total"]
    truth = flipped.sum()
    assert total["harmed_low"] <= truth <= total["harmed_high"]
    assert total["expected_harmed"] == pytest.approx(truth, rel=0.15)


# ----------------------------------------------------------------- totals


def test_the_harm_table_sums_the_situations_and_its_variance_is_the_formula():
    pn = np.array([0.2, 0.2, 0.5, 0.5, 0.5, np.nan])
    var = np.array([0.01, 0.01, 0.04, 0.04, 0.04, np.nan])
    own = np.array([0.1, 0.1, 0.6, 0.6, 0.6, np.nan])
    candidate = np.array([True] * 5 + [False])
    columns = {"pn": pn, "sampling_var": var, "unshrunk": own}
    groups = (np.array([0, 0, 1, 1, 1]), {"region": np.array(["n", "s"], dtype=object)})
    table = harm_table(columns, candidate, continuous=False, design=1.0, groups=groups,
                       confidence=0.9)
    z = 1.6448536269514722
    var0 = 2 * 0.2 * 0.8 + 2 * 0.02  # n m (1 - m) + n^2 v
    var1 = 3 * 0.5 * 0.5 + 3 * 0.12
    assert table.loc[0, "expected_harmed"] == pytest.approx(0.4)
    assert table.loc[0, "harmed_high"] == pytest.approx(0.4 + z * np.sqrt(var0))
    assert table.loc[0, "harmed_low"] == pytest.approx(max(0, 0.2 - z * np.sqrt(var0)))
    assert table.loc["total", "expected_harmed"] == pytest.approx(1.9)
    assert table.loc["total", "harmed_high"] == pytest.approx(
        min(5, 1.9 + z * np.sqrt(var0 + var1)))
    assert list(table["region"])[:2] == ["n", "s"] and table.loc["total", "candidates"] == 5


# ----------------------------------------------------------------- the report


def test_the_report_gives_pn_to_the_candidates_and_the_totals_add_up():
    X, y, flipped, _ = make_planted_bias(4000, random_state=0)
    _, report = _report(X, y)
    audit = report.audit
    cand = np.asarray(audit["candidate"], dtype=bool)
    pn, low, high = (np.asarray(audit[k]) for k in ("pn", "pn_low", "pn_high"))
    assert np.isnan(pn[~cand]).all() and np.isfinite(pn[cand]).all()
    assert np.all((low[cand] <= pn[cand] + 1e-12) & (pn[cand] <= high[cand] + 1e-12))
    assert np.all((pn[cand] >= 0) & (high[cand] <= 1))
    harm = report.harm
    assert harm.loc["total", "expected_harmed"] == pytest.approx(pn[cand].sum())
    assert harm.drop(index="total")["expected_harmed"].sum() == pytest.approx(pn[cand].sum())
    truth = int(flipped[cand].sum())
    assert harm.loc["total", "harmed_low"] <= truth <= harm.loc["total", "harmed_high"]
    assert report.settings["harm"]["expected_harmed"] == pytest.approx(pn[cand].sum())
    rows = np.asarray(report.summary["row"])
    np.testing.assert_allclose(report.summary["pn"], pn[rows])
    page = report.to_html()
    assert "How many were harmed" in page and "exogeneity" in page
    assert "probability of necessity" in page


@pytest.mark.parametrize("method", ["cbn", "knn"])
def test_a_null_audit_holds_zero_and_names_nobody(method):
    X, y, _, _ = make_planted_bias(3000, bias_share=0.0, random_state=1)
    _, report = _report(X, y, method=method)
    assert report.harm.loc["total", "harmed_low"] == 0.0
    assert not np.any(report.audit["more_likely_than_not"])


def test_an_amount_gets_a_shortfall_and_a_total_owed():
    wages = make_biased_wages(3000, gap=0.12, random_state=0)
    _, report = _report(wages.data, wages.target, decision="continuous", tau=1000.0,
                        graph=["education", "experience", "region", "sector", "sex"],
                        interval=["experience"])
    audit = report.audit
    cand = np.asarray(audit["candidate"], dtype=bool)
    short = np.asarray(audit["shortfall"])
    assert np.isfinite(short[cand]).all() and np.all(short[cand] >= 0)
    total = report.harm.loc["total"]
    truth = float((wages.fair_target - wages.target)[wages.discriminated].sum())
    assert total["shortfall_low"] <= truth <= total["shortfall_high"]
    assert "How much is owed" in report.to_html()


# ----------------------------------------------------------------- counterfactual


def _credit(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"sex": rng.choice(["female", "male"], n),
                      "income": rng.normal(50, 10, n).round(1),
                      "debt": rng.integers(0, 5, n)})
    score = (X["income"] - 45) / 10 - 0.3 * X["debt"] - 0.8 * (X["sex"] == "female")
    y = (score + rng.normal(0, 0.5, n) > 0).astype(int)
    return X, y


def test_the_counterfactual_flips_are_predictions_on_the_flipped_rows():
    from sklearn.compose import make_column_transformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    X, y = _credit()
    model = make_pipeline(
        make_column_transformer((OneHotEncoder(), ["sex"]), remainder="passthrough"),
        LogisticRegression()).fit(X, y)
    auditor, report = _report(X, y, k=30)
    before = X.copy()
    frame = counterfactual_decisions(auditor, model, X, report=report)
    pd.testing.assert_frame_equal(X, before)  # the caller's rows as they were
    flipped_rows = X.copy()
    flipped_rows.loc[X["sex"] == "female", "sex"] = "male"
    want = model.predict(flipped_rows)
    female = (X["sex"] == "female").to_numpy()
    np.testing.assert_array_equal(frame["counterfactual_decision"][female], want[female])
    np.testing.assert_array_equal(frame["flipped"], female & (want != model.predict(X)))
    assert frame["flipped"].sum() > 0 and not frame["flipped"][~female].any()
    counts = report.settings["counterfactual"]
    assert counts["flipped"] == int(frame["flipped"].sum())
    assert counts["both"] == int((frame["flipped"] & frame["flagged"]).sum())
    assert "The model asked" in report.to_html()
    assert list(frame.index) == list(X.index)


def test_the_counterfactual_refuses_what_it_cannot_do():
    X, y = _credit(400)
    auditor, _ = _report(X, y, k=20)
    with pytest.raises(TypeError, match="with predict"):
        counterfactual_decisions(auditor, object(), X)
    X3 = X.assign(sex=np.where(np.arange(400) % 3 == 0, "other", X["sex"]))

    class Constant:
        def predict(self, X):
            return np.zeros(len(X), dtype=int)

    with pytest.raises(ValueError, match="pass value="):
        counterfactual_decisions(auditor, Constant(), X3)
    frame = counterfactual_decisions(auditor, Constant(), X3, value="male")
    assert not frame["flipped"].any()


def test_the_command_line_writes_each_row_s_pn(tmp_path, capsys):
    from skfair_manifold.cli import main

    X, y, _, _ = make_planted_bias(2000, random_state=2)
    path = tmp_path / "decisions.csv"
    X.assign(y=y).to_csv(path, index=False)
    out = tmp_path / "rows.csv"
    assert main(["audit", str(path), "--protected", "sex", "--protected-value", "female",
                 "--decision", "y", "--positive-label", "1", "--all-rows", "-o",
                 str(out)]) == 0
    assert "expected number harmed" in capsys.readouterr().err
    rows = pd.read_csv(out)
    _, report = _report(X, y)
    np.testing.assert_allclose(rows["pn"], report.audit["pn"], equal_nan=True)
    np.testing.assert_array_equal(rows["more_likely_than_not"],
                                  report.audit["more_likely_than_not"])
