"""The approximation's checks stay within its own memory cap at scikit-learn's default.

Under a large ``working_memory`` (scikit-learn's default is 1 GiB) the
exact engine's blocks for the sample and the maxima, and the witnesses'
search over the rows of other groups, are bounded by the approximation's
cap (``_approx.MAX_WORKING_MEMORY``), not by the configured budget; the
values do not move.
"""

import tracemalloc

import sklearn

from skfair_manifold.distances import _exact, _rows
from skfair_manifold.metrics import hfm_report

from .conftest import flipped_uniform


def _data(n=30_000, p=20, seed=0):
    X, A, y_true, y_pred = flipped_uniform(n, p, groups=(2, 5), seed=seed)
    return X, y_true, y_pred, A


def _peak(cap, monkeypatch, data):
    monkeypatch.setattr(_rows, "MAX_WORKING_MEMORY", cap)
    monkeypatch.setattr(_exact, "MAX_WORKING_MEMORY", cap)
    X, y_true, y_pred, A = data
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        with sklearn.config_context(working_memory=1024):
            r = hfm_report(y_true, y_pred, X=X, sensitive_features=A, method="approx",
                           random_state=0, n_jobs=1)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    values = (r.d_avg, r.d_f_avg, r.hfm_avg, r.hfm_max, tuple(r.ci.d_avg),
              tuple(r.ci.d_max), r.max_check.n_checked)
    return peak, values


def test_checks_bounded_by_the_cap_not_the_configured_budget(monkeypatch):
    data = _data()
    x_bytes = data[0].nbytes
    # A cap of 1024 MiB is the configured budget itself: the checks' chunks
    # then hold every row at once (a gather and a difference of X's size).
    wide, wide_values = _peak(1024, monkeypatch, data)
    narrow, narrow_values = _peak(0.25, monkeypatch, data)
    assert narrow_values == wide_values  # bit for bit
    assert narrow < wide - x_bytes, (narrow / x_bytes, wide / x_bytes)
