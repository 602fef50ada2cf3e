"""SituationTestingAuditor: situation testing of individual decisions.

The auditor holds the parameters and the public methods. Each public method
validates and encodes its input once (``_records``) and hands the encoded
matrix to a private hook; the selector chosen at ``fit`` (``_knn`` or
``_cbn``, one interface: ``rates``, ``pair_distances``) does the rest.
"""

import hashlib
import numbers
import warnings
from typing import Any, Literal

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils._sklearn_compat import Interval, StrOptions, _check_feature_names_in, _fit_context
from ..utils._memory import check_allocation
from ..utils._validation import (
    as_pandas_frame,
    check_complete,
    did_you_mean,
    is_int,
    locate_column,
)
from ._cbn import CBNSelector
from ._evidence import SIDES, CellRows, SituationTestingReport
from ._interval import BOUNDS, diff_bounds
from ._knn import KNNSelector
from ._pvalue import FDR_METHODS, effective_counts, fisher_pvalue, q_values
from ._verdict import NEAR_DISTANCE, near_testers, structure_bootstrap, verdicts
from ._records import IDENTIFIER_SHARE, KINDS, Records, Units, check_no_datetime
from ._discretize import BINNINGS
from ._structure import TESTS, graph_to_parents, local_parent_search, pc_parents

MSG_NO_PROTECTED = "protected is required: the column of X that holds the protected attribute."
MSG_NO_PROTECTED_VALUE = "protected_value is required: the value of the protected group c-."
MSG_PROTECTED_NOT_FOUND = "protected column {protected!r} is not a column of X ({columns}).{hint}"
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
MSG_UNKNOWN_DECISION = (
    "y holds the decision {value!r}, which is not among the fitted decisions {classes}; "
    "pass the decisions in the coding used at fit."
)
MSG_K_TOO_LARGE = (
    "k={k} is larger than the {which} group ({size} rows): there are not k testers to draw. "
    "Lower k."
)
MSG_FITTED_ROWS = (
    "fitted_rows must hold one position in the fitted data (0 .. {n_fit}, or -1 for a person "
    "not fitted) per row of X ({n_rows} rows); got {problem}."
)
MSG_PROTECTED_KIND = "the protected column {column!r} cannot be declared {kind}: it is nominal."
MSG_REFIT = (
    "parameter(s) {names} changed since fit (set_params); the fitted testers' pool depends "
    "on them: call fit again."
)
MSG_TOO_MANY_LEVELS = (
    "column {column!r} is {kind} but nearly every row has its own value ({distinct} distinct "
    "values in {n} rows): CBN-DD matches testers on the values of nominal and ordinal "
    "columns, so no row would find testers. Declare it interval (it is then cut into at "
    "most n_bins bins), or leave it out of the graph."
)
#: parameters read by fit only: changing one after fit needs a new fit
FIT_PARAMS = ("protected", "protected_value", "method", "positive_label", "graph",
              "structure", "alpha", "structure_test", "max_depth", "smoothing", "nominal",
              "ordinal", "interval", "n_bins", "binning", "random_state")

_COLUMNS = ["p1", "p2", "diff", "diff_lower", "diff_upper", "p_value"]

MSG_NO_ARC = (
    "the causal graph has no arc {protected!r} -> {decision!r}: the paper's premise (the "
    "protected attribute is a direct cause of the decision) does not hold, so the graph "
    "itself says the decision does not depend on it directly. Flags are kept but their "
    "verdict is 'fragile' (see structure_info_['protected_arc'])."
)


#: Rates are ratios of small counts, so ``p1 - p2`` carries a rounding error of a
#: few ulps (``0.2 - 0.15 == 0.05000000000000002``); differences closer to ``tau``
#: than this count as equal to it, hence as not above it.
FLAG_TOLERANCE = 1e-12


def exceeds(score, tau):
    """``score > tau`` with rounding ties counted as equal (:data:`FLAG_TOLERANCE`)."""
    return np.asarray(score) - tau > FLAG_TOLERANCE


