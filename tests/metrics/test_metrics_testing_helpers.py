"""``metrics._testing``: each helper returns or does what the private expression it stands
for does (the benchmarks reach the metrics' internals through these helpers only)."""

import numpy as np
import pytest

from skfair_manifold.distances import _testing as engine
from skfair_manifold.metrics import _testing as helpers
from skfair_manifold.metrics import fairness_report

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")


def wages(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"s1": rng.integers(0, 2, n), "s2": rng.integers(0, 5, n)})
    frame["y"] = rng.lognormal(10.3, 0.35, n)
    frame["p"] = frame.y * np.where(frame.s1 == 1, 0.9, 1.0) * rng.lognormal(0, 0.08, n)
    return frame


def frame_report(frame):
    return fairness_report("y", "p", sensitive_features=["s1", "s2"],
                           data=pl.from_pandas(frame).lazy(), target_type="continuous")


def test_reuse_cache_is_the_process_s_cache():
    from skfair_manifold.distances import _content_cache

    assert engine.reuse_cache() is _content_cache.cache()


def test_blas_threads_sets_and_restores():
    from skfair_manifold.distances import _exact

    before = _exact.BLAS_THREADS
    with engine.blas_threads(2):
        assert _exact.BLAS_THREADS == 2
    assert _exact.BLAS_THREADS == before
    with pytest.raises(RuntimeError), engine.blas_threads(3):
        raise RuntimeError
    assert _exact.BLAS_THREADS == before


def test_ks_passes_counts_what_the_private_patch_counted():
    from skfair_manifold.metrics._regression import _frame_ks

    frame = wages()
    original = _frame_ks._count
    # the expression the benchmark used before the helper
    old = []
    _frame_ks._count = lambda *a: old.append(a[-1]) or original(*a)
    try:
        want = frame_report(frame)
    finally:
        _frame_ks._count = original
    with helpers.ks_passes() as passes:
        got = frame_report(frame)
    assert _frame_ks._count is original
    assert len(passes) == len(old) >= 1
    assert got.gaps.loc["s1", "ks_distance"] == want.gaps.loc["s1", "ks_distance"]


def test_ks_distance_skipped_leaves_the_moments():
    from skfair_manifold.metrics._regression import _frames

    frame = wages()
    original = _frames.frame_ks
    whole = frame_report(frame)
    with helpers.ks_passes() as passes, helpers.ks_distance_skipped():
        moments = frame_report(frame)
    assert _frames.frame_ks is original
    assert passes == []
    assert np.isnan(moments.gaps["ks_distance"].to_numpy(dtype=float)).all()
    assert np.isfinite(whole.gaps["ks_distance"].to_numpy(dtype=float)).all()
    col = "mean_prediction_difference"
    assert moments.gaps.loc["s1", col] == whole.gaps.loc["s1", col]


def test_re_exports_are_the_package_s_own():
    from skfair_manifold.distances import _approx, _approx_settings, _cost, _exact
    from skfair_manifold.distances import _neighbour_lists as lists
    from skfair_manifold.metrics._groups import _intervals
    from skfair_manifold.metrics._hfm import _metrics

    assert helpers.DEFAULT_SAMPLE_SIZE == _metrics.DEFAULT_SAMPLE_SIZE
    assert helpers.wilson_cc is _intervals.wilson_cc
    assert engine.cost_model is _cost
    assert engine.ExactEngine is _exact.ExactEngine
    assert engine.NeighbourLists is lists.NeighbourLists
    assert engine.answer_from_lists is lists._answer
    assert engine.approx_row_distances is _approx.approx_row_distances
    assert engine.default_m2 is _approx_settings.default_m2
    assert engine.draw_projections is _approx_settings.draw_projections
    assert set(helpers.__all__) <= set(dir(helpers))
    assert set(engine.__all__) <= set(dir(engine))
