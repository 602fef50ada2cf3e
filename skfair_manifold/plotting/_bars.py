"""Per-attribute bars of HFM (or any per-attribute measure)."""

from typing import Any

import numpy as np

from skfair_manifold.plotting._base import get_axes
from skfair_manifold.utils._summary_row import ALL_ATTRIBUTES

MSG_BREAKDOWN = (
    "breakdown must map each sensitive attribute to a number, or to a mapping of measure "
    "names to numbers (for example {{'sex': {{'df': 0.1, 'df_avg': 0.05}}}}), or be a pandas "
    "DataFrame with one row per attribute; got {kind}."
)


MSG_EMPTY_BREAKDOWN = (
    "breakdown is empty: give at least one sensitive attribute with its value(s), for "
    "example {'sex': {'hfm_max': 0.1, 'hfm_avg': 0.05}}, or what hfm_report or "
    "fairness_report returns."
)
MSG_NO_MEASURES = "measures is empty: name at least one measure to draw, or pass None for all."
MSG_UNKNOWN_MEASURES = "measure(s) {unknown} are not in breakdown; its measures are {known}."

HFM_MEASURES = ["hfm_max", "hfm_avg"]


def _from_report(breakdown):
    """``(table, overall, errors)`` from ``hfm_report``'s Bunch or a ``FairnessReport``.

    ``table`` maps attribute -> {measure: value}; ``errors`` maps the same to
    (low, high) pairs when the report carries intervals. None when
    ``breakdown`` is neither.
    """
    if hasattr(breakdown, "by_group") and hasattr(breakdown, "gaps"):  # FairnessReport
        frame = breakdown.hfm
        if frame is None:
            raise ValueError("this FairnessReport has no HFM: make it with X= (the features) "
                             "to plot HFM per attribute.")
        rows = [a for a in frame.index if a != ALL_ATTRIBUTES]
        table = {a: {m: float(frame.loc[a, m]) for m in HFM_MEASURES} for a in rows}
        overall = {m: float(frame.loc[ALL_ATTRIBUTES, m]) for m in HFM_MEASURES}
        errors = None
        if all(f"{m}_low" in frame.columns for m in HFM_MEASURES):
            errors = {a: {m: (float(frame.loc[a, f"{m}_low"]), float(frame.loc[a, f"{m}_high"]))
                          for m in HFM_MEASURES} for a in rows}
        return table, overall, errors
    per = getattr(breakdown, "per_attribute", None)
    attributes = getattr(breakdown, "attributes", None)
    if per is not None and attributes is not None:  # hfm_report's Bunch
        table = {str(a): {m: float(per[m][k]) for m in HFM_MEASURES}
                 for k, a in enumerate(attributes)}
        overall = {m: float(breakdown[m]) for m in HFM_MEASURES}
        return table, overall, None
    return None


def _known_measures(breakdown):
    """The measure names ``breakdown`` holds, or None when it holds bare numbers."""
    if hasattr(breakdown, "columns"):
        return [str(c) for c in breakdown.columns]
    if hasattr(breakdown, "items"):
        rows = list(breakdown.values())
        if rows and all(hasattr(r, "items") for r in rows):
            return list(dict.fromkeys(m for r in rows for m in r))
    return None


def _as_table(breakdown, measures):
    """Return (attributes, measures, values[n_attributes, n_measures])."""
    if hasattr(breakdown, "columns") and hasattr(breakdown, "index"):  # DataFrame
        measures = list(breakdown.columns) if measures is None else list(measures)
        values = np.asarray(breakdown[measures], dtype=np.float64)
        return [str(a) for a in breakdown.index], measures, values
    if not hasattr(breakdown, "items"):
        raise TypeError(MSG_BREAKDOWN.format(kind=type(breakdown).__name__))
    attributes = [str(a) for a in breakdown]
    rows = list(breakdown.values())
    if all(hasattr(r, "items") for r in rows):
        if measures is None:
            measures = []
            for r in rows:
                measures += [m for m in r if m not in measures]
        values = np.array([[float(r.get(m, np.nan)) for m in measures] for r in rows])
    else:
        try:
            values = np.array([[float(r)] for r in rows])
        except (TypeError, ValueError):
            raise TypeError(MSG_BREAKDOWN.format(kind="values that are not numbers")) from None
        measures = ["value"] if measures is None else list(measures)
    return attributes, list(measures), values


