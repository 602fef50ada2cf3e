"""Approximate against exact distances: scatter, identity line, linear fit."""

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from skfair_manifold.plotting._base import get_axes

MSG_SCATTER_SHAPES = (
    "exact and approx must be 1-D and of the same length (at least 2 values); got shapes "
    "{a} and {b}."
)


MSG_SCATTER_NON_NUMERIC = "{name} must hold numbers (distances); got values such as {example!r}."
MSG_SCATTER_NON_FINITE = (
    "{name} holds {count} NaN or infinite value(s), first at position {first}: a distance is "
    "finite; drop those points (or recompute them) before plotting."
)


def _values(values, name):
    values = np.asarray(values)
    if values.dtype.kind not in "biuf":
        raise TypeError(MSG_SCATTER_NON_NUMERIC.format(
            name=name, example=values.reshape(-1)[0] if values.size else None))
    values = values.astype(np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        raise ValueError(MSG_SCATTER_NON_FINITE.format(
            name=name, count=int(bad.sum()), first=int(np.flatnonzero(bad.reshape(-1))[0])))
    return values


def plot_approx_vs_exact(
    exact: ArrayLike, approx: ArrayLike, *, label: str | None = None, ax: Any = None
) -> Any:
    """Scatter approximate distances against exact ones (HFM paper, Fig. 4).

    The approximation of :func:`skfair_manifold.distances.approx_dist` keeps
    only real distances to rows of another group, so it never underestimates:
    every point lies on or above the identity line. The linear fit and the
    Pearson correlation in the legend say how closely it follows the exact
    value.

    Parameters
    ----------
    exact : array-like of shape (n_points,)
        Exact values (for example ``d_avg`` per data set, fold or label).
    approx : array-like of shape (n_points,)
        The approximate values of the same quantities.
    label : str, default=None
        Legend label of the points.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure when None.

    Returns
    -------
    ax : matplotlib Axes
        ``ax.fit_`` holds ``(slope, intercept, pearson_r)``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skfair_manifold.plotting import plot_approx_vs_exact
    >>> ax = plot_approx_vs_exact([0.1, 0.2, 0.3], [0.11, 0.21, 0.31])
    >>> [round(v, 3) for v in ax.fit_]
    [1.0, 0.01, 1.0]
    """
    x = _values(exact, "exact")
    y = _values(approx, "approx")
    if x.ndim != 1 or x.shape != y.shape or x.shape[0] < 2:
        raise ValueError(MSG_SCATTER_SHAPES.format(a=x.shape, b=y.shape))
    ax = get_axes(ax, "plot_approx_vs_exact")
    ax.scatter(x, y, alpha=0.7, label=label or "approximate")
    lo = float(min(x.min(), y.min()))
    hi = float(max(x.max(), y.max()))
    ax.plot([lo, hi], [lo, hi], color="grey", linestyle="--", label="identity (y = x)")
    if np.ptp(x) > 0:
        slope, intercept = np.polyfit(x, y, 1)
        r = float(np.corrcoef(x, y)[0, 1]) if np.ptp(y) > 0 else float("nan")
        grid = np.array([x.min(), x.max()])
        ax.plot(grid, slope * grid + intercept, color="tab:red",
                label=f"fit: y = {slope:.3f} x {intercept:+.3f} (r = {r:.3f})")
    else:  # all exact values equal: no line to fit
        slope = intercept = r = float("nan")
    ax.set_xlabel("exact distance")
    ax.set_ylabel("approximate distance")
    ax.set_title("Approximate against exact distances")
    ax.legend(loc="best")
    ax.fit_ = (float(slope), float(intercept), r)
    return ax
