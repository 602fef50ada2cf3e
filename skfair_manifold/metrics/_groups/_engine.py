"""The group engine: per-group rates, gaps, intervals and verdicts of a cell table.

:func:`group_tables` reads nothing but a :class:`~._cells.CellTable`, so the
in-memory report and any frame that computes the table where the data lives
give the same numbers. Groups smaller than ``min_group_size`` rows stay in
``by_group`` (``compared`` False) and are left out of every gap, interval and
verdict.
"""

import warnings

import numpy as np
from sklearn.utils import Bunch

from ...utils._summary_row import summary_label
from .._bootstrap import group_sums, percentile, replicate_weights, total_sums
from .._common import MSG_GROUP_UNDEFINED, MSG_GROUPS_LEFT_OUT
from ._intervals import detectable_difference, gap_intervals, rate_interval
from ._rates import GAP_FORMS, GAP_RATES, RATES, gaps_of, rate_parts, rates_of

#: the four-fifths rule: a selection-rate ratio below this fails
FOUR_FIFTHS = 0.8
#: the default smallest group compared (see :func:`fairness_report`, ``min_group_size``)
MIN_GROUP_SIZE = 30

_WHAT = {
    "demographic_parity": "row of non-zero weight",
    "equal_opportunity": "row with y_true == pos_label",
    "predictive_quality_parity": "row with y_pred == pos_label",
}
MSG_TOO_FEW_COMPARED = (
    "fairness_report: sensitive attribute {attr!r} has {n} group(s) of at least "
    "min_group_size={size} rows (rows per group: {counts}), fewer than the 2 a gap needs, so "
    "its gaps and four-fifths verdict are nan. Pass a smaller min_group_size to compare "
    "smaller groups, knowing that their rates are noisy."
)
MSG_CELLS_UNDEFINED = (
    "fairness_report: {count} per-group rate(s) are 0/0 and reported as nan: {cells}. "
    "(policy: undefined values are nan, never a sentinel)"
)


def verdict(low, high, value, threshold=FOUR_FIFTHS):
    """Four-fifths verdict of a selection-rate ratio and its interval."""
    if not np.isfinite(value):
        return "undefined"
    if np.isfinite(low) and low >= threshold:
        return "passes"
    if np.isfinite(high) and high < threshold:
        return "fails"
    if not (np.isfinite(low) and np.isfinite(high)):
        return "passes" if value >= threshold else "fails"
    return "inconclusive"


def rate_gaps(sums, total, rate, compared, *, metric, attr, values):
    """One attribute's gaps of ``metric``'s ``rate`` over the ``compared`` groups.

    The one computation of a gap from the cell table, shared by the metric
    functions and the report (the groups of at least ``min_group_size`` rows). Groups whose rate is undefined (a zero
    denominator) are left out of the gap.

    Returns ``(rates, gaps, n_defined, message)``: the groups' rates, the
    gaps of :func:`._rates.gaps_of` (every form, and the groups behind
    them), the number of compared groups whose rate is defined, and the
    message naming the groups left out (None when none is).
    """
    rates = rates_of(sums["weight"])[rate]
    gaps = gaps_of(rates, rates_of(total["weight"])[rate], compared)
    defined = ~np.isnan(rates)
    n_defined = int((defined & compared).sum())
    message = None
    if n_defined < int(compared.sum()):
        msg = MSG_GROUPS_LEFT_OUT if n_defined >= 2 else MSG_GROUP_UNDEFINED
        message = msg.format(metric=metric, attr=attr, what=_WHAT[metric],
                             n_defined=n_defined,
                             groups=list(values[compared & ~defined].tolist()))
    return rates, gaps, n_defined, message


