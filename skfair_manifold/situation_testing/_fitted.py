"""What a fit of the auditor learns, as one object, and the parameters of one call.

``fit`` builds one :class:`FittedAudit` (in memory: :func:`._fitting.fit_rows`;
on a lazy frame: :func:`._lazy._fit.fit_frame`). ``transform``, ``flag``,
``report`` and ``pairwise`` are functions of that object, of the call's
:class:`AuditSettings` (the estimator's parameters, which ``set_params`` may
change after ``fit`` within the limits of ``FIT_PARAMS``) and of the query rows
(:mod:`._flags`, :mod:`._assembly`, :mod:`._lazy._verdicts`). The estimator
keeps the object as its one private attribute, ``_fitted``, beside the public
fitted attributes that :meth:`FittedAudit.public_attributes` lists.

The object is filled in place after ``fit`` only by its caches (the last rates
of :class:`RateCache` and a continuous decision's sums per cell), so that the
public methods leave the estimator's attributes as ``fit`` set them.
"""

import numpy as np

from ._stats._continuous import check_continuous_y, decision_codes


class AuditSettings:
    """The auditor's parameters at one call (``get_params(deep=False)``), as attributes.

    Besides every parameter by its name, four derived values the rules read:
    ``continuous`` (``decision="continuous"``), ``alpha_level`` (``alpha_test``,
    0.1 when None), ``fdr_level`` (``fdr``, 0.1 when None) and ``auto_k``
    (``k="auto"``).
    """

    def __init__(self, params):
        self.params = dict(params)
        self.__dict__.update(self.params)

    @property
    def continuous(self):
        return self.decision == "continuous"

    @property
    def alpha_level(self):
        return 0.1 if self.alpha_test is None else self.alpha_test

    @property
    def fdr_level(self):
        return 0.1 if self.fdr is None else self.fdr

    @property
    def auto_k(self):
        return isinstance(self.k, str)


class RateCache:
    """The last rates computed (:func:`._flags.rates`) and a pass counter."""

    def __init__(self):
        self.key, self.value, self.passes, self.rows = None, None, 0, None
        self.rows_computed = 0  # rows whose rates were computed, over every pass


class FittedAudit:
    """What ``fit`` learns: the records' encoding, the testers' pool, the rule's inputs.

    Attributes
    ----------
    records : Records
        Column kinds, encoding and bins of the fitted columns (on a lazy
        frame: of the cells' columns, Q and the protected one).
    columns : list
        The fitted columns' names (positions for arrays).
    protected_column : int
        The protected column's position among ``records``' columns.
    protected_code : float
        The protected value in that column's encoding.
    continuous : bool
        Whether the decision is an amount.
    positive_label, classes : object, ndarray or None
        The positive decision and the decisions seen (None for an amount).
    group_sizes : tuple of int
        Rows of the unprotected and protected groups.
    fit_params : dict
        ``repr`` of each of ``FIT_PARAMS`` at fit (a later ``set_params`` of one
        of them asks for a new fit).
    method : SelectorMethod or None
        The testers' selector (None for a fit on a lazy frame: ``frame``).
    q_idx : list of int
        Q's positions among ``columns``.
    units : Units or None
        Identical fitted records and their look-up (in memory).
    y_fit : ndarray or None
        The fitted decisions (in memory).
    frame : object or None
        What a fit on a lazy frame keeps (:class:`._lazy._fit.FrameFit`).
    rate_cache : RateCache
    cell_sums : tuple or None
        A continuous decision's sums per cell of the last selector asked.
    attributes : dict
        The public fitted attributes (``q_``, ``graph_``, ...) by name.
    """

    def __init__(self, *, records, columns, protected_column, protected_code, continuous,
                 positive_label, classes, group_sizes, fit_params, attributes,
                 method=None, q_idx=(), units=None, y_fit=None, frame=None):
        self.records, self.columns = records, columns
        self.protected_column, self.protected_code = protected_column, protected_code
        self.continuous = continuous
        self.positive_label, self.classes = positive_label, classes
        self.group_sizes, self.fit_params = group_sizes, fit_params
        self.method, self.q_idx = method, list(q_idx)
        self.units, self.y_fit, self.frame = units, y_fit, frame
        self.attributes = attributes
        self.index = None  # the fitted frame's index labels, when not its positions
        self.rate_cache = RateCache()
        self.cell_sums = None

    def public_attributes(self):
        """The estimator's fitted attributes (``name_ -> value``) this fit sets."""
        return dict(self.attributes)

    def encode(self, X):
        """Rows validated by the estimator, encoded as the fitted records are."""
        return self.records.encode(X)

    def group(self, Z):
        """True for the protected group, from the encoded protected column."""
        return Z[:, self.protected_column] == self.protected_code

    def positive(self, y):
        """The positive decision of each row (bool), or an amount's value (float)."""
        y = np.asarray(y)
        if self.continuous:  # the decision's value: the testers' sums are of it
            return check_continuous_y(y)
        return y == self.positive_label

    def candidates(self, Z, y):
        """The rows that can be flagged: the protected group with the negative decision;
        for a continuous decision, the whole protected group."""
        group = self.group(Z)
        if not self.continuous:
            return group & ~self.positive(y)
        return group

    def decision_classes(self, positive):
        """The decision as classes, for the structure search and the supervised bins:
        ``positive`` as 0/1, a continuous one above its median or not."""
        return decision_codes(positive) if self.continuous else positive.astype(np.intp)

    def self_units(self, Z, y=None):
        """The fitted unit each row is a copy of (-1: none), the copy left out of its
        testers: for a continuous decision, the copy with the row's decision (``y``
        None: the least one)."""
        if not self.continuous:
            return self.units.lookup(Z)
        return self.units.lookup(Z, "any" if y is None else self.positive(y))
