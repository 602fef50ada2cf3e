import pytest
import numpy as np


def brute_row_distances(X, y, a):
    """Plain O(n^2) reference: distance from each (y, x) to the nearest other-group row."""
    Z = np.column_stack([np.asarray(y, dtype=float), np.asarray(X, dtype=float)])
    diff = Z[:, None, :] - Z[None, :, :]
    dist = np.sqrt((diff ** 2).sum(axis=-1))
    a = np.asarray(a)
    other = a[:, None] != a[None, :]
    return np.where(other, dist, np.inf).min(axis=1)


def make_data(seed, n=120, p=4, n_groups=(2,), ties=True):
    """Random data with ties and duplicate rows across groups."""
    rng = np.random.default_rng(seed)
    if ties:
        X = rng.integers(0, 3, size=(n, p)).astype(float) / 2.0  # many equal coordinates
        X[: n // 4] = rng.random((n // 4, p))
    else:
        X = rng.random((n, p))
    y = rng.integers(0, 2, n).astype(float)
    A = np.column_stack([rng.integers(0, g, n) for g in n_groups])
    for g_idx, g in enumerate(n_groups):  # every group present
        A[:g, g_idx] = np.arange(g)
    # exact duplicates of rows, placed in other groups
    dup = rng.choice(n, size=n // 10, replace=False)
    src = rng.choice(n, size=n // 10, replace=False)
    X[dup] = X[src]
    y[dup] = y[src]
    return X, y, A


def flipped_uniform(n, p, groups=(2, 4), seed=0):
    """Uniform features, attributes of ``groups`` values, the labels ``x_0 > 0.5``
    and predictions with 10% of them flipped: ``(X, A, y, y_pred)``."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, p))
    A = np.column_stack([rng.integers(0, g, n) for g in groups])
    y = (X[:, 0] > 0.5).astype(int)
    y_pred = np.where(rng.random(n) < 0.1, 1 - y, y)
    return X, A, y, y_pred


@pytest.fixture(params=["engine", "index"])
def engine_path(request):
    """Every pass of the exact engine over all rows by the pair blocks, then by the trees."""
    from skfair_manifold.distances._testing import exact_path

    with exact_path(request.param):
        yield request.param