def group_tables(table, *, confidence, min_group_size, n_boot=0, rng=None):
    """Every table of the report from ``table``; see :class:`FairnessReport` for the layout.

    Returns a Bunch of ``by_group``, ``overall``, ``gaps``, ``intervals``
    (``by_group``, ``gaps``, ``method``, ``confidence``, ``n_boot``),
    ``summary_label`` and ``messages`` (the undefined values met).
    """
    import pandas as pd

    weighted = table.weighted
    total = table.total()
    overall_rates = rates_of(total["weight"])
    label = summary_label(table.attributes)
    index, rows, iv_rows, messages, undefined_cells = [], [], [], [], []
    gap_rows, gap_iv = {}, {}
    per_attribute = []
    for k, name in enumerate(table.attributes):
        sums = table.sums(k)
        values = table.groups[k]
        count = sums["count"].sum(axis=(1, 2))
        whole = table.count.dtype.kind in "iu"  # expected counts (estimated groups) stay fractional
        count = count.astype(np.int64) if whole else count
        compared = count >= min_group_size
        rates = rates_of(sums["weight"])
        per_attribute.append((sums, compared))
        bounds = {rate: rate_interval(sums["weight"], sums["weight_sq"], rate, confidence)
                  for rate in RATES}
        for j, value in enumerate(values.tolist()):
            index.append((name, value))
            row = {"count": int(count[j]) if whole else float(count[j])}
            if weighted:
                row["weight"] = float(sums["weight"][j].sum())
            for rate in RATES:
                row[rate] = float(rates[rate][j])
                if np.isnan(rates[rate][j]) and compared[j]:
                    undefined_cells.append(f"{rate} of {name}={value}")
            row["compared"] = bool(compared[j])
            rows.append(row)
            iv_rows.append({f"{rate}_{end}": float(getattr(bounds[rate], end)[j])
                            for rate in RATES for end in ("low", "high")})
        if int(compared.sum()) < 2:
            messages.append(MSG_TOO_FEW_COMPARED.format(
                attr=name, n=int(compared.sum()), size=min_group_size,
                counts=dict(zip(values.tolist(), count.tolist()))))
        row, row_iv = {}, {}
        for metric, rate in {**GAP_RATES, "base_rate": "base_rate"}.items():
            if metric == "base_rate":
                gaps = gaps_of(rates[rate], overall_rates[rate], compared)
            else:
                _, gaps, _, message = rate_gaps(sums, total, rate, compared, metric=metric,
                                                attr=name, values=values)
            ivs = gap_intervals(sums["weight"], sums["weight_sq"], total["weight"],
                                total["weight_sq"], rate, compared, confidence)
            forms = GAP_FORMS if metric != "base_rate" else ("difference", "ratio")
            for form in forms:
                row[f"{metric}_{form}"] = float(gaps[form])
                row_iv[f"{metric}_{form}_low"] = ivs[form].low
                row_iv[f"{metric}_{form}_high"] = ivs[form].high
            if metric == "base_rate":
                continue
            row[f"{metric}_group_high"] = values[gaps["high"]] if gaps["high"] >= 0 else None
            row[f"{metric}_group_low"] = values[gaps["low"]] if gaps["low"] >= 0 else None
            _, den = rate_parts(sums["count"], rate)
            sizes = den[compared & (den > 0)]
            row[f"{metric}_detectable_difference"] = (
                detectable_difference(sizes.min(), sizes.max(), float(overall_rates[rate]))
                if sizes.shape[0] >= 2 else np.nan)
            if message is not None:
                messages.append(message)
        ratio = row["demographic_parity_ratio"]
        row["passes_four_fifths"] = bool(ratio >= FOUR_FIFTHS)
        row["four_fifths"] = verdict(row_iv["demographic_parity_ratio_low"],
                                     row_iv["demographic_parity_ratio_high"], ratio)
        row["groups_compared"] = int(compared.sum())
        row["groups_left_out"] = int((~compared).sum())
        row["rows_left_out"] = int(count[~compared].sum())
        gap_rows[name], gap_iv[name] = row, row_iv

    by_group = pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(
        index, names=["attribute", "group"]))
    by_group_iv = pd.DataFrame(iv_rows, index=by_group.index)
    if undefined_cells:
        shown = ", ".join(undefined_cells[:10]) + (" ..." if len(undefined_cells) > 10 else "")
        messages.insert(0, MSG_CELLS_UNDEFINED.format(count=len(undefined_cells), cells=shown))
    overall = pd.Series({"count": table.n_samples,
                         **({"weight": float(total["weight"].sum())} if weighted else {}),
                         **{rate: float(overall_rates[rate]) for rate in RATES}})
    method = "score"
    if n_boot > 0:
        method = "bootstrap"
        _bootstrap_gaps(table, per_attribute, gap_iv, n_boot=n_boot, confidence=confidence,
                        rng=rng)
        for name in table.attributes:
            row, row_iv = gap_rows[name], gap_iv[name]
            row["four_fifths"] = verdict(row_iv["demographic_parity_ratio_low"],
                                         row_iv["demographic_parity_ratio_high"],
                                         row["demographic_parity_ratio"])
    gaps = pd.DataFrame.from_dict(gap_rows, orient="index")
    gaps_iv = pd.DataFrame.from_dict(gap_iv, orient="index")
    if len(table.attributes) > 1:
        gaps.loc[label], gaps_iv.loc[label] = _worst(gaps, gaps_iv)
    gaps.index.name = gaps_iv.index.name = "attribute"
    for column in ("passes_four_fifths",):
        gaps[column] = gaps[column].astype(bool)
    for column in ("groups_compared", "groups_left_out", "rows_left_out"):
        gaps[column] = gaps[column].astype(np.int64)
    intervals = Bunch(by_group=by_group_iv, gaps=gaps_iv, method=method,
                      confidence=confidence, n_boot=n_boot)
    return Bunch(by_group=by_group, overall=overall, gaps=gaps, intervals=intervals,
                 summary_label=label, messages=list(dict.fromkeys(messages)))


