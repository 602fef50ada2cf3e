"""What benchmarks and tests need of situation testing that no public name gives.

Who may use it: the scripts of ``benchmarks/`` and the test suite, nobody
else. It is not public API: a name here may change or go in any release,
without notice or deprecation.

The functions read a fitted :class:`~skfair_manifold.situation_testing.SituationTestingAuditor`
(``est``) where its public methods keep what they computed to themselves;
the other names re-export the pure statistics that the benchmarks use. Each
body is short and sits on the auditor's one private attribute, its fitted
audit (``est._fitted``, a :class:`._fitted.FittedAudit`) and the flag
functions of ``_flags``: when those move, the bodies are written anew here,
once, and what each function returns (its docstring) stays.
"""

from contextlib import contextmanager

import numpy as np

from ._fitted import AuditSettings
from ._flags import exceeds, transform_rows
from ._flags import k_of_rows as _k_of_rows
from ._flags import rule_text as _rule_text
from ._lazy import _fit as _lazy_fit
from ._stats._pvalue import effective_counts, fisher_pvalue, q_values

__all__ = [
    # a fitted auditor's internals
    "encoded",
    "k_of_rows",
    "last_rates",
    "rate_passes",
    "rates_with_counts",
    "rule_text",
    "alpha_test",
    "q_cells",
    "n_profiles",
    "structure_sample",
    # the fitted audit, for the tests
    "fitted_audit",
    "settings",
    "k_of_encoded",
    "transform_encoded",
    # pure statistics
    "q_values",
    "fisher_pvalue",
    "effective_counts",
    "exceeds",
]

# Re-exported as they are:
#
# - ``q_values(p, *, method="bh", counts=None)``: Benjamini-Hochberg (or -Yekutieli)
#   q-values of the p-values ``p``, NaN where ``p`` is NaN;
# - ``fisher_pvalue(x1, m1, x2, m2, *, u=None)``: the exact one-sided p-value of
#   ``p1 <= p2`` with ``x1`` positives of ``m1`` testers against ``x2`` of ``m2``
#   (randomised by uniform draws ``u``);
# - ``effective_counts(p1, n1_eff, p2, n2_eff)``: the whole ``(x1, m1, x2, m2)`` that the
#   auditor's p-value reads from rates and effective numbers of testers;
# - ``exceeds(score, tau)``: ``score > tau`` with rounding ties counted as equal.
# The generators' parts are ``skfair_manifold.datasets._testing``'s.


def encoded(est, X):
    """The encoded matrix of the rows ``X``, as the auditor's public methods encode them.

    ``X`` is checked against the fitted columns first. Returns the (n_rows,
    n_features) array that the auditor's rates are computed from.
    """
    return est._fitted.encode(est._validate(X))


def k_of_rows(est, X):
    """Each row's K: ``est.k``, or under ``k="auto"`` the K the auditor chose for the row.

    ``X``: a pandas DataFrame of the fitted columns. Returns an int array of
    shape (n_rows,).
    """
    return k_of_encoded(est, est._fitted.encode(X.to_numpy(dtype=object)))


def last_rates(est):
    """The rates kept by the last ``flag`` or ``report``: ``(out, n, n_eff)``.

    ``out`` is ``transform``'s (n_rows, 6) table of those rows (NaN for the
    rows that cannot be candidates, whose rates were not computed), ``n``
    the testers of each side (n_rows, 2) and ``n_eff`` their effective
    numbers (n_rows, 2). None before the first ``flag`` or ``report``.
    """
    return est._fitted.rate_cache.value


def rate_passes(est):
    """The passes over rows' rates made by ``flag`` and ``report`` since ``fit`` (an int).

    ``flag`` then ``report`` of the same rows make one pass when ``report``
    reuses the rates ``flag`` kept.
    """
    return est._fitted.rate_cache.passes


def rates_with_counts(est, X):
    """The rates of the rows ``X`` computed afresh, with their testers: ``(out, n, n_eff)``.

    ``out`` is ``transform(X)``'s (n_rows, 6) table, ``n`` the testers of each
    side (n_rows, 2) and ``n_eff`` their effective numbers (n_rows, 2). Nothing
    is kept for a later ``flag`` or ``report``.
    """
    return transform_encoded(est, encoded(est, X), counts=True)


def rule_text(est):
    """The auditor's flag rule in words, as ``flag_rule_`` and the evidence give it (a str).

    Needs no ``fit``: it reads the parameters.
    """
    return _rule_text(AuditSettings(est.get_params(deep=False)))


def alpha_test(est):
    """The one-sided level of the person-by-person test: ``alpha_test``, or 0.1 when None."""
    return AuditSettings(est.get_params(deep=False)).alpha_level


def q_cells(est, X):
    """Each row's cell of ``q_`` (CBN-DD's situation), as an integer code.

    ``X``: a pandas DataFrame of the fitted columns. The rows are binned as
    the fitted auditor bins them (interval columns by ``bin_edges_``) and
    read on the columns of ``q_``; rows of one cell get one code (0, 1, ...
    in the order of the cells' sorted values). Returns an int array of shape
    (n_rows,). A fitted ``method="cbn"`` auditor with ``q_`` not empty.
    """
    fitted = est._fitted
    Z = fitted.records.binned(fitted.encode(X.to_numpy(dtype=object)))
    return np.unique(Z[:, fitted.q_idx], axis=0, return_inverse=True)[1].reshape(-1)


def n_profiles(est):
    """CBN-DD's number of profiles: the distinct fitted values of ``q_`` (an int)."""
    return est._fitted.method.selector.profiles.shape[0]


@contextmanager
def structure_sample(size):
    """Inside the block, a frame's fit learns its structure on at most ``size`` rows.

    An auditor fitted on a lazy frame without ``graph`` learns ``q_`` in
    memory on a random sample of the frame's rows: 200,000 by default
    (``STRUCTURE_SAMPLE``), ``size`` inside the block. Restored on leaving it.
    """
    before = _lazy_fit.STRUCTURE_SAMPLE
    _lazy_fit.STRUCTURE_SAMPLE = int(size)
    try:
        yield
    finally:
        _lazy_fit.STRUCTURE_SAMPLE = before


def fitted_audit(est):
    """The auditor's :class:`~._fitted.FittedAudit`: what ``fit`` learned."""
    return est._fitted


def settings(est):
    """The auditor's parameters as a call reads them (checked as at every use)."""
    return est._call_settings()


def k_of_encoded(est, Z, self_unit=None):
    """The K of each encoded row ``Z``: ``k``, or under ``k="auto"`` the row's own
    (``self_unit``: the fitted copy each row leaves out; None: looked up)."""
    fitted = est._fitted
    if self_unit is None:
        self_unit = fitted.self_units(Z)
    return _k_of_rows(fitted, settings(est), Z, self_unit)


def transform_encoded(est, Z, **options):
    """The rates of encoded rows ``Z`` computed afresh (``options``: those of
    :func:`._flags.transform_rows`: ``self_unit``, ``k``, ``counts``, ``cells``)."""
    return transform_rows(est._fitted, settings(est), Z, **options)
