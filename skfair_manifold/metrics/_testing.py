"""What benchmarks and tests need of the metrics that no public name gives.

Who may use it: the scripts of ``benchmarks/`` and the test suite, nobody
else. It is not public API: a name here may change or go in any release,
without notice or deprecation.

Each name is a thin re-export or a short function over the private modules
of :mod:`skfair_manifold.metrics` and of the distance engine that the HFM
metrics run on (:mod:`skfair_manifold.distances`), so that when those
modules move, the mending is done here, once, instead of in every script.
"""

from contextlib import contextmanager

import numpy as np

from skfair_manifold.distances import _content_cache, _exact
from skfair_manifold.distances import _cost as cost_model
from skfair_manifold.distances._approx import approx_row_distances
from skfair_manifold.distances._approx_settings import default_m2, draw_projections
from skfair_manifold.distances._exact import ExactEngine
from skfair_manifold.distances._neighbour_lists import NeighbourLists
from skfair_manifold.distances._neighbour_lists import _answer as answer_from_lists
from skfair_manifold.metrics._groups._intervals import wilson_cc
from skfair_manifold.metrics._hfm._metrics import DEFAULT_SAMPLE_SIZE
from skfair_manifold.metrics._regression import _frame_ks, _frames

__all__ = [
    # group metrics
    "wilson_cc",
    # HFM
    "DEFAULT_SAMPLE_SIZE",
    "reuse_cache",
    "blas_threads",
    # the distance engine's parts, for the cost model's measurement
    "cost_model",
    "ExactEngine",
    "NeighbourLists",
    "answer_from_lists",
    "approx_row_distances",
    "default_m2",
    "draw_projections",
    # the continuous report on frames
    "ks_passes",
    "ks_distance_skipped",
]

# Re-exported as they are:
#
# - ``wilson_cc(successes, n, confidence)``: Wilson's score interval of a rate with
#   continuity correction, ``(low, high)`` arrays (the group report's default interval);
# - ``DEFAULT_SAMPLE_SIZE``: the certified approximation's fixed sample of 4,000 rows
#   (``sample_size=4000``), the size the default ``"auto"`` replaced;
# - ``cost_model``: the module of ``method="auto"``'s cost model (its constants
#   ``ENGINE_NS``, ``LISTS_NS``, ``PROJECTION_US``, ``LAYOUT_NS`` and the counts
#   ``layout_sizes``, ``engine_pairs``, ``group_sizes``, ``lists_pairs``, ``band``);
# - ``ExactEngine(X, labels, codes)``: the exact engine, ``.all_rows(n_jobs=)`` and
#   ``.layout``;
# - ``NeighbourLists(X, codes)``: the neighbour lists of the search's reuse, and
#   ``answer_from_lists(lists, X, y, codes, n_jobs, minmax)``: every row's distances for
#   the label ``y`` from them;
# - ``approx_row_distances(X, y, codes, *, m1, m2, n_vectors, random_state, n_jobs,
#   projections=)``: the approximation's row distances;
# - ``default_m2(n_samples)`` (the paper's ``ceil(2 lg n)``) and
#   ``draw_projections(n_dims, m1, n_vectors, random_state)``.


def reuse_cache():
    """The process's cache of distances kept between HFM calls (the search's reuse).

    Returns the one cache object of the process: ``.clear()`` empties it;
    ``.budget`` is the bytes it may hold (setting it to 0 turns the reuse off).
    """
    return _content_cache.cache()


@contextmanager
def blas_threads(n):
    """Inside the block, a serial run of the exact engine uses ``n`` BLAS threads.

    Sets the exact engine's ``BLAS_THREADS`` (1 by default) and restores it
    on leaving the block.
    """
    before = _exact.BLAS_THREADS
    _exact.BLAS_THREADS = n
    try:
        yield
    finally:
        _exact.BLAS_THREADS = before


@contextmanager
def ks_passes():
    """Count the passes over the rows made by the exact KS distance of a frame's report.

    Yields a list that grows by one item at each pass (one ``GROUP BY`` of
    the frame) that ``fairness_report(..., data=<frame>)`` of a continuous
    target makes to resolve its KS distances; the count is ``len(list)``.
    The counting stops on leaving the block.
    """
    passes = []
    count = _frame_ks._count

    def counted(*args, **kwargs):
        passes.append(1)
        return count(*args, **kwargs)

    _frame_ks._count = counted
    try:
        yield passes
    finally:
        _frame_ks._count = count


@contextmanager
def ks_distance_skipped():
    """Inside the block, a frame's continuous report skips the KS distance.

    ``fairness_report(..., data=<frame>)`` of a continuous target then makes
    its own aggregates only (the moments' ``GROUP BY``): every KS distance is
    NaN and no pass is made for them. Restored on leaving the block.
    """
    frame_ks = _frames.frame_ks

    def skipped(base, sensitive, weight, combos, groups, value_range):
        return [np.full(compared.shape[0], np.nan) for _, compared in groups], 0

    _frames.frame_ks = skipped
    try:
        yield
    finally:
        _frames.frame_ks = frame_ks
