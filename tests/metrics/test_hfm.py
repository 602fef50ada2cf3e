"""HFM (Eq. 8) against a plain O(n^2) computation written here, and its identities."""

import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.preprocessing import MinMaxScaler
from skfair_manifold.utils._sklearn_compat import InvalidParameterError

from skfair_manifold.distances import extend_dist, extended_set_distance
from skfair_manifold.metrics import (
    LOG10_FACTOR,
    UndefinedFairnessWarning,
    hfm_avg,
    hfm_max,
    hfm_report,
)
from skfair_manifold.metrics._hfm._values import MSG_D_ZERO, MSG_DF_ZERO


def plain_rows(X, y, a):
    """Distance from each point (y_i, x_i) to the nearest point of another group."""
    Z = np.column_stack([y, X])
    D = np.sqrt(((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1))
    return np.array([D[i, a != a[i]].min() for i in range(len(y))])


def plain_hfm(X, y_true, y_pred, A, scale=True):
    X = np.asarray(X, dtype=float)
    if scale:
        span = X.max(0) - X.min(0)
        X = (X - X.min(0)) / np.where(span == 0, 1, span)
    A = np.asarray(A).reshape(len(y_true), -1)
    rt = np.array([plain_rows(X, y_true, A[:, k]) for k in range(A.shape[1])])
    rp = np.array([plain_rows(X, y_pred, A[:, k]) for k in range(A.shape[1])])
    d, d_f = rt.max(1).max(), rp.max(1).max()  # Eq. 6
    a, a_f = rt.mean(1).mean(), rp.mean(1).mean()  # Eq. 7
    return np.log(d_f / d), np.log(a_f / a), rt, rp


def make(seed, n=120, p=4, n_groups=(3,), scale_col=1.0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, p))
    X[:, 0] *= scale_col
    A = np.column_stack([rng.integers(0, g, n) for g in n_groups])
    y_true = (X[:, 1] + 0.2 * A[:, 0] > 0.6).astype(int)
    y_pred = y_true.copy()
    flip = rng.random(n) < 0.2
    y_pred[flip] = 1 - y_pred[flip]
    return X, y_true, y_pred, A


