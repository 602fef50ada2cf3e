"""The auditor's parameters: their constraints and their documentation, in one place.

``SituationTestingAuditor`` validates its parameters against
:data:`PARAMETER_CONSTRAINTS` (scikit-learn's ``_validate_params``) and its
docstring's Parameters section is :data:`PARAMS_DOC` (filled in by
``utils._docstring.Substitution``, safe under ``python -OO``).
"""

import numbers

from ..utils._sklearn_compat import Interval, StrOptions
from ._discretize import BINNINGS
from ._selection._cbn import CAUSAL_EFFECTS
from ._selection._citests import TESTS
from ._selection._methods import METHOD_NAMES
from ._stats._continuous import DECISIONS
from ._stats._interval import BOUNDS
from ._stats._pvalue import FDR_METHODS

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

#: the Parameters section of the auditor's docstring
PARAMS_DOC = """    Parameters
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
        columns. The testers, rates and flags are the same. A nominal column
        whose one-hot values keep the index off (``"auto"``) above 1e10
        comparisons, or make it larger than the working memory
        (``"kd_tree"``), is refused by name at ``fit``; so is, in a learned
        graph's search, a column of more than 500 values (fewer when the
        working memory is small), each with the fix.
    n_jobs : int or None, default=None
        Jobs for the blocks of targets (joblib; ``joblib.parallel_config``
        chooses the backend, for instance dask). Results do not depend on it.
    verbose : int, default=0
        With 1 or more, KNN-DD's passes write their blocks, an estimate of
        their time and their progress to standard error.
    random_state : int, RandomState instance or None, default=None
        Seeds the structure bootstrap only: the rates are expectations over
        all tie-breaks, so nothing else is drawn at random."""
