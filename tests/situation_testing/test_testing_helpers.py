"""``situation_testing._testing``: each helper returns what the private expression it
stands for returns (the benchmarks read the auditor through these helpers only)."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from skfair_manifold.datasets import make_planted_bias
from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.situation_testing import _flags
from skfair_manifold.situation_testing import _testing as helpers
from skfair_manifold.situation_testing._fitted import AuditSettings

GRAPH = ["sex", "income", "age", "edu", "region"]


@pytest.fixture(scope="module")
def data():
    X, y, _, _ = make_planted_bias(800, random_state=0)
    return X, y


def fit(data, method="cbn", **kw):
    X, y = data
    params = dict(protected="sex", protected_value="female", method=method, k=20)
    if method == "cbn":
        params["graph"] = GRAPH
    params.update(kw)
    return SituationTestingAuditor(**params).fit(X, y)


@pytest.mark.parametrize("method", ["cbn", "knn"])
def test_encoded(data, method):
    X, _ = data
    est = fit(data, method)
    assert_array_equal(helpers.encoded(est, X), est._fitted.encode(est._validate(X)))
    assert_array_equal(helpers.encoded(est, X.iloc[[3]]),
                       est._fitted.encode(est._validate(X.iloc[[3]])))


@pytest.mark.parametrize("method", ["cbn", "knn"])
@pytest.mark.parametrize("k", [20, "auto"])
def test_k_of_rows(data, method, k):
    X, _ = data
    est = fit(data, method, k=k)
    Z = est._fitted.encode(X.to_numpy(dtype=object))
    want = _flags.k_of_rows(est._fitted, est._call_settings(), Z, est._fitted.self_units(Z))
    got = helpers.k_of_rows(est, X)
    assert_array_equal(got, want)
    assert got.shape == (X.shape[0],)
    if k != "auto":
        assert (got == k).all()


@pytest.mark.parametrize("method", ["cbn", "knn"])
def test_last_rates_and_passes(data, method):
    X, y = data
    est = fit(data, method)
    assert helpers.last_rates(est) is est._fitted.rate_cache.value
    assert helpers.rate_passes(est) == est._fitted.rate_cache.passes == 0
    est.flag(X, y)
    out, n, n_eff = helpers.last_rates(est)
    assert helpers.last_rates(est) is est._fitted.rate_cache.value
    assert_array_equal(out, est._fitted.rate_cache.value[0])
    assert out.shape == (X.shape[0], 6) and n.shape == n_eff.shape == (X.shape[0], 2)
    assert helpers.rate_passes(est) == est._fitted.rate_cache.passes == 1
    computed = est._fitted.rate_cache.rows_computed
    est.report(X, y)  # reuses flag's rates; one pass for the harm's calibration rows
    assert helpers.rate_passes(est) == est._fitted.rate_cache.passes == 2
    assert est._fitted.rate_cache.rows_computed - computed == X.shape[0] - computed
    est.report(X, y)  # then nothing more
    assert helpers.rate_passes(est) == 2


@pytest.mark.parametrize("method", ["cbn", "knn"])
def test_rates_with_counts(data, method):
    X, _ = data
    est = fit(data, method)
    rows = X.iloc[:50]
    got = helpers.rates_with_counts(est, rows)
    assert est._fitted.rate_cache.value is None  # nothing kept
    want = _flags.transform_rows(est._fitted, est._call_settings(),
                                 est._fitted.encode(est._validate(rows)), counts=True)
    assert len(got) == len(want) == 3
    for g, w in zip(got, want):
        assert_array_equal(g, w)
    assert_array_equal(got[0], est.transform(rows))


@pytest.mark.parametrize("params", [{}, {"fdr": None}, {"flag_rule": "tau"},
                                    {"flag_rule": "significant", "alpha_test": 0.05}])
def test_rule_text_and_alpha_test(params):
    est = SituationTestingAuditor(protected="sex", **params)
    settings = AuditSettings(est.get_params(deep=False))
    assert helpers.rule_text(est) == _flags.rule_text(settings)
    assert helpers.alpha_test(est) == settings.alpha_level
    assert helpers.alpha_test(est) == params.get("alpha_test", 0.1)


def test_q_cells_and_profiles(data):
    X, _ = data
    est = fit(data, "cbn")
    Z = est._fitted.records.binned(est._fitted.encode(X.to_numpy(dtype=object)))
    want = np.unique(Z[:, est._fitted.q_idx], axis=0, return_inverse=True)[1].reshape(-1)
    got = helpers.q_cells(est, X)
    assert_array_equal(got, want)
    assert got.shape == (X.shape[0],)
    # one code per cell: the rows of a code share their binned values of q_
    for code in np.unique(got)[:5]:
        assert np.unique(Z[got == code][:, est._fitted.q_idx], axis=0).shape[0] == 1
    assert helpers.n_profiles(est) == est._fitted.method.selector.profiles.shape[0]
    assert helpers.n_profiles(est) == np.unique(got).shape[0]  # the fitted rows' cells


def test_structure_sample_sets_and_restores():
    from skfair_manifold.situation_testing._lazy import _fit

    before = _fit.STRUCTURE_SAMPLE
    with helpers.structure_sample(1234):
        assert _fit.STRUCTURE_SAMPLE == 1234
    assert _fit.STRUCTURE_SAMPLE == before
    with pytest.raises(RuntimeError), helpers.structure_sample(99):
        raise RuntimeError
    assert _fit.STRUCTURE_SAMPLE == before


def test_re_exports_are_the_package_s_own():
    from skfair_manifold.datasets import _situation_testing as gen
    from skfair_manifold.datasets import _testing as generators
    from skfair_manifold.situation_testing._stats import _pvalue

    assert helpers.q_values is _pvalue.q_values
    assert helpers.fisher_pvalue is _pvalue.fisher_pvalue
    assert helpers.effective_counts is _pvalue.effective_counts
    assert helpers.exceeds is _flags.exceeds
    assert generators.planted_cells is gen.planted_cells
    assert generators.null_decisions is gen.null_decisions
    assert generators.fair_rate is gen.fair_rate
    assert generators.REGIONS is gen.REGIONS
    assert generators.BIASED_REGIONS is gen.BIASED_REGIONS
    assert set(helpers.__all__) <= set(dir(helpers))
    assert set(generators.__all__) <= set(dir(generators))