@pytest.mark.parametrize("n_groups", [(2,), (3,), (6,), (2, 6), (3, 5)])
@pytest.mark.parametrize("seed", range(3))
def test_exact_matches_plain(n_groups, seed):
    X, y_true, y_pred, A = make(seed, n_groups=n_groups, scale_col=50.0)
    ref_max, ref_avg, rt, rp = plain_hfm(X, y_true, y_pred, A)
    assert_allclose(hfm_max(y_true, y_pred, X=X, sensitive_features=A, method="exact"),
                    ref_max, rtol=0, atol=1e-9)
    assert_allclose(hfm_avg(y_true, y_pred, X=X, sensitive_features=A, method="exact"),
                    ref_avg, rtol=0, atol=1e-9)
    r = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method="exact")
    assert_allclose(r.per_attribute.hfm_max, np.log(rp.max(1) / rt.max(1)), atol=1e-9)
    assert_allclose(r.per_attribute.hfm_avg, np.log(rp.mean(1) / rt.mean(1)), atol=1e-9)
    assert_allclose(r.row_distances_true, rt.T, atol=1e-9)
    assert_allclose(r.row_distances_pred, rp.T, atol=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_log_ratio_identity_with_the_distance_functions(seed):
    X, y_true, y_pred, A = make(seed, n=300, n_groups=(2, 5))
    d = extended_set_distance(X, y_true, A)
    d_f = extended_set_distance(X, y_pred, A)
    kw = dict(X=X, sensitive_features=A, scale=False)
    assert_allclose(hfm_max(y_true, y_pred, method="exact", **kw), np.log(d_f[0] / d[0]),
                    rtol=1e-12)
    assert_allclose(hfm_avg(y_true, y_pred, method="exact", **kw), np.log(d_f[1] / d[1]),
                    rtol=1e-12)
    # approx: the raw values use the same projections as extend_dist with the
    # same integer seed
    e = extend_dist(X, y_true, A, random_state=seed)
    e_f = extend_dist(X, y_pred, A, random_state=seed)
    raw = hfm_report(y_true, y_pred, method="approx", m1=25, random_state=seed, **kw).raw
    assert_allclose(raw.hfm_max, np.log(e_f[0] / e[0]), rtol=1e-12)
    assert_allclose(raw.hfm_avg, np.log(e_f[1] / e[1]), rtol=1e-12)
    assert_allclose([raw.d_max, raw.d_avg], e, rtol=1e-12)


def test_report_agrees_with_single_values_and_details():
    X, y_true, y_pred, A = make(4, n=200, n_groups=(2, 6))
    frame = pd.DataFrame({"sex": A[:, 0], "race": np.array(list("abcdef"))[A[:, 1]]})
    for method in ("exact", "approx"):
        r = hfm_report(y_true, y_pred, X=X, sensitive_features=frame, method=method,
                       random_state=0)
        assert r.attributes == ["sex", "race"]
        assert r.hfm_max == hfm_max(y_true, y_pred, X=X, sensitive_features=frame,
                                    method=method, random_state=0)
        assert r.hfm_avg == hfm_avg(y_true, y_pred, X=X, sensitive_features=frame,
                                    method=method, random_state=0)
        assert_allclose(r.hfm_max, np.log(r.d_f_max / r.d_max))
        assert r.d_max == r.per_attribute.d_max.max()
        assert_allclose(r.d_f_avg, r.per_attribute.d_f_avg.mean())
    Xs = MinMaxScaler().fit_transform(X)
    _, _, det = extended_set_distance(Xs, y_true, frame, return_details=True)
    r = hfm_report(y_true, y_pred, X=X, sensitive_features=frame, method="exact")
    assert_allclose(r.per_attribute.d_max, det.d_max, atol=1e-12)
    assert_allclose(r.per_attribute.d_avg, det.d_avg, atol=1e-12)
    assert_allclose(r.hfm_max * LOG10_FACTOR, np.log10(r.d_f_max / r.d_max))


def test_scale_is_min_max_on_the_rows_scored():
    X, y_true, y_pred, A = make(1, n=150, n_groups=(3,))
    Xs = MinMaxScaler().fit_transform(X)
    for f in (hfm_max, hfm_avg):
        scaled = f(y_true, y_pred, X=X, sensitive_features=A, method="exact")
        assert_allclose(scaled, f(y_true, y_pred, X=Xs, sensitive_features=A,
                                  method="exact", scale=False), atol=1e-12)
        # an income in dollars cannot drown the label
        dollars = X.copy()
        dollars[:, 0] = 20_000 + 90_000 * dollars[:, 0]
        assert_allclose(f(y_true, y_pred, X=dollars, sensitive_features=A, method="exact"),
                        scaled, atol=1e-9)
        unscaled = f(y_true, y_pred, X=dollars, sensitive_features=A, method="exact",
                     scale=False)
        assert abs(unscaled) < 1e-3 < abs(scaled)  # the label is lost without scaling


def structured(seed, n=600, p=10):
    """Tight clusters: the approximation's best case, as the paper's Prop. 2 says."""
    rng = np.random.default_rng(seed)
    centers = rng.random((6, p))
    c = rng.integers(0, 6, n)
    X = centers[c] + 0.03 * rng.standard_normal((n, p))
    A = np.column_stack([rng.integers(0, 2, n), (c + rng.integers(0, 2, n)) % 3])
    y_true = c % 2
    y_pred = y_true.copy()
    flip = rng.random(n) < 0.1
    y_pred[flip] = 1 - y_pred[flip]
    return X, y_true, y_pred, A


@pytest.mark.parametrize("seed", range(4))
def test_exact_and_approx_agree_on_structured_data(seed):
    X, y_true, y_pred, A = structured(seed)
    e = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method="exact")
    a = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method="approx",
                   random_state=seed)
    for key in ("d_max", "d_f_max", "d_avg", "d_f_avg"):
        assert a[key] >= e[key] - 1e-12  # every kept distance is a real one
        assert a[key] <= 1.02 * e[key], key  # stated threshold: 2 % on structured data
    assert abs(a.hfm_max - e.hfm_max) < 0.02
    assert abs(a.hfm_avg - e.hfm_avg) < 0.02


def test_approx_equals_exact_when_every_row_is_compared():
    X, y_true, y_pred, A = make(2, n=60, n_groups=(2, 3))
    kw = dict(X=X, sensitive_features=A)
    assert_allclose(hfm_avg(y_true, y_pred, method="approx", m2=60, m1=1, **kw),
                    hfm_avg(y_true, y_pred, method="exact", **kw), atol=1e-9)


def test_n_jobs_and_seed_give_identical_values():
    X, y_true, y_pred, A = make(3, n=400, n_groups=(2, 5))
    for method in ("exact", "approx"):
        one = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method=method,
                         random_state=7, n_jobs=1)
        two = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method=method,
                         random_state=7, n_jobs=2)
        assert one.hfm_max == two.hfm_max and one.hfm_avg == two.hfm_avg


