"""What benchmarks and tests need of the metrics that no public name gives.

Who may use it: the scripts of ``benchmarks/`` and the test suite, nobody
else. It is not public API: a name here may change or go in any release,
without notice or deprecation.

Each name is a thin re-export or a short function over the private modules
of :mod:`skfair_manifold.metrics`, so that when those modules move, the
mending is done here, once, instead of in every script. The distance
engine's are in ``skfair_manifold.distances._testing``.
"""

from contextlib import contextmanager

import numpy as np

from ._groups._intervals import wilson_cc
from ._hfm._metrics import DEFAULT_SAMPLE_SIZE
from ._regression import _frame_ks, _frames
from ._report._scores import auc_interval

__all__ = [
    # group metrics
    "wilson_cc",
    # HFM
    "DEFAULT_SAMPLE_SIZE",
    # scores
    "auc_interval",
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
# - ``auc_interval(auc, n_pos, n_neg, confidence)``: the report's interval of an AUC (the
#   score interval of Hanley and McNeil's variance), ``(low, high)``.


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
