"""Reuse of exact distances across the calls of a model search.

In a search every candidate of a fold is scored on the same rows: the same
features ``X`` (after preprocessing), the same true labels and the same
sensitive columns; only the predictions move. This module keeps, per
process, what does not move:

- the row distances of every label vector already computed on ``(X, codes)``
  (the true labels, and the predictions, so that the max and the avg scorers
  of one multi-metric call compute them once);
- per-row *neighbour lists*, built on the first call for ``(X, codes)`` when
  they fit the budget: for every row and attribute, the ``LIST_LENGTH`` rows
  of other groups nearest on the features (ranked by single-precision
  products of each group against the other groups only, with a bound of
  their error), their direct distances and a lower bound of the distance of
  every row left out. Every labelling, the first included, is answered from
  the lists in ``O(n x LIST_LENGTH)``: a row's answer is exact when its best
  listed total is not above that bound (every row left out is at least as
  far, whatever its label); the few other rows are queried exactly (a
  float64 Gram filter, then the direct distances of the rows it keeps:
  ``_neighbour_lists._filtered_rows``). When the lists would not fit, one
  joint pass of the exact engine answers the labellings of the call.

Every value is the engine's: the smallest *direct* feature distance (see
:mod:`._exact`) combined with the label part by ``hypot``, so a cached
answer equals an uncached computation bit for bit.

Entries are keyed by a BLAKE2 hash of the arrays' bytes, dtypes and shapes,
and the arrays themselves are kept and compared on every hit, so a hash
collision can never return another data set's distances. The cache holds at
most ``budget`` bytes (arrays kept for the check included), evicting the
least recently used entries; an entry larger than the budget is not kept.
A lock guards the table, so threads share it safely; joblib's process
workers each keep their own (the values are the same in every process).

The cache is :mod:`._content_cache`, the lists :mod:`._neighbour_lists`;
this module decides, per call, which of them answers.
"""

import contextlib
import contextvars

import numpy as np

from skfair_manifold.distances._exact import ExactEngine, exact_row_distances
from skfair_manifold.distances._cost import engine_cheaper_than_lists
from skfair_manifold.distances._content_cache import _CACHE, content_key
from skfair_manifold.distances._neighbour_lists import (
    LIST_LENGTH,
    NeighbourLists,
    _answer,
    lists_nbytes,
)


#: Set by :func:`labellings_follow`: more labellings of the same rows will come.
_LABELLINGS_FOLLOW = contextvars.ContextVar("skfair_manifold_labellings_follow",
                                            default=False)


@contextlib.contextmanager
def labellings_follow():
    """Within: the calls are a search's, other labellings of the same rows follow.

    The HFM scorers score every candidate of a fold on the same rows, so the
    first call for new rows builds the neighbour lists at once rather than
    running the engine once and building them on the second call (which
    would spend one engine pass per fold for nothing). A single call costs
    the lists' building and one answer instead of the engine's pass; the
    values are the same bit for bit either way.
    """
    token = _LABELLINGS_FOLLOW.set(True)
    try:
        yield
    finally:
        _LABELLINGS_FOLLOW.reset(token)


def _one_pass(X, labels, codes, n_jobs, minmax, engine):
    """Every labelling by one pass of the engine (``engine``, if given, prepared on them)."""
    if engine is None:
        return exact_row_distances(X, labels, codes, n_jobs=n_jobs, minmax=minmax)
    return engine.all_rows(n_jobs=n_jobs)


