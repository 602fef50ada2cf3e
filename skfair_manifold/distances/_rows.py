"""The engine's one entry for the metric layer: row distances and their statistics.

:func:`row_distances` takes the inputs of an HFM metric (features, the true
labels and the predictions, the sensitive columns), converts them once, picks
the engine (``method="auto"``), and returns the row distances of both labels
with what the metric needs to state them: exact values, or the certified
approximation's corrected means, intervals and certain bounds of the maxima
(:mod:`._certified`), and on request the rows behind each maximum
(:mod:`._witnesses`). The metric layer (``metrics/_hfm.py``) keeps Eq. 8.
"""

import numbers

import numpy as np
from sklearn.utils import Bunch, check_random_state

from skfair_manifold.distances._approx import (
    approx_row_distances,
    draw_projections,
    resolve_settings,
)
from skfair_manifold.distances._certified import (
    certified_statistics,
    certify,
    exact_statistics,
)
from skfair_manifold.distances._exact import ExactEngine
from skfair_manifold.distances._numerics import distance_features, min_max
from skfair_manifold.distances._reuse import exact_rows
from skfair_manifold.distances._sample_size import MIN_CHECKS, adaptive_sample
from skfair_manifold.distances._witnesses import witnesses
from skfair_manifold.utils._sizes import MAX_PROJECTIONS, check_size
from skfair_manifold.utils._validation import (
    MSG_LENGTH,
    MSG_TOO_FEW_ROWS,
    check_features,
    encode_sensitive,
    label_coordinates,
)

#: Crossover of ``method="auto"`` in rows (see :func:`exact_is_cheaper`).
AUTO_ROWS = 12_500


def exact_is_cheaper(n_samples, n_features, *, sample_size):
    """The crossover rule of ``method="auto"``: ``True`` where exact is the faster engine.

    Exact costs about ``n^2 (p + 3)`` multiply-adds; the certified
    approximation (default ``m1``) costs ``n`` times a per-row term of the
    projections plus ``(sample_size + checks) * n * (p + 3)`` for its exact
    checks. Both grow about linearly with the number of features ``p``, so
    the crossover is a number of rows, which grows with the sample: with the
    default ``sample_size`` (4,000) it was measured at about 12,500 rows
    with 20 features and between 10,000 and 20,000 (within the noise of the
    machine) with 100 (``benchmarks/bench_hfm.py --crossover``, see the user
    guide); with the adaptive size (``"auto"``, a pilot of 1,000 rows on the
    uniform data of ``--crossover``) at about 12,500 with 20 and between
    12,500 and 17,500 with 100. The rule is ``n <= max(sample_size,
    AUTO_ROWS)`` (``AUTO_ROWS`` for ``"auto"``); ``n_features`` is taken so
    that a rule measured otherwise can use it.
    """
    del n_features  # no measured move of the crossover with it (20 to 100)
    if not isinstance(sample_size, numbers.Integral):  # "auto": known after the pilot
        sample_size = 0
    return n_samples <= max(sample_size, AUTO_ROWS)


def _prepare(X, labels, sensitive_features, *, scale):
    """Features (converted once), both label vectors as float64, group codes.

    The min-max scaling is returned as ``(lo, span)``: each engine applies it
    to its own copy of ``X`` (so no scaled copy is kept beside theirs).
    """
    X = check_features(distance_features(X))
    n = X.shape[0]
    if n < 2:
        raise ValueError(MSG_TOO_FEW_ROWS.format(name="X"))
    y_true, y_pred = label_coordinates(*labels)
    if y_true.shape[0] != n:
        raise ValueError(MSG_LENGTH.format(name="y_true", got=y_true.shape[0], other="X",
                                           expected=n))
    codes, names, groups = encode_sensitive(sensitive_features, n)
    minmax = min_max(X) if scale else None
    return X, minmax, [y_true, y_pred], codes, names, groups


