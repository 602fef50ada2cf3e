"""SituationTestingAuditor: the parameters and the public methods.

Each public method validates its input once (``validate_data``), checks the
parameters (:mod:`._checks`) and calls a function of the fitted audit
(:class:`._fitted.FittedAudit`, which ``fit`` builds: :func:`._fitting.fit_rows`
in memory, :func:`._lazy._fit.fit_frame` on a lazy frame): :mod:`._flags` for
the rates and the flags, :mod:`._assembly` for the report.
"""

from typing import Any, Literal

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils._docstring import Substitution
from ..utils._narwhals import is_lazy
from ..utils._sklearn_compat import _check_feature_names_in, _fit_context
from ..utils._validation import as_pandas_frame, caller_index, check_complete
from ._assembly import build_report
from ._checks import (
    MSG_LAZY_ROWS,
    check_decisions,
    check_fit_params,
    check_params_at_use,
    fitted_rows_of,
    own_records,
)
from ._evidence import SituationTestingReport
from ._fitted import AuditSettings
from ._fitting import fit_rows
from ._flags import exceeds  # noqa: F401  (exceeds: for the tests)
from ._flags import flag_rows, output_columns, pair_distances, rates
from ._lazy._fit import MSG_LAZY_NOT_FITTED_ON_FRAME, fit_frame
from ._lazy._verdicts import flag_frame
from ._params import PARAMETER_CONSTRAINTS, PARAMS_DOC
from ._records import check_no_datetime
from ._stats._continuous import MSG_CONTINUOUS_LAZY


@Substitution(params=PARAMS_DOC)
class SituationTestingAuditor(TransformerMixin, BaseEstimator):
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

    {params}

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
        settings = AuditSettings(self.get_params(deep=False))
        if is_lazy(X):  # CBN-DD by one GROUP BY in the frame's engine (``_lazy``)
            if self.decision == "continuous":
                raise ValueError(MSG_CONTINUOUS_LAZY)
            fitted = fit_frame(settings, X, y,
                               fit_sample=lambda X_, y_: clone(self).fit(X_, y_))
        else:
            check_fit_params(settings)
            decision_name = getattr(y, "name", None)
            X_raw, index = X, caller_index(X, y)  # the rows' names on the pages
            X, y = self._validate(X, y, reset=True)
            has_names = hasattr(self, "feature_names_in_")
            columns = list(self.feature_names_in_) if has_names else list(range(X.shape[1]))
            fitted = fit_rows(settings, X_raw, X, y, columns=columns, has_names=has_names,
                              decision_name=decision_name if isinstance(decision_name, str)
                              else "y")
            fitted.index = index
        for name, value in fitted.public_attributes().items():
            setattr(self, name, value)
        self._fitted = fitted
        return self

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
            For an amount, the fitted rows (in order) leave out their own
            record, as ``flag`` and ``report`` do; another row equal to
            fitted records leaves out the copy of least decision.
        """
        check_is_fitted(self)
        settings = self._call_settings()
        fitted = self._fitted
        Z = fitted.encode(self._validate(X))
        return rates(fitted, settings, Z, self_unit=own_records(fitted, Z))[0].copy()

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
            if self._fitted.frame is None:
                raise ValueError(MSG_LAZY_NOT_FITTED_ON_FRAME)
            return flag_frame(self._fitted, self._call_settings(), X, y)
        X, y = self._validate(X, y)
        settings = self._call_settings()
        check_decisions(self._fitted, y)
        return flag_rows(self._fitted, settings, self._fitted.encode(X), y)

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
        index = caller_index(X, y)
        X, y = self._validate(X, y)
        settings = self._call_settings()
        check_decisions(self._fitted, y)
        Z = self._fitted.encode(X)
        rows = fitted_rows_of(self._fitted, fitted_rows, Z, y)
        report = build_report(self._fitted, settings, Z, y, rows)
        report.index, report.fitted_index = index, self._fitted.index
        return report

    def get_feature_names_out(self, input_features=None):
        """Names of the output columns: p1, p2, diff, diff_lower, diff_upper, p_value.

        For ``decision="continuous"``: mean1, mean2, diff, diff_lower,
        diff_upper, p_value, diff_se, df.

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
        return np.asarray(output_columns(AuditSettings(self.get_params(deep=False))),
                          dtype=object)

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
        self._call_settings()
        Zx = self._fitted.encode(self._validate(X))
        Zy = None if Y is None else self._fitted.encode(self._validate(Y))
        return pair_distances(self._fitted, Zx, Zy)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True  # nominal columns, strings included
        tags.input_tags.allow_nan = False
        tags.target_tags.required = True  # the historical decisions
        return tags

    def _call_settings(self):
        """The parameters of this call, checked as ``fit`` checked them (``set_params``
        after ``fit`` may change them, within the limits of ``FIT_PARAMS``)."""
        self._validate_params()
        settings = AuditSettings(self.get_params(deep=False))
        check_params_at_use(self._fitted, settings)
        return settings

    def _validate(self, X, y="no_validation", *, reset=False):
        """``validate_data`` once; y as an array. Returns (X, y), or X without y."""
        if not reset and getattr(self, "_fitted", None) is not None \
                and self._fitted.frame is not None:
            raise ValueError(MSG_LAZY_ROWS.format(what="this method on rows in memory"))
        # polars and other frames as pandas, so that every scikit-learn version
        # records their column names
        X = as_pandas_frame(X)
        check_complete(X)
        check_no_datetime(X)
        if isinstance(y, str) and y == "no_validation":
            return validate_data(self, X, dtype=None, reset=reset)
        return validate_data(self, X, y, dtype=None, reset=reset,
                             ensure_min_samples=2 if reset else 1)
