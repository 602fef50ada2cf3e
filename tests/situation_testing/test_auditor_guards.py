"""The auditor's declared kinds, refitted parameters, missing values and memory guards
(issue 21, item 6)."""

import numpy as np
import pytest

from skfair_manifold.datasets import make_biased_decisions
from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.utils import _memory

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def data():
    d = make_biased_decisions(n_samples=600, random_state=0, as_frame=True)
    X = pd.concat([d.data, d.sensitive], axis=1)
    return X, d.target


def auditor(**kw):
    params = dict(protected="s0", protected_value=1, k=10, method="knn")
    params.update(kw)
    return SituationTestingAuditor(**params)


@pytest.mark.parametrize("kind", ["ordinal", "nominal"])
def test_continuous_column_declared_ordinal_or_nominal_is_refused_under_cbn(data, kind):
    # it gave NaN for every row, nothing flagged, no warning
    X, y = data
    Xc = X.assign(income=np.random.default_rng(0).random(len(X)) * 1000)
    with pytest.raises(ValueError, match=f"column 'income' is {kind} but nearly every row "
                                         f"has its own value \\(600 distinct values in 600 "
                                         f"rows\\).*Declare it interval"):
        auditor(method="cbn", graph={"decision": ["income", "x0", "s0"]},
                **{kind: ["income"]}).fit(Xc, y)
    # declared interval, it is binned and every row gets rates
    fitted = auditor(method="cbn", graph={"decision": ["income", "x0", "s0"]},
                     interval=["income"]).fit(Xc, y)
    assert not np.isnan(fitted.transform(Xc)).any()


def test_set_params_after_fit_is_checked_at_transform(data):
    X, y = data
    fitted = auditor().fit(X, y)
    fitted.set_params(k=10_000)
    with pytest.raises(ValueError, match="k=10000 is larger than the unprotected group"):
        fitted.transform(X)
    fitted.set_params(k=-3)
    with pytest.raises(ValueError, match="'k' parameter"):
        fitted.transform(X)
    fitted.set_params(k=10, tau=0.2)  # read at transform: allowed
    assert fitted.flag(X, y).dtype == bool
    fitted.set_params(method="cbn")
    with pytest.raises(ValueError, match="parameter\\(s\\) method changed since fit"):
        fitted.report(X, y)
    with pytest.raises(ValueError, match="changed since fit"):
        fitted.pairwise(X.iloc[:2])


def test_object_column_with_none_is_called_missing(data):
    X, y = data
    city = pd.Series(["a", "b", None] * (len(X) // 3), dtype=object)
    with pytest.raises(ValueError, match="missing values \\(NaN, None or NA\\) in column "
                                         "'city': 200 row\\(s\\), first at row 2"):
        auditor().fit(X.assign(city=city), y)


def test_string_column_with_pd_na_is_called_missing(data):
    X, y = data
    city = pd.Series(["a", "b", None] * (len(X) // 3), dtype="string")
    with pytest.raises(ValueError, match="missing values .* in column 'city'"):
        auditor().fit(X.assign(city=city), y)


def test_pairwise_refuses_a_matrix_beyond_the_memory_limit(data, monkeypatch):
    X, y = data
    fitted = auditor().fit(X, y)
    assert fitted.pairwise(X.iloc[:4]).shape == (4, len(X))
    monkeypatch.setattr(_memory, "MEMORY_LIMIT", 2**20)
    with pytest.raises(ValueError, match="pairwise on 600 x 600 rows would need 5.5 MiB of "
                                         "memory at once \\(the limit is 1.0 MiB\\); pass "
                                         "fewer rows"):
        fitted.pairwise(X)


@pytest.mark.parametrize("binning", ["quantile", "mdlp"])
def test_huge_n_bins_is_refused_with_the_size_needed(data, binning):
    X, y = data
    Xc = X.assign(income=np.random.default_rng(1).random(len(X)))
    with pytest.raises(ValueError, match="n_bins=1000000000 is out of range: it must be an "
                                         "integer in \\[2, 600\\] \\(at most the number of "
                                         "rows \\(600\\).*would need 22.4 GiB"):
        auditor(method="cbn", n_bins=10**9, binning=binning,
                graph={"decision": ["income", "s0"]}).fit(Xc, y)
