"""The auditor's input: its parameters, the checks of X and y, their encoding.

:class:`InputChecks` is a mixin of ``SituationTestingAuditor``: every public
method validates and encodes its input here once (``_validate``,
``_encode``), then hands the encoded matrix on. The error messages are
constants, so that the tests match them.
"""

import numbers

import numpy as np
from sklearn.utils.validation import validate_data

from ..utils._sklearn_compat import Interval, StrOptions
from ..utils._validation import (
    as_pandas_frame,
    check_complete,
    did_you_mean,
    is_int,
    locate_column,
)
from ._constants import (  # noqa: F401  (the messages of fit's checks, for the tests)
    FIT_PARAMS,
    MSG_LAZY_ROWS,
    MSG_NO_PROTECTED,
    MSG_NO_PROTECTED_VALUE,
    MSG_PROTECTED_KIND,
    MSG_SINGLE_GROUP,
)
from ._discretize import BINNINGS
from ._evidence import python_value
from ._records import check_no_datetime
from ._selection._cbn import CAUSAL_EFFECTS
from ._selection._citests import TESTS
from ._selection._methods import METHOD_NAMES
from ._stats._continuous import DECISIONS, check_continuous_y, decision_codes
from ._stats._interval import BOUNDS
from ._stats._pvalue import FDR_METHODS

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


PARAMETER_CONSTRAINTS = {
    "protected": "no_validation",
    "protected_value": "no_validation",
    # the registered methods (a live set: a method registered later is accepted)
    "method": [StrOptions(METHOD_NAMES)],
    "k": [Interval(numbers.Integral, 1, None, closed="left"), StrOptions({"auto"})],
    # a rate's threshold for a yes/no decision (in [-1, 1], checked at fit and use), the
    # decision's units for a continuous one
    "tau": [Interval(numbers.Real, None, None, closed="neither")],
    "decision": [StrOptions(set(DECISIONS))],
    "flag_rule": [StrOptions({"exact", "significant", "bound", "tau"})],
    "bound": [StrOptions(set(BOUNDS))],
    "alpha_test": [Interval(numbers.Real, 0, 1, closed="neither"), None],
    "fdr": [Interval(numbers.Real, 0, 1, closed="neither"), None],
    "fdr_method": [StrOptions(set(FDR_METHODS))],
    "positive_label": "no_validation",
    "graph": "no_validation",
    "structure": [StrOptions({"local", "pc"})],
    "alpha": [Interval(numbers.Real, 0, 1, closed="neither")],
    "structure_test": [StrOptions(set(TESTS))],
    "max_depth": [Interval(numbers.Integral, 0, None, closed="left"), None],
    "smoothing": [Interval(numbers.Real, 0, None, closed="left")],
    "causal_effect": [StrOptions(set(CAUSAL_EFFECTS))],
    "nominal": ["array-like", None],
    "ordinal": ["array-like", None],
    "interval": ["array-like", None],
    "n_bins": [Interval(numbers.Integral, 2, None, closed="left")],
    "binning": [StrOptions(set(BINNINGS))],
    "structure_bootstrap": [Interval(numbers.Integral, 0, None, closed="left")],
    "algorithm": [StrOptions({"auto", "kd_tree", "brute"})],
    "n_jobs": [numbers.Integral, None],
    "verbose": ["verbose"],
    "random_state": ["random_state"],
}


def _shown(classes):
    """The classes for a message: all of them, or the first and last five of many."""
    values = classes.tolist()
    return values if len(values) <= 12 else values[:5] + ["..."] + values[-5:]


