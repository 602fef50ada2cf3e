"""The auditor's core: rates, bounds and p-values of encoded rows, and the flags.

:class:`FlagCore` is a mixin of ``SituationTestingAuditor``. ``_transform``
asks the fitted method for the testers' expected counts and turns them into
``p1``, ``p2``, ``diff``, its bounds and the exact p-value; ``_rates``
keeps the last result so that ``flag`` and ``report`` on the same rows
compute it once; ``_decide`` applies the flag rule, with the false discovery
rate across the candidates of an audit.
"""

import hashlib

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..utils._memory import check_allocation
from ..utils._progress import REPORTER, BlockProgress, reporting
from ..utils._sklearn_compat import _check_feature_names_in
from ._selection._auto_k import MSG_NO_WITHIN, auto_k, rates_at
from ._stats._continuous import (
    CONTINUOUS_COLUMNS,
    mean_table,
    segment_sums,
    tester_moments,
)
from ._stats._interval import diff_bounds
from ._stats._pvalue import (
    discrete_step_up,
    effective_counts,
    fisher_pvalue,
    q_values,
    step_up_constant,
)

#: the procedure of each ``fdr_method``, in words
FDR_NAMES = {"bh": "Benjamini-Hochberg", "by": "Benjamini-Yekutieli",
             "dbh": "discrete Benjamini-Hochberg step-up (Doehler, Durand and Roquain)"}

#: the columns of ``transform``
COLUMNS = ["p1", "p2", "diff", "diff_lower", "diff_upper", "p_value"]

#: Rates are ratios of small counts, so ``p1 - p2`` carries a rounding error of a
#: few ulps (``0.2 - 0.15 == 0.05000000000000002``); differences closer to ``tau``
#: than this count as equal to it, hence as not above it.
FLAG_TOLERANCE = 1e-12


def exceeds(score, tau):
    """``score > tau`` with rounding ties counted as equal (:data:`FLAG_TOLERANCE`)."""
    return np.asarray(score) - tau > FLAG_TOLERANCE


