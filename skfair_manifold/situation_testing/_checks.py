"""The auditor's checks: its parameters at fit and at use, the decisions, the protected value.

Each public method of ``SituationTestingAuditor`` validates its input once
(``validate_data``, in the estimator) and calls these functions with the
call's :class:`._fitted.AuditSettings` and, after ``fit``, the
:class:`._fitted.FittedAudit`. The error messages are constants, so that the
tests match them.
"""


import numpy as np

from ..utils._validation import did_you_mean, is_int, locate_column
from ._constants import (  # noqa: F401  (the messages of fit's checks, for the tests)
    FIT_PARAMS,
    MSG_LAZY_ROWS,
    MSG_NO_PROTECTED,
    MSG_NO_PROTECTED_VALUE,
    MSG_PROTECTED_KIND,
    MSG_SINGLE_GROUP,
)
from ._evidence import python_value
from ._stats._continuous import MSG_CONTINUOUS_OPTION, check_continuous_y

MSG_PROTECTED_NOT_FOUND = "protected column {protected!r} is not a column of X ({columns}).{hint}"
MSG_PROTECTED_NAME_NO_NAMES = (
    "protected={protected!r} is a name but X has no column names; pass a DataFrame or the "
    "column's position."
)
MSG_UNKNOWN_PROTECTED_VALUE = (
    "protected_value {value!r} does not occur in column {column!r}; its values are {values}."
)
MSG_SINGLE_DECISION = (
    "the decision y has a single class ({value!r}); both a positive and a negative decision "
    "must occur."
)
MSG_NOT_BINARY = (
    "the decision y has {n} classes {classes}; set positive_label to the positive decision "
    "(every other class is negative){hint}."
)
#: the end of MSG_NOT_BINARY when y holds numbers with many distinct values
HINT_CONTINUOUS = (
    ", or, if y is an amount (a wage, a limit), decision='continuous' to compare the "
    "testers' mean decisions"
)
MSG_TAU_RATE = (
    "tau={tau!r} is a threshold on a difference of rates for a yes/no decision and must be "
    "in [-1, 1]; for an amount (a wage, a limit) set decision='continuous', and tau is in "
    "its units."
)
MSG_UNKNOWN_POSITIVE = "positive_label {value!r} is not a class of y ({classes})."
MSG_UNKNOWN_DECISION = (
    "y holds the decision {value!r}, which is not among the fitted decisions {classes}; "
    "pass the decisions in the coding used at fit."
)
MSG_K_TOO_LARGE = (
    "k={k} is larger than the {which} group ({size} rows): there are not k testers to draw "
    "(k must be in [1, {size}]). Lower k."
)
MSG_FITTED_ROWS = (
    "fitted_rows must hold one position in the fitted data (0 .. {n_fit}, or -1 for a person "
    "not fitted) per row of X ({n_rows} rows); got {problem}."
)
MSG_REFIT = (
    "parameter(s) {names} changed since fit (set_params); the fitted testers' pool depends "
    "on them: call fit again."
)




def _shown(classes):
    """The classes for a message: all of them, or the first and last five of many."""
    values = classes.tolist()
    return values if len(values) <= 12 else values[:5] + ["..."] + values[-5:]


def check_fit_params(settings):
    """What ``fit`` asks of the parameters before it reads any data."""
    if settings.protected is None:
        raise ValueError(MSG_NO_PROTECTED)
    if settings.protected_value is None:
        raise ValueError(MSG_NO_PROTECTED_VALUE)
    check_tau(settings)
    check_continuous_options(settings)


def check_continuous_options(settings):
    """The options of a yes/no decision refused with an amount (``decision="continuous"``)."""
    if not settings.continuous:
        return
    why = {
        "fdr_method": ("dbh", "the discrete procedure weighs each person by the law of her "
                       "Fisher test, which a mean decision has not; use fdr_method='bh' or "
                       "'by'."),
        "bound": ("newcombe", "Newcombe's interval is of a difference of two rates; the "
                  "bounds of a difference of mean amounts are Welch's t bounds: leave bound "
                  "out (bound='wald', which an amount does not read)."),
        "positive_label": (None, "an amount has no positive class: every protected person "
                           "is tested and a higher amount is the favourable one; leave "
                           "positive_label out (negate y where a lower amount favours), or "
                           "use decision='binary' for classes."),
    }
    for name, (allowed, reason) in why.items():
        value = getattr(settings, name)
        refused = value is not None if name == "positive_label" else value == allowed
        if refused:
            raise ValueError(MSG_CONTINUOUS_OPTION.format(name=name, value=value, why=reason))


def fit_params_of(settings):
    """``repr`` of each of ``FIT_PARAMS`` (kept at fit, compared at use)."""
    return {name: repr(settings.params[name]) for name in FIT_PARAMS}


def check_params_at_use(fitted, settings):
    """The parameters as ``fit`` checked them: ``set_params`` after ``fit`` changes them."""
    check_continuous_options(settings)
    current = fit_params_of(settings)
    changed = [name for name in FIT_PARAMS if current[name] != fitted.fit_params[name]]
    if changed:
        raise ValueError(MSG_REFIT.format(names=", ".join(changed)))
    check_k(settings, fitted.group_sizes)
    check_tau(settings)