def exact_rows(X, labels, codes, *, n_jobs=None, minmax=None, engine=None):
    """Exact row distances (len(labels), K, n), reusing what the cache holds.

    Equal bit for bit to ``exact_row_distances(X, labels, codes, minmax=minmax)``.
    On the first call for new rows, one pass of the exact engine answers
    when it is cheaper than building the neighbour lists (duplicated rows,
    which the engine computes once: :func:`._cost.engine_cheaper_than_lists`);
    the lists are built when the same rows come back with a new labelling
    (a search), or at once within :func:`labellings_follow`. ``engine``: an
    :class:`ExactEngine` already prepared on
    ``(X, labels, codes)`` (``method="auto"`` builds one to count the unique
    rows), used for that pass.
    """
    store = _CACHE
    labels = [np.ascontiguousarray(y, dtype=np.float64) for y in labels]
    codes = [np.ascontiguousarray(c) for c in codes]
    if store.budget <= 0:
        return _one_pass(X, labels, codes, n_jobs, minmax, engine)
    X = np.ascontiguousarray(X, dtype=np.float64)
    scaling = () if minmax is None else tuple(np.asarray(a, dtype=np.float64) for a in minmax)
    key, fold = store.fold((X, *codes, *scaling))
    if fold is None:  # larger than the whole budget
        return _one_pass(X, labels, codes, n_jobs, minmax, engine)
    results = [store.rows(fold, y) for y in labels]
    missing = [i for i, r in enumerate(results) if r is None]
    if missing:
        lists = fold.lists
        # The first labelling of new rows may run the engine once; within a
        # search the lists are built at once (see labellings_follow).
        if lists is None and not fold.seen and not _LABELLINGS_FOLLOW.get():
            fold.seen = True
            if engine is None:
                engine = ExactEngine(X, [labels[i] for i in missing], codes, minmax=minmax)
                wanted = list(range(len(missing)))
            else:
                wanted = missing
            if engine_cheaper_than_lists(engine.layout, codes, X.shape[1]):
                fresh = engine.all_rows(n_jobs=n_jobs)
                for i, w in zip(missing, wanted):
                    results[i] = fresh[w]
                    store.add_rows(key, fold, labels[i], results[i])
                return np.stack([np.array(r, copy=True) for r in results])
        if lists is None and fold.nbytes + lists_nbytes(X.shape, len(codes)) <= store.budget:
            # New rows: build the lists at once (one pass over the pairs, in
            # single precision) and answer every labelling from them, the
            # first one included.
            lists = NeighbourLists(X, codes, length=LIST_LENGTH, minmax=minmax)
            store.add_lists(key, fold, lists)
        if lists is None:
            # The lists would not fit the budget: one joint pass of the engine.
            fresh = exact_row_distances(X, [labels[i] for i in missing], codes,
                                        n_jobs=n_jobs, minmax=minmax)
            for i, rows in zip(missing, fresh):
                results[i] = rows
        else:
            for i in missing:
                results[i] = _answer(lists, X, labels[i], codes, n_jobs, minmax)
        for i in missing:
            store.add_rows(key, fold, labels[i], results[i])
    return np.stack([np.array(r, copy=True) for r in results])


def fold_state(X, codes, *, minmax=None):
    """What the cache holds for these rows: ``"new"``, ``"engine"``, ``"seen"`` or ``"lists"``.

    ``"new"``: nothing yet, the lists fit the budget; ``"engine"``: the
    lists cannot be kept (the cache is off or too small), exact runs the
    engine; ``"seen"``: a labelling was answered by the engine and the next
    one builds the lists; ``"lists"``: the lists are kept, every labelling
    is answered in ``O(n)``.
    """
    store = _CACHE
    if store.budget <= 0:
        return "engine"
    X = np.ascontiguousarray(X, dtype=np.float64)
    codes = [np.ascontiguousarray(c) for c in codes]
    scaling = () if minmax is None else tuple(np.asarray(a, dtype=np.float64) for a in minmax)
    arrays = (X, *codes, *scaling)
    key = content_key("fold", *arrays, sample=True)
    with store._lock:
        fold = store._folds.get(key)
    if fold is not None and fold.matches(arrays) and fold.lists is not None:
        return "lists"
    nbytes = (fold.nbytes if fold is not None else sum(a.nbytes for a in arrays))
    if nbytes + lists_nbytes(X.shape, len(codes)) > store.budget:
        return "engine"
    if _LABELLINGS_FOLLOW.get():
        return "seen"  # the next exact call builds the lists (see labellings_follow)
    return "seen" if fold is not None and fold.seen and fold.matches(arrays) else "new"