def _worst(gaps, gaps_iv):
    """The summary row: per column the worst attribute (largest difference, smallest ratio).

    The interval of the worst is ``[worst low, worst high]`` over attributes,
    which holds whenever every attribute's interval does.
    """
    import pandas as pd

    row, row_iv = {}, {}
    for column in gaps.columns:
        values = gaps[column]
        if f"{column}_low" in gaps_iv.columns:
            numbers = values.to_numpy(dtype=np.float64)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                worst = np.max(numbers) if "difference" in column else np.min(numbers)
                row[column] = float(worst)
                lows = gaps_iv[f"{column}_low"].to_numpy(dtype=np.float64)
                highs = gaps_iv[f"{column}_high"].to_numpy(dtype=np.float64)
                pick = np.max if "difference" in column else np.min
                row_iv[f"{column}_low"] = float(pick(lows))
                row_iv[f"{column}_high"] = float(pick(highs))
    for metric in GAP_RATES:
        ratios = gaps[f"{metric}_ratio"].to_numpy(dtype=np.float64)
        at = int(np.nanargmin(ratios)) if np.isfinite(ratios).any() else 0
        row[f"{metric}_group_high"] = gaps[f"{metric}_group_high"].iloc[at]
        row[f"{metric}_group_low"] = gaps[f"{metric}_group_low"].iloc[at]
        row[f"{metric}_detectable_difference"] = float(
            gaps[f"{metric}_detectable_difference"].max())
    row["passes_four_fifths"] = bool(gaps["passes_four_fifths"].all())
    verdicts = set(gaps["four_fifths"])
    row["four_fifths"] = next((v for v in ("fails", "inconclusive", "undefined", "passes")
                               if v in verdicts), "undefined")
    for column in ("groups_compared", "groups_left_out", "rows_left_out"):
        row[column] = int(gaps[column].sum())
    return pd.Series(row, dtype=object).reindex(gaps.columns), \
        pd.Series(row_iv).reindex(gaps_iv.columns)


def _bootstrap_gaps(table, per_attribute, gap_iv, *, n_boot, confidence, rng):
    """Replace the gap intervals by percentile bootstrap intervals drawn from the cells."""
    samples = {name: {} for name in table.attributes}
    for cell_weights in replicate_weights(table, n_boot, rng):
        overall = rates_of(total_sums(table, cell_weights))
        for k, name in enumerate(table.attributes):
            _, compared = per_attribute[k]
            rates = rates_of(group_sums(table, k, cell_weights))
            for metric, rate in {**GAP_RATES, "base_rate": "base_rate"}.items():
                gaps = gaps_of(rates[rate], overall[rate], compared)
                for form in GAP_FORMS:
                    samples[name].setdefault(f"{metric}_{form}", []).append(gaps[form])
    for name, columns in samples.items():
        for column, parts in columns.items():
            if f"{column}_low" not in gap_iv[name]:
                continue
            interval = percentile(np.concatenate(parts), confidence)
            gap_iv[name][f"{column}_low"] = float(interval.low)
            gap_iv[name][f"{column}_high"] = float(interval.high)
