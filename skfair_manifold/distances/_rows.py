"""The engine's one entry for the metric layer: row distances and their statistics.

:func:`row_distances` takes the inputs of an HFM metric (features, the true
labels and the predictions, the sensitive columns), converts them once, picks
the engine (``method="auto"``), and returns the row distances of both labels
with what the metric needs to state them: exact values, or the certified
approximation's corrected means, intervals and certain bounds of the maxima
(:mod:`._certified`), and on request the rows behind each maximum
(:mod:`._witnesses`). The metric layer (``metrics/_hfm/``) keeps Eq. 8.

It is the one module of the engine that another room imports: with
:func:`row_distances` it hands on the min-max scaling the engine applies
(:func:`min_max`, :func:`apply_min_max`: the witnesses and the bootstrap
scale the rows as the engine does).
"""

import numpy as np
from sklearn.utils import Bunch, check_random_state

from skfair_manifold.distances._approx import MAX_WORKING_MEMORY, approx_row_distances
from skfair_manifold.distances._approx_settings import (
    draw_projections,
    resolve_settings,
)
from skfair_manifold.distances._certified import (
    certified_statistics,
    certify,
    exact_statistics,
)
from skfair_manifold.distances._cost import (
    choose,
    group_sizes,
    layout_sizes,
    switch_after_pilot,
)
from skfair_manifold.distances._exact import ExactEngine
from skfair_manifold.distances._exact_index import index_usable
from skfair_manifold.distances._numerics import (
    apply_min_max,
    distance_features,
    min_max,
)
from skfair_manifold.distances._row_order import content_order, shared_by_copies
from skfair_manifold.distances._reuse import exact_rows, fold_state, labellings_follow
from skfair_manifold.distances._sample_size import MIN_CHECKS, adaptive_sample
from skfair_manifold.distances._witnesses import witnesses
from skfair_manifold.utils._sizes import MAX_PROJECTIONS, check_size
from skfair_manifold.utils._validation import (
    MSG_LENGTH,
    MSG_TOO_FEW_ROWS,
    as_sensitive,
    check_features,
    label_coordinates,
)

__all__ = ["apply_min_max", "auto_choice", "min_max", "row_distances"]


def auto_choice(X, labels, codes, *, minmax, m1, m2, n_vectors, sample_size):
    """``method="auto"``: the cost model's choice (:func:`._cost.choose`) on these rows.

    Returns the choice (a Bunch: ``method``, the predicted ``exact_s`` and
    ``approx_s``, ``exact_path``, ``pairs``, ``n_unique``, ``switched``: the
    approximation's pilot turned it to exact, :func:`._cost.switch_after_pilot`)
    and the exact engine prepared to count the unique rows (``None`` when the
    cache holds the neighbour lists), which exact then uses.
    """
    n, p = X.shape
    state = fold_state(X, codes, minmax=minmax)
    if state == "lists":
        engine, n_unique, joint, index = None, n, np.array([n]), False
    else:
        engine = ExactEngine(X, labels, codes, minmax=minmax)
        n_unique, joint = layout_sizes(engine.layout)
        index = index_usable(engine.layout)
    choice = choose(n_samples=n, n_features=p, n_unique=n_unique, joint_sizes=joint,
                    group_sizes=group_sizes(codes), m1=m1, n_vectors=n_vectors, m2=m2,
                    n_labels=len(labels), sample_size=sample_size, cache_state=state,
                    index=index)
    choice.n_unique, choice.switched = n_unique, False
    return choice, engine


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
    sensitive = as_sensitive(sensitive_features, n)  # the call's object, or built here
    codes, names, groups = sensitive.codes, sensitive.names, sensitive.groups
    minmax = min_max(X) if scale else None
    return X, minmax, [y_true, y_pred], codes, names, groups


