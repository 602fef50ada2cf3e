"""The auditor's ``fit``: the records encoded, the groups checked, the method built.

:class:`Fitting` is a mixin of ``SituationTestingAuditor``. The method
(KNN-DD, CBN-DD or a registered one) is looked up in the registry of
``_methods`` and built from the encoded records; its graph, its structure
search and whether the graph has the arc protected -> decision (the paper's
premise) become fitted attributes.
"""

import warnings

import numpy as np

from ..utils._sizes import MAX_STRUCTURE_BOOT, check_size
from ._constants import (
    FIT_PARAMS,
    MSG_NO_ARC,
    MSG_NO_PROTECTED,
    MSG_NO_PROTECTED_VALUE,
    MSG_PROTECTED_KIND,
    MSG_SINGLE_GROUP,
)
from ._flags import RateCache
from ._records import KINDS, Records, Units
from ._selection._methods import FitData, build_method
from ._stats._continuous import MSG_CONTINUOUS_OPTION


class Fitting:
    """``fit``'s steps (a mixin)."""

    def _fit(self, X, y):
        self._frame_fit = None  # set by a fit on a lazy frame (``_lazy``)
        if self.protected is None:
            raise ValueError(MSG_NO_PROTECTED)
        if self.protected_value is None:
            raise ValueError(MSG_NO_PROTECTED_VALUE)
        self._check_tau()
        if self._continuous() and self.fdr_method == "dbh":
            raise ValueError(MSG_CONTINUOUS_OPTION.format(
                name="fdr_method", value="dbh", why="the discrete procedure weighs each "
                "person by the law of her Fisher test, which a mean decision has not; use "
                "fdr_method='bh' or 'by'."))
        X_raw = X
        decision_name = getattr(y, "name", None)
        self.decision_name_ = decision_name if isinstance(decision_name, str) else "y"
        X, y = self._validate(X, y, reset=True)
        n, p = X.shape
        columns = list(self.feature_names_in_) if hasattr(self, "feature_names_in_") \
            else list(range(p))
        self.protected_index_ = self._protected_index(columns)
        records = self._fit_records(X_raw, X, columns)
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
        self._check_k(sizes)
        # a replicate's bootstrap weights over the rows (the replicates run at transform)
        check_size(self.structure_bootstrap, name="structure_bootstrap", low=0,
                   high=MAX_STRUCTURE_BOOT, bytes_per_unit=8 * n)
        if records.interval.any():
            check_size(self.n_bins, name="n_bins", low=2, high=max(n, 2), bytes_per_unit=24,
                       why=f"at most the number of rows ({n}): a bin cannot hold less than "
                       "one row")
        # the classes the supervised bins and the structure search see (``_continuous``)
        codes = self._decision_classes(positive)
        records.fit_bins(codes, n_bins=self.n_bins, binning=self.binning)
        self.attribute_kinds_ = {columns[j]: records.kinds[j] for j in range(p)}
        self.bin_edges_ = {columns[j]: e.copy() for j, e in records.bin_edges.items()}
        self.identifier_columns_ = [columns[j] for j in records.identifiers]
        self._columns = columns
        self._y_fit = np.asarray(y)
        self._units = Units(Z, positive)
        method = build_method(self.method, FitData(
            records=records, units=self._units, group=group, positive=positive,
            decision_codes=codes, columns=columns, protected_index=self.protected_index_,
            decision_name=self.decision_name_, params=self.get_params(deep=False)))
        self._method = method
        self._q_idx = list(method.q)
        self.graph_ = method.graph
        self.structure_info_ = dict(method.structure_info)
        self.q_ = [columns[j] for j in self._q_idx]
        self.flag_rule_ = self._rule_text()
        self._fit_params = {name: repr(getattr(self, name)) for name in FIT_PARAMS}
        self._rate_cache = RateCache()
        self._cell_sums = None  # a continuous decision's sums per cell (``_flags``), on use
        if method.protected_arc is not None:
            self.structure_info_["protected_arc"] = bool(method.protected_arc)
            if not method.protected_arc:
                warnings.warn(MSG_NO_ARC.format(protected=columns[self.protected_index_],
                                                decision=self.decision_name_),
                              UserWarning, stacklevel=3)
        return self

    def _fit_records(self, X_raw, X, columns):
        """The records encoded, the kinds declared checked (the protected one is nominal)."""
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
            warnings.warn(w.message, w.category, stacklevel=4)
        self._records = records
        return records
