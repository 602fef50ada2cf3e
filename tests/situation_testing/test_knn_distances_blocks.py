"""KNN-DD's distances summed a few rows at a time are the plain sums, bit for bit.

The sums run column by column in buffers kept in the cache (3,000 rows x 500
numeric columns at ``k="auto"`` took 59 s with whole temporaries); the
reference is the plain sum in the same column order.
"""

import numpy as np
import pytest

from skfair_manifold.situation_testing._selection import _knn


def _plain(Q, P, weights, nominal):
    D = np.zeros((Q.shape[0], P.shape[0]))
    for j in range(Q.shape[1]):
        if nominal[j]:
            D += (Q[:, j, None] != P[None, :, j]) * weights[j]
        else:
            D += np.abs(Q[:, j, None] - P[None, :, j]) * weights[j]
    return np.round(D, 10, out=D)


@pytest.mark.parametrize("cells", [1, 7, 2 ** 17])
def test_blocks_of_rows_give_the_plain_sums(monkeypatch, cells):
    rng = np.random.default_rng(0)
    nominal = np.array([False, True, False, True, False] * 4)
    Q = np.where(nominal, rng.integers(0, 3, (37, 20)), rng.normal(size=(37, 20)))
    P = np.where(nominal, rng.integers(0, 3, (53, 20)), rng.normal(size=(53, 20)))
    weights = rng.random(20) / 20
    monkeypatch.setattr(_knn, "_CACHE_CELLS", cells)
    got = _knn.knn_profile_distances(Q, P, weights, nominal)
    np.testing.assert_array_equal(got, _plain(Q, P, weights, nominal))
    assert _knn.knn_profile_distances(Q[:0], P, weights, nominal).shape == (0, 53)
    assert _knn.knn_profile_distances(Q, P[:0], weights, nominal).shape == (37, 0)
