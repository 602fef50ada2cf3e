"""SituationTestingAuditor: the parameters and the public methods.

The steps are mixed in from ``_checks`` (parameters, input), ``_fitting`` (``fit``),
``_flags`` (rates, p-values, the flag rule, the false discovery rate) and ``_assembly``
(``report``); ``_auto_k`` and ``_continuous`` serve ``k="auto"``, ``decision="continuous"``.
"""

from typing import Any, Literal

from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..utils._narwhals import is_lazy
from ..utils._sklearn_compat import _fit_context
from ._assembly import EvidenceAssembly
from ._checks import PARAMETER_CONSTRAINTS, InputChecks
from ._evidence import SituationTestingReport
from ._fitting import Fitting
from ._flags import FlagCore, exceeds  # noqa: F401  (exceeds: for the tests)
from ._lazy._fit import fit_frame
from ._lazy._verdicts import flag_frame
from ._stats._continuous import MSG_CONTINUOUS_LAZY


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
    k : int or "auto", default=50
        Testers per side (tester pairs), the paper's 50 by default; it may
        not exceed either group. ``"auto"``: each person's own K, the
        testers within a caliper of her (CBN-DD: ``tau / 2`` in the
        decision's rate; KNN-DD: the near distance 0.2), from 50 to 400 on
        a grid of 13 values; the report states each person's K and the
        caliper. It finds more on wide neighbourhoods and loses precision
        where biased and fair situations lie within one caliper: see
        :ref:`st_auto_k` and the design page for the figures.
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
        ``diff > tau`` (the papers' rule, noisy with 50 pairs). A value
        within ``1e-12`` of its threshold counts as equal to it.
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
        Benjamini-Hochberg; Benjamini-Yekutieli (any dependence, more
        conservative); or ``"dbh"``, the discrete step-up procedure of
        Döhler, Durand and Roquain (2018), which weighs each candidate by
        the null law of its Fisher test. See :ref:`st_flag_rule`.
    decision : {"binary", "continuous"}, default="binary"
        A yes/no decision, or an amount (a wage) whose testers' means are
        compared by Welch's test, ``tau`` in its units: see :ref:`st_continuous`.
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
        where Cochran's rule holds, else the CMH test; the CMH test alone;
        or both at ``alpha / 2`` each (see :ref:`st_graph`).
    max_depth : int or None, default=3
        The largest conditioning set of the local search (None: no bound);
        ``structure_info_`` records the depth reached.
    smoothing : float, default=1.0
        The ``m`` of the m-estimate ``(n+(c,q) + m P(e+|c)) / (n(c,q) + m)``
        of ``P(e+ | c, q)``; an unseen combination gets ``P(e+ | c)``.
    causal_effect : {"max_over_groups", "pooled"}, default="max_over_groups"
        How CBN-DD's distance (Eq. 5) weighs a change of one attribute of
        Q: ``"pooled"`` is the paper's causal effect (Lemma 3);
        ``"max_over_groups"`` the larger of the change's effects on the two
        groups' rates, which keeps apart two situations where a group is
        treated differently (see the User Guide).
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
        How interval columns are binned: Fayyad and Irani's supervised
        minimum description length cuts (an attribute unrelated to the
        decision gets one bin), or ``n_bins`` equal-frequency bins.
    structure_bootstrap : int, default=0
        Replicates of the structure bootstrap behind the verdicts of
        ``report`` (``method="cbn"``, learned graph): a flag that holds with
        the Q learned on half the rows in fewer than half of them is
        ``"fragile"``. Off by default (one structure search each).
    algorithm : {"auto", "kd_tree", "brute"}, default="auto"
        How KNN-DD finds the testers (CBN-DD ignores it): every distance, an
        exact nearest-neighbour index (cost ``n log n``), or the index on a
        group of at least 4,096 distinct records with at most 48 coded
        columns. The testers, rates and flags are the same.
    n_jobs : int or None, default=None
        Jobs for the blocks of targets (joblib; ``joblib.parallel_config``
        chooses the backend, for instance dask). Results do not depend on it.
    verbose : int, default=0
        With 1 or more, KNN-DD's passes write their blocks, an estimate of
        their time and their progress to standard error.
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
        What the structure search recorded: its algorithm, test and depth,
        the tests run, the separating sets, the parents' effects, the weak
        parents left out of ``q_`` and, for ``method="cbn"``,
        ``protected_arc`` (whether the graph has the arc protected ->
        decision; without it every flag is ``"fragile"``). See
        :ref:`st_graph`. Empty for ``method="knn"``.
    group_sizes_ : tuple of int
        Rows of the unprotected and protected groups.
    flag_rule_ : str
        The rule that ``flag`` applies, in words.

    Notes
    -----
    Ties are not broken by any seed: ``p1`` and ``p2`` are the expected
    rates over all equally likely choices of testers, so every result is the
    same for any ``random_state`` and row order. A query equal to a fitted
    record is that person, left out of her own testers. See
    :ref:`st_counting`.

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
        method: str = "cbn", k: int | Literal["auto"] = 50, tau: float = 0.05,
        flag_rule: Literal["exact", "significant", "bound", "tau"] = "exact",
        bound: Literal["wald", "newcombe"] = "wald", alpha_test: float | None = 0.1,
        fdr: float | None = 0.1, fdr_method: Literal["bh", "by", "dbh"] = "bh",
        decision: Literal["binary", "continuous"] = "binary",
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
        self.fdr, self.fdr_method, self.decision = fdr, fdr_method, decision
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
        if is_lazy(X):  # CBN-DD by one GROUP BY in the frame's engine (``_lazy``)
            if self.decision == "continuous":
                raise ValueError(MSG_CONTINUOUS_LAZY)
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
        out : ndarray of shape (n_samples, 6) or (n_samples, 8)
            Columns ``p1``, ``p2``, ``diff``, ``diff_lower`` and ``diff_upper``
            (one-sided ``1 - alpha_test`` bounds) and ``p_value`` (the
            exact one-sided test of ``p1 <= p2``, person by person); for a
            continuous decision ``mean1``, ``mean2`` for the rates and
            ``diff_se``, ``df`` after them (``get_feature_names_out``).
        """
        check_is_fitted(self)
        return self._rates(self._encode(self._validate(X)))[0].copy()

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
        if is_lazy(X):
            return flag_frame(self, X, y)
        X, y = self._validate(X, y)
        Z = self._encode(X)
        self._check_decisions(y)
        _, out, _, n_eff, _ = self._audit_rates(Z, y)
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
