"""Reuse across a search: cached answers equal uncached ones bit for bit."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from skfair_manifold.distances import _content_cache, _neighbour_lists, _reuse
from skfair_manifold.distances._exact import exact_row_distances


@pytest.fixture
def fresh_cache():
    store = _content_cache.cache()
    budget = store.budget
    store.clear()
    yield store
    store.budget = budget
    store.clear()


def fold_data(seed, n=900):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.random((n, 4)), rng.integers(0, 3, (n, 5)) / 2.0])
    X[: n // 10] = X[n // 10: 2 * (n // 10)]  # duplicated feature vectors
    codes = [rng.integers(0, 2, n), rng.integers(0, 4, n)]
    y_true = (X[:, 0] + 0.3 * rng.random(n) > 0.6).astype(float)
    return X, codes, y_true


def labelings(y_true, seed):
    rng = np.random.default_rng(seed)
    n = y_true.size
    one_flipped = y_true.copy()
    one_flipped[n // 2] = 1 - one_flipped[n // 2]
    return {
        "10% flipped": np.where(rng.random(n) < 0.1, 1 - y_true, y_true),
        "40% flipped": np.where(rng.random(n) < 0.4, 1 - y_true, y_true),
        "all one label": np.zeros(n),
        "all the other label": np.ones(n),
        "alternating": (np.arange(n) % 2).astype(float),
        "a single flipped row": one_flipped,
        "the true labels": y_true.copy(),
        "three classes": rng.integers(0, 3, n).astype(float),
    }


@pytest.mark.parametrize("seed", [0, 1])
def test_cached_equals_uncached_bit_for_bit(fresh_cache, seed):
    for fold in range(2):  # two folds, interleaved, each with many labelings
        X, codes, y_true = fold_data(10 * seed + fold)
        for name, y_pred in labelings(y_true, seed).items():
            got = _reuse.exact_rows(X, [y_true, y_pred], codes)
            ref = exact_row_distances(X, [y_true, y_pred], codes)
            assert np.array_equal(got, ref), (fold, name)
    assert fresh_cache.hits > 0
    assert all(f.lists is not None for f in fresh_cache._folds.values())


@pytest.mark.parametrize("plain_rows", [0, 10 ** 6])
def test_neighbour_lists_with_exact_fallback(fresh_cache, monkeypatch, plain_rows):
    """Short lists leave many rows undecided: they are queried exactly (by the
    engine, or by a plain search when they are few)."""
    monkeypatch.setattr(_reuse, "LIST_LENGTH", 2)
    monkeypatch.setattr(_neighbour_lists, "_PLAIN_ROWS", plain_rows)
    X, codes, y_true = fold_data(3, n=500)
    lists = _neighbour_lists.NeighbourLists(X, codes, length=2)
    for name, y_pred in labelings(y_true, 3).items():
        _, undecided = lists.answer(y_pred)
        got = _reuse.exact_rows(X, [y_true, y_pred], codes)
        assert np.array_equal(got, exact_row_distances(X, [y_true, y_pred], codes)), name
    assert undecided.any()  # the fallback was needed for three classes
    assert next(iter(fresh_cache._folds.values())).lists.index[0].shape[1] == 2


def test_lists_decide_most_rows_with_the_default_length():
    X, codes, y_true = fold_data(4, n=1500)
    lists = _neighbour_lists.NeighbourLists(X, codes)
    for name, y_pred in labelings(y_true, 4).items():
        rows, undecided = lists.answer(y_pred)
        ref = exact_row_distances(X, [y_pred], codes)[0]
        assert np.array_equal(rows[~undecided], ref[~undecided]), name
        assert undecided.mean() < 0.05, name


def test_threads_share_the_cache_safely(fresh_cache):
    X, codes, y_true = fold_data(5)
    preds = list(labelings(y_true, 5).values()) * 3
    refs = [exact_row_distances(X, [y_true, p], codes) for p in preds]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda p: _reuse.exact_rows(X, [y_true, p], codes), preds))
    for g, r in zip(got, refs):
        assert np.array_equal(g, r)


def test_memory_bound_and_least_recently_used(fresh_cache):
    X, codes, y_true = fold_data(6, n=400)
    one_fold = X.nbytes + sum(c.nbytes for c in codes)
    fresh_cache.budget = int(2.5 * one_fold)
    folds = [X + i for i in range(4)]
    for Xi in folds:
        for y_pred in list(labelings(y_true, 6).values())[:3]:
            got = _reuse.exact_rows(Xi, [y_true, y_pred], codes)
            assert np.array_equal(got, exact_row_distances(Xi, [y_true, y_pred], codes))
            assert fresh_cache.nbytes <= fresh_cache.budget
    assert len(fresh_cache) <= 2
    kept = [f.arrays[0] for f in fresh_cache._folds.values()]
    assert any(np.array_equal(k, folds[-1]) for k in kept)  # the most recent stays
    assert not any(np.array_equal(k, folds[0]) for k in kept)  # the oldest went first
    # larger than the whole budget: not kept, still right
    fresh_cache.budget = 10
    got = _reuse.exact_rows(X, [y_true, 1 - y_true], codes)
    assert np.array_equal(got, exact_row_distances(X, [y_true, 1 - y_true], codes))
    fresh_cache.budget = 0  # reuse off
    got = _reuse.exact_rows(X, [y_true, 1 - y_true], codes)
    assert np.array_equal(got, exact_row_distances(X, [y_true, 1 - y_true], codes))


def test_a_hash_collision_is_caught_on_hit(fresh_cache, monkeypatch):
    for module in (_content_cache, _reuse):  # the cache's keys and the fold's state
        monkeypatch.setattr(module, "content_key", lambda tag, *arrays, **kw: b"same")
    X, codes, y_true = fold_data(7, n=300)
    for Xi in (X, X[::-1].copy(), X * 2):
        for y_pred in (y_true, 1 - y_true, np.zeros_like(y_true)):
            got = _reuse.exact_rows(Xi, [y_true, y_pred], codes)
            assert np.array_equal(got, exact_row_distances(Xi, [y_true, y_pred], codes))


def test_search_scores_equal_with_and_without_reuse_in_process_workers(fresh_cache):
    """cross_validate with joblib process workers (each its own cache) vs no reuse."""
    import sklearn
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from skfair_manifold.scorers import hfm_avg_scorer, hfm_max_scorer

    rng = np.random.default_rng(8)
    n = 600
    X = rng.random((n, 5))
    A = rng.integers(0, 2, n)
    y = (X[:, 0] + 0.3 * A + 0.2 * rng.random(n) > 0.8).astype(int)
    scoring = {"acc": "accuracy", "max": hfm_max_scorer, "avg": hfm_avg_scorer}
    grid = {"logisticregression__C": [0.01, 0.1, 1.0, 10.0]}
    est = make_pipeline(StandardScaler(), LogisticRegression())

    def search(n_jobs):
        with sklearn.config_context(enable_metadata_routing=True):
            gs = GridSearchCV(est, grid, scoring=scoring, refit=False, cv=3, n_jobs=n_jobs)
            gs.fit(X, y, sensitive_features=A)
        return {k: np.asarray(v) for k, v in gs.cv_results_.items()
                if k.startswith("split") and ("max" in k or "avg" in k)}

    fresh_cache.budget = 0
    uncached = search(1)
    fresh_cache.budget = _content_cache.DEFAULT_BUDGET
    threads_or_serial = search(1)
    processes = search(2)
    for key, ref in uncached.items():
        assert np.array_equal(threads_or_serial[key], ref), key
        assert np.array_equal(processes[key], ref), key
    assert fresh_cache.hits > 0


def test_lists_rank_in_single_precision_yet_stay_exact_on_a_wide_column(fresh_cache):
    """A date in milliseconds beside binary features (ties on the date): the
    single-precision ranking's error bound keeps every answer the engine's."""
    rng = np.random.default_rng(11)
    n = 800
    date = 1.7e12 + rng.integers(0, 30, n) * 86_400_000.0
    X = np.column_stack([date, rng.integers(0, 2, (n, 3)).astype(float),
                         rng.random(n) * 1e-6])
    codes = [rng.integers(0, 2, n), rng.integers(0, 3, n)]
    y_true = rng.integers(0, 2, n).astype(float)
    for name, y_pred in labelings(y_true, 11).items():
        got = _reuse.exact_rows(X, [y_true, y_pred], codes)
        assert np.array_equal(got, exact_row_distances(X, [y_true, y_pred], codes)), name
    lists = next(iter(fresh_cache._folds.values())).lists
    assert lists is not None  # answered from the lists, the first labelling included
    assert fresh_cache.hits >= len(labelings(y_true, 11))  # y_true computed once


def test_ranking_error_bounds_the_single_precision_form():
    rng = np.random.default_rng(12)
    for scale in (1.0, 1e-3):
        Z = (rng.random((300, 40)) * 2 - 1) * scale
        Z[:, :5] = np.round(Z[:, :5])  # ties and +-1 coordinates
        sq = np.einsum("ij,ij->i", Z, Z)
        Z32, sq32 = Z.astype(np.float32), sq.astype(np.float32)
        q = np.hstack([-2.0 * Z32, np.ones((300, 1), np.float32)])
        ref = np.hstack([Z32, sq32[:, None]])
        form = (q @ ref.T).astype(np.float64) + sq[:, None]
        exact = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2)
        err = _neighbour_lists.ranking_error(sq, np.sqrt(sq.max()), Z.shape[1])
        assert np.all(np.abs(form - exact) <= err[:, None])


def test_arrays_differing_outside_the_hashed_rows_are_told_apart(fresh_cache, monkeypatch):
    """The key hashes some rows of a large array; the full comparison on hit
    still tells apart two arrays that differ only elsewhere."""
    monkeypatch.setattr(_content_cache, "_HASHED_BYTES", 64)
    X, codes, y_true = fold_data(8, n=300)
    X2 = X.copy()
    X2[1] += 0.25  # row 1 is not among the hashed rows
    assert _content_cache.content_key("fold", X, sample=True) == \
        _content_cache.content_key("fold", X2, sample=True)
    for Xi in (X, X2, X):
        got = _reuse.exact_rows(Xi, [y_true, 1 - y_true], codes)
        assert np.array_equal(got, exact_row_distances(Xi, [y_true, 1 - y_true], codes))


def test_lists_answer_exactly_when_a_group_is_smaller_than_the_list(fresh_cache):
    """Rows of the large group have fewer rows of other groups than the list's
    length: the empty slots (infinite bounds) never decide, the answer is the
    engine's bit for bit, for a single group of one row too."""
    X, _, y_true = fold_data(5, n=400)
    rng = np.random.default_rng(5)
    tiny = np.zeros(400, dtype=int)
    tiny[rng.choice(400, 3, replace=False)] = 1  # 3 rows < LIST_LENGTH
    single = np.zeros(400, dtype=int)
    single[7] = 1
    codes = [tiny, single]
    lists = _neighbour_lists.NeighbourLists(X, codes)
    assert np.isinf(lists.high2[0]).any()
    for name, y_pred in labelings(y_true, 5).items():
        rows, undecided = lists.answer(y_pred)
        ref = exact_row_distances(X, [y_pred], codes)[0]
        assert np.array_equal(rows[~undecided], ref[~undecided]), name
        assert not undecided.any(), name  # nothing is left out of such lists


