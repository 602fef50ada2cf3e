"""``fit`` in memory: the records encoded, the groups checked, the method built.

:func:`fit_rows` takes the rows the estimator validated and returns the
:class:`._fitted.FittedAudit`. The method (KNN-DD, CBN-DD or a registered one)
is looked up in the registry of ``_selection._methods`` and built from the
encoded records; its graph, its structure search and whether the graph has the
arc protected -> decision (the paper's premise) become fitted attributes.
"""

import warnings

import numpy as np

from ..utils._sizes import MAX_STRUCTURE_BOOT, check_size
from ._checks import (
    check_k,
    fit_params_of,
    learn_decisions,
    protected_code,
    protected_index,
)
from ._constants import MSG_NO_ARC, MSG_PROTECTED_KIND, MSG_SINGLE_GROUP
from ._fitted import FittedAudit
from ._flags import rule_text
from ._records import KINDS, Records, Units
from ._selection._methods import FitData, build_method
from ._stats._continuous import scaled_decisions


def fit_rows(settings, X_raw, X, y, *, columns, has_names, decision_name):
    """What ``fit`` learns from validated rows ``X`` (the user's ``X_raw`` for its dtypes).

    ``columns``: the column names (positions for arrays), ``has_names``: whether
    they are the user's names; ``decision_name``: the decision node's name.
    Returns the :class:`._fitted.FittedAudit`, whose ``attributes`` are the
    estimator's fitted attributes.
    """
    n, p = X.shape
    j_protected = protected_index(settings, columns, has_names=has_names)
    records = fit_records(settings, X_raw, X, columns, j_protected)
    Z = records.Z
    code = protected_code(settings, records, Z, j_protected)
    group = Z[:, j_protected] == code
    classes, positive_label = learn_decisions(settings, y)
    y = np.asarray(y)
    sizes = (int((~group).sum()), int(group.sum()))
    if sizes[1] == 0 or sizes[0] == 0:
        raise ValueError(MSG_SINGLE_GROUP.format(
            which="outside the protected group" if sizes[1] == 0
            else "in the protected group"))
    check_k(settings, sizes)
    # a replicate's bootstrap weights over the rows (the replicates run at transform)
    check_size(settings.structure_bootstrap, name="structure_bootstrap", low=0,
               high=MAX_STRUCTURE_BOOT, bytes_per_unit=8 * n)
    if records.interval.any():
        check_size(settings.n_bins, name="n_bins", low=2, high=max(n, 2), bytes_per_unit=24,
                   why=f"at most the number of rows ({n}): a bin cannot hold less than "
                   "one row")
    fitted = FittedAudit(
        records=records, columns=columns, protected_column=j_protected, protected_code=code,
        continuous=settings.continuous, positive_label=positive_label, classes=classes,
        group_sizes=sizes, fit_params=fit_params_of(settings), attributes={}, y_fit=y)
    positive = fitted.positive(y)
    units = fitted.units = Units(Z, positive)
    # the classes the supervised bins and the structure search see
    codes = fitted.decision_classes(positive)
    records.fit_bins(codes, n_bins=settings.n_bins, binning=settings.binning)
    scaled, unit = None, 1.0
    if settings.continuous:  # the selectors' sums at any magnitude of the amounts
        scaled, _, (first, second) = scaled_decisions(positive)
        unit = first * second
    method = build_method(settings.method, FitData(
        records=records, units=units, group=group, positive=positive,
        decision_codes=codes, columns=columns, protected_index=j_protected,
        decision_name=decision_name, params=settings.params, scaled=scaled,
        decision_unit=unit))
    fitted.method, fitted.q_idx = method, list(method.q)
    structure_info = dict(method.structure_info)
    if method.protected_arc is not None:
        structure_info["protected_arc"] = bool(method.protected_arc)
    attributes = {
        "decision_name_": decision_name, "protected_index_": j_protected,
        "positive_label_": positive_label,
        "group_sizes_": sizes,
        "attribute_kinds_": {columns[j]: records.kinds[j] for j in range(p)},
        "bin_edges_": {columns[j]: e.copy() for j, e in records.bin_edges.items()},
        "identifier_columns_": [columns[j] for j in records.identifiers],
        "graph_": method.graph, "structure_info_": structure_info,
        "q_": [columns[j] for j in fitted.q_idx], "flag_rule_": rule_text(settings),
    }
    if classes is not None:
        attributes["classes_"] = classes
    fitted.attributes = attributes
    if method.protected_arc is not None and not method.protected_arc:
        warnings.warn(MSG_NO_ARC.format(protected=columns[j_protected],
                                        decision=decision_name), UserWarning, stacklevel=3)
    return fitted


def fit_records(settings, X_raw, X, columns, j_protected):
    """The records encoded, the kinds declared checked (the protected one is nominal)."""
    declared = {kind: getattr(settings, kind) for kind in KINDS}
    for kind in ("ordinal", "interval"):
        if declared[kind] is not None and any(
                c == columns[j_protected] for c in declared[kind]):
            raise ValueError(MSG_PROTECTED_KIND.format(column=columns[j_protected],
                                                       kind=kind))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        records = Records(X_raw, X, columns, j_protected, declared)
    for w in caught:
        warnings.warn(w.message, w.category, stacklevel=4)
    return records