def check_tau(settings):
    if not settings.continuous and not -1 <= settings.tau <= 1:
        raise ValueError(MSG_TAU_RATE.format(tau=settings.tau))


def check_k(settings, sizes):
    if settings.auto_k:  # "auto": K is capped by the testers there are
        return
    for which, size in zip(("unprotected", "protected"), sizes):
        if settings.k > size:
            raise ValueError(MSG_K_TOO_LARGE.format(k=settings.k, which=which, size=size))


def is_fitted_data(fitted, Z):
    """Whether the encoded rows ``Z`` are the fitted records, in their order."""
    return Z.shape == fitted.records.Z.shape and np.array_equal(Z, fitted.records.Z)


def own_records(fitted, Z):
    """For an amount's fitted rows (in order), the unit each leaves out of its testers
    (her own record, of known decision, as ``flag`` and ``report`` do); else None."""
    if fitted.continuous and is_fitted_data(fitted, Z):
        return fitted.self_units(Z, fitted.y_fit)
    return None


def fitted_rows_of(fitted, fitted_rows, Z, y):
    """Each row's position in the fitted data (-1: unknown); see ``report``."""
    m = Z.shape[0]
    n_fit = fitted.records.Z.shape[0]
    if fitted_rows is None:
        same = is_fitted_data(fitted, Z) and np.array_equal(np.asarray(y), fitted.y_fit)
        return np.arange(m) if same else np.full(m, -1, dtype=np.intp)
    rows = np.asarray(fitted_rows)
    problem = None
    if rows.ndim != 1 or rows.shape[0] != m:
        problem = f"shape {rows.shape}"
    elif rows.size and not np.issubdtype(rows.dtype, np.integer):
        problem = f"dtype {rows.dtype}"
    elif rows.size and (rows.min() < -1 or rows.max() >= n_fit):
        bad = rows[(rows < -1) | (rows >= n_fit)][0]
        problem = f"{int(bad)}"
    if problem is not None:
        raise ValueError(MSG_FITTED_ROWS.format(n_fit=n_fit - 1, n_rows=m, problem=problem))
    return rows.astype(np.intp)


def check_decisions(fitted, y):
    """The decisions of the audited rows: an amount's values, or fitted classes."""
    if fitted.continuous:
        check_continuous_y(y)
        return
    y = np.asarray(y)
    known = np.isin(y, fitted.classes)
    if not known.all():
        raise ValueError(MSG_UNKNOWN_DECISION.format(value=python_value(y[~known][0]),
                                                     classes=fitted.classes.tolist()))


def protected_index(settings, columns, *, has_names):
    """The protected column's position in ``columns``; an error naming the fix."""
    prot = settings.protected
    pos = locate_column(prot, columns, has_names=has_names)
    if pos is not None:
        return pos
    if not has_names and not is_int(prot):
        raise ValueError(MSG_PROTECTED_NAME_NO_NAMES.format(protected=prot))
    shown = columns if has_names else f"{len(columns)} columns"
    raise ValueError(MSG_PROTECTED_NOT_FOUND.format(
        protected=prot, columns=shown, hint=did_you_mean(prot, columns) if has_names else ""))


def protected_code(settings, records, Z, j):
    """The protected value in the encoded column ``j`` (fit); error when absent."""
    if j in records.categories:
        cats = records.categories[j]
        hit = np.flatnonzero(cats == settings.protected_value) \
            if isinstance(settings.protected_value, str) else np.zeros(0, dtype=np.intp)
        values = cats.tolist()
        code = float(hit[0]) if hit.size else None
    else:
        values = np.unique(Z[:, j])[:20].tolist()
        try:
            code = float(settings.protected_value)
        except (TypeError, ValueError):
            code = None
        if code is not None and not np.any(Z[:, j] == code):
            code = None
    if code is None:
        raise ValueError(MSG_UNKNOWN_PROTECTED_VALUE.format(
            value=settings.protected_value, column=records.columns[j], values=values))
    return code


def learn_decisions(settings, y):
    """The fitted decisions' classes and positive label: ``(classes, positive_label)``,
    ``(None, None)`` for an amount (whose values are checked)."""
    y = np.asarray(y)
    if settings.continuous:
        check_continuous_y(y)
        return None, None
    classes = np.unique(y)
    if classes.shape[0] < 2:
        raise ValueError(MSG_SINGLE_DECISION.format(value=python_value(classes[0])))
    if settings.positive_label is None:
        if classes.shape[0] != 2:
            many = classes.dtype.kind in "iuf" and classes.shape[0] > 10
            raise ValueError(MSG_NOT_BINARY.format(
                n=classes.shape[0], classes=_shown(classes),
                hint=HINT_CONTINUOUS if many else ""))
        return classes, classes[1]
    if settings.positive_label not in classes.tolist():
        raise ValueError(MSG_UNKNOWN_POSITIVE.format(value=settings.positive_label,
                                                     classes=classes.tolist()))
    return classes, settings.positive_label