def row_distances(X, labels, sensitive_features, *, method, scale, m1, m2, n_vectors,
                  random_state, n_jobs, candidates, sample_size, max_checks, confidence,
                  want_max=True, with_witnesses=False, search=False):
    """Row distances of ``labels = (y_true, y_pred)`` and their statistics, one call.

    Private: the options are validated by the public metrics; the arrays are
    checked here (features converted once, labels coded jointly, sensitive
    columns encoded). ``method`` is ``"exact"``, ``"approx"`` (the certified
    approximation: ``m1`` repetitions of ``n_vectors`` projections, ``m2``
    positions, a corrected mean from ``sample_size`` exact rows, maxima
    checked within ``max_checks`` rows, intervals at level ``confidence``)
    or ``"auto"`` (:func:`auto_choice`, the cost model of :mod:`._cost`). Exact distances are reused
    across the calls of a search (:mod:`._reuse`), equal bit for bit; ``search``:
the call is a model search's, which scores other labellings of the same rows
next (:func:`._reuse.labellings_follow`).

    Returns
    -------
    result : Bunch
        ``rows`` (2, K, n), the row distances (approximate ones for the
        approximation); ``stats``, see :func:`._certified.certified_statistics`
        (:func:`._certified.exact_statistics` for the exact engine, with
        zero-width intervals), with ``z``, the normal quantile of
        ``confidence``; ``method`` (the engine used); ``auto`` (the cost
        model's choice with ``method="auto"``, else None); ``settings``
        (the approximation's ``m1``, ``m2`` used, ``n_vectors``,
        ``candidates``, ``sample_size`` drawn; empty for exact); ``names``
        and ``groups`` of the attributes; ``witnesses`` (see
        :func:`._witnesses.witnesses`) or None; and the prepared ``X``
        (converted, not min-max scaled), ``minmax`` (``(lo, span)`` of the
        scaling the engines apply, or None), ``labels`` and ``codes``.
    """
    if search:
        with labellings_follow():
            return row_distances(
                X, labels, sensitive_features, method=method, scale=scale, m1=m1, m2=m2,
                n_vectors=n_vectors, random_state=random_state, n_jobs=n_jobs,
                candidates=candidates, sample_size=sample_size, max_checks=max_checks,
                confidence=confidence, want_max=want_max, with_witnesses=with_witnesses)
    X, minmax, labels, codes, names, groups = _prepare(X, labels, sensitive_features,
                                                       scale=scale)
    n, p = X.shape
    m2 = resolve_settings(n, p, m2, n_vectors)  # checks n_vectors for every method
    engine, choice = None, None
    if method == "auto":
        choice, engine = auto_choice(X, labels, codes, minmax=minmax, m1=m1, m2=m2,
                                     n_vectors=n_vectors, sample_size=sample_size)
        method = choice.method
        if method == "approx":
            # Built again after the projections: its copy of X and the
            # approximation's never live at once (the peak memory).
            engine = None
    settings = {}
    z = _normal_quantile(confidence)
    if method == "exact":
        rows = exact_rows(X, labels, codes, n_jobs=n_jobs, minmax=minmax, engine=engine)
        del engine
        stats = exact_statistics(rows)
    else:
        check_size(m1, name="m1", high=MAX_PROJECTIONS, bytes_per_unit=8 * n * n_vectors)
        rng = check_random_state(random_state)
        # The same vectors for both labels: D and D_f differ only by the label.
        W = draw_projections(p + 1, m1, n_vectors, rng)
        # The rows in an order of their content (._row_order): the projections'
        # ties, the sample and the maxima's checks follow it, not the positions;
        # copies of a row share the least distance found for any of them.
        content = content_order(X, labels, codes)
        rows = shared_by_copies(np.stack([
            approx_row_distances(X, y, codes, m1=m1, m2=m2, n_vectors=n_vectors,
                                 random_state=None, n_jobs=n_jobs, projections=W,
                                 candidates=candidates, minmax=minmax, content=content)
            for y in labels]), content, X, labels, codes)
        if engine is None:
            engine = ExactEngine(X, labels, codes, minmax=minmax)
        # The approximation's checks (the sample, the maxima) run blocks of rows
        # against every row: past the approximation's own cap a larger block is
        # only larger (scikit-learn's default of 1 GiB took the peak at
        # 1,000,000 x 20 from 2.98 to 4.39 x X). The values do not depend on it.
        engine.working_memory = min(engine.working_memory, MAX_WORKING_MEMORY * 2 ** 20)
        if sample_size == "auto":  # the size from a pilot (._sample_size)
            sample, engine, pilot = adaptive_sample(rows, engine, rng, n_jobs=n_jobs,
                                                    content=content)
            budget = max(sample.size, MIN_CHECKS) if max_checks is None else max_checks
            if choice is not None and switch_after_pilot(
                    n_unique=engine.engine.layout.n_unique, sample_size=sample.size,
                    pilot_size=pilot, max_checks=budget):
                # "auto": the rest of the approximation would cost more than exact.
                method, choice.method, choice.switched = "exact", "exact", True
                rows = engine.engine.all_rows(n_jobs=n_jobs)
                del engine
                stats = exact_statistics(rows)
        else:
            sample = np.sort(content[rng.choice(n, size=min(sample_size, n), replace=False)])
            budget = sample_size if max_checks is None else max_checks
        if method == "approx":
            cert = certify(rows, engine, sample, max_checks=budget, want_max=want_max,
                           n_jobs=n_jobs, content=content)
            del engine  # its layout (a copy of X) is not needed any more
            stats = certified_statistics(rows, cert, sample, budget, z)
            settings = dict(m1=m1, m2=m2, n_vectors=n_vectors, candidates=candidates,
                            sample_size=int(sample.size), sample_rows=sample,
                            sample_distances=cert.sample_exact)
    stats.z = z
    found = (witnesses(X, labels, codes, names, groups, rows, minmax=minmax)
             if with_witnesses else None)
    return Bunch(rows=rows, stats=stats, method=method, settings=settings, auto=choice,
                 names=names,
                 groups=groups, witnesses=found, X=X, minmax=minmax, labels=labels,
                 codes=codes)


def _normal_quantile(confidence):
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + confidence / 2)
