"""The people behind HFM's maxima, against a plain search over all pairs."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from skfair_manifold.metrics import hfm_report


def brute_pairs(X, y, a):
    """Distance of every pair of rows (label as first coordinate), inf within a group."""
    Z = np.column_stack([np.asarray(y, dtype=float), np.asarray(X, dtype=float)])
    dist = np.sqrt(((Z[:, None, :] - Z[None, :, :]) ** 2).sum(axis=-1))
    a = np.asarray(a)
    return np.where(a[:, None] != a[None, :], dist, np.inf)


def data(seed, n=150):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, 3)) / 3.0
    X[:20] = rng.random((20, 3))
    sex = np.array(["f", "m"])[rng.integers(0, 2, n)]
    region = np.array(["east", "north", "south"])[rng.integers(0, 3, n)]
    y_true = rng.integers(0, 2, n)
    y_pred = np.where(rng.random(n) < 0.25, 1 - y_true, y_true)
    return X, sex, region, y_true, y_pred


@pytest.mark.parametrize("seed", range(4))
def test_witnesses_of_the_maxima_match_a_brute_force_pair_search(seed):
    pd = pytest.importorskip("pandas")
    X, sex, region, y_true, y_pred = data(seed)
    A = pd.DataFrame({"sex": sex, "region": region})
    r = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method="exact", scale=False)
    maxima = r.witnesses.maxima
    assert [(w.labels, w.attribute) for w in maxima] == [
        (lab, att) for lab in ("y_true", "y_pred") for att in ("sex", "region")]
    for w in maxima:
        labels = y_true if w.labels == "y_true" else y_pred
        groups = A[w.attribute].to_numpy()
        pairs = brute_pairs(X, labels, groups)
        row_dist = pairs.min(axis=1)
        i, j = w.row, w.nearest_row
        # the row realises the maximum, the nearest row its distance (ties within
        # rounding may be either of the tied rows)
        assert_allclose(row_dist[i], row_dist.max(), rtol=1e-12)
        assert_allclose(pairs[i, j], row_dist[i], rtol=1e-12)
        assert row_dist[i] >= row_dist.max() * (1 - 1e-12)
        assert (w.group, w.nearest_group) == (groups[i], groups[j])
        assert w.group != w.nearest_group
        assert_allclose(w.distance, pairs[i, j], rtol=1e-12)
        assert i == int(np.argmax(r.row_distances_true[:, list(r.attributes).index(
            w.attribute)] if w.labels == "y_true" else r.row_distances_pred[
            :, list(r.attributes).index(w.attribute)]))  # the first row of the maximum
        # the witness's distance is the reported maximum itself
        k = list(r.attributes).index(w.attribute)
        per = r.per_attribute.d_max if w.labels == "y_true" else r.per_attribute.d_f_max
        assert w.distance == per[k]
    for lab, top in (("y_true", r.d_max), ("y_pred", r.d_f_max)):
        overall = [w for w in maxima if w.labels == lab and w.overall]
        assert len(overall) == 1 and overall[0].distance == top


def test_rows_the_model_moved_most():
    X, sex, region, y_true, y_pred = data(7)
    A = np.column_stack([sex, region])
    r = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method="exact", scale=False)
    d = np.mean([brute_pairs(X, y_true, A[:, k]).min(axis=1) for k in range(2)], axis=0)
    d_f = np.mean([brute_pairs(X, y_pred, A[:, k]).min(axis=1) for k in range(2)], axis=0)
    change = d_f - d
    changed = r.witnesses.changed
    assert len(changed) == 10
    got = np.array([c.change for c in changed])
    assert np.all(np.diff(np.abs(got)) <= 1e-12)  # largest movement first
    assert_allclose(np.abs(got), np.sort(np.abs(change))[::-1][:10], rtol=1e-12)
    for c in changed:
        assert_allclose([c.d, c.d_f, c.change], [d[c.row], d_f[c.row], change[c.row]],
                        rtol=1e-12, atol=1e-15)


def test_witnesses_with_scaling_and_the_approximation():
    rng = np.random.default_rng(3)
    n = 3000
    X = rng.random((n, 4)) * [1, 10, 100, 1000]
    a = rng.integers(0, 3, n)
    y_true = (X[:, 0] > 0.5).astype(int)
    y_pred = np.where(rng.random(n) < 0.1, 1 - y_true, y_true)
    exact = hfm_report(y_true, y_pred, X=X, sensitive_features=a, method="exact")
    approx = hfm_report(y_true, y_pred, X=X, sensitive_features=a, method="approx",
                        sample_size=500, random_state=0)
    for r in (exact, approx):
        for w in r.witnesses.maxima:
            assert a[w.row] == w.group and a[w.nearest_row] == w.nearest_group
            assert w.group != w.nearest_group
    assert exact.witnesses.maxima[0].distance == exact.d_max
    # with the approximation the pair's distance is exact: never above its row's estimate
    w = approx.witnesses.maxima[0]
    assert w.distance <= approx.row_distances_true[w.row, 0]
