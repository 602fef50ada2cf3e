"""A seeded approximation does not depend on the order of the rows (``_row_order``).

Before the order of the rows' content, ``method="approx", random_state=0`` on
the same rows shuffled gave hfm_avg 0.02494 or 0.02940: the projections' ties
(binary features, repeated records), the sample and the rows checked for the
maxima followed the rows' positions.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from skfair_manifold.distances._row_order import content_order, shared_by_copies
from skfair_manifold.metrics import hfm_report


def tied_table(n=3000, seed=0):
    """Binary and small-integer features, repeated records, two attributes."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 2, (n, 4)), rng.integers(0, 5, (n, 2))]).astype(float)
    X[: n // 5] = X[n // 5: 2 * (n // 5)]  # repeated records
    A = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 3, n)])
    y = (X[:, 0] + X[:, 4] + rng.random(n) > 2.5).astype(int)
    y_pred = np.where(rng.random(n) < 0.1, 1 - y, y)
    return X, A, y, y_pred


@pytest.mark.parametrize("sample_size", ["auto", 500])
def test_the_same_rows_in_another_order_give_the_same_values(sample_size):
    X, A, y, y_pred = tied_table()
    kw = dict(method="approx", random_state=0, sample_size=sample_size)
    base = hfm_report(y, y_pred, X=X, sensitive_features=A, **kw)
    for seed in range(3):
        perm = np.random.default_rng(seed).permutation(y.size)
        other = hfm_report(y[perm], y_pred[perm], X=X[perm], sensitive_features=A[perm], **kw)
        for key in ("hfm_avg", "hfm_max", "d_avg", "d_max", "d_f_avg", "d_f_max"):
            assert_allclose(other[key], base[key], rtol=1e-12, atol=0, err_msg=key)
        for key in ("row_distances_true", "row_distances_pred"):
            # each row its own value (a multiset of them would do; copies share theirs)
            assert np.array_equal(np.asarray(other[key])[np.argsort(perm)],
                                  np.asarray(base[key])), key


def test_content_order_is_a_function_of_the_rows():
    X, A, y, _ = tied_table(n=500)
    perm = np.random.default_rng(1).permutation(500)
    a = content_order(X, [y], [A[:, 0], A[:, 1]])
    b = content_order(X[perm], [y[perm]], [A[perm, 0], A[perm, 1]])
    assert np.array_equal(X[a], X[perm][b]) and np.array_equal(A[a], A[perm][b])
    # -0.0 and 0.0 are one value
    assert np.array_equal(content_order(np.array([[-0.0], [0.0]]), [np.zeros(2)], []),
                          [0, 1])


def test_copies_share_the_least_distance():
    X = np.array([[0.0], [1.0], [0.0], [0.0]])
    y, codes = np.zeros(4), [np.array([0, 0, 0, 1])]
    found = np.array([[3.0, 1.0, 2.0, 5.0]])
    order = content_order(X, [y], codes)
    out = shared_by_copies(found, order, X, [y], codes)
    # rows 0 and 2 are copies (row 3 differs by its group)
    assert out.tolist() == [[2.0, 1.0, 2.0, 5.0]]
