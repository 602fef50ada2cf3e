"""SituationTestingAuditor: the parameters and the public methods.

Each step lives in a module of its own, mixed in: ``_checks`` (parameters,
checks and encoding of X and y), ``_fitting`` (``fit``; the method looked up
in the registry of ``_methods``), ``_flags`` (rates, bounds, p-values, the
flag rule and the false discovery rate) and ``_assembly`` (``report``).
"""

from typing import Any, Literal

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..utils._sklearn_compat import _check_feature_names_in, _fit_context
from ._assembly import EvidenceAssembly
from ._checks import PARAMETER_CONSTRAINTS, InputChecks
from ._evidence import SituationTestingReport
from ._fitting import Fitting
from ._flags import COLUMNS, FlagCore, exceeds  # noqa: F401  (exceeds: for the tests)
from ._lazy import fit_frame, is_lazy_frame
from ._lazy_verdicts import flag_frame


class SituationTestingAuditor(InputChecks, Fitting, FlagCore, EvidenceAssembly,
                              TransformerMixin, BaseEstimator):
    """Situation testing of individual decisions, by KNN-DD or CBN-DD.

    For every person, the auditor takes ``k`` testers from the unprotected
    group and ``k`` from the protected group among the fitted (historical)
    records, and compares their positive-decision rates: ``p1`` (unprotected
    testers), ``p2`` (protected testers) and ``diff = p1 - p2``, with a
    confidence interval of ``diff``. A person of the protected group who
    received the negative decision is flagged as discriminated when ``diff``
    exceeds ``tau`` and an exact test of the gap is significant with the false
    discovery rate kept at ``fdr`` across the audit (other rules:
    ``flag_rule``).

    With ``method="cbn"`` (Zhang, Wu and Wu, Algorithm 1) the testers are the
    records closest in the decision's direct causes ``Q = Par(E) \\ {C}``,
    under a distance that weighs each value difference by its causal effect
    on the decision (Lemma 3; by default the larger of its effects on the
    two groups' rates, see ``causal_effect``). With ``method="knn"`` (Luong, Ruggieri and
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
    method : {"cbn", "knn"} or a registered name, default="cbn"
        CBN-DD or KNN-DD, or a method added with
        :func:`~skfair_manifold.situation_testing.register_method`.
    k : int or "auto", default="auto"
        Testers per side (tester pairs). ``"auto"``: each person's own K,
        the testers that stay alike, those within a caliper of her (CBN-DD:
        ``tau / 2`` in the decision's rate, so that the two sides' drift
        cannot make a gap of ``tau``; KNN-DD: the near distance 0.2), at
        least 50 (the paper's K: a person with fewer alike records gets
        the 50 nearest) and at most 400, on a grid of 13 values
        (``50 * 2 ** (j / 4)``); the report states each person's K
        (``summary["k"]``) and the caliper. An integer: that K for every
        person, the paper's tables (it may not exceed either group). See
        the User Guide's design page for the measured recall and precision.
    tau : float, default=0.05
        The legal threshold on ``diff``.
    flag_rule : {"exact", "significant", "bound", "tau"}, default="exact"
        ``"exact"``: flag when ``diff > tau`` and the exact test of
        ``p1 <= p2`` rejects (``p_value``, see Notes): across an audit of
        several candidates, when their ``q_value`` (``fdr_method``:
        Benjamini-Hochberg by default) is at most ``fdr``; for a single
        candidate (or ``fdr=None``), when its ``p_value`` is at most
        ``alpha_test``.
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
    fdr_method : {"bh", "by", "dbh"}, default="bh"
        Benjamini-Hochberg; Benjamini-Yekutieli (valid under any
        dependence between the candidates, more conservative by a factor of
        about ``ln m + 0.58`` for ``m`` candidates); or ``"dbh"``, the
        discrete step-up procedure of Döhler, Durand and Roquain (2018),
        which weighs each candidate by the null law of its Fisher test (the
        hypergeometric law of its margins), so that candidates whose test
        cannot reach a small p-value count less than in Benjamini-Hochberg.
        Its ``q_value`` is the step-up adjusted value at ``fdr`` (``q_value
        <= fdr`` exactly for the significant candidates; at another level it
        is not the level of rejection). See the User Guide for the choice.
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
        The largest conditioning set of the local search (None: no bound;
        the number of tests it bounds is in the User Guide's design page).
        ``structure_info_`` records the tests run, the depth reached and
        whether the bound cut the search. On the known-network benchmark no
        search went deeper than 3.
    smoothing : float, default=1.0
        The ``m`` of the m-estimate ``(n+(c,q) + m P(e+|c)) / (n(c,q) + m)``
        of ``P(e+ | c, q)``; an unseen combination gets ``P(e+ | c)``.
    causal_effect : {"max_over_groups", "pooled"}, default="max_over_groups"
        How CBN-DD's distance (Eq. 5) weighs a change of one attribute of
        Q: ``"pooled"`` is the paper's causal effect (Lemma 3, the groups'
        rates mixed by their shares); ``"max_over_groups"`` the larger of
        the change's effects on the two groups' rates. They agree wherever
        the decision does not depend on the protected attribute; where a
        group is treated differently in two situations (bias planted in
        some regions), the pooled effect can make them near and the testers
        cross from one to the other. See the User Guide's design page for
        the figures.
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
    algorithm : {"auto", "kd_tree", "brute"}, default="auto"
        How KNN-DD finds the testers (read at fit; CBN-DD ignores it), as in
        :class:`sklearn.neighbors.NearestNeighbors`: ``"brute"`` computes
        every candidate's distance to every record; ``"kd_tree"`` searches
        an exact nearest-neighbour index (Luong et al.'s distance is an L1
        distance once nominal columns are one-hot coded), so that the cost
        grows as ``n log n``; ``"auto"`` takes the index on a group of at
        least 4,096 distinct records with at most 48 coded columns. The
        testers, rates and flags are the same.
    n_jobs : int or None, default=None
        Jobs for the blocks of targets (joblib; ``joblib.parallel_config``
        chooses the backend, for instance dask). Results do not depend on it.
    verbose : int, default=0
        With 1 or more, KNN-DD's passes over the candidates write to
        standard error how many blocks of queries they run and, once the
        first block is done, about how long the pass will take, then their
        progress at each tenth. CBN-DD's passes (one look-up per cell of Q)
        write nothing.
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
        graph's parents less the weak ones, of effect below 0.05, that would
        leave most protected rows without ``k`` testers a side in their own
        subgroup, ``structure_info_["weak_parents"]``, see the User Guide); for
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
        ``effects``, ``weak_parents`` and ``own_subgroup_share`` (per parent
        found, by column position, its effect on the decision; the weak
        ones left out of ``q_``, in the graph; the share of protected rows
        whose own subgroup over ``q_`` holds ``k`` rows a side) and
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
    ['detectable_gap', 'diff', 'diff_lower', 'diff_upper']
    >>> sorted(set(report.summary["verdict"]))
    ['discriminated']
    """

    _parameter_constraints = PARAMETER_CONSTRAINTS

    def __init__(
        self, *, protected: str | int | None = None, protected_value: Any = None,
        method: str = "cbn", k: int | Literal["auto"] = "auto", tau: float = 0.05,
        flag_rule: Literal["exact", "significant", "bound", "tau"] = "exact",
        bound: Literal["wald", "newcombe"] = "wald", alpha_test: float | None = 0.1,
        fdr: float | None = 0.1, fdr_method: Literal["bh", "by", "dbh"] = "bh",
        positive_label: Any = None, graph: Any = None,
        structure: Literal["local", "pc"] = "local", alpha: float = 0.01,
        structure_test: Literal["g", "cmh", "g+cmh"] = "g", max_depth: int | None = 3,
        smoothing: float = 1.0,
        causal_effect: Literal["max_over_groups", "pooled"] = "max_over_groups",
        nominal: list | None = None, ordinal: list | None = None,
        interval: list | None = None, n_bins: int = 5,
        binning: Literal["mdlp", "quantile"] = "mdlp", structure_bootstrap: int = 0,
        algorithm: Literal["auto", "kd_tree", "brute"] = "auto", n_jobs: int | None = None,
        verbose: int = 0,
        random_state: Any = None,
    ) -> None:
        self.protected, self.protected_value = protected, protected_value
        self.method, self.k, self.tau = method, k, tau
        self.flag_rule, self.bound, self.alpha_test = flag_rule, bound, alpha_test
        self.fdr, self.fdr_method = fdr, fdr_method
        self.positive_label, self.graph, self.structure = positive_label, graph, structure
        self.alpha, self.structure_test, self.max_depth = alpha, structure_test, max_depth
        self.smoothing, self.causal_effect = smoothing, causal_effect
        self.nominal, self.ordinal, self.interval = nominal, ordinal, interval
        self.n_bins, self.binning = n_bins, binning
        self.structure_bootstrap, self.algorithm = structure_bootstrap, algorithm
        self.n_jobs, self.random_state, self.verbose = n_jobs, random_state, verbose


    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any) -> "SituationTestingAuditor":
        """Learn the testers' pool from historical records and decisions.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features) or lazy frame
            The historical records, protected attribute included. A lazy or
            distributed frame (DuckDB relation, polars ``LazyFrame``, Dask
            or PySpark DataFrame) is fitted by one ``GROUP BY`` in its
            engine (``method="cbn"`` only; see the User Guide's
            :ref:`lazy_frames`).
        y : array-like of shape (n_samples,), or str with a lazy frame
            The historical decisions; with a lazy ``X``, the name of its
            decision column.

        Returns
        -------
        self : SituationTestingAuditor
        """
        if is_lazy_frame(X):  # CBN-DD by one GROUP BY in the frame's engine (``_lazy``)
            return fit_frame(self, X, y)
        return self._fit(X, y)

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
        return np.asarray(COLUMNS, dtype=object)

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
        return self._pair_distances(X, Y)

    def flag(self, X: Any, y: Any) -> Any:
        """Boolean mask of the rows found discriminated.

        A row is flagged when it belongs to the protected group, received
        the negative decision and the flag rule holds (``flag_rule_``).
        Under ``flag_rule="exact"`` the false discovery rate is kept across
        the candidates among the rows of ``X``: pass the whole audit in one
        call (one candidate alone is tested at ``alpha_test``).

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features) or lazy frame
            A lazy frame needs an auditor fitted on a lazy frame; its rows
            are taken to be fitted records.
        y : array-like of shape (n_samples,), or str with a lazy frame
            The decisions the people received (among the fitted ones); with
            a lazy ``X``, the name of its decision column.

        Returns
        -------
        mask : ndarray of shape (n_samples,), dtype bool, or lazy frame
            With a lazy ``X``: ``X`` in its own engine, still lazy, with a
            boolean column ``flagged`` (per-cell figures:
            :func:`~skfair_manifold.situation_testing.cell_verdicts`).
        """
        check_is_fitted(self)
        if is_lazy_frame(X):
            return flag_frame(self, X, y)
        X, y = self._validate(X, y)
        Z = self._encode(X)
        self._check_decisions(y)
        candidate = self._group(Z) & ~self._positive(y)  # no other row can be flagged
        out, _, n_eff = self._rates(Z, rows=np.flatnonzero(candidate))
        return self._decide(out, Z, y, n_eff)[0]

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
            Per-person evidence, the long table of testers, one summary row
            per flagged person (rates, bounds, ``p_value``, ``q_value``,
            ``verdict``), the audit of every row, the settings, the
            provenance and the page (``report.to_html()``).
        """
        check_is_fitted(self)
        return self._report(X, y, fitted_rows)