class SituationTestingAuditor(TransformerMixin, BaseEstimator):
    """Situation testing of individual decisions, by KNN-DD or CBN-DD.

    For every person, the auditor takes ``k`` testers from the unprotected
    group and ``k`` from the protected group among the fitted (historical)
    records, and compares their positive-decision rates: ``p1`` (unprotected
    testers), ``p2`` (protected testers) and ``diff = p1 - p2``, with a
    confidence interval of ``diff``. A person of the protected group who
    received the negative decision is flagged as discriminated when ``diff``
    exceeds ``tau`` and an exact test of the gap is significant with the false
    discovery rate kept at ``fdr`` across the audit (``flag_rule="exact"``,
    the default), when ``diff`` exceeds ``tau`` and its lower confidence bound
    exceeds 0 (``flag_rule="significant"``), when the lower bound itself
    exceeds ``tau`` (``flag_rule="bound"``, stricter) or when ``diff`` alone
    does (``flag_rule="tau"``, the papers' rule).

    With ``method="cbn"`` (Zhang, Wu and Wu, Algorithm 1) the testers are the
    records closest in the decision's direct causes ``Q = Par(E) \\ {C}``,
    under a distance that weighs each value difference by its causal effect
    on the decision (Lemma 3). With ``method="knn"`` (Luong, Ruggieri and
    Turini) they are the ``k`` nearest records under the mean of normalised
    Manhattan (ordinal/interval) and overlap (nominal) distances over all
    compared attributes.

    Read more in the :ref:`User Guide <situation_testing>`.

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
        More testers give the per-person test more power and reach farther
        from the person; measured on two generators with planted bias no
        larger K improved both recall and precision for both methods, so the
        default stays the paper's 50 (see the User Guide's design page).
    tau : float, default=0.05
        The legal threshold on ``diff``.
    flag_rule : {"exact", "significant", "bound", "tau"}, default="exact"
        ``"exact"``: flag when ``diff > tau`` and the exact test of
        ``p1 <= p2`` rejects (``p_value``, see Notes): across an audit of
        several candidates, when their Benjamini-Hochberg ``q_value`` is at
        most ``fdr``; for a single candidate (or ``fdr=None``), when its
        ``p_value`` is at most ``alpha_test``.
        ``"significant"``: flag when ``diff > tau`` and ``diff_lower > 0``
        (a one-sided Wald or Newcombe test at level ``alpha_test`` rejects,
        person by person);
        ``"bound"``: when ``diff_lower > tau``; ``"tau"``: when
        ``diff > tau`` (the papers' rule, noisy with 50 pairs). The default
        was chosen by measurement (see the User Guide). A value within
        ``1e-12`` of its threshold (rounding of ``p1 - p2``) counts as equal
        to it.
    bound : {"wald", "newcombe"}, default="wald"
        The confidence bound of ``diff``: the Wald bound of Alvarez and
        Ruggieri, or Newcombe's hybrid score interval.
    alpha_test : float or None, default=0.1
        One-sided level of the bounds: ``diff_lower`` and ``diff_upper``
        are ``1 - alpha_test`` lower and upper confidence bounds (together a
        two-sided ``1 - 2 alpha_test`` interval), and the level of the
        per-person test of a single candidate. None: 0.1 (the bounds are
        always computed).
    fdr : float or None, default=0.1
        The false discovery rate controlled across the candidates of an
        audit by ``flag_rule="exact"``: the expected share of the flagged
        people who are not discriminated is at most ``fdr``. None: every
        candidate is tested alone at ``alpha_test`` (about ``alpha_test``
        of a population without discrimination is then flagged).
    fdr_method : {"bh", "by"}, default="bh"
        Benjamini-Hochberg, or Benjamini-Yekutieli (valid under any
        dependence between the candidates, more conservative by a factor of
        about ``ln m + 0.58`` for ``m`` candidates). See the User Guide for
        the choice.
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
        local search around the decision with conditional independence tests
        (PC-simple, scipy only), or the full PC algorithm of causal-learn
        (optional extra ``causal``).
    alpha : float, default=0.01
        Significance level of the structure learning tests.
    structure_test : {"g", "cmh", "g+cmh"}, default="g"
        The conditional independence test of the local search: the G-test
        where its chi-squared approximation holds (Cochran's rule: at most
        20% of the cells expect fewer than 5 rows), else the CMH test; the
        generalized Cochran-Mantel-Haenszel test alone (``levels - 1``
        degrees of freedom whatever the number of strata, valid with sparse
        strata, no power against an association that changes direction
        across strata); or both at ``alpha / 2`` each (the CMH test alone
        where the table is sparse).
    max_depth : int or None, default=3
        The largest conditioning set of the local search (None: no bound).
        The search costs ``p`` marginal tests, then, for the ``c`` columns
        that pass them, at most ``c * sum_{d=1..D} C(c - 1, d)`` tests,
        ``D = min(max_depth, c - 1)`` (``c * 2**(c - 1)`` without a bound),
        then at most ``p + k (k + 1) / 2`` for the repair step (``k`` the
        parents after it); each test is one ``np.bincount`` over the rows.
        ``structure_info_`` records the tests run, the depth reached and
        whether the bound cut the search. On the known-network benchmark no
        search went deeper than 3.
    smoothing : float, default=1.0
        The ``m`` of the m-estimate ``(n+(c,q) + m P(e+|c)) / (n(c,q) + m)``
        of ``P(e+ | c, q)``; an unseen combination gets ``P(e+ | c)``.
    nominal, ordinal, interval : sequence of columns or None, default=None
        Columns declared nominal (compared by equality), ordinal (ordered
        codes, compared by ``|a - b| / range``) or interval (continuous:
        KNN-DD compares them like ordinal ones, CBN-DD and the structure
        search use their bins, see ``binning``). Columns not declared are
        inferred: strings, booleans and categoricals are nominal; numbers
        are ordinal when they are integers with at most 32 distinct values,
        else interval.
    n_bins : int, default=5
        The largest number of bins of each interval column for CBN-DD and
        the structure search; kept in ``bin_edges_``.
    binning : {"mdlp", "quantile"}, default="mdlp"
        How interval columns are binned. ``"mdlp"``: supervised cuts of
        Fayyad and Irani's minimum description length rule, made where the
        decision rate changes and only when the change pays for the cut (an
        attribute unrelated to the decision gets one bin), best first up to
        ``n_bins`` bins. ``"quantile"``: ``n_bins`` equal-frequency bins
        (fewer when quantiles coincide). The default was chosen by
        measurement (see the User Guide).
    structure_bootstrap : int, default=0
        Replicates of the structure bootstrap behind the verdicts of
        ``report`` (``method="cbn"`` with a learned graph): the structure
        search is run again on that many subsamples of half the fitted
        rows, and a flag that holds with the Q learned in fewer than half
        of them is ``"fragile"``. Each replicate costs one structure search
        (and, where its Q differs, one selector), so it is off by default;
        ``random_state`` seeds the samples.
    n_jobs : int or None, default=None
        Jobs for the blocks of targets (joblib; ``joblib.parallel_config``
        chooses the backend, for instance dask). Results do not depend on it.
    random_state : int, RandomState instance or None, default=None
        Seeds the structure bootstrap only: the rates are expectations over
        all tie-breaks, so nothing else is drawn at random.

    Attributes
    ----------
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Defined only when X has string column names.
    protected_index_ : int
        Position of the protected column.
    positive_label_ : object
    classes_ : ndarray
        The decisions seen at fit.
    decision_name_ : str
        The name of the decision node in ``graph_``.
    graph_ : dict or None
        Node -> tuple of parents (the given graph, or the learned parents of
        the decision only). None for ``method="knn"``.
    q_ : list
        ``Par(decision) \\ {protected}``, for ``method="cbn"`` (a learned
        graph's parents less those whose effect on the decision is below
        0.05, ``structure_info_["weak_parents"]``, see the User Guide); for
        ``method="knn"`` the compared columns (all but the protected and
        identifier-like ones).
    attribute_kinds_ : dict
        Column -> ``"nominal"``, ``"ordinal"`` or ``"interval"``.
    bin_edges_ : dict
        Interval column -> inner edges of its quantile bins (bin ``i`` holds
        the values in ``[edge_{i-1}, edge_i)``).
    identifier_columns_ : list
        Columns left out because nearly every value is distinct (at least
        95% of the rows, at least 20 rows, and not declared interval).
    structure_info_ : dict
        The structure search's algorithm, ``test`` and ``max_depth``,
        ``n_tests`` (tests run), ``depth`` (the largest conditioning set
        of the elimination, at most ``max_depth``), ``depth_bound_hit``
        (whether ``max_depth`` stopped the search while larger sets were
        left), ``n_skipped`` (G-tests too sparse to run, decided by the
        CMH test), ``re_added`` (columns re-admitted by the repair step),
        ``sepsets`` (per removed column, its separating set and p-value),
        ``effects`` and ``weak_parents`` (per parent found, by column
        position, its effect on the decision; those below 0.05, in the
        graph but not in ``q_``) and
        the identifier-like columns left out (only the algorithm and the
        identifier columns for ``structure="pc"``). For ``method="cbn"``,
        ``protected_arc``: whether the graph (given or learned) has the arc
        protected -> decision, the paper's premise; without it ``fit``
        warns and every flag's verdict is ``"fragile"``. Empty for
        ``method="knn"``.
    group_sizes_ : tuple of int
        Rows of the unprotected and protected groups.
    flag_rule_ : str
        The rule that ``flag`` applies, in words.

    Notes
    -----
    Ties. Equally near records are not ranked by any seed: where the testers
    are a free choice among equally near records (the tie group at the
    ``k``-th distance of KNN-DD; the records taken from each subgroup and the
    order of equally distant subgroups in Algorithm 1), ``p1`` and ``p2`` are
    the expected positive rates over all equally likely choices. Records
    taken for certain count fully; a tie group contributes the number taken
    from it times its positive share. ``transform``, ``flag`` and ``report``
    are therefore the same for any ``random_state`` and any row order. The
    bounds use the plug-in binomial variance at the expected rates.

    Self-exclusion. A query row whose values equal a fitted record is taken
    to be that person, and one copy of the record is left out of its testers:
    a copy with the negative decision when one exists (the claimant of a
    situation test received the negative decision), else a positive one. So
    a fitted row is never its own tester, and rows of the protected group
    with the negative decision, the only ones ``flag`` can mark, are
    audited exactly.

    When fewer than ``k`` testers can be taken (CBN-DD pairs records one to
    one inside each subgroup), the rates use those taken; with none, they are
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
    .. [4] R. G. Newcombe. Interval estimation for the difference between
       independent proportions. Statistics in Medicine 17, 1998.

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
    ...                                   graph=[0, 1]).fit(X, y)
    >>> auditor.q_
    [1]
    >>> out = auditor.transform(X)
    >>> out.shape, auditor.get_feature_names_out().tolist()
    ((400, 6), ['p1', 'p2', 'diff', 'diff_lower', 'diff_upper', 'p_value'])
    >>> report = auditor.report(X, y)
    >>> len(report) == int(auditor.flag(X, y).sum()) > 0
    True
    >>> sorted(report.summary)[:4]
    ['diff', 'diff_lower', 'diff_upper', 'n1']
    >>> sorted(set(report.summary["verdict"]))
    ['discriminated']
    """

    _parameter_constraints = {
        "protected": "no_validation",
        "protected_value": "no_validation",
        "method": [StrOptions({"cbn", "knn"})],
        "k": [Interval(numbers.Integral, 1, None, closed="left")],
        "tau": [Interval(numbers.Real, -1, 1, closed="both")],
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
        "nominal": ["array-like", None],
        "ordinal": ["array-like", None],
        "interval": ["array-like", None],
        "n_bins": [Interval(numbers.Integral, 2, None, closed="left")],
        "binning": [StrOptions(set(BINNINGS))],
        "structure_bootstrap": [Interval(numbers.Integral, 0, None, closed="left")],
        "n_jobs": [numbers.Integral, None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        protected: str | int | None = None,
        protected_value: Any = None,
        method: Literal["cbn", "knn"] = "cbn",
        k: int = 50,
        tau: float = 0.05,
        flag_rule: Literal["exact", "significant", "bound", "tau"] = "exact",
        bound: Literal["wald", "newcombe"] = "wald",
        alpha_test: float | None = 0.1,
        fdr: float | None = 0.1,
        fdr_method: Literal["bh", "by"] = "bh",
        positive_label: Any = None,
        graph: Any = None,
        structure: Literal["local", "pc"] = "local",
        alpha: float = 0.01,
        structure_test: Literal["g", "cmh", "g+cmh"] = "g",
        max_depth: int | None = 3,
        smoothing: float = 1.0,
        nominal: list | None = None,
        ordinal: list | None = None,
        interval: list | None = None,
        n_bins: int = 5,
        binning: Literal["mdlp", "quantile"] = "mdlp",
        structure_bootstrap: int = 0,
        n_jobs: int | None = None,
        random_state: Any = None,
    ) -> None:
        self.protected = protected
        self.protected_value = protected_value
        self.method = method
        self.k = k
        self.tau = tau
        self.flag_rule = flag_rule
        self.bound = bound
        self.alpha_test = alpha_test
        self.fdr = fdr
        self.fdr_method = fdr_method
        self.positive_label = positive_label
        self.graph = graph
        self.structure = structure
        self.alpha = alpha
        self.structure_test = structure_test
        self.max_depth = max_depth
        self.smoothing = smoothing
        self.nominal = nominal
        self.ordinal = ordinal
        self.interval = interval
        self.n_bins = n_bins
        self.binning = binning
        self.structure_bootstrap = structure_bootstrap
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
    def fit(self, X: Any, y: Any) -> "SituationTestingAuditor":
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
        X_raw = X
        decision_name = getattr(y, "name", None)
        self.decision_name_ = decision_name if isinstance(decision_name, str) else "y"
        X, y = self._validate(X, y, reset=True)
        n, p = X.shape
        columns = list(self.feature_names_in_) if hasattr(self, "feature_names_in_") \
            else list(range(p))
        self.protected_index_ = self._protected_index(columns)
        declared = {kind: getattr(self, kind) for kind in KINDS}
        for kind in ("ordinal", "interval"):
            if declared[kind] is not None and any(
                    c == columns[self.protected_index_] for c in declared[kind]):
                raise ValueError(MSG_PROTECTED_KIND.format(
                    column=columns[self.protected_index_], kind=kind))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            records = Records(X_raw, X, columns, self.protected_index_, declared)
        for w in caught:
            warnings.warn(w.message, w.category, stacklevel=2)
        self._records = records
        Z = records.Z
        self._protected_value_code = self._protected_code(records, Z)
        group = self._group(Z)
        positive = self._positive(y, fitting=True)
        sizes = (int((~group).sum()), int(group.sum()))
        self.group_sizes_ = sizes
        if sizes[1] == 0 or sizes[0] == 0:
            raise ValueError(MSG_SINGLE_GROUP.format(
                which="outside the protected group" if sizes[1] == 0
                else "in the protected group"))
        for which, size in zip(("unprotected", "protected"), sizes):
            if self.k > size:
                raise ValueError(MSG_K_TOO_LARGE.format(k=self.k, which=which, size=size))
        if self.binning == "quantile" and records.interval.any():
            check_allocation(24 * (self.n_bins + 1), what=f"n_bins={self.n_bins} quantiles "
                             "of a column", fix=f"use an n_bins of at most the number of rows "
                             f"({n}): a bin cannot hold less than one row.")
        records.fit_bins(positive, n_bins=self.n_bins, binning=self.binning)
        self.attribute_kinds_ = {columns[j]: records.kinds[j] for j in range(p)}
        self.bin_edges_ = {columns[j]: e.copy() for j, e in records.bin_edges.items()}
        self.identifier_columns_ = [columns[j] for j in records.identifiers]
        self._columns = columns
        self._y_fit = np.asarray(y)
        self._units = Units(Z, positive)
        units = self._units
        first = units.first_row
        if self.method == "knn":
            self.graph_ = None
            self.structure_info_ = {}
            self._q_idx = [j for j in range(p)
                           if j != self.protected_index_ and j not in records.identifiers]
            q = self._q_idx
            self._selector = KNNSelector(Z[first][:, q], units.count, group[first],
                                         positive[first], records.nominal[q], records.ranges[q],
                                         units.rows)
            self._query = _identity
            self._cell_values = self._unit_values
        else:
            B = records.binned(Z)
            self._q_idx = self._find_parents(B, positive, columns, records)
            q = self._q_idx
            _check_matchable(records, q, columns)
            ranges = B[:, q].max(axis=0) - B[:, q].min(axis=0) if n else np.zeros(len(q))
            self._selector = CBNSelector(B[:, q], units.unit_of_row, group, positive,
                                         records.nominal[q], ranges, self.smoothing,
                                         [columns[j] for j in q])
            self._query = records.binned
            self._cell_values = self._subgroup_values
        self.q_ = [columns[j] for j in self._q_idx]
        self.flag_rule_ = self._rule_text()
        self._fit_params = {name: repr(getattr(self, name)) for name in FIT_PARAMS}
        self._rate_cache = _RateCache()
        if self.method == "cbn":
            arc = self._protected_arc
            self.structure_info_["protected_arc"] = arc
            if not arc:
                warnings.warn(MSG_NO_ARC.format(protected=columns[self.protected_index_],
                                                decision=self.decision_name_),
                              UserWarning, stacklevel=2)
        return self

    def _check_params_at_use(self):
        """The parameters as ``fit`` checked them: ``set_params`` after ``fit`` changes them."""
        self._validate_params()
        changed = [name for name in FIT_PARAMS
                   if repr(getattr(self, name)) != self._fit_params[name]]
        if changed:
            raise ValueError(MSG_REFIT.format(names=", ".join(changed)))
        for which, size in zip(("unprotected", "protected"), self.group_sizes_):
            if self.k > size:
                raise ValueError(MSG_K_TOO_LARGE.format(k=self.k, which=which, size=size))

    def _find_parents(self, B, positive, columns, records):
        c = self.protected_index_
        if self.graph is not None:
            parents = graph_to_parents(self.graph, columns, self.decision_name_, columns[c])
            self.graph_ = parents
            self.structure_info_ = {}
            par = parents[self.decision_name_]
            self._protected_arc = columns[c] in par
            return [j for j, v in enumerate(columns) if v in par and j != c]
        codes = np.column_stack([np.unique(B[:, j], return_inverse=True)[1].reshape(-1)
                                 for j in range(B.shape[1])])
        e = positive.astype(np.intp)
        candidates = [j for j in range(B.shape[1]) if j not in records.identifiers]
        ids = [columns[j] for j in records.identifiers]
        if self.structure == "pc":
            keep = candidates
            par = pc_parents(codes[:, keep], e, alpha=self.alpha,
                             protected_idx=keep.index(c))
            par = [keep[j] for j in par]
            info = {"algorithm": "pc (causal-learn)"}
        else:
            par, info = local_parent_search(codes, e, alpha=self.alpha, protected_idx=c,
                                            candidates=candidates, max_depth=self.max_depth,
                                            test=self.structure_test)
            info = {"algorithm": "local conditional-test search (PC-simple)",
                    "test": self.structure_test, "max_depth": self.max_depth, **info}
        info["identifier_columns"] = ids
        self.structure_info_ = info
        self.graph_ = {self.decision_name_: tuple(columns[j] for j in par)}
        for j in par:
            self.graph_.setdefault(columns[j], ())
        self._protected_arc = c in par
        weak = info.get("weak_parents", ())  # in the graph, not matched on (effect filter)
        return [j for j in par if j != c and j not in weak]

    def _rule_text(self):
        if self.flag_rule == "tau":
            return f"diff > {self.tau:g}"
        if self.flag_rule == "exact":
            single = f"p_value <= {self._alpha_test():g}"
            if self.fdr is None:
                return f"diff > {self.tau:g} and {single} (exact test, person by person)"
            name = "Benjamini-Hochberg" if self.fdr_method == "bh" else "Benjamini-Yekutieli"
            return (f"diff > {self.tau:g} and q_value <= {self.fdr:g} (exact test, {name} "
                    f"false discovery rate across the audit; a single candidate: {single})")
        level = 100 * (1 - self._alpha_test())
        if self.flag_rule == "significant":
            return f"diff > {self.tau:g} and diff_lower > 0 ({self.bound}, one-sided {level:g}%)"
        return f"diff_lower > {self.tau:g} ({self.bound}, one-sided {level:g}%)"

    def _alpha_test(self):
        return 0.1 if self.alpha_test is None else self.alpha_test

    # ------------------------------------------------------------ validation, encoding
    def _validate(self, X, y="no_validation", *, reset=False):
        """``validate_data`` once; y as an array. Returns (X, y), or X without y."""
        # polars and other frames as pandas, so that every scikit-learn version
        # records their column names
        X = as_pandas_frame(X)
        check_complete(X)
        check_no_datetime(X)
        if isinstance(y, str) and y == "no_validation":
            return validate_data(self, X, dtype=None, reset=reset)
        return validate_data(self, X, y, dtype=None, reset=reset,
                             ensure_min_samples=2 if reset else 1)

    def _encode(self, X):
        return self._records.encode(X)

    # ------------------------------------------------------------------- private hooks
    def _transform(self, Z, *, cells=False, self_unit=None, k=None, counts=False):
        """Rates, bounds and p-value of each encoded row: (m, 6) [, counts or cells]."""
        self._check_params_at_use()
        if self_unit is None:
            self_unit = self._units.lookup(Z)
        Q = self._query(Z)[:, self._q_idx]
        res = self._selector.rates(Q, self_unit, self.k if k is None else k,
                                   n_jobs=self.n_jobs, cells=cells)
        pos, n, w2 = res[0], res[1], res[2]
        with np.errstate(invalid="ignore", divide="ignore"):
            p = pos / n
            n_eff = n * n / w2  # the weighted mean's effective number of testers
        lower, upper = diff_bounds(p[:, 0], n_eff[:, 0], p[:, 1], n_eff[:, 1],
                                   alpha=self._alpha_test(), method=self.bound)
        p_value = fisher_pvalue(*effective_counts(p[:, 0], n_eff[:, 0], p[:, 1], n_eff[:, 1]))
        out = np.column_stack([p[:, 0], p[:, 1], p[:, 0] - p[:, 1], lower, upper, p_value])
        if cells:
            return out, n, n_eff, self_unit, res[3]
        if counts:
            return out, n, n_eff
        return out

    def _rates(self, Z, self_unit=None):
        """``_transform`` of every row, kept for the next call on the same rows.

        ``flag`` then ``report`` (or ``report`` then ``flag``) on the same
        rows compute the rates once; ``_rate_cache.passes`` counts the
        passes. The cache is one object made at ``fit`` and filled in place,
        so the public methods leave the estimator's attributes unchanged.
        """
        key = (hashlib.blake2b(np.ascontiguousarray(Z).tobytes(), digest_size=16).digest(),
               Z.shape, self.k, self._alpha_test(), self.bound)
        cache = self._rate_cache
        if cache.key == key:
            return cache.value
        res = self._transform(Z, self_unit=self_unit, counts=True)
        cache.key, cache.value, cache.passes = key, res, cache.passes + 1
        return res

    def _decide(self, out, Z, y):
        """The flags, the candidates' q-values and the audit's p-value cut-off.

        Returns ``(mask, q_value, cutoff)``: ``cutoff`` is the p-value
        threshold of the exact rule's test (``alpha_test`` person by person;
        the step-up threshold ``fdr R / (c m)`` across an audit of ``m``
        candidates of which ``R`` are significant, ``c = 1`` for
        Benjamini-Hochberg, ``sum_{i<=m} 1/i`` for Benjamini-Yekutieli:
        every p-value at most it is significant); None for the other rules.
        """
        candidate = self._group(Z) & ~self._positive(y)
        q = np.full(out.shape[0], np.nan)
        q[candidate] = q_values(out[candidate, 5], method=self.fdr_method)
        cutoff = None
        if self.flag_rule == "bound":
            holds = exceeds(out[:, 3], self.tau)
        elif self.flag_rule == "significant":
            holds = exceeds(out[:, 2], self.tau) & exceeds(out[:, 3], 0.0)
        elif self.flag_rule == "exact":
            p = out[:, 5]
            if self.fdr is None or np.isfinite(p[candidate]).sum() <= 1:
                cutoff = self._alpha_test()
                with np.errstate(invalid="ignore"):
                    significant = p <= cutoff
            else:
                with np.errstate(invalid="ignore"):
                    significant = q <= self.fdr
                m = int(np.isfinite(p[candidate]).sum())
                c = 1.0 if self.fdr_method == "bh" else float(np.sum(1.0 / np.arange(1, m + 1)))
                cutoff = self.fdr * int((candidate & significant).sum()) / (c * m)
            holds = exceeds(out[:, 2], self.tau) & significant
        else:
            holds = exceeds(out[:, 2], self.tau)
        return candidate & holds, q, cutoff

    # ------------------------------------------------------------------ public methods
    def transform(self, X: Any) -> Any:
        """Positive rates among each row's testers and the bounds of ``diff``.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            The people to audit (for instance the fitted records).

        Returns
        -------
        out : ndarray of shape (n_samples, 6)
            Columns ``p1``, ``p2``, ``diff``, ``diff_lower`` and ``diff_upper``
            (one-sided ``1 - alpha_test`` bounds) and ``p_value`` (the
            exact one-sided test of ``p1 <= p2``, person by person; see
            ``get_feature_names_out``).
        """
        check_is_fitted(self)
        return self._rates(self._encode(self._validate(X)))[0].copy()

    def get_feature_names_out(self, input_features=None):
        """Names of the output columns: p1, p2, diff, diff_lower, diff_upper, p_value.

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
        return np.asarray(_COLUMNS, dtype=object)

    def pairwise(self, X, Y=None):
        """The method's distance between people (Eq. 5 for CBN-DD, Luong et al.'s for KNN).

        For ``method="cbn"`` the distance is measured from each row of ``X``
        (the target, whose profile fixes the causal effects: the distance is
        not symmetric) to each row of ``Y``, on ``q_`` only (interval
        attributes by their bins). For ``method="knn"`` it is the mean
        per-attribute distance over the compared columns.

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
        self._check_params_at_use()
        Zx = self._encode(self._validate(X))
        Zy = self._records.Z if Y is None else self._encode(self._validate(Y))
        q = self._q_idx
        per_pair = 16 if self.method == "knn" else 8 * (len(q) + 4)
        check_allocation(per_pair * Zx.shape[0] * Zy.shape[0],
                         what=f"pairwise on {Zx.shape[0]} x {Zy.shape[0]} rows",
                         fix="pass fewer rows of X (or Y) at a time, for example in chunks "
                             "of 1000.")
        return self._selector.pair_distances(self._query(Zx)[:, q], self._query(Zy)[:, q])

    def flag(self, X: Any, y: Any) -> Any:
        """Boolean mask of the rows found discriminated.

        A row is flagged when it belongs to the protected group, received
        the negative decision and the flag rule holds (``flag_rule_``).
        Under ``flag_rule="exact"`` the false discovery rate is kept across
        the candidates among the rows of ``X``: pass the whole audit in one
        call (one candidate alone is tested at ``alpha_test``).

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            The decisions the people received (among the fitted ones).

        Returns
        -------
        mask : ndarray of shape (n_samples,), dtype bool
        """
        check_is_fitted(self)
        X, y = self._validate(X, y)
        Z = self._encode(X)
        self._check_decisions(y)
        return self._decide(self._rates(Z)[0], Z, y)[0]

    def report(self, X: Any, y: Any, *, fitted_rows: Any = None) -> SituationTestingReport:
        """The evidence for every flagged row: its testers, their weights and decisions.

        The rates of every row are those ``flag`` computed when it was
        called last on the same rows (they are not computed twice).

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
        report : SituationTestingReport
            A sequence of per-person evidence (dicts) with the long table of
            testers (``report.testers``, ``report.frame()``), one summary
            row per flagged person (``report.summary``: rates, bounds,
            ``p_value``, ``q_value``, ``verdict``) and the audit of every
            row (``report.audit``); see
            :mod:`skfair_manifold.situation_testing._evidence` for every
            field.
        """
        check_is_fitted(self)
        X, y = self._validate(X, y)
        Z = self._encode(X)
        self._check_decisions(y)
        fitted_rows = self._fitted_rows(fitted_rows, Z, y)
        self_unit = self._units.lookup(Z)
        out, n_all, n_eff_all = self._rates(Z, self_unit=self_unit)
        mask, q, cutoff = self._decide(out, Z, y)
        rows = np.flatnonzero(mask)
        sub_out, n, n_eff, self_unit, cells = self._transform(Z[rows], cells=True,
                                                              self_unit=self_unit[rows])
        verdict, reason = self._verdicts(Z, y, rows, self_unit, out, mask, n_eff_all, cutoff,
                                         cells)
        summary = {"row": rows}
        summary.update({name: sub_out[:, i] for i, name in enumerate(_COLUMNS)})
        summary["q_value"] = q[rows]
        summary["n1"], summary["n2"] = n[:, 0], n[:, 1]
        summary["n1_eff"], summary["n2_eff"] = n_eff[:, 0], n_eff[:, 1]
        summary["rule"] = np.full(rows.shape[0], self._rule_text(), dtype=object)
        summary["verdict"] = verdict[rows]
        summary["verdict_reason"] = reason[rows]
        testers = self._tester_table(rows, cells)
        records = self._records
        Zr = Z[rows]
        claimants = {name: records.decode(j, Zr[:, j]) for j, name in enumerate(self._columns)}
        own = fitted_rows[rows]
        unit_own = np.where(self_unit >= 0, self._units.last_row[np.maximum(self_unit, 0)], -1)
        own = np.where((own >= 0) & (self_unit >= 0)
                       & (self._units.unit_of_row[np.maximum(own, 0)] == self_unit), own,
                       unit_own)
        audit = {"candidate": self._group(Z) & ~self._positive(y), "flagged": mask,
                 "p_value": out[:, 5].copy(), "q_value": q, "verdict": verdict,
                 "verdict_reason": reason}
        return SituationTestingReport(
            summary=summary, testers=testers, claimants=claimants,
            decisions=np.asarray(y)[rows], own_rows=own, cell_rows=self._cell_rows(),
            y_fit=self._y_fit, method=self.method, k=self.k, rule=self._rule_text(),
            audit=audit, provenance=self._provenance())

    def _verdicts(self, Z, y, rows, self_unit, out, mask, n_eff, cutoff, cells):
        """Verdict and reason of every row: the flag at K/2 and 2K, the testers, the arc,
        the structure bootstrap."""

        def holds_on(other):  # whether each flagged row's flag holds on other rates
            full = np.full((Z.shape[0], other.shape[1]), np.nan)
            full[rows] = other
            if self.flag_rule == "exact":
                # the gap and its per-person test: a smaller K has less power, so the
                # audit's threshold would call fragile every flag that needs K testers
                level = max(cutoff, self._alpha_test())
                with np.errstate(invalid="ignore"):
                    return exceeds(other[:, 2], self.tau) & (other[:, 5] <= level)
            return self._decide(full, Z, y)[0][rows]

        held_at = {}
        smallest = min(self.group_sizes_)
        for k in sorted({max(1, self.k // 2), min(2 * self.k, smallest)} - {self.k}):
            held_at[k] = np.zeros(Z.shape[0], dtype=bool)
            held_at[k][rows] = holds_on(self._transform(Z[rows], self_unit=self_unit, k=k))
        no_arc = self.structure_info_.get("protected_arc") is False
        distance = NEAR_DISTANCE[self.method]
        near = np.full((Z.shape[0], 2), np.nan)
        near[rows] = near_testers(cells, rows.shape[0], distance)
        held = None
        if self.structure_bootstrap and self.method == "cbn" and self.graph is None \
                and self.structure == "local" and rows.size:
            held = np.full(Z.shape[0], np.nan)
            held[rows], _ = structure_bootstrap(
                self, Z, rows, self_unit, holds_on, n_replicates=self.structure_bootstrap,
                random_state=self.random_state)
        return verdicts(candidate=self._group(Z) & ~self._positive(y), flagged=mask,
                        n_eff=n_eff, held_at=held_at, no_arc=no_arc, near=near,
                        near_distance=distance, structure_held=held)

    def _cell_rows(self):
        if self.method == "knn":  # a cell is a unit of identical records
            return CellRows(self._units._rows_sorted, self._units._bounds, sides=1)
        return CellRows(self._selector.seg_rows, self._selector.seg_bounds, sides=2)

    def _provenance(self):
        """What the evidence rests on: version, date, options, graph, column kinds."""
        import datetime

        from .. import __version__

        declared = {str(c): kind for kind in KINDS for c in (getattr(self, kind) or [])}
        return {
            "package": f"skfair_manifold {__version__}",
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "options": {name: repr(_item(value)) for name, value in self.get_params().items()
                        if name != "graph"},
            "graph": None if self.graph_ is None else
            {str(c): [str(p) for p in ps] for c, ps in self.graph_.items()},
            "graph_source": None if self.method == "knn" else
            ("given" if self.graph is not None else "learned"),
            "protected_arc": self.structure_info_.get("protected_arc"),
            "column_kinds": {str(c): {"kind": kind,
                                      "how": "declared" if str(c) in declared else "inferred"}
                             for c, kind in self.attribute_kinds_.items()},
        }

    def _tester_table(self, rows, cells):
        """The long table (dict of arrays) of the testers' cells of flagged rows."""
        order = np.lexsort((cells["distance"], cells["side"], cells["query"]))
        c = {name: v[order] for name, v in cells.items()}
        weight = c["weight"]
        n_rec = c["n_records"]
        n_pos = c["n_positive"]
        table = {
            "row": rows[c["query"]],
            "side": SIDES[c["side"]],
            "certain": weight >= 1.0 - 1e-12,
            "distance": c["distance"],
            "n_records": n_rec,
            "n_positive": n_pos,
            "weight": weight,
            "testers": weight * n_rec,
            "positives": weight * n_pos,
            "cell": c["cell"],
        }
        table.update(self._cell_values(c["cell"]))
        return table

    def _unit_values(self, unit):
        """KNN-DD's cells are units: every column and the decision of the record."""
        records = self._records
        first = self._units.first_row[unit]
        values = {str(name): records.decode(j, records.Z[first, j])
                  for j, name in enumerate(self._columns)}
        values[self.decision_name_] = self._y_fit[first]
        return values

    def _subgroup_values(self, sub):
        """CBN-DD's cells are subgroups: their profile over q_, interval columns as bins."""
        records = self._records
        prof = self._selector.profiles[np.minimum(sub, self._selector.profiles.shape[0] - 1)]
        values = {}
        for k, j in enumerate(self._q_idx):
            if j in records.bin_edges:
                labels = np.asarray(records.bin_labels(j), dtype=object)
                values[str(self._columns[j])] = labels[prof[:, k].astype(np.intp)]
            else:
                values[str(self._columns[j])] = records.decode(j, prof[:, k])
        return values

    # -------------------------------------------------------------------------- helpers
    def _fitted_rows(self, fitted_rows, Z, y):
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
        y = np.asarray(y)
        known = np.isin(y, self.classes_)
        if not known.all():
            raise ValueError(MSG_UNKNOWN_DECISION.format(value=_item(y[~known][0]),
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

    def _positive(self, y, fitting=False):
        y = np.asarray(y)
        if fitting:
            classes = np.unique(y)
            self.classes_ = classes
            if classes.shape[0] < 2:
                raise ValueError(MSG_SINGLE_DECISION.format(value=_item(classes[0])))
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


def _check_matchable(records, q, columns):
    """CBN-DD matches on the values of nominal and ordinal columns of Q: refuse a column
    whose every row (nearly) has its own value, for which no row would find testers
    (identifier-like columns are warned about by Records already)."""
    n = records.Z.shape[0]
    for j in q:
        if records.interval[j] or n < 20 or j in records.identifiers:
            continue
        distinct = np.unique(records.Z[:, j]).shape[0]
        if distinct >= IDENTIFIER_SHARE * n:
            raise ValueError(MSG_TOO_MANY_LEVELS.format(
                column=columns[j], kind=records.kinds[j], distinct=distinct, n=n))


class _RateCache:
    """The last rates computed (``SituationTestingAuditor._rates``) and a pass counter."""

    def __init__(self):
        self.key, self.value, self.passes = None, None, 0


def _identity(Z):
    return Z


def _item(v):
    return v.item() if isinstance(v, np.generic) else v