class InputChecks:
    """Validation and encoding of the auditor's input (a mixin)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True  # nominal columns, strings included
        tags.input_tags.allow_nan = False
        tags.target_tags.required = True  # the historical decisions
        return tags

    def _validate(self, X, y="no_validation", *, reset=False):
        """``validate_data`` once; y as an array. Returns (X, y), or X without y."""
        # polars and other frames as pandas, so that every scikit-learn version
        # records their column names
        if not reset and getattr(self, "_frame_fit", None) is not None:
            raise ValueError(MSG_LAZY_ROWS.format(what="this method on rows in memory"))
        X = as_pandas_frame(X)
        check_complete(X)
        check_no_datetime(X)
        if isinstance(y, str) and y == "no_validation":
            return validate_data(self, X, dtype=None, reset=reset)
        return validate_data(self, X, y, dtype=None, reset=reset,
                             ensure_min_samples=2 if reset else 1)

    def _encode(self, X):
        return self._records.encode(X)

    def _check_params_at_use(self):
        """The parameters as ``fit`` checked them: ``set_params`` after ``fit`` changes them."""
        self._validate_params()
        changed = [name for name in FIT_PARAMS
                   if repr(getattr(self, name)) != self._fit_params[name]]
        if changed:
            raise ValueError(MSG_REFIT.format(names=", ".join(changed)))
        self._check_k(self.group_sizes_)
        self._check_tau()

    def _continuous(self):
        """Whether the decision is an amount (``decision="continuous"``)."""
        return self.decision == "continuous"

    def _check_tau(self):
        if not self._continuous() and not -1 <= self.tau <= 1:
            raise ValueError(MSG_TAU_RATE.format(tau=self.tau))

    def _check_k(self, sizes):
        if isinstance(self.k, str):  # "auto": K is capped by the testers there are
            return
        for which, size in zip(("unprotected", "protected"), sizes):
            if self.k > size:
                raise ValueError(MSG_K_TOO_LARGE.format(k=self.k, which=which, size=size))

    def _alpha_test(self):
        return 0.1 if self.alpha_test is None else self.alpha_test

    def _fitted_rows(self, fitted_rows, Z, y):
        """Each row's position in the fitted data (-1: unknown); see ``report``."""
        m = Z.shape[0]
        n_fit = self._records.Z.shape[0]
        if fitted_rows is None:
            same = m == n_fit and np.array_equal(Z, self._records.Z) \
                and np.array_equal(np.asarray(y), self._y_fit)
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
            raise ValueError(MSG_FITTED_ROWS.format(n_fit=n_fit - 1, n_rows=m,
                                                    problem=problem))
        return rows.astype(np.intp)

    def _check_decisions(self, y):
        self._check_params_at_use()  # a decision changed by set_params asks for a new fit
        if self._continuous():
            check_continuous_y(y)
            return
        y = np.asarray(y)
        known = np.isin(y, self.classes_)
        if not known.all():
            raise ValueError(MSG_UNKNOWN_DECISION.format(value=python_value(y[~known][0]),
                                                         classes=self.classes_.tolist()))

    def _protected_index(self, columns):
        prot = self.protected
        has_names = hasattr(self, "feature_names_in_")
        pos = locate_column(prot, columns, has_names=has_names)
        if pos is not None:
            return pos
        if not has_names and not is_int(prot):
            raise ValueError(MSG_PROTECTED_NAME_NO_NAMES.format(protected=prot))
        shown = columns if has_names else f"{len(columns)} columns"
        raise ValueError(MSG_PROTECTED_NOT_FOUND.format(
            protected=prot, columns=shown, hint=did_you_mean(prot, columns) if has_names else ""))

    def _protected_code(self, records, Z):
        """The protected value in the encoded column (fit); error when absent."""
        j = self.protected_index_
        if j in records.categories:
            cats = records.categories[j]
            hit = np.flatnonzero(cats == self.protected_value) \
                if isinstance(self.protected_value, str) else np.zeros(0, dtype=np.intp)
            values = cats.tolist()
            code = float(hit[0]) if hit.size else None
        else:
            values = np.unique(Z[:, j])[:20].tolist()
            try:
                code = float(self.protected_value)
            except (TypeError, ValueError):
                code = None
            if code is not None and not np.any(Z[:, j] == code):
                code = None
        if code is None:
            raise ValueError(MSG_UNKNOWN_PROTECTED_VALUE.format(
                value=self.protected_value, column=records.columns[j], values=values))
        return code

    def _group(self, Z):
        """True for the protected group, from the protected column."""
        return Z[:, self.protected_index_] == self._protected_value_code

    def _candidates(self, Z, y):
        """The rows that can be flagged: the protected group with the negative decision;
        for a continuous decision, the whole protected group (``_continuous``)."""
        group = self._group(Z)
        if not self._continuous():
            return group & ~self._positive(y)
        return group

    def _decision_classes(self, positive):
        """The decision as classes, for the structure search and the supervised bins:
        ``positive`` (``_positive``'s) as 0/1, a continuous one above its median or not."""
        return decision_codes(positive) if self._continuous() else positive.astype(np.intp)

    def _positive(self, y, fitting=False):
        y = np.asarray(y)
        if self._continuous():  # the decision's value: the testers' sums are of it
            if fitting:
                self.positive_label_ = None
            return check_continuous_y(y)
        if fitting:
            classes = np.unique(y)
            self.classes_ = classes
            if classes.shape[0] < 2:
                raise ValueError(MSG_SINGLE_DECISION.format(value=python_value(classes[0])))
            if self.positive_label is None:
                if classes.shape[0] != 2:
                    many = classes.dtype.kind in "iuf" and classes.shape[0] > 10
                    raise ValueError(MSG_NOT_BINARY.format(
                        n=classes.shape[0], classes=_shown(classes),
                        hint=HINT_CONTINUOUS if many else ""))
                self.positive_label_ = classes[1]
            else:
                if self.positive_label not in classes.tolist():
                    raise ValueError(MSG_UNKNOWN_POSITIVE.format(value=self.positive_label,
                                                                 classes=classes.tolist()))
                self.positive_label_ = self.positive_label
        return y == self.positive_label_
