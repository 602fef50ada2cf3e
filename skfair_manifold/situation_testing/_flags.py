"""The auditor's core: rates, bounds and p-values of encoded rows, and the flags.

Functions of the fitted audit (:class:`._fitted.FittedAudit`), the call's
parameters (:class:`._fitted.AuditSettings`) and encoded rows:
:func:`transform_rows` asks the fitted method for the testers' expected
counts and turns them into ``p1``, ``p2``, ``diff``, its bounds and the exact
p-value; :func:`rates` keeps the last result in the fitted audit's cache so
that ``flag`` and ``report`` on the same rows compute it once;
:func:`decide` applies the flag rule, with the false discovery rate across
the candidates of an audit.
"""

import hashlib

import numpy as np

from ..utils._memory import check_allocation
from ..utils._progress import REPORTER, BlockProgress, reporting
from ._selection._auto_k import MSG_NO_WITHIN, auto_k, rates_at
from ._stats._continuous import (
    CONTINUOUS_COLUMNS,
    mean_table,
    scaled_decisions,
    segment_sums,
    tester_moments,
    unscale_table,
)
from ._stats._interval import diff_bounds
from ._stats._pvalue import (
    discrete_step_up,
    effective_counts,
    fisher_pvalue,
    q_values,
    step_up_constant,
)

#: the procedure of each ``fdr_method``, in words
FDR_NAMES = {"bh": "Benjamini-Hochberg", "by": "Benjamini-Yekutieli",
             "dbh": "discrete Benjamini-Hochberg step-up (Doehler, Durand and Roquain)"}

#: the columns of ``transform``
COLUMNS = ["p1", "p2", "diff", "diff_lower", "diff_upper", "p_value"]

#: Rates are ratios of small counts, so ``p1 - p2`` carries a rounding error of a
#: few ulps (``0.2 - 0.15 == 0.05000000000000002``); differences closer to ``tau``
#: than this count as equal to it, hence as not above it.
FLAG_TOLERANCE = 1e-12


def exceeds(score, tau, magnitude=1.0):
    """``score > tau`` with rounding ties counted as equal (:data:`FLAG_TOLERANCE` times
    ``magnitude``, the size of the numbers ``score`` is a difference of: 1 for rates)."""
    with np.errstate(invalid="ignore"):
        return np.asarray(score) - tau > FLAG_TOLERANCE * magnitude


def magnitude(settings, out):
    """The size of the numbers each row's ``diff`` is the difference of: 1 for rates, the
    larger of the two mean decisions for an amount (its rounding is relative to them)."""
    if not settings.continuous:
        return 1.0
    with np.errstate(invalid="ignore"):
        return np.fmax(np.abs(out[:, 0]), np.abs(out[:, 1]))


def rate_table(pos, n, w2, *, alpha, bound):
    """Rates, bounds and p-value of each row from the selector's sums: (m, 6), n_eff.

    ``pos``, ``n``, ``w2`` (m, 2): per side, the weight of the favourable
    testers, of all testers and the sum of squared weights. Columns: p1, p2,
    diff, its lower and upper bound at ``alpha`` (``bound``'s method), the
    exact one-sided p-value.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        p = pos / n
        n_eff = n * n / w2  # the weighted mean's effective number of testers
    lower, upper = diff_bounds(p[:, 0], n_eff[:, 0], p[:, 1], n_eff[:, 1], alpha=alpha,
                               method=bound)
    p_value = fisher_pvalue(*effective_counts(p[:, 0], n_eff[:, 0], p[:, 1], n_eff[:, 1]))
    out = np.column_stack([p[:, 0], p[:, 1], p[:, 0] - p[:, 1], lower, upper, p_value])
    return out, n_eff


def output_columns(settings):
    """The names of ``transform``'s columns for the decision's kind."""
    return CONTINUOUS_COLUMNS if settings.continuous else COLUMNS


def transform_rows(fitted, settings, Z, *, cells=False, self_unit=None, k=None,
                   counts=False):
    """Rates, bounds and p-value of each encoded row: (m, 6) [, counts or cells]."""
    if self_unit is None:
        self_unit = fitted.self_units(Z)
    k = settings.k if k is None else k
    method = fitted.method
    Q = method.query(Z)
    progress = None
    if settings.verbose and REPORTER.get() is None:
        title = getattr(method, "title", settings.method)
        shown = k if np.ndim(k) == 0 else "auto"
        progress = BlockProgress(f"{title} (k={shown}{', testers' if cells else ''})")
    continuous = settings.continuous
    with reporting(progress):
        if isinstance(k, str):  # "auto": each row's K from the testers within the caliper
            k = auto_k_of_queries(fitted, settings, Q, self_unit)
        # a continuous decision's squares are summed over the testers' cells
        res = rates_at(method, Q, self_unit, k, n_jobs=settings.n_jobs,
                       cells=cells or continuous)
    n = res[1]
    out, n_eff = table(fitted, settings, res, self_unit,
                       method.cell_rows() if continuous else None)
    if cells:
        return out, n, n_eff, self_unit, res[3]
    if counts:
        return out, n, n_eff
    return out


def table(fitted, settings, res, self_unit, cell_rows):
    """``rate_table`` of the selector's sums, or for a continuous decision
    ``mean_table`` of the testers' moments (:mod:`._stats._continuous`): (m, 6 or 8),
    n_eff. ``cell_rows``: the cells of the selector that gave ``res`` (continuous only;
    the sums of the last cells asked for are kept)."""
    if cell_rows is None:
        return rate_table(res[0], res[1], res[2], alpha=settings.alpha_level,
                          bound=settings.bound)
    if fitted.cell_sums is None or fitted.cell_sums[0] is not cell_rows.rows:
        # the sums of the decisions shifted and scaled (scaled_decisions): the same
        # digits at any magnitude of the amounts
        v, ref, scale = scaled_decisions(fitted.y_fit)
        fitted.cell_sums = (cell_rows.rows, segment_sums(cell_rows, v), v, ref, scale)
    _, sums, v, ref, scale = fitted.cell_sums
    own = np.full(self_unit.shape[0], np.nan)
    found = self_unit >= 0
    own[found] = v[fitted.units.first_row[self_unit[found]]]
    S1, S2 = tester_moments(res[3], sums, cell_rows.sides, own, res[1].shape[0])
    out, n_eff = mean_table(S1, res[1], res[2], S2, alpha=settings.alpha_level)
    return unscale_table(out, ref, scale), n_eff


def auto_k_of_queries(fitted, settings, Q, self_unit):
    """Each row's K under ``k="auto"`` (:mod:`._selection._auto_k`): the method's testers
    within its caliper, on the grid between the floor and the ceiling."""
    method = fitted.method
    if not (hasattr(method, "caliper") and hasattr(method, "within")):
        raise ValueError(MSG_NO_WITHIN.format(method=settings.method))
    return auto_k(method, Q, self_unit, method.caliper(settings.tau), n_jobs=settings.n_jobs)


def k_of_rows(fitted, settings, Z, self_unit):
    """The K of each encoded row: ``k``, or under ``k="auto"`` the row's own."""
    if not settings.auto_k:
        return np.full(Z.shape[0], settings.k, dtype=np.int64)
    return auto_k_of_queries(fitted, settings, fitted.method.query(Z), self_unit)


