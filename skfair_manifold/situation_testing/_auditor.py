"""SituationTestingAuditor: situation testing of individual decisions."""

import hashlib
import numbers

import numpy as np
from scipy import stats
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils._sklearn_compat import Interval, StrOptions, _check_feature_names_in, _fit_context
from ._cbn import CBNSelector
from ._knn import KNNSelector, knn_profile_distances
from ._structure import graph_to_parents, local_parent_search, pc_parents

MSG_NO_PROTECTED = "protected is required: the column of X that holds the protected attribute."
MSG_NO_PROTECTED_VALUE = "protected_value is required: the value of the protected group c-."
MSG_PROTECTED_NOT_FOUND = "protected column {protected!r} is not a column of X ({columns})."
MSG_PROTECTED_NAME_NO_NAMES = (
    "protected={protected!r} is a name but X has no column names; pass a DataFrame or the "
    "column's position."
)
MSG_UNKNOWN_PROTECTED_VALUE = (
    "protected_value {value!r} does not occur in column {column!r}; its values are {values}."
)
MSG_SINGLE_GROUP = (
    "every row is {which}: situation testing compares the protected group with the others, "
    "so both must occur in the data."
)
MSG_SINGLE_DECISION = (
    "the decision y has a single class ({value!r}); both a positive and a negative decision "
    "must occur."
)
MSG_NOT_BINARY = (
    "the decision y has {n} classes {classes}; set positive_label to the positive decision "
    "(every other class is negative)."
)
MSG_UNKNOWN_POSITIVE = "positive_label {value!r} is not a class of y ({classes})."
MSG_K_TOO_LARGE = (
    "k={k} is larger than the {which} group ({size} rows): there are not k testers to draw. "
    "Lower k."
)
MSG_KIND = (
    "attribute_kinds[{column!r}] must be 'nominal', 'ordinal' or 'interval'; got {kind!r}."
)
MSG_KIND_COLUMN = "attribute_kinds names {column!r}, which is not a column of X."
MSG_STRING_ORDINAL = "column {column!r} holds strings, so it can only be 'nominal'."

_KINDS = ("nominal", "ordinal", "interval")


