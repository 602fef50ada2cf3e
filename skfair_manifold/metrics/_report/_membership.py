"""The group report when some groups are estimated: the weighted rates, beside the bounds.

``fairness_report(..., membership={"race": P}, proxy=...)`` reports every
rate of an estimated attribute as the weighted estimate: each person counts in
every category with her probability of it (times her sample weight), so a
group's rate is ``sum_i P(g | z_i) w_i x_i / sum_i P(g | z_i) w_i`` and its
size the expected count ``sum_i P(g | z_i)`` (what ``min_group_size`` reads).
The intervals are the weighted rates' (Kish's effective size of each
denominator): they hold when the decision and the label are independent of
the group given the proxy. Without that assumption only the bounds hold: the
bias audit's table of the same decisions (``bounds``: per category the sharp
bounds of the selection rate and the impact ratio over who in each stratum
was selected, and their interval).
"""

import warnings
from itertools import product

import numpy as np
import pandas as pd

from ...utils._narwhals import collect, is_lazy, to_narwhals
from ...utils._validation import sensitive_columns
from .._audit._api import bias_audit
from .._audit._membership import read_membership
from .._groups._cells import CellTable
from ._rows import _rows_table

MSG_NEEDS_OBSERVED = (
    "{what} needs observed groups, and membership= estimates them: leave {argument} out (the "
    "bias audit of the decisions is bias_audit(y_pred, membership=..., proxy=...))."
)
MSG_LAZY = (
    "membership= with a lazy frame: the weighted report needs the rows; audit the frame with "
    "bias_audit(y_pred, data=..., membership=..., proxy=...), which aggregates in its engine."
)
MSG_BOOT = (
    "membership= with n_boot > 0: the bootstrap would resample a person's weighted rows as "
    "separate people; leave n_boot at 0 (the score intervals of the weighted rates)."
)


def check_membership_call(*, membership, proxy, sensitive_features, X, estimator, y_score,
                          loss, n_boot, data, target_type):
    """The report's options checked against ``membership``: the groups needed, and the
    options that need observed groups refused with the reason."""
    if membership is None:
        if proxy is not None:
            raise ValueError("proxy= gives the strata of membership=, which was not given.")
        if sensitive_features is None:
            raise ValueError("sensitive_features is required (or membership=, the "
                             "probabilities of an estimated attribute).")
        return
    if target_type == "continuous":
        raise ValueError("membership= is the binary report's (rates of decisions); got "
                         "target_type='continuous'.")
    lazy = data is not None and is_lazy(data)
    for value, what, argument in ((X, "HFM (X=)", "X"),
                                  (estimator, "the discriminative risk (estimator=)",
                                   "estimator"),
                                  (y_score, "the scores' section (y_score=)", "y_score"),
                                  (loss, "the continuous report (loss=)", "loss")):
        if value is not None:
            raise ValueError(MSG_NEEDS_OBSERVED.format(what=what, argument=argument))
    if lazy:
        raise ValueError(MSG_LAZY)
    if n_boot:
        raise ValueError(MSG_BOOT)


def expand_rows(y_true, y_pred, sensitive_features, membership, sample_weight, data):
    """Every person once per combination of her estimated categories, weighted.

    Returns ``(y_true, y_pred, sensitive, weights, mass, people)``: the
    expanded labels and decisions, the expanded sensitive columns (a DataFrame,
    observed first, then the estimated categories), the weights ``w P``, the
    probabilities ``P`` alone, and each expanded row's person.
    """
    if data is not None:
        frame = collect(to_narwhals(data)).to_pandas()
        estimated, _ = read_membership(membership, data_columns=list(frame.columns))
        membership = {attr.name: pd.DataFrame(
            frame[attr.columns].to_numpy(dtype=np.float64), columns=attr.categories)
            for attr in estimated}
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    n = y_pred.shape[0]
    estimated, matrices = read_membership(membership, n=n)
    observed = {}
    if isinstance(sensitive_features, dict):
        observed = {str(a): np.asarray(c, dtype=object) for a, c in sensitive_features.items()}
    elif sensitive_features is not None:
        names, columns = sensitive_columns(sensitive_features, n)
        observed = {str(a): np.asarray(c, dtype=object) for a, c in zip(names, columns)}
    for attr in estimated:
        if attr.name in observed:
            raise ValueError(f"membership names {attr.name!r}, which is also a sensitive "
                             f"feature; an attribute is either observed or estimated.")
    base = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    people, mass, sensitive = [], [], {name: [] for name in observed}
    for attr in estimated:
        sensitive[attr.name] = []
    for combo in product(*[range(len(a.categories)) for a in estimated]):
        p = np.ones(n)
        for matrix, k in zip(matrices, combo):
            p = p * matrix[:, k]
        rows = np.flatnonzero(p > 0)
        people.append(rows)
        mass.append(p[rows])
        for name, col in observed.items():
            sensitive[name].append(col[rows])
        for attr, k in zip(estimated, combo):
            sensitive[attr.name].append(np.full(rows.shape[0], attr.categories[k],
                                                dtype=object))
    people = np.concatenate(people)
    mass = np.concatenate(mass)
    sensitive = pd.DataFrame({name: np.concatenate(parts) for name, parts in sensitive.items()})
    return (y_true[people], y_pred[people], sensitive, base[people] * mass, mass, people,
            [a.name for a in estimated])