def rate_table(pos, n, w2, *, alpha, bound):
    """Rates, bounds and p-value of each row from the selector's sums: (m, 6), n_eff.

    ``pos``, ``n``, ``w2`` (m, 2): per side, the weight of the favourable
    testers, of all testers and the sum of squared weights. Columns: p1, p2,
    diff, its lower and upper bound at ``alpha`` (``bound``'s method), the
    exact one-sided p-value.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        p = pos / n
        n_eff = n * n / w2  # the weighted mean's effective number of testers
    lower, upper = diff_bounds(p[:, 0], n_eff[:, 0], p[:, 1], n_eff[:, 1], alpha=alpha,
                               method=bound)
    p_value = fisher_pvalue(*effective_counts(p[:, 0], n_eff[:, 0], p[:, 1], n_eff[:, 1]))
    out = np.column_stack([p[:, 0], p[:, 1], p[:, 0] - p[:, 1], lower, upper, p_value])
    return out, n_eff


class RateCache:
    """The last rates computed (``SituationTestingAuditor._rates``) and a pass counter."""

    def __init__(self):
        self.key, self.value, self.passes, self.rows = None, None, 0, None
        self.rows_computed = 0  # rows whose rates were computed, over every pass


class FlagCore:
    """Rates and flags of encoded rows, the names of their columns and the method's
    distance between people (a mixin)."""

    def _transform(self, Z, *, cells=False, self_unit=None, k=None, counts=False):
        """Rates, bounds and p-value of each encoded row: (m, 6) [, counts or cells]."""
        self._check_params_at_use()
        if self_unit is None:
            self_unit = self._self_units(Z)
        k = self.k if k is None else k
        Q = self._method.query(Z)
        progress = None
        if self.verbose and REPORTER.get() is None:
            title = getattr(self._method, "title", self.method)
            shown = k if np.ndim(k) == 0 else "auto"
            progress = BlockProgress(f"{title} (k={shown}{', testers' if cells else ''})")
        continuous = self._continuous()
        with reporting(progress):
            if isinstance(k, str):  # "auto": each row's K from the testers within the caliper
                k = self._auto_k_of_queries(Q, self_unit)
            # a continuous decision's squares are summed over the testers' cells
            res = rates_at(self._method, Q, self_unit, k, n_jobs=self.n_jobs,
                           cells=cells or continuous)
        n = res[1]
        out, n_eff = self._table(res, self_unit, self._method.cell_rows() if continuous
                                 else None)
        if cells:
            return out, n, n_eff, self_unit, res[3]
        if counts:
            return out, n, n_eff
        return out

    def _table(self, res, self_unit, cell_rows):
        """``rate_table`` of the selector's sums, or for a continuous decision
        ``mean_table`` of the testers' moments (:mod:`._continuous`): (m, 6 or 8), n_eff.
        ``cell_rows``: the cells of the selector that gave ``res`` (continuous only; the
        sums of the last cells asked for are kept)."""
        if cell_rows is None:
            return rate_table(res[0], res[1], res[2], alpha=self._alpha_test(),
                              bound=self.bound)
        if self._cell_sums is None or self._cell_sums[0] is not cell_rows.rows:
            self._cell_sums = (cell_rows.rows,
                               segment_sums(cell_rows, self._y_fit.astype(np.float64)))
        sums = self._cell_sums[1]
        own = np.full(self_unit.shape[0], np.nan)
        fitted = self_unit >= 0
        own[fitted] = self._y_fit[self._units.first_row[self_unit[fitted]]]
        S1, S2 = tester_moments(res[3], sums, cell_rows.sides, own, res[1].shape[0])
        return mean_table(S1, res[1], res[2], S2, alpha=self._alpha_test())

    def _auto_k_of_queries(self, Q, self_unit):
        """Each row's K under ``k="auto"`` (:mod:`._auto_k`): the method's testers within
        its caliper, on the grid between the floor and the ceiling."""
        if not (hasattr(self._method, "caliper") and hasattr(self._method, "within")):
            raise ValueError(MSG_NO_WITHIN.format(method=self.method))
        return auto_k(self._method, Q, self_unit, self._method.caliper(self.tau),
                      n_jobs=self.n_jobs)

    def _k_of_rows(self, Z, self_unit):
        """The K of each encoded row: ``k``, or under ``k="auto"`` the row's own."""
        if not isinstance(self.k, str):
            return np.full(Z.shape[0], self.k, dtype=np.int64)
        return self._auto_k_of_queries(self._method.query(Z), self_unit)

    def _rates(self, Z, self_unit=None, rows=None):
        """``_transform`` of every row (or of ``rows`` only), kept for the next call.

        ``flag`` then ``report`` (or ``report`` then ``flag``) on the same
        rows compute the rates once; ``_rate_cache.passes`` counts the
        passes. The cache is one object made at ``fit`` and filled in place,
        so the public methods leave the estimator's attributes unchanged.
        ``rows`` (the candidates, for ``flag`` and ``report``): the other
        rows' rates are NaN, and not computed; a later call for more rows
        computes only those not kept (``rows_computed`` counts the rows
        computed over all passes).
        """
        key = (hashlib.blake2b(np.ascontiguousarray(Z).tobytes(), digest_size=16).digest(),
               Z.shape, self.k, self._alpha_test(), self.bound,
               self.tau if isinstance(self.k, str) else None)  # k="auto": the caliper
        if self._continuous():  # the person left out is found by her decision too
            if self_unit is None:
                self_unit = self._self_units(Z)
            key += (hashlib.blake2b(np.ascontiguousarray(self_unit).tobytes(),
                                    digest_size=16).digest(),)
        cache = self._rate_cache
        if cache.key == key and (cache.rows is None or (
                rows is not None and np.isin(rows, cache.rows).all())):
            return cache.value
        if self_unit is None:
            self_unit = self._self_units(Z)
        if cache.key == key:  # some rows kept: compute the others only
            todo = np.setdiff1d(np.arange(Z.shape[0]) if rows is None else rows, cache.rows)
            res = tuple(part.copy() for part in cache.value)
            want = np.union1d(cache.rows, todo)
        else:
            todo = np.arange(Z.shape[0]) if rows is None else np.asarray(rows, dtype=np.intp)
            res, want = None, todo
        some = self._transform(Z[todo], self_unit=self_unit[todo], counts=True)
        if res is None:
            res = tuple(np.full((Z.shape[0],) + part.shape[1:], np.nan) for part in some)
        for whole, part in zip(res, some):
            whole[todo] = part
        cache.key, cache.value, cache.passes = key, res, cache.passes + 1
        cache.rows = None if want.shape[0] == Z.shape[0] else want
        cache.rows_computed += todo.shape[0]
        return res

    def _self_units(self, Z, y=None):
        """The fitted unit each row is a copy of (-1: none), the copy left out of its
        testers: for a continuous decision, the copy with the row's decision (``y``
        None: the least one)."""
        if not self._continuous():
            return self._units.lookup(Z)
        return self._units.lookup(Z, "any" if y is None else self._positive(y))

    def _audit_rates(self, Z, y):
        """The rates of the rows that may be candidates, and the candidates: returns
        ``(candidate, out, n, n_eff, self_unit)`` (``flag`` and ``report``)."""
        self_unit = self._self_units(Z, y)
        candidate = self._candidates(Z, y)  # no other row can be flagged
        out, n, n_eff = self._rates(Z, self_unit=self_unit, rows=np.flatnonzero(candidate))
        return candidate, out, n, n_eff, self_unit

    def _decide(self, out, Z, y, n_eff):
        """The flags, the candidates' q-values and the audit's p-value cut-off.

        Returns ``(mask, q_value, cutoff)``: ``cutoff`` is the p-value
        threshold of the exact rule's test (``alpha_test`` person by person;
        across an audit of ``m`` candidates of which ``R`` are significant,
        the step-up threshold ``fdr R / (c m)``, ``c = 1`` for
        Benjamini-Hochberg, ``sum_{i<=m} 1/i`` for Benjamini-Yekutieli, and
        the last critical value ``tau_R`` of the discrete procedure: every
        p-value at most it is significant); None for the other rules.
        ``n_eff`` (the effective testers of each side, ``_rates``' third
        value) gives the discrete procedure its tests' laws.
        """
        return self._decide_candidates(out, self._candidates(Z, y), n_eff)

    def _decide_candidates(self, out, candidate, n_eff, counts=None):
        """``_decide`` given the candidates; ``counts``: the rows each row of ``out``
        stands for (the cells of a table aggregated where the data lives), None: one."""
        weight = np.ones(out.shape[0], dtype=np.int64) if counts is None else \
            np.asarray(counts, dtype=np.int64)
        q = np.full(out.shape[0], np.nan)
        dbh_cutoff = None
        tally = None if counts is None else weight[candidate]
        if self.fdr_method == "dbh":
            x1, m1, x2, m2 = effective_counts(out[candidate, 0], n_eff[candidate, 0],
                                              out[candidate, 1], n_eff[candidate, 1])
            q[candidate], dbh_cutoff = discrete_step_up(
                out[candidate, 5], (m1, m2, x1 + x2), level=self._fdr_level(), counts=tally)
        else:
            q[candidate] = q_values(out[candidate, 5], method=self.fdr_method, counts=tally)
        cutoff = None
        if self.flag_rule == "exact":
            p = out[:, 5]
            m = int(weight[candidate & np.isfinite(p)].sum())
            if self.fdr is None or m <= 1:
                cutoff = self._alpha_test()
                with np.errstate(invalid="ignore"):
                    significant = p <= cutoff
            else:
                with np.errstate(invalid="ignore"):
                    significant = q <= self.fdr
                if self.fdr_method == "dbh":
                    cutoff = dbh_cutoff
                else:
                    cutoff = self.fdr * int(weight[candidate & significant].sum()) / (
                        step_up_constant(self.fdr_method, m) * m)
            holds = exceeds(out[:, 2], self.tau) & significant
        else:
            holds = self._person_rule(out)
        return candidate & holds, q, cutoff

    def _person_rule(self, out):
        """Whether each row's rates pass a person-by-person rule (``"bound"``,
        ``"significant"`` or ``"tau"``; not ``"exact"``, which needs the audit)."""
        if self.flag_rule == "bound":
            return exceeds(out[:, 3], self.tau)
        if self.flag_rule == "significant":
            return exceeds(out[:, 2], self.tau) & exceeds(out[:, 3], 0.0)
        return exceeds(out[:, 2], self.tau)

    def _fdr_level(self):
        """The level of the discrete procedure's q-values (``fdr``; 0.1 when None)."""
        return 0.1 if self.fdr is None else self.fdr

    def _rule_text(self):
        """The flag rule in words (``flag_rule_``, the evidence's ``rule``)."""
        continuous = self._continuous()
        test = "Welch's t-test of the mean decisions" if continuous else "exact test"
        bound = "Welch t" if continuous else self.bound  # the bounds of diff
        if self.flag_rule == "tau":
            return f"diff > {self.tau:g}"
        if self.flag_rule == "exact":
            single = f"p_value <= {self._alpha_test():g}"
            if self.fdr is None:
                return f"diff > {self.tau:g} and {single} ({test}, person by person)"
            name = FDR_NAMES[self.fdr_method]
            return (f"diff > {self.tau:g} and q_value <= {self.fdr:g} ({test}, {name} "
                    f"false discovery rate across the audit; a single candidate: {single})")
        level = 100 * (1 - self._alpha_test())
        if self.flag_rule == "significant":
            return f"diff > {self.tau:g} and diff_lower > 0 ({bound}, one-sided {level:g}%)"
        return f"diff_lower > {self.tau:g} ({bound}, one-sided {level:g}%)"

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
        return np.asarray(CONTINUOUS_COLUMNS if self._continuous() else COLUMNS, dtype=object)

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

    def _pair_distances(self, X, Y):
        """``pairwise``'s body: the method's distance from each row of X to each of Y."""
        Zx = self._encode(self._validate(X))
        Zy = self._records.Z if Y is None else self._encode(self._validate(Y))
        check_allocation(self._method.bytes_per_pair * Zx.shape[0] * Zy.shape[0],
                         what=f"pairwise on {Zx.shape[0]} x {Zy.shape[0]} rows",
                         fix="pass fewer rows of X (or Y) at a time, for example in chunks "
                             "of 1000.")
        return self._method.pair_distances(self._method.query(Zx), self._method.query(Zy))