def row_distances(X, labels, sensitive_features, *, method, scale, m1, m2, n_vectors,
                  random_state, n_jobs, candidates, sample_size, max_checks, confidence,
                  want_max=True, with_witnesses=False):
    """Row distances of ``labels = (y_true, y_pred)`` and their statistics, one call.

    Private: the options are validated by the public metrics; the arrays are
    checked here (features converted once, labels coded jointly, sensitive
    columns encoded). ``method`` is ``"exact"``, ``"approx"`` (the certified
    approximation: ``m1`` repetitions of ``n_vectors`` projections, ``m2``
    positions, a corrected mean from ``sample_size`` exact rows, maxima
    checked within ``max_checks`` rows, intervals at level ``confidence``)
    or ``"auto"`` (:func:`exact_is_cheaper`). Exact distances are reused
    across the calls of a search (:mod:`._reuse`), equal bit for bit.

    Returns
    -------
    result : Bunch
        ``rows`` (2, K, n), the row distances (approximate ones for the
        approximation); ``stats``, see :func:`._certified.certified_statistics`
        (:func:`._certified.exact_statistics` for the exact engine, with
        zero-width intervals), with ``z``, the normal quantile of
        ``confidence``; ``method`` (the engine used); ``settings``
        (the approximation's ``m1``, ``m2`` used, ``n_vectors``,
        ``candidates``, ``sample_size`` drawn; empty for exact); ``names``
        and ``groups`` of the attributes; ``witnesses`` (see
        :func:`._witnesses.witnesses`) or None; and the prepared ``X``
        (converted, not min-max scaled), ``minmax`` (``(lo, span)`` of the
        scaling the engines apply, or None), ``labels`` and ``codes``.
    """
    X, minmax, labels, codes, names, groups = _prepare(X, labels, sensitive_features,
                                                       scale=scale)
    n, p = X.shape
    m2 = resolve_settings(n, p, m2, n_vectors)  # checks n_vectors for every method
    if method == "auto":
        method = "exact" if exact_is_cheaper(n, p, sample_size=sample_size) else "approx"
    settings = {}
    z = _normal_quantile(confidence)
    if method == "exact":
        rows = exact_rows(X, labels, codes, n_jobs=n_jobs, minmax=minmax)
        stats = exact_statistics(rows)
    else:
        check_size(m1, name="m1", high=MAX_PROJECTIONS, bytes_per_unit=8 * n * n_vectors)
        rng = check_random_state(random_state)
        # The same vectors for both labels: D and D_f differ only by the label.
        W = draw_projections(p + 1, m1, n_vectors, rng)
        rows = np.stack([
            approx_row_distances(X, y, codes, m1=m1, m2=m2, n_vectors=n_vectors,
                                 random_state=None, n_jobs=n_jobs, projections=W,
                                 candidates=candidates, minmax=minmax)
            for y in labels])
        engine = ExactEngine(X, labels, codes, minmax=minmax)
        if sample_size == "auto":  # the size from a pilot (._sample_size)
            sample, engine, _ = adaptive_sample(rows, engine, rng, confidence=confidence,
                                                n_jobs=n_jobs)
            budget = max(sample.size, MIN_CHECKS) if max_checks is None else max_checks
        else:
            sample = np.sort(rng.choice(n, size=min(sample_size, n), replace=False))
            budget = sample_size if max_checks is None else max_checks
        cert = certify(rows, engine, sample, max_checks=budget, want_max=want_max,
                       n_jobs=n_jobs)
        del engine  # its layout (a copy of X) is not needed any more
        stats = certified_statistics(rows, cert, sample, budget, z)
        settings = dict(m1=m1, m2=m2, n_vectors=n_vectors, candidates=candidates,
                        sample_size=int(sample.size), sample_rows=sample,
                        sample_distances=cert.sample_exact)
    stats.z = z
    found = (witnesses(X, labels, codes, names, groups, rows, minmax=minmax)
             if with_witnesses else None)
    return Bunch(rows=rows, stats=stats, method=method, settings=settings, names=names,
                 groups=groups, witnesses=found, X=X, minmax=minmax, labels=labels,
                 codes=codes)


def _normal_quantile(confidence):
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + confidence / 2)
