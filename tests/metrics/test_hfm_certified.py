"""The certified approximation of HFM: intervals against exact values computed here."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from skfair_manifold.metrics import hfm_avg, hfm_max, hfm_report
from skfair_manifold.metrics._hfm._metrics import DEFAULT_SAMPLE_SIZE

N = 4000
KEYS_MEAN = ("d_avg", "d_f_avg", "hfm_avg")
KEYS_MAX = ("d_max", "d_f_max", "hfm_max")


def shape(name, n=N, seed=1):
    rng = np.random.default_rng(seed)
    if name == "uniform":
        X = rng.random((n, 5))
        A = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 3, n)])
        y_true = (X[:, 0] + 0.1 * A[:, 1] > 0.6).astype(int)
    elif name == "clustered":
        c = rng.integers(0, 8, n)
        X = rng.random((8, 6))[c] + 0.05 * rng.standard_normal((n, 6))
        A = np.column_stack([rng.integers(0, 2, n), (c + rng.integers(0, 2, n)) % 3])
        y_true = c % 2
    elif name == "dominant":  # one group holds 92% of the rows
        X = rng.random((n, 4))
        A = (rng.random(n) < 0.08).astype(int)
        y_true = (X[:, 1] > 0.5).astype(int)
    else:  # a continuous label
        X = rng.random((n, 3))
        A = rng.integers(0, 3, n)
        y_true = X[:, 0] + 0.3 * rng.random(n)
        return X, y_true, y_true + 0.1 * rng.standard_normal(n), A
    y_pred = np.where(rng.random(n) < 0.12, 1 - y_true, y_true)
    return X, y_true, y_pred, A


def plain_exact(X, y_true, y_pred, A):
    """Eq. 4-8 by brute force, written independently of the package."""
    X = (X - X.min(0)) / (X.max(0) - X.min(0))
    A = np.asarray(A).reshape(len(X), -1)
    out = {}
    for tag, y in (("", y_true), ("_f", y_pred)):
        Z = np.column_stack([y, X])
        sq = (Z ** 2).sum(1)
        maxima, means = [], []
        for k in range(A.shape[1]):
            rows = np.empty(len(X))
            for start in range(0, len(X), 500):
                block = Z[start:start + 500]
                d2 = sq[start:start + 500, None] + sq[None, :] - 2 * block @ Z.T
                d2[A[start:start + 500, k, None] == A[None, :, k]] = np.inf
                rows[start:start + 500] = np.sqrt(np.maximum(d2.min(1), 0))
            maxima.append(rows.max())
            means.append(rows.mean())
        out[f"d{tag}_max"], out[f"d{tag}_avg"] = max(maxima), np.mean(means)
    out["hfm_max"] = np.log(out["d_f_max"] / out["d_max"])
    out["hfm_avg"] = np.log(out["d_f_avg"] / out["d_avg"])
    return out


SHAPES = ["uniform", "clustered", "dominant", "continuous"]


@pytest.mark.parametrize("name", SHAPES)
def test_intervals_cover_the_exact_value(name):
    X, y_true, y_pred, A = shape(name)
    exact = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method="exact")
    plain = plain_exact(X, y_true, y_pred, A)
    for key in KEYS_MEAN + KEYS_MAX:  # the reference engine agrees with brute force
        assert_allclose(exact[key], plain[key], rtol=1e-6)
    covered = dict.fromkeys(KEYS_MEAN, 0)
    for seed in range(40):
        r = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method="approx", m1=10,
                       sample_size=1000, random_state=seed)
        for key in KEYS_MEAN:
            low, high = r.ci[key]
            covered[key] += low - 1e-12 <= exact[key] <= high + 1e-12
            assert low <= r[key] <= high or key == "hfm_avg"
        # the maxima's bounds are certain, and exact when the check completed
        for key in KEYS_MAX:
            low, high = r.ci[key]
            assert low - 1e-12 <= exact[key] <= high + 1e-12, (key, seed)
        for key, done in (("d_max", r.max_check.d_max_exact),
                          ("d_f_max", r.max_check.d_f_max_exact)):
            if done:
                assert_allclose(r[key], exact[key], rtol=1e-12)
        assert r.d_avg <= r.raw.d_avg and r.d_f_avg <= r.raw.d_f_avg
    assert min(covered.values()) >= 36, covered  # at least 90% of 40 seeds


@pytest.mark.parametrize("name", SHAPES)
def test_max_bounds_are_certain_for_any_budget(name):
    X, y_true, y_pred, A = shape(name, n=1500)
    exact = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method="exact")
    for budget in (0, 10, 100, 1500):
        r = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method="approx", m1=3,
                       sample_size=50, max_checks=budget, random_state=budget)
        assert r.max_check.n_checked <= budget
        for key in KEYS_MAX:
            low, high = r.ci[key]
            assert low - 1e-12 <= exact[key] <= high + 1e-12, (key, budget)
        per_low, per_high = r.per_attribute.ci.d_max.T
        assert np.all(per_low <= exact.per_attribute.d_max + 1e-12)
        assert np.all(exact.per_attribute.d_max <= per_high + 1e-12)
        if budget == 1500:  # a budget of every row always completes
            assert r.max_check.d_max_exact and r.max_check.d_f_max_exact
            assert r.ci.d_max == (exact.d_max, exact.d_max) or \
                np.allclose(r.ci.d_max, exact.d_max, rtol=1e-12)
            assert_allclose(r.per_attribute.d_max, exact.per_attribute.d_max, rtol=1e-12)


def test_exact_method_gives_degenerate_pairs_and_auto_is_bit_identical():
    X, y_true, y_pred, A = shape("uniform", n=2500)
    e = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method="exact")
    auto = hfm_report(y_true, y_pred, X=X, sensitive_features=A)
    assert auto.method == "exact" and auto.requested_method == "auto"
    for key in KEYS_MEAN + KEYS_MAX:
        assert e.ci[key] == (e[key], e[key])
        assert auto[key] == e[key]
        assert np.array_equal(e.per_attribute.ci[key][:, 0], e.per_attribute[key],
                              equal_nan=True)
    assert np.array_equal(auto.row_distances_true, e.row_distances_true)
    kw = dict(X=X, sensitive_features=A)
    assert hfm_max(y_true, y_pred, **kw) == hfm_max(y_true, y_pred, method="exact", **kw)
    assert hfm_avg(y_true, y_pred, **kw) == hfm_avg(y_true, y_pred, method="exact", **kw)


def test_auto_uses_the_approximation_where_the_cost_model_says_so(monkeypatch):
    from skfair_manifold.distances import _cost

    X, y_true, y_pred, A = shape("uniform", n=3000)
    monkeypatch.setattr(_cost, "ENGINE_NS", (1e4, 0.0))  # exact made dear
    monkeypatch.setattr(_cost, "LISTS_NS", (1e4, 0.0))
    monkeypatch.setattr(_cost, "INDEX_POINT_NS", (1e7, 0.0, 0.0))
    r = hfm_report(y_true, y_pred, X=X, sensitive_features=A, sample_size=500,
                   random_state=0)
    assert r.method == "approx" and r.requested_method == "auto"
    assert r.auto.method == "approx" and r.auto.exact_s > r.auto.approx_s


def test_sample_covering_the_data_gives_the_exact_values():
    X, y_true, y_pred, A = shape("dominant", n=800)
    e = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method="exact")
    r = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method="approx",
                   sample_size=800, random_state=0)
    for key in KEYS_MEAN + KEYS_MAX:
        assert_allclose(r[key], e[key], rtol=1e-12)
        assert_allclose(r.ci[key], e[key], rtol=1e-12)


def test_identical_for_any_n_jobs_and_reproducible():
    X, y_true, y_pred, A = shape("clustered", n=3000)
    kw = dict(X=X, sensitive_features=A, method="approx", m1=4, sample_size=300,
              max_checks=200, random_state=3)
    one = hfm_report(y_true, y_pred, n_jobs=1, **kw)
    two = hfm_report(y_true, y_pred, n_jobs=2, **kw)
    for key in KEYS_MEAN + KEYS_MAX:
        assert one[key] == two[key] and one.ci[key] == two.ci[key]
        assert np.array_equal(one.per_attribute.ci[key], two.per_attribute.ci[key],
                              equal_nan=True)
    assert one.max_check.n_checked == two.max_check.n_checked
    assert np.array_equal(one.raw.per_attribute.d_avg, two.raw.per_attribute.d_avg)
    other = hfm_report(y_true, y_pred, **dict(kw, random_state=4))
    assert other.d_avg != one.d_avg


def test_confidence_sets_the_width():
    X, y_true, y_pred, A = shape("uniform", n=3000)
    kw = dict(X=X, sensitive_features=A, method="approx", m1=3, sample_size=300,
              random_state=0)
    widths = []
    for level in (0.5, 0.95, 0.999):
        r = hfm_report(y_true, y_pred, confidence=level, **kw)
        assert r.confidence == level
        widths.append(r.ci.d_avg[1] - r.ci.d_avg[0])
    assert widths[0] < widths[1] < widths[2]


def test_options_are_validated():
    from sklearn.utils._param_validation import InvalidParameterError

    X, y_true, y_pred, A = shape("uniform", n=100)
    kw = dict(X=X, sensitive_features=A)
    for bad in (dict(sample_size=1), dict(max_checks=-1), dict(confidence=1.0),
                dict(confidence=0), dict(method="fast")):
        with pytest.raises(InvalidParameterError):
            hfm_report(y_true, y_pred, **kw, **bad)


def test_dask_cluster_of_processes_runs_projections_and_checks():
    """Projection passes and exact checks go through joblib: a dask cluster runs them."""
    pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    import joblib

    X, y_true, y_pred, A = shape("uniform", n=3000)
    kw = dict(X=X, sensitive_features=A, method="approx", m1=4, sample_size=300,
              max_checks=300, random_state=5)
    ref = hfm_report(y_true, y_pred, n_jobs=1, **kw)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            with distributed.get_task_stream(client) as stream:
                with joblib.parallel_config(backend="dask"):
                    got = hfm_report(y_true, y_pred, n_jobs=2, **kw)
            names = {task["key"] if isinstance(task["key"], str) else str(task["key"])
                     for task in stream.data}
    # both kinds of blocks ran as dask tasks on the worker processes
    assert any("_run_projections" in name for name in names), names
    assert any("_process_blocks" in name for name in names), names
    for key in KEYS_MEAN + KEYS_MAX:
        assert got[key] == ref[key] and got.ci[key] == ref.ci[key]
    assert np.array_equal(got.row_distances_true, ref.row_distances_true)
    assert got.max_check.n_checked == ref.max_check.n_checked
