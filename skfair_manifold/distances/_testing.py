"""What benchmarks and tests need of the distance engine that no public name gives.

Who may use it: the scripts of ``benchmarks/`` and the test suite, nobody
else. It is not public API: a name here may change or go in any release,
without notice or deprecation.

Each name is a thin re-export or a short function over the engine's private
modules, so that when those modules move, the mending is done here, once,
instead of in every script.
"""

from contextlib import contextmanager

from . import _content_cache, _exact
from . import _cost as cost_model
from ._approx import approx_row_distances
from ._approx_settings import default_m2, draw_projections
from ._exact import ExactEngine
from ._exact_index import NEIGHBOURS, index_rows
from ._exact_index import _points as index_points
from ._exact_index import _tree as index_tree
from ._numerics import min_max
from ._neighbour_lists import NeighbourLists
from ._neighbour_lists import _answer as answer_from_lists

__all__ = [
    "reuse_cache",
    "blas_threads",
    "exact_path",
    # the engine's parts, for the cost model's measurement
    "cost_model",
    "ExactEngine",
    "NeighbourLists",
    "answer_from_lists",
    "approx_row_distances",
    "default_m2",
    "draw_projections",
    # the engine's index path, for its constants
    "NEIGHBOURS",
    "index_rows",
    "index_points",
    "index_tree",
    "min_max",
]

# Re-exported as they are:
#
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
#   ``draw_projections(n_dims, m1, n_vectors, random_state)``;
# - ``index_rows(layout, n_jobs=)``: the engine's index path on a layout (unique rows);
#   ``index_points(layout, l)``: its points of label vector ``l`` in tree order, each
#   unique row's point and a unique row per point; ``index_tree(P)``: its k-d tree;
#   ``NEIGHBOURS``: the points asked of the shared tree;
# - ``min_max(X)``: the ``(lo, span)`` of the scaling ``hfm_report`` applies (``scale=True``).


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
def exact_path(path):
    """Inside the block, every pass of the exact engine over all rows takes ``path``.

    ``"engine"`` (the pair blocks) or ``"index"`` (the k-d trees, where their
    coordinates allow; :func:`._exact_index.index_usable`); the same values
    either way. Restores the cost model's choice on leaving the block.
    """
    before = _exact.FORCED_PATH
    _exact.FORCED_PATH = path
    try:
        yield
    finally:
        _exact.FORCED_PATH = before