def rates(fitted, settings, Z, self_unit=None, rows=None):
    """:func:`transform_rows` of every row (or of ``rows`` only), kept for the next call.

    ``flag`` then ``report`` (or ``report`` then ``flag``) on the same rows
    compute the rates once; ``fitted.rate_cache.passes`` counts the passes.
    The cache is one object made at ``fit`` and filled in place, so the
    public methods leave the estimator's attributes unchanged. ``rows`` (the
    candidates, for ``flag`` and ``report``): the other rows' rates are NaN,
    and not computed; a later call for more rows computes only those not kept
    (``rows_computed`` counts the rows computed over all passes).
    """
    key = (hashlib.blake2b(np.ascontiguousarray(Z).tobytes(), digest_size=16).digest(),
           Z.shape, settings.k, settings.alpha_level, settings.bound,
           settings.tau if settings.auto_k else None)  # k="auto": the caliper
    if settings.continuous:  # the person left out is found by her decision too
        if self_unit is None:
            self_unit = fitted.self_units(Z)
        key += (hashlib.blake2b(np.ascontiguousarray(self_unit).tobytes(),
                                digest_size=16).digest(),)
    cache = fitted.rate_cache
    if cache.key == key and (cache.rows is None or (
            rows is not None and np.isin(rows, cache.rows).all())):
        return cache.value
    if self_unit is None:
        self_unit = fitted.self_units(Z)
    if cache.key == key:  # some rows kept: compute the others only
        todo = np.setdiff1d(np.arange(Z.shape[0]) if rows is None else rows, cache.rows)
        res = tuple(part.copy() for part in cache.value)
        want = np.union1d(cache.rows, todo)
    else:
        todo = np.arange(Z.shape[0]) if rows is None else np.asarray(rows, dtype=np.intp)
        res, want = None, todo
    some = transform_rows(fitted, settings, Z[todo], self_unit=self_unit[todo], counts=True)
    if res is None:
        res = tuple(np.full((Z.shape[0],) + part.shape[1:], np.nan) for part in some)
    for whole, part in zip(res, some):
        whole[todo] = part
    cache.key, cache.value, cache.passes = key, res, cache.passes + 1
    cache.rows = None if want.shape[0] == Z.shape[0] else want
    cache.rows_computed += todo.shape[0]
    return res


def audit_rates(fitted, settings, Z, y):
    """The rates of the rows that may be candidates, and the candidates: returns
    ``(candidate, out, n, n_eff, self_unit)`` (``flag`` and ``report``)."""
    self_unit = fitted.self_units(Z, y)
    candidate = fitted.candidates(Z, y)  # no other row can be flagged
    out, n, n_eff = rates(fitted, settings, Z, self_unit=self_unit,
                          rows=np.flatnonzero(candidate))
    return candidate, out, n, n_eff, self_unit


