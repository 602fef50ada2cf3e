"""What the benchmarks and the tests need of a fitted auditor that no public name gives.

Not public API: thin functions over the auditor's fitted audit
(:class:`._fitted.FittedAudit`, kept as ``est._fitted``) and its flag
functions, so that a benchmark or a test reads the rates, the K of each row or
the rule in words without reaching into private attributes, and an internal
change is mended here once. Each function takes a fitted
``SituationTestingAuditor`` (``rule_text`` and ``alpha_test`` an unfitted one
too).
"""

import numpy as np

from ._fitted import AuditSettings
from ._flags import k_of_rows as _k_of_rows
from ._flags import rule_text as _rule_text
from ._flags import transform_rows
from ._stats._pvalue import effective_counts, fisher_pvalue, q_values

__all__ = ["alpha_test", "effective_counts", "encoded", "fisher_pvalue", "fitted_audit",
           "k_of_rows", "last_rates", "n_profiles", "q_cells", "q_values", "rate_passes",
           "rates_with_counts", "rule_text", "settings", "transform_encoded"]


def fitted_audit(est):
    """The auditor's :class:`~._fitted.FittedAudit` (what ``fit`` learned)."""
    return est._fitted


def settings(est):
    """The auditor's parameters as a call reads them (checked as at every use)."""
    return est._call_settings()


def encoded(est, X):
    """The rows ``X`` validated and encoded as the auditor's public methods encode them."""
    return est._fitted.encode(est._validate(X))


def k_of_rows(est, Z, self_unit=None):
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


def rates_with_counts(est, X):
    """``(out, n, n_eff)`` of the rows ``X``, computed afresh: the rates (``transform``'s
    columns), the testers' weights and their effective numbers per side."""
    return transform_encoded(est, encoded(est, X), counts=True)


def last_rates(est):
    """``(out, n, n_eff)`` kept by the last ``flag`` or ``report`` (NaN for the rows
    whose rates were not computed)."""
    return est._fitted.rate_cache.value


def rate_passes(est):
    """How many passes over the rows the auditor's rates have taken since ``fit``."""
    return est._fitted.rate_cache.passes


def rule_text(est):
    """The flag rule in words for the auditor's current parameters (fitted or not)."""
    return _rule_text(AuditSettings(est.get_params(deep=False)))


def alpha_test(est):
    """The per-person test's level: ``alpha_test``, 0.1 when None."""
    return AuditSettings(est.get_params(deep=False)).alpha_level


def q_cells(est, X):
    """Each row's CBN-DD cell: the index of its profile of ``q_`` (interval columns by
    their bins) among the distinct profiles of ``X`` (a DataFrame)."""
    fitted = est._fitted
    Z = fitted.records.binned(fitted.encode(X.to_numpy(dtype=object)))
    return np.unique(Z[:, fitted.q_idx], axis=0, return_inverse=True)[1].reshape(-1)


def n_profiles(est):
    """The number of CBN-DD's profiles of ``q_`` among the fitted records."""
    return est._fitted.method.selector.profiles.shape[0]