def test_labels_multiclass_and_strings():
    X, _, _, A = make(5, n=90, n_groups=(3,))
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 3, 90)
    y_pred = np.where(rng.random(90) < 0.3, rng.integers(0, 3, 90), y_true)
    ref_max, ref_avg, _, _ = plain_hfm(X, y_true, y_pred, A)
    assert_allclose(hfm_max(y_true, y_pred, X=X, sensitive_features=A, method="exact"),
                    ref_max, atol=1e-9)
    names = np.array(["high", "low", "mid"])  # sorted order: high=0, low=1, mid=2
    assert_allclose(hfm_avg(names[y_true], names[y_pred], X=X, sensitive_features=A,
                            method="exact"), ref_avg, atol=1e-9)


def test_undefined_values_follow_the_policy():
    X = [[0.0], [0.0], [1.0], [1.0]]
    a = [0, 1, 0, 1]
    # every row has a twin in the other group with the same true label: D = 0
    with pytest.warns(UndefinedFairnessWarning, match="D = 0 with the true labels"):
        assert np.isnan(hfm_max([0, 0, 1, 1], [0, 1, 1, 1], X=X, sensitive_features=a,
                                method="exact"))
    with pytest.warns(UndefinedFairnessWarning, match="D_f = 0 with the predictions"):
        assert np.isnan(hfm_avg([0, 1, 1, 1], [0, 0, 1, 1], X=X, sensitive_features=a,
                                method="exact"))
    with pytest.warns(UndefinedFairnessWarning):
        r = hfm_report([0, 0, 1, 1], [0, 1, 1, 1], X=X, sensitive_features=a,
                       method="exact")
    assert np.isnan(r.hfm_max) and np.isnan(r.per_attribute.hfm_max[0])
    assert r.d_max == 0 and r.d_f_max > 0
    assert "never a sentinel" in MSG_D_ZERO and "log(0) = -inf" in MSG_DF_ZERO
    # defined values raise no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hfm_max([0, 1, 1, 0], [0, 1, 1, 1], X=X, sensitive_features=a, method="exact")


def test_bad_input():
    X, y_true, y_pred, A = make(0, n=20)
    kw = dict(X=X, sensitive_features=A)
    with pytest.raises(InvalidParameterError, match="method"):
        hfm_max(y_true, y_pred, method="fast", **kw)
    with pytest.raises(InvalidParameterError, match="m1"):
        hfm_max(y_true, y_pred, m1=0, **kw)
    with pytest.raises(ValueError, match="y_pred has 19 rows"):
        hfm_max(y_true, y_pred[:-1], **kw)
    with pytest.raises(ValueError, match="sensitive_features 0"):
        hfm_max(y_true, y_pred, X=X, sensitive_features=A[:-1])
    with pytest.raises(ValueError, match="single group"):
        hfm_avg(y_true, y_pred, X=X, sensitive_features=np.zeros(20))
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        hfm_avg(y_true, y_pred, X=bad, sensitive_features=A)
    with pytest.raises(ValueError, match="n_vectors=9"):
        hfm_avg(y_true, y_pred, n_vectors=9, **kw)
    with pytest.raises(TypeError, match="numeric"):
        hfm_avg(y_true, y_pred, X=np.array([["a"]] * 20), sensitive_features=A)


def test_candidates_others_is_passed_to_the_engine():
    """``candidates`` reaches the engine: both labels use the paper's reading."""
    rng = np.random.default_rng(3)
    n = 800
    X = rng.random((n, 4))
    a = (rng.random(n) < 0.15).astype(int)  # one dominant group
    y_true = (X[:, 0] > 0.5).astype(float)
    y_pred = (X[:, 0] + 0.2 * rng.random(n) > 0.55).astype(float)
    rep = hfm_report(y_true, y_pred, X=X, sensitive_features=a, random_state=0,
                     candidates="others", scale=False, method="approx", m1=25)
    assert rep.candidates == "others"
    raw = rep.raw
    for y, d_max, d_avg in ((y_true, raw.d_max, raw.d_avg), (y_pred, raw.d_f_max, raw.d_f_avg)):
        ref = extend_dist(X, y, a, random_state=0, candidates="others")
        assert_allclose([d_max, d_avg], ref, rtol=1e-12)


def test_the_metric_layer_enters_the_engine_by_one_name():
    """metrics/_hfm.py and _hfm_values.py keep Eq. 8; everything about distances comes
    from one entry."""
    import ast
    import inspect

    from skfair_manifold.metrics._hfm import _metrics as _hfm
    from skfair_manifold.metrics._hfm import _values as _hfm_values

    imported = []
    for module in (_hfm, _hfm_values):
        tree = ast.parse(inspect.getsource(module))
        imported += [(node.module, [a.name for a in node.names]) for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and "distances" in (node.module or "")]
    assert imported == [("distances._rows", ["row_distances"])]