@pytest.mark.parametrize("factor", [1e-170, 1e-160, 1e150, 1e160])
def test_lists_answer_exactly_at_the_ends_of_the_float_range(fresh_cache, factor):
    """The squared bounds of the answer underflow to subnormals or overflow to
    inf at these scales; the answer stays the engine's bit for bit."""
    X, codes, y_true = fold_data(6, n=300)
    X = X * factor
    lists = _neighbour_lists.NeighbourLists(X, codes)
    for name, y_pred in labelings(y_true, 6).items():
        rows, undecided = lists.answer(y_pred * factor)
        ref = exact_row_distances(X, [y_pred * factor], codes)[0]
        assert np.array_equal(rows[~undecided], ref[~undecided]), name


def test_a_search_builds_the_lists_on_its_first_call(fresh_cache):
    """Within labellings_follow (the HFM scorers) the first call for new rows
    builds the lists; outside it the first call runs the engine only. The
    values are the engine's either way."""
    X, codes, y_true = fold_data(7)
    y_pred = labelings(y_true, 7)["10% flipped"]
    ref = exact_row_distances(X, [y_true, y_pred], codes)
    assert _reuse.fold_state(X, codes) == "new"
    assert np.array_equal(_reuse.exact_rows(X, [y_true, y_pred], codes), ref)
    assert next(iter(fresh_cache._folds.values())).lists is None
    fresh_cache.clear()
    with _reuse.labellings_follow():
        assert _reuse.fold_state(X, codes) == "seen"
        assert np.array_equal(_reuse.exact_rows(X, [y_true, y_pred], codes), ref)
    assert next(iter(fresh_cache._folds.values())).lists is not None
    assert not _reuse._LABELLINGS_FOLLOW.get()  # reset on leaving


@pytest.mark.parametrize("n_cols", [5, 40, 128, 129, 500, 2400, 5000])
def test_smallest_of_each_row_against_a_full_sort(n_cols):
    """The lists' selection: the ``take`` smallest of each row, ties by column."""
    rng = np.random.default_rng(n_cols)
    values = (np.round(rng.random((37, n_cols)) * 40) / 40).astype(np.float32)  # ties
    values[3] = 0.5  # a row of one value
    take = min(32, n_cols)
    part, vals = _neighbour_lists._smallest(values, take)
    for i in range(values.shape[0]):
        order = np.lexsort((np.arange(n_cols), values[i]))[:take]  # by value, then column
        assert np.array_equal(vals[i], values[i, order])
        if n_cols > 4 * take:  # the thresholded path breaks every tie by column
            assert np.array_equal(part[i], order)
        else:  # a partial sort: the same values, each column once
            assert np.unique(part[i]).size == take
            assert np.array_equal(values[i, part[i]], vals[i])