def flag_rows(fitted, settings, Z, y):
    """``flag``'s mask of encoded rows ``Z`` with decisions ``y``."""
    _, out, _, n_eff, _ = audit_rates(fitted, settings, Z, y)
    return decide(fitted, settings, out, Z, y, n_eff)[0]


def decide(fitted, settings, out, Z, y, n_eff):
    """The flags, the candidates' q-values and the audit's p-value cut-off.

    Returns ``(mask, q_value, cutoff)``: ``cutoff`` is the p-value
    threshold of the exact rule's test (``alpha_test`` person by person;
    across an audit of ``m`` candidates of which ``R`` are significant,
    the step-up threshold ``fdr R / (c m)``, ``c = 1`` for
    Benjamini-Hochberg, ``sum_{i<=m} 1/i`` for Benjamini-Yekutieli, and
    the last critical value ``tau_R`` of the discrete procedure: every
    p-value at most it is significant); None for the other rules.
    ``n_eff`` (the effective testers of each side, :func:`rates`' third
    value) gives the discrete procedure its tests' laws.
    """
    return decide_candidates(settings, out, fitted.candidates(Z, y), n_eff)


def decide_candidates(settings, out, candidate, n_eff, counts=None):
    """:func:`decide` given the candidates; ``counts``: the rows each row of ``out``
    stands for (the cells of a table aggregated where the data lives), None: one."""
    weight = np.ones(out.shape[0], dtype=np.int64) if counts is None else \
        np.asarray(counts, dtype=np.int64)
    q = np.full(out.shape[0], np.nan)
    dbh_cutoff = None
    tally = None if counts is None else weight[candidate]
    if settings.fdr_method == "dbh":
        x1, m1, x2, m2 = effective_counts(out[candidate, 0], n_eff[candidate, 0],
                                          out[candidate, 1], n_eff[candidate, 1])
        q[candidate], dbh_cutoff = discrete_step_up(
            out[candidate, 5], (m1, m2, x1 + x2), level=settings.fdr_level, counts=tally)
    else:
        q[candidate] = q_values(out[candidate, 5], method=settings.fdr_method, counts=tally)
    cutoff = None
    if settings.flag_rule == "exact":
        p = out[:, 5]
        m = int(weight[candidate & np.isfinite(p)].sum())
        if settings.fdr is None or m <= 1:
            cutoff = settings.alpha_level
            with np.errstate(invalid="ignore"):
                significant = p <= cutoff
        else:
            with np.errstate(invalid="ignore"):
                significant = q <= settings.fdr
            if settings.fdr_method == "dbh":
                cutoff = dbh_cutoff
            else:
                cutoff = settings.fdr * int(weight[candidate & significant].sum()) / (
                    step_up_constant(settings.fdr_method, m) * m)
        holds = exceeds(out[:, 2], settings.tau, magnitude(settings, out)) & significant
    else:
        holds = person_rule(settings, out)
    return candidate & holds, q, cutoff


def person_rule(settings, out):
    """Whether each row's rates pass a person-by-person rule (``"bound"``,
    ``"significant"`` or ``"tau"``; not ``"exact"``, which needs the audit)."""
    size = magnitude(settings, out)
    if settings.flag_rule == "bound":
        return exceeds(out[:, 3], settings.tau, size)
    if settings.flag_rule == "significant":
        return exceeds(out[:, 2], settings.tau, size) & exceeds(out[:, 3], 0.0, size)
    return exceeds(out[:, 2], settings.tau, size)


def rule_text(settings):
    """The flag rule in words (``flag_rule_``, the evidence's ``rule``)."""
    continuous = settings.continuous
    tau = settings.tau
    test = "Welch's t-test of the mean decisions" if continuous else "exact test"
    bound = "Welch t" if continuous else settings.bound  # the bounds of diff
    if settings.flag_rule == "tau":
        return f"diff > {tau:g}"
    if settings.flag_rule == "exact":
        single = f"p_value <= {settings.alpha_level:g}"
        if settings.fdr is None:
            return f"diff > {tau:g} and {single} ({test}, person by person)"
        name = FDR_NAMES[settings.fdr_method]
        return (f"diff > {tau:g} and q_value <= {settings.fdr:g} ({test}, {name} "
                f"false discovery rate across the audit; a single candidate: {single})")
    level = 100 * (1 - settings.alpha_level)
    if settings.flag_rule == "significant":
        return f"diff > {tau:g} and diff_lower > 0 ({bound}, one-sided {level:g}%)"
    return f"diff_lower > {tau:g} ({bound}, one-sided {level:g}%)"


def pair_distances(fitted, Zx, Zy):
    """``pairwise``'s body: the method's distance from each encoded row of ``Zx`` to each
    of ``Zy`` (None: the fitted records)."""
    Zy = fitted.records.Z if Zy is None else Zy
    method = fitted.method
    check_allocation(method.bytes_per_pair * Zx.shape[0] * Zy.shape[0],
                     what=f"pairwise on {Zx.shape[0]} x {Zy.shape[0]} rows",
                     fix="pass fewer rows of X (or Y) at a time, for example in chunks "
                         "of 1000.")
    return method.pair_distances(method.query(Zx), method.query(Zy))
