import numpy as np
import pytest
from numpy.testing import assert_allclose

from skfair_manifold.distances import extended_set_distance, set_distance
from skfair_manifold.distances._exact import exact_row_distances

from .conftest import brute_row_distances, make_data

# every test by the pair blocks and by the k-d trees (the engine's two paths)
pytestmark = pytest.mark.usefixtures("engine_path")


@pytest.mark.parametrize("n_groups", [2, 3, 7])
@pytest.mark.parametrize("seed", range(4))
def test_set_distance_matches_brute_force(n_groups, seed):
    X, y, A = make_data(seed, n_groups=(n_groups,))
    rows = brute_row_distances(X, y, A[:, 0])
    d_max, d_avg, details = set_distance(X, y, A[:, 0], return_details=True)
    assert_allclose(d_max, rows.max(), rtol=0, atol=1e-9)
    assert_allclose(d_avg, rows.mean(), rtol=0, atol=1e-9)
    assert_allclose(details.row_distances[:, 0], rows, rtol=0, atol=1e-9)


def test_duplicates_across_groups_give_exact_zero():
    X = np.array([[0.3, 0.7], [0.3, 0.7], [5.0, 5.0], [5.0, 5.1]])
    y = np.array([1.0, 1.0, 0.0, 0.0])
    a = np.array([0, 1, 0, 1])
    _, _, details = set_distance(X, y, a, return_details=True)
    assert details.row_distances[0, 0] == 0.0
    assert details.row_distances[1, 0] == 0.0
    assert_allclose(details.row_distances[2:, 0], 0.1, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_extended_matches_brute_force(seed):
    X, y, A = make_data(seed, n=150, n_groups=(2, 3, 7))
    per_attr = np.array([brute_row_distances(X, y, A[:, k]) for k in range(3)])
    d_max, d_avg, details = extended_set_distance(X, y, A, return_details=True)
    assert_allclose(details.d_max, per_attr.max(axis=1), atol=1e-9, rtol=0)
    assert_allclose(details.d_avg, per_attr.mean(axis=1), atol=1e-9, rtol=0)
    assert_allclose(d_max, per_attr.max(), atol=1e-9, rtol=0)  # Eq. 6
    assert_allclose(d_avg, per_attr.mean(axis=1).mean(), atol=1e-9, rtol=0)  # Eq. 7
    assert details.attributes == [0, 1, 2]


def test_several_labels_share_one_pass():
    X, y, A = make_data(7, n=130, n_groups=(2, 5))
    rng = np.random.default_rng(7)
    y_pred = rng.integers(0, 3, X.shape[0]).astype(float)  # multi-class prediction
    codes = [np.unique(A[:, k], return_inverse=True)[1] for k in range(2)]
    got = exact_row_distances(X, [y, y_pred], codes)
    for l, lab in enumerate([y, y_pred]):
        for k in range(2):
            assert_allclose(got[l, k], brute_row_distances(X, lab, A[:, k]), atol=1e-9, rtol=0)


@pytest.mark.parametrize("working_memory", [0.001, 0.05])
def test_small_blocks_and_threads_give_identical_results(working_memory):
    X, y, A = make_data(3, n=200, n_groups=(3, 4))
    codes = [np.unique(A[:, k], return_inverse=True)[1] for k in range(2)]
    base = exact_row_distances(X, [y], codes)
    chunked = exact_row_distances(X, [y], codes, working_memory=working_memory)
    threaded = exact_row_distances(X, [y], codes, n_jobs=2, working_memory=working_memory)
    assert_allclose(chunked, base, atol=1e-12, rtol=0)
    assert np.array_equal(threaded, chunked)


@pytest.mark.parametrize("seed", range(3))
def test_invariant_under_row_permutation_and_relabelling(seed):
    X, y, A = make_data(seed, n=140, n_groups=(2, 6))
    ref = extended_set_distance(X, y, A, return_details=True)
    perm = np.random.default_rng(seed).permutation(X.shape[0])
    names = np.array(["zeta", "alpha", "mid", "q", "b", "k", "x"], dtype=object)
    A_relabel = np.column_stack([names[A[:, 0]], (A[:, 1] * 10 + 3)]).astype(object)
    got = extended_set_distance(X[perm], y[perm], A_relabel[perm], return_details=True)
    assert_allclose(got[0], ref[0], atol=1e-12, rtol=0)
    assert_allclose(got[1], ref[1], atol=1e-12, rtol=0)
    assert_allclose(got[2].row_distances, ref[2].row_distances[perm], atol=1e-12, rtol=0)


def test_dataframe_input_and_names():
    pd = pytest.importorskip("pandas")
    X, y, A = make_data(1, n=80, n_groups=(2, 3))
    Xdf = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    Adf = pd.DataFrame({"sex": np.where(A[:, 0] == 0, "F", "M"), "race": A[:, 1]})
    d_max, d_avg, details = extended_set_distance(Xdf, pd.Series(y), Adf, return_details=True)
    assert details.attributes == ["sex", "race"]
    assert_allclose(d_max, extended_set_distance(X, y, A)[0], atol=1e-12)


def test_inputs_not_modified():
    X, y, A = make_data(2, n=60, n_groups=(3,))
    X0, y0, A0 = X.copy(), y.copy(), A.copy()
    set_distance(X, y, A[:, 0])
    extended_set_distance(X, y, A)
    assert np.array_equal(X, X0) and np.array_equal(y, y0) and np.array_equal(A, A0)


def test_dask_backend_runs_the_row_blocks(engine_path):
    pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    import joblib

    X, y, A = make_data(4, n=150, n_groups=(2, 3))
    codes = [np.unique(A[:, k], return_inverse=True)[1] for k in range(2)]
    ref = exact_row_distances(X, [y], codes, working_memory=0.01)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            with distributed.get_task_stream(client) as stream:
                with joblib.parallel_config(backend="dask"):
                    got = exact_row_distances(X, [y], codes, n_jobs=2, working_memory=0.01)
            assert len(stream.data) > 1  # the row blocks ran as dask tasks
    assert np.array_equal(got, ref)


def test_identical_rows_and_integer_keys_match_numpy_unique():
    from skfair_manifold.distances._exact_layout import _identical_rows, _unique_int_rows

    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (500, 3)).astype(float)
    X[::7] = -0.0 * X[::7]  # signed zeros are equal
    ids = _identical_rows(X)
    ref = np.unique(X + 0.0, axis=0, return_inverse=True)[1].reshape(-1)
    # the same partition of the rows
    assert np.array_equal(ids[:, None] == ids[None, :], ref[:, None] == ref[None, :])
    keys = rng.integers(0, 6, (400, 3))
    table, inverse = _unique_int_rows(keys)
    ref_table, ref_inverse = np.unique(keys, axis=0, return_inverse=True)
    assert np.array_equal(table, ref_table)
    assert np.array_equal(inverse, ref_inverse.reshape(-1))
