"""Per-attribute bars of HFM (or any per-attribute measure)."""

import numpy as np

from skfair_manifold.plotting._base import get_axes

MSG_BREAKDOWN = (
    "breakdown must map each sensitive attribute to a number, or to a mapping of measure "
    "names to numbers (for example {{'sex': {{'df': 0.1, 'df_avg': 0.05}}}}), or be a pandas "
    "DataFrame with one row per attribute; got {kind}."
)


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


def plot_hfm_by_attribute(breakdown, *, measures=None, overall=None, ax=None):
    """Bars of a fairness measure per sensitive attribute.

    HFM takes the maximum (``df``) or the mean (``df_avg``) over the
    sensitive attributes (HFM paper, Eq. 6-8); the bars show which attribute
    drives it.

    Parameters
    ----------
    breakdown : mapping or DataFrame
        Per attribute, one number or a mapping ``measure -> number`` (for
        example ``{"sex": {"df": 0.12, "df_avg": 0.03}, ...}``); or a
        DataFrame with one row per attribute and one column per measure, such
        as the per-attribute breakdown of :mod:`skfair_manifold.metrics`.
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
    attributes, measures, values = _as_table(breakdown, measures)
    ax = get_axes(ax, "plot_hfm_by_attribute")
    n_attr, n_meas = values.shape
    width = 0.8 / n_meas
    positions = np.arange(n_attr)
    colors = [f"C{j}" for j in range(n_meas)]
    for j, measure in enumerate(measures):
        ax.bar(positions + (j - (n_meas - 1) / 2) * width, values[:, j], width,
               label=str(measure), color=colors[j])
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