def membership_table(y_true, y_pred, sensitive_features, membership, sample_weight, data, *,
                     pos_label, random_state):
    """The cell table of the weighted rows, each cell's count its expected people.

    Returns ``(table, favourable, rng, seed, rows, state)``; ``state`` is what
    :func:`add_bounds` reads: the decisions, the observed columns, the frame
    and the estimated attributes' names.
    """
    y_true_x, y_pred_x, sensitive_x, weights_x, mass_x, _, names = expand_rows(
        y_true, y_pred, sensitive_features, membership, sample_weight, data)
    table, favourable, rng, seed, rows = _rows_table(
        y_true_x, y_pred_x, sensitive_x, None, None, pos_label, weights_x, random_state)
    masses, *_ = _rows_table(y_true_x, y_pred_x, sensitive_x, None, None, pos_label, mass_x,
                             random_state)
    state = {"y_pred": y_pred, "observed": sensitive_features, "data": data,
             "estimated": names}
    return with_expected_counts(table, masses), favourable, rng, seed, rows, state


def with_expected_counts(weighted_table, mass_table):
    """The weighted table with each cell's count the expected number of people in it."""
    return CellTable(attributes=weighted_table.attributes, groups=weighted_table.groups,
                     codes=weighted_table.codes, y_true=weighted_table.y_true,
                     y_pred=weighted_table.y_pred, count=mass_table.weight.copy(),
                     weight=weighted_table.weight, weight_sq=weighted_table.weight_sq,
                     weighted=True)


def add_bounds(report, state, favourable, *, membership, proxy, intersect, confidence):
    """The bias audit's bounds of the same decisions (``report.bounds``), what the weighted
    rates assume (``options["membership"]``) and a sentence of the headline each."""
    observed, data, estimated = state["observed"], state["data"], state["estimated"]
    selected = (np.asarray(state["y_pred"]) == favourable).astype(int)
    if data is not None:
        frame = collect(to_narwhals(data)).to_pandas()
        membership = {name: frame[list(cols.values()) if isinstance(cols, dict) else
                                  list(cols)].set_axis(list(cols), axis=1)
                      for name, cols in membership.items()}
        if isinstance(proxy, str):
            proxy = frame[proxy]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # said once, by the table's options
        audit = bias_audit(selected, sensitive_features=observed, membership=membership,
                           proxy=proxy, intersect=intersect, confidence=confidence,
                           min_share=0.0)
    keep = audit.table["characteristic"].isin(list(audit.options.get("estimated", {})))
    report["bounds"] = audit.table[keep].reset_index(drop=True)
    report.options["membership"] = audit.options.get("estimated", {})
    report.options["estimated_attributes"] = list(estimated)
    for name in estimated:
        info = audit.options["estimated"].get(name)
        if info is None:
            continue
        rows = report["bounds"][report["bounds"]["characteristic"] == name]
        low = rows["impact_ratio_ci_low"].min()
        report["headline"].append(
            f"{name} is estimated from membership probabilities: its rates are the weighted "
            f"estimate, which holds if the decision is independent of {name} given the "
            f"stratum; without that assumption its selection-rate ratios are only known to "
            f"lie in the bounds (report.bounds; the lowest interval end {low:.3f}).")