def plot_hfm_by_attribute(
    breakdown: Any,
    *,
    measures: list | tuple | None = None,
    overall: Any = None,
    ax: Any = None,
) -> Any:
    """Bars of a fairness measure per sensitive attribute.

    HFM takes the maximum (``df``) or the mean (``df_avg``) over the
    sensitive attributes (HFM paper, Eq. 6-8); the bars show which attribute
    drives it.

    Parameters
    ----------
    breakdown : Bunch, FairnessReport, mapping or DataFrame
        What :func:`~skfair_manifold.metrics.hfm_report` or
        :func:`~skfair_manifold.metrics.fairness_report` returns (HFM max and
        avg per attribute, the value over all attributes as the dashed lines,
        and the report's intervals as error bars when it has them); or, per
        attribute, one number or a mapping ``measure -> number`` (for
        example ``{"sex": {"df": 0.12, "df_avg": 0.03}, ...}``); or a
        DataFrame with one row per attribute and one column per measure.
    measures : list of str, default=None
        Which measures (columns) to draw; all of them when None.
    overall : mapping or float, default=None
        The value over all attributes, drawn as a dashed horizontal line per
        measure (a mapping ``measure -> number``) or one line (a number).
    ax : matplotlib Axes, default=None
        Where to draw; a new figure when None.

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skfair_manifold.plotting import plot_hfm_by_attribute
    >>> ax = plot_hfm_by_attribute({"sex": {"df": 0.12, "df_avg": 0.03},
    ...                             "race": {"df": 0.40, "df_avg": 0.10}})
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['sex', 'race']
    """
    errors = None
    converted = _from_report(breakdown)
    if converted is not None:
        breakdown, report_overall, error_table = converted
        measures = HFM_MEASURES if measures is None else measures
        overall = {m: v for m, v in report_overall.items() if m in measures} \
            if overall is None else overall
        if error_table is not None:
            errors = np.array([[error_table[a][m] for m in measures] for a in breakdown])
    if measures is not None and len(list(measures)) == 0:
        raise ValueError(MSG_NO_MEASURES)
    if hasattr(breakdown, "__len__") and len(breakdown) == 0:
        raise ValueError(MSG_EMPTY_BREAKDOWN)
    if measures is not None:
        known = _known_measures(breakdown)
        unknown = [m for m in measures if known is not None and m not in known]
        if unknown:
            raise ValueError(MSG_UNKNOWN_MEASURES.format(unknown=unknown, known=known))
    attributes, measures, values = _as_table(breakdown, measures)
    ax = get_axes(ax, "plot_hfm_by_attribute")
    n_attr, n_meas = values.shape
    width = 0.8 / n_meas
    positions = np.arange(n_attr)
    colors = [f"C{j}" for j in range(n_meas)]
    for j, measure in enumerate(measures):
        yerr = None
        if errors is not None:
            yerr = np.abs(np.stack([values[:, j] - errors[:, j, 0],
                                    errors[:, j, 1] - values[:, j]]))
        ax.bar(positions + (j - (n_meas - 1) / 2) * width, values[:, j], width,
               label=str(measure), color=colors[j], yerr=yerr, capsize=3)
    if overall is not None:
        lines = overall if hasattr(overall, "items") else {"overall": overall}
        for j, (name, value) in enumerate(lines.items()):
            color = colors[measures.index(name)] if name in measures else "k"
            ax.axhline(float(value), color=color, linestyle="--", linewidth=1,
                       label=f"{name}, all attributes")
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_xticks(positions)
    ax.set_xticklabels(attributes)
    ax.set_xlabel("sensitive attribute")
    ax.set_ylabel("HFM (lower is fairer)")
    ax.set_title("Fairness per sensitive attribute")
    ax.legend(loc="best")
    return ax


RATE_NAMES = ("base_rate", "selection_rate", "true_positive_rate", "false_positive_rate",
              "precision", "accuracy")


def plot_group_rates(
    report: Any,
    *,
    rates: list | tuple = ("selection_rate", "true_positive_rate"),
    attribute: Any = None,
    ax: Any = None,
) -> Any:
    """Bars of per-group rates of a ``FairnessReport``, with its bootstrap intervals.

    Parameters
    ----------
    report : FairnessReport
        What :func:`~skfair_manifold.metrics.fairness_report` returns; its
        intervals (``n_boot > 0``) are drawn as error bars.
    rates : sequence of str, default=("selection_rate", "true_positive_rate")
        Columns of ``report.by_group``.
    attribute : str or None, default=None
        One attribute's groups; every attribute's, one after the other, when
        None.
    ax : matplotlib Axes, default=None

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skfair_manifold.metrics import fairness_report
    >>> from skfair_manifold.plotting import plot_group_rates
    >>> r = fairness_report([1, 0, 1, 1, 0, 1], [1, 0, 0, 1, 1, 1],
    ...                     sensitive_features=["a", "a", "a", "b", "b", "b"], min_group_size=1)
    >>> ax = plot_group_rates(r)
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['0=a', '0=b']
    """
    by_group = getattr(report, "by_group", None)
    if by_group is None:
        raise TypeError("plot_group_rates takes what fairness_report returns; got "
                        f"{type(report).__name__}.")
    rates = [rates] if isinstance(rates, str) else list(rates)
    unknown = [r for r in rates if r not in by_group.columns]
    if unknown or not rates:
        raise ValueError(f"rates must be columns of report.by_group {list(RATE_NAMES)}; "
                         f"got {unknown or rates!r}.")
    frame = by_group
    if attribute is not None:
        attributes = list(dict.fromkeys(by_group.index.get_level_values(0)))
        if attribute not in attributes:
            raise ValueError(f"attribute {attribute!r} is not in the report; its "
                             f"attributes are {attributes}.")
        frame = by_group.loc[[attribute]]
    labels = [f"{a}={g}" for a, g in frame.index]
    iv = getattr(report, "intervals", None)
    ax = get_axes(ax, "plot_group_rates")
    positions = np.arange(len(labels))
    width = 0.8 / len(rates)
    for j, rate in enumerate(rates):
        values = frame[rate].to_numpy(dtype=np.float64)
        yerr = None
        if iv is not None and f"{rate}_low" in iv.by_group.columns:
            low = iv.by_group.loc[frame.index, f"{rate}_low"].to_numpy(dtype=np.float64)
            high = iv.by_group.loc[frame.index, f"{rate}_high"].to_numpy(dtype=np.float64)
            yerr = np.abs(np.stack([values - low, high - values]))
        ax.bar(positions + (j - (len(rates) - 1) / 2) * width, values, width,
               yerr=yerr, capsize=3, label=rate.replace("_", " "), color=f"C{j}")
    ax.set_xticks(positions)
    ax.set_xticklabels(labels, rotation=30 if len(labels) > 6 else 0)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("rate")
    title = "Rates by group"
    if iv is not None:
        title += f" ({100 * iv.confidence:.0f}% bootstrap intervals)"
    ax.set_title(title)
    ax.legend(loc="best")
    return ax