class SituationTestingAuditor(TransformerMixin, BaseEstimator):
    """Situation testing of individual decisions, by KNN-DD or CBN-DD.

    For every person, the auditor draws ``k`` testers from the unprotected
    group and ``k`` from the protected group among the fitted (historical)
    records, and compares their positive-decision rates: ``p1`` (unprotected
    testers), ``p2`` (protected testers) and ``diff = p1 - p2``. A person of
    the protected group who received the negative decision is flagged as
    discriminated when ``diff > tau``.

    With ``method="cbn"`` (Zhang, Wu and Wu, Algorithm 1) the testers are the
    records closest in the decision's direct causes ``Q = Par(E) \\ {C}``,
    under a distance that weighs each value difference by its causal effect
    on the decision (Lemma 3). With ``method="knn"`` (Luong, Ruggieri and
    Turini) they are the ``k`` nearest records under the mean of normalised
    Manhattan (ordinal/interval) and overlap (nominal) distances over all
    non-protected attributes.

    Read more in ``docs/situation_testing.md``.

    Parameters
    ----------
    protected : str or int
        The column of ``X`` holding the protected attribute (a name for a
        DataFrame, or a position).
    protected_value : object
        The value of that column which marks the protected group ``c-``; all
        other values form the unprotected group ``c+``.
    method : {"cbn", "knn"}, default="cbn"
        CBN-DD or KNN-DD.
    k : int, default=50
        Testers per side (tester pairs). It may not exceed either group.
    tau : float, default=0.05
        The legal threshold on ``diff``.
    positive_label : object, default=None
        The positive decision ``e+``. None: the greater of exactly two
        classes of ``y``.
    graph : mapping, DiGraph-like, sequence or None, default=None
        The causal graph for ``method="cbn"``: a mapping child -> parents, an
        object with ``nodes`` and ``predecessors`` (``networkx.DiGraph``), or
        the sequence of the decision's parents. Nodes are column names (or
        positions for arrays); the decision node is named after ``y``
        (a pandas Series' name) or ``"y"``. None: learned from the data.
    structure : {"local", "pc"}, default="local"
        How the decision's parents are learned when ``graph`` is None: a
        local G-test search around the decision (scipy only), or the full PC
        algorithm of causal-learn (optional extra ``causal``).
    alpha : float, default=0.05
        Significance level of the structure learning tests.
    smoothing : float, default=1.0
        The ``m`` of the m-estimate ``(n+(c,q) + m P(e+|c)) / (n(c,q) + m)``
        of ``P(e+ | c, q)``; an unseen combination gets ``P(e+ | c)``.
    attribute_kinds : dict or None, default=None
        Column -> ``"nominal"``, ``"ordinal"`` or ``"interval"``. Columns not
        named are inferred: string, boolean and categorical dtypes are
        nominal, numeric ones ordinal/interval.
    alpha_test : float or None, default=None
        When set, ``transform`` adds ``diff_lower``, the one-sided
        ``1 - alpha_test`` Wald lower confidence bound of ``diff``, and
        ``flag`` requires ``diff_lower > tau`` as well.
    n_jobs : int or None, default=None
        Threads for KNN-DD's blocks of distances. Results do not depend on it.
    random_state : int, RandomState instance or None, default=None
        Seeds the tie-breaking priority of the records (see Notes).

    Attributes
    ----------
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Defined only when X has string column names.
    protected_index_ : int
        Position of the protected column.
    positive_label_ : object
    decision_name_ : str
        The name of the decision node in ``graph_``.
    graph_ : dict or None
        Node -> tuple of parents (the given graph, or the learned parents of
        the decision only). None for ``method="knn"``.
    q_ : list
        ``Par(decision) \\ {protected}``, for ``method="cbn"``; for
        ``method="knn"`` all non-protected columns.
    attribute_kinds_ : dict
        Column -> kind, for every column.
    structure_info_ : dict
        The structure search's number of tests and separating sets (empty
        when a graph was given).
    group_sizes_ : tuple of int
        Rows of the unprotected and protected groups.
    tie_seed_ : int
        The seed of the tie-breaking hash.

    Notes
    -----
    Ties. Equally distant candidate testers are taken in the order of a
    priority: a BLAKE2 hash of the record's values (all columns and the
    decision) salted with ``tie_seed_``. Identical records share a priority
    and are interchangeable, so the result does not depend on the order of
    the rows, only on ``random_state``. Distances are rounded to 10 decimals
    before they are compared.

    Self-exclusion. A query row whose values equal a fitted record is taken
    to be that person, and one copy of the record is left out of its testers:
    a copy with the negative decision when one exists (the claimant of a
    situation test received the negative decision), else a positive one. So
    a fitted row is never its own tester, and rows of the protected group
    with the negative decision, the only ones ``flag`` can mark, are
    audited exactly.

    When fewer than ``k`` testers can be drawn (CBN-DD pairs records one to
    one inside each subgroup), the rates use those drawn; with none, they are
    NaN.

    References
    ----------
    .. [1] L. Zhang, Y. Wu and X. Wu. Situation Testing-Based Discrimination
       Discovery: A Causal Inference Approach. IJCAI 2016.
    .. [2] B. T. Luong, S. Ruggieri and F. Turini. k-NN as an Implementation
       of Situation Testing for Discrimination Discovery and Prevention.
       KDD 2011.
    .. [3] J. M. Alvarez and S. Ruggieri. Counterfactual Situation Testing:
       Uncovering Discrimination under Fairness given the Difference. 2023.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair_manifold.situation_testing import SituationTestingAuditor
    >>> rng = np.random.RandomState(0)
    >>> sex = rng.randint(0, 2, 400)               # 1: the protected group
    >>> skill = rng.randint(0, 3, 400)
    >>> y = (rng.rand(400) < 0.3 + 0.2 * skill - 0.3 * sex).astype(int)
    >>> X = np.column_stack([sex, skill])
    >>> auditor = SituationTestingAuditor(protected=0, protected_value=1, k=20,
    ...                                   graph=[0, 1], random_state=0).fit(X, y)
    >>> auditor.q_
    [1]
    >>> out = auditor.transform(X)
    >>> out.shape, auditor.get_feature_names_out().tolist()
    ((400, 3), ['p1', 'p2', 'diff'])
    >>> int(auditor.flag(X, y).sum()) > 0
    True
    """

    _parameter_constraints = {
        "protected": "no_validation",
        "protected_value": "no_validation",
        "method": [StrOptions({"cbn", "knn"})],
        "k": [Interval(numbers.Integral, 1, None, closed="left")],
        "tau": [Interval(numbers.Real, -1, 1, closed="both")],
        "positive_label": "no_validation",
        "graph": "no_validation",
        "structure": [StrOptions({"local", "pc"})],
        "alpha": [Interval(numbers.Real, 0, 1, closed="neither")],
        "smoothing": [Interval(numbers.Real, 0, None, closed="left")],
        "attribute_kinds": [dict, None],
        "alpha_test": [Interval(numbers.Real, 0, 1, closed="neither"), None],
        "n_jobs": [numbers.Integral, None],
        "random_state": ["random_state"],
    }

    def __init__(self, *, protected=None, protected_value=None, method="cbn", k=50,
                 tau=0.05, positive_label=None, graph=None, structure="local", alpha=0.05,
                 smoothing=1.0, attribute_kinds=None, alpha_test=None, n_jobs=None,
                 random_state=None):
        self.protected = protected
        self.protected_value = protected_value
        self.method = method
        self.k = k
        self.tau = tau
        self.positive_label = positive_label
        self.graph = graph
        self.structure = structure
        self.alpha = alpha
        self.smoothing = smoothing
        self.attribute_kinds = attribute_kinds
        self.alpha_test = alpha_test
        self.n_jobs = n_jobs
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True  # nominal columns, strings included
        tags.input_tags.allow_nan = False
        tags.target_tags.required = True  # the historical decisions
        return tags

    # ----------------------------------------------------------------------------- fit
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Learn the testers' pool from historical records and decisions.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            The historical records, protected attribute included.
        y : array-like of shape (n_samples,)
            The historical decisions.

        Returns
        -------
        self : SituationTestingAuditor
        """
        if self.protected is None:
            raise ValueError(MSG_NO_PROTECTED)
        if self.protected_value is None:
            raise ValueError(MSG_NO_PROTECTED_VALUE)
        dtype_kinds = _dtype_kinds(X)
        decision_name = getattr(y, "name", None)
        self.decision_name_ = decision_name if isinstance(decision_name, str) else "y"
        X, y = validate_data(self, X, y, dtype=None, ensure_min_samples=2)
        n, p = X.shape
        if not dtype_kinds and X.dtype.kind not in "iuf":  # a bool or object array
            dtype_kinds = {j: "nominal" for j in range(p)}
        columns = list(self.feature_names_in_) if hasattr(self, "feature_names_in_") \
            else list(range(p))
        self._columns = columns
        self.protected_index_ = self._protected_index(columns)
        self._categories = {}
        Z = self._encode(X, fitting=True)
        self._protected_value_code = self._protected_code(Z)
        group = self._group(Z)
        positive = self._positive(y)
        sizes = (int((~group).sum()), int(group.sum()))
        self.group_sizes_ = sizes
        for which, size in zip(("unprotected", "protected"), sizes):
            if size == 0:
                raise ValueError(MSG_SINGLE_GROUP.format(
                    which="in the protected group" if which == "unprotected"
                    else "outside the protected group"))
        for which, size in zip(("unprotected", "protected"), sizes):
            if self.k > size:
                raise ValueError(MSG_K_TOO_LARGE.format(k=self.k, which=which, size=size))
        self.attribute_kinds_ = self._kinds(columns, dtype_kinds)
        nominal = np.array([self.attribute_kinds_[c] == "nominal" for c in columns])
        ranges = Z.max(axis=0) - Z.min(axis=0)

        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        self.tie_seed_ = seed
        records = np.column_stack([Z, positive.astype(np.float64)])
        uniq, first, unit = np.unique(records, axis=0, return_index=True, return_inverse=True)
        unit = unit.reshape(-1)
        unit_rank = _rank(_record_priority(uniq, seed))
        self._unit_of_record = {}
        for u, row in enumerate(uniq):
            self._unit_of_record[_key(row[:-1], row[-1])] = u
        last_row = np.zeros(uniq.shape[0], dtype=np.intp)
        last_row[unit] = np.arange(n)  # the last write wins: the highest row of each unit
        self._unit_last_row = last_row
        self._unit_of_row = unit
        self._y_fit = np.asarray(y)
        self._Z_fit = Z
        self._positive_fit = positive

        others = [j for j in range(p) if j != self.protected_index_]
        if self.method == "knn":
            self.graph_ = None
            self.structure_info_ = {}
            self._q_idx = others
            self._selector = KNNSelector(Z[:, others], unit, unit_rank, group, positive,
                                         nominal[others], ranges[others])
        else:
            self._q_idx = self._find_parents(Z, positive, columns)
            q = self._q_idx
            self._selector = CBNSelector(
                Z[:, q], unit_rank[unit], group, positive, nominal[q], ranges[q],
                self.smoothing, lambda prof: _record_priority(prof, seed))
        self.q_ = [columns[j] for j in self._q_idx]
        return self

    def _find_parents(self, Z, positive, columns):
        c = self.protected_index_
        if self.graph is not None:
            parents = graph_to_parents(self.graph, columns, self.decision_name_, columns[c])
            self.graph_ = parents
            self.structure_info_ = {}
            par = parents[self.decision_name_]
            return [columns.index(v) for v in columns if v in par and columns.index(v) != c]
        codes = np.column_stack([np.unique(Z[:, j], return_inverse=True)[1].reshape(-1)
                                 for j in range(Z.shape[1])])
        e = positive.astype(np.intp)
        if self.structure == "pc":
            par = pc_parents(codes, e, alpha=self.alpha, protected_idx=c)
            info = {"algorithm": "pc (causal-learn)"}
        else:
            par, info = local_parent_search(codes, e, alpha=self.alpha, protected_idx=c)
            info = {"algorithm": "local G-test search", **info}
        self.structure_info_ = info
        self.graph_ = {self.decision_name_: tuple(columns[j] for j in par)}
        for j in par:
            self.graph_.setdefault(columns[j], ())
        return [j for j in par if j != c]

    # ------------------------------------------------------------------------ transform
    def transform(self, X):
        """Positive rates among each row's testers.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            The people to audit (for instance the fitted records).

        Returns
        -------
        out : ndarray of shape (n_samples, 3) or (n_samples, 4)
            Columns ``p1``, ``p2``, ``diff`` and, with ``alpha_test``,
            ``diff_lower`` (see ``get_feature_names_out``).
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=None, reset=False)
        Z = self._encode(X)
        pos, n = self._rates(Z)
        with np.errstate(invalid="ignore", divide="ignore"):
            p = pos / n
        diff = p[:, 0] - p[:, 1]
        cols = [p[:, 0], p[:, 1], diff]
        if self.alpha_test is not None:
            z = stats.norm.ppf(1.0 - self.alpha_test)
            with np.errstate(invalid="ignore", divide="ignore"):
                se = np.sqrt(p[:, 0] * (1 - p[:, 0]) / n[:, 0] + p[:, 1] * (1 - p[:, 1]) / n[:, 1])
            cols.append(diff - z * se)
        return np.column_stack(cols)

    def _rates(self, Z):
        self_unit = self._self_units(Z)
        if self.method == "knn":
            return self._selector.rates(Z[:, self._q_idx], self_unit, self.k, self.n_jobs)
        self_row = np.where(self_unit >= 0, self._unit_last_row[np.maximum(self_unit, 0)], -1)
        return self._selector.rates(Z[:, self._q_idx], self_row, self.k)

    def get_feature_names_out(self, input_features=None):
        """Names of the output columns: ``p1``, ``p2``, ``diff`` (, ``diff_lower``).

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Checked against the fitted column names; not used otherwise.

        Returns
        -------
        feature_names_out : ndarray of str objects
        """
        check_is_fitted(self)
        _check_feature_names_in(self, input_features)
        names = ["p1", "p2", "diff"]
        if self.alpha_test is not None:
            names.append("diff_lower")
        return np.asarray(names, dtype=object)

    def pairwise(self, X, Y=None):
        """The method's distance between people (Eq. 5 for CBN-DD, Luong et al.'s for KNN).

        For ``method="cbn"`` the distance is measured from each row of ``X``
        (the target, whose profile fixes the causal effects: the distance is
        not symmetric) to each row of ``Y``, on ``q_`` only. For
        ``method="knn"`` it is the mean per-attribute distance over all
        non-protected columns.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples_X, n_features)
        Y : {array-like, DataFrame} of shape (n_samples_Y, n_features), default=None
            None: the fitted records.

        Returns
        -------
        D : ndarray of shape (n_samples_X, n_samples_Y)
        """
        check_is_fitted(self)
        Zx = self._encode(validate_data(self, X, dtype=None, reset=False))
        Zy = self._Z_fit if Y is None else self._encode(
            validate_data(self, Y, dtype=None, reset=False))
        q = self._q_idx
        if self.method == "knn":
            sel = self._selector
            return knn_profile_distances(Zx[:, q], Zy[:, q], sel.weights, sel.nominal)
        return self._selector.pair_distances(Zx[:, q], Zy[:, q])

    def flag(self, X, y):
        """Boolean mask of the rows found discriminated.

        A row is flagged when it belongs to the protected group, received
        the negative decision and ``diff > tau`` (and, with ``alpha_test``,
        ``diff_lower > tau``).

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            The decisions the people received.

        Returns
        -------
        mask : ndarray of shape (n_samples,), dtype bool
        """
        check_is_fitted(self)
        out = self.transform(X)
        X, y = validate_data(self, X, y, dtype=None, reset=False)
        return self._flag(out, self._encode(X), y)

    def _flag(self, out, Z, y):
        negative = ~self._positive(y, fitting=False)
        mask = self._group(Z) & negative & (out[:, 2] > self.tau)
        if self.alpha_test is not None:
            mask &= out[:, 3] > self.tau
        return mask

    def report(self, X, y, *, fitted_rows=None):
        """The evidence for each flagged row: its testers and their decisions.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        fitted_rows : array-like of int or None, default=None
            The position in the fitted data of each row of ``X`` (-1: not
            fitted), so that the person's own row, not an identical twin, is
            the copy left out of the listed testers. None: ``arange`` when
            ``X`` and ``y`` are the fitted data, else unknown. The rates do
            not depend on it (twins are interchangeable).

        Returns
        -------
        report : list of dict
            One dict per flagged row with ``row`` (position in X), ``p1``,
            ``p2``, ``diff`` (and ``diff_lower``), ``testers_unprotected`` and
            ``testers_protected`` (row positions in the fitted data) and
            ``decisions_unprotected`` and ``decisions_protected`` (their
            decisions ``y``).
        """
        check_is_fitted(self)
        out = self.transform(X)
        X, y = validate_data(self, X, y, dtype=None, reset=False)
        Z = self._encode(X)
        if fitted_rows is None:
            same = Z.shape == self._Z_fit.shape and np.array_equal(Z, self._Z_fit) \
                and np.array_equal(np.asarray(y), self._y_fit)
            fitted_rows = np.arange(Z.shape[0]) if same else np.full(Z.shape[0], -1)
        fitted_rows = np.asarray(fitted_rows, dtype=np.intp)
        mask = self._flag(out, Z, y)
        self_unit = self._self_units(Z)
        names = self.get_feature_names_out()
        rows = []
        for i in np.flatnonzero(mask):
            q = Z[i, self._q_idx]
            u = self_unit[i]
            own = fitted_rows[i]
            if u < 0 or own < 0 or self._unit_of_row[own] != u:
                own = self._unit_last_row[u] if u >= 0 else -1
            if self.method == "knn":
                plus, minus = self._selector.testers(q, u, self.k, own)
            else:
                plus, minus = self._selector.testers(q, own, self.k)
            entry = {"row": int(i)}
            entry.update({str(nm): float(v) for nm, v in zip(names, out[i])})
            entry.update({
                "testers_unprotected": plus, "decisions_unprotected": self._y_fit[plus],
                "testers_protected": minus, "decisions_protected": self._y_fit[minus],
            })
            rows.append(entry)
        return rows

    # -------------------------------------------------------------------------- helpers
    def _protected_index(self, columns):
        prot = self.protected
        if isinstance(prot, numbers.Integral) and not isinstance(prot, bool):
            if not -len(columns) <= prot < len(columns):
                raise ValueError(MSG_PROTECTED_NOT_FOUND.format(
                    protected=prot, columns=f"{len(columns)} columns"))
            return int(prot) % len(columns)
        if not hasattr(self, "feature_names_in_"):
            raise ValueError(MSG_PROTECTED_NAME_NO_NAMES.format(protected=prot))
        if prot not in columns:
            raise ValueError(MSG_PROTECTED_NOT_FOUND.format(protected=prot, columns=columns))
        return columns.index(prot)

    def _encode(self, X, fitting=False):
        """Numeric matrix: numbers as floats, string columns as category codes."""
        X = np.asarray(X)
        Z = np.empty(X.shape, dtype=np.float64)
        for j in range(X.shape[1]):
            col = X[:, j]
            if fitting and col.dtype == object and all(isinstance(v, str) for v in col):
                self._categories[j] = np.unique(col)
            if j in self._categories:
                cats = self._categories[j]
                col = col.astype(str)
                pos = np.minimum(np.searchsorted(cats, col), cats.shape[0] - 1)
                Z[:, j] = np.where(cats[pos] == col, pos, -1)
            else:
                Z[:, j] = col.astype(np.float64)
        return Z

    def _protected_code(self, Z):
        """The protected value in the encoded column (fit); error when absent."""
        j = self.protected_index_
        if j in self._categories:
            cats = self._categories[j]
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
                value=self.protected_value, column=self._columns[j], values=values))
        return code

    def _group(self, Z):
        """True for the protected group, from the protected column."""
        return Z[:, self.protected_index_] == self._protected_value_code

    def _positive(self, y, fitting=True):
        y = np.asarray(y)
        if fitting:
            classes = np.unique(y)
            if classes.shape[0] < 2:
                raise ValueError(MSG_SINGLE_DECISION.format(value=classes[0]))
            if self.positive_label is None:
                if classes.shape[0] != 2:
                    raise ValueError(MSG_NOT_BINARY.format(n=classes.shape[0],
                                                           classes=classes.tolist()))
                self.positive_label_ = classes[1]
            else:
                if self.positive_label not in classes.tolist():
                    raise ValueError(MSG_UNKNOWN_POSITIVE.format(value=self.positive_label,
                                                                 classes=classes.tolist()))
                self.positive_label_ = self.positive_label
        return y == self.positive_label_

    def _kinds(self, columns, dtype_kinds):
        given = self.attribute_kinds or {}
        for col, kind in given.items():
            if col not in columns:
                raise ValueError(MSG_KIND_COLUMN.format(column=col))
            if kind not in _KINDS:
                raise ValueError(MSG_KIND.format(column=col, kind=kind))
        kinds = {}
        for j, col in enumerate(columns):
            inferred = "nominal" if (j in self._categories or dtype_kinds.get(j) == "nominal") \
                else "ordinal"
            kind = given.get(col, inferred)
            if j in self._categories and kind != "nominal":
                raise ValueError(MSG_STRING_ORDINAL.format(column=col))
            kinds[col] = kind
        return kinds

    def _self_units(self, Z):
        """The fitted unit each query row is a copy of (negative decision first), or -1."""
        units = np.full(Z.shape[0], -1, dtype=np.intp)
        table = self._unit_of_record
        for i, row in enumerate(Z):
            u = table.get(_key(row, 0.0), -1)
            if u < 0:
                u = table.get(_key(row, 1.0), -1)
            units[i] = u
        return units


def _dtype_kinds(X):
    """Nominal columns of a DataFrame by dtype: bool, object, string, categorical."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(X, "columns"):
        return {}
    return {j: "nominal" for j, dt in enumerate(dtypes)
            if getattr(dt, "kind", "O") not in "iuf"}


def _key(row, positive):
    return (np.asarray(row, dtype=np.float64) + 0.0).tobytes() + (b"\x01" if positive else b"\x00")


def _record_priority(rows, seed):
    """A seeded BLAKE2 hash of each row's values, as an unsigned 64-bit priority."""
    salt = int(seed).to_bytes(8, "little")
    rows = np.ascontiguousarray(np.asarray(rows, dtype=np.float64) + 0.0)
    out = np.empty(rows.shape[0], dtype=np.uint64)
    for i in range(rows.shape[0]):
        h = hashlib.blake2b(rows[i].tobytes(), digest_size=8, key=salt)
        out[i] = int.from_bytes(h.digest(), "little")
    return out


def _rank(priority):
    ranks = np.empty(priority.shape[0], dtype=np.intp)
    ranks[np.argsort(priority, kind="stable")] = np.arange(priority.shape[0])
    return ranks
