"""The group engine of a continuous target: per-group means, losses and their gaps, with intervals.

For a continuous decision (a wage, a credit limit, a risk score) the groups
are compared on the means of four quantities of each row: the prediction,
the true value, the absolute error and the squared error (root mean squared
error is the square root of the last), and on the residual ``y_pred -
y_true`` (the model's bias). Everything comes from per-group weighted sums
(:func:`group_moments`), computed in two passes (the mean, then the squared
deviations from it), so a column of large values with a small spread loses
no digits.

Intervals
---------
The mean of a group has Student's t interval with ``n_eff - 1`` degrees of
freedom, ``n_eff`` being Kish's effective size (the row count without
weights). The gaps between the compared groups (largest mean minus
smallest, smallest over largest) have *simultaneous* intervals: every
compared group's interval at level ``confidence ** (1 / G)``, so that all
``G`` hold at once with probability at least ``confidence`` when each
does; the gap of the population then lies between ``max(low) - min(high)``
and ``max(high) - min(low)`` whichever groups its extremes are. This is the
binary report's construction with t intervals in place of score intervals.
t intervals are exact for normal values and hold approximately for others
once the groups are not tiny; the coverage measured by simulation, and its
limits for skewed values at a few rows, are stated in the User Guide.
"""

import numpy as np
from scipy import stats

from ...utils._interval import ConfidenceInterval
from ...utils._validation import as_sensitive
from .._groups._cells import combine_groups

#: the per-row quantities whose group means are compared, in the tables' order
QUANTITIES = ("mean_prediction", "mean_target", "mean_absolute_error",
              "mean_squared_error", "mean_residual")


def row_groups(sensitive_features, n_samples, *, intersect):
    """``(codes, names, groups)`` of the rows, one attribute per column or their combinations.

    :func:`~skfair_manifold.utils._validation.encode_sensitive`'s encoding (the
    call's :class:`~skfair_manifold.utils._validation.SensitiveFeatures` is read as it is);
    with ``intersect`` and several attributes, one attribute ``"a & b"`` whose
    groups join their values, ordered by the attributes' codes (as the cell
    table's ``intersect``).
    """
    sensitive = as_sensitive(sensitive_features, n_samples)
    codes, names, groups = sensitive.codes, sensitive.names, sensitive.groups
    if intersect and len(codes) > 1:
        code, labels, name = combine_groups(np.column_stack(codes), groups, names)
        codes, names, groups = [code], [name], [labels]
    return codes, names, groups


def row_quantities(y_true, y_pred):
    """The per-row values of :data:`QUANTITIES` (float64 arrays, in that order)."""
    residual = y_pred - y_true
    return (y_pred, y_true, np.abs(residual), residual * residual, residual)


def group_moments(values, codes, n_groups, weights=None):
    """Per group: row count, effective size, weighted mean and variance of ``values``.

    ``values`` is a tuple of 1-D arrays (the quantities), ``codes`` the
    group of each row. The variance is the unbiased one of reliability
    weights (``n_eff / (n_eff - 1)`` times the weighted second central
    moment; the sample variance without weights), nan below 2 rows.

    Returns a dict with ``count``, ``weight``, ``n_eff`` (shape ``(G,)``),
    ``mean`` and ``var`` (shape ``(len(values), G)``).
    """
    count = np.bincount(codes, minlength=n_groups).astype(np.float64)
    if weights is None:
        weight, weight_sq = count, count
    else:
        weight = np.bincount(codes, weights=weights, minlength=n_groups)
        weight_sq = np.bincount(codes, weights=weights * weights, minlength=n_groups)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where(weight_sq > 0, weight * weight / weight_sq, 0.0)
        mean = np.empty((len(values), n_groups))
        var = np.empty((len(values), n_groups))
        for q, x in enumerate(values):
            wx = x if weights is None else weights * x
            mean[q] = np.bincount(codes, weights=wx, minlength=n_groups) / weight
            dev = x - mean[q][codes]
            wdev = dev * dev if weights is None else weights * dev * dev
            second = np.bincount(codes, weights=wdev, minlength=n_groups) / weight
            var[q] = np.where(n_eff > 1, second * n_eff / (n_eff - 1), np.nan)
    return {"count": count.astype(np.int64), "weight": weight, "n_eff": n_eff,
            "mean": mean, "var": var}


def mean_intervals(mean, var, n_eff, level):
    """Student's t interval of each mean at ``level``; nan where fewer than 2 rows."""
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.where(n_eff > 1, n_eff - 1, np.nan)
        half = stats.t.ppf(0.5 + level / 2, df) * np.sqrt(var / n_eff)
    return ConfidenceInterval(mean - half, mean + half)


def rmse_bounds(low, high):
    """Bounds of the root of a mean squared error from those of the mean (clipped at 0)."""
    return ConfidenceInterval(np.sqrt(np.clip(low, 0.0, None)), np.sqrt(np.clip(high, 0.0, None)))


def gap_of(mean, low, high, compared):
    """The largest-minus-smallest and smallest-over-largest gaps of ``mean`` over ``compared``.

    ``low`` and ``high`` are the groups' simultaneous bounds. Returns a dict
    ``difference``, ``difference_low``, ``difference_high``, ``ratio``,
    ``ratio_low``, ``ratio_high`` (nan unless every compared mean and bound
    is positive), ``high`` and ``low`` (the positions of the groups with the
    largest and smallest mean, -1 when fewer than 2 groups are compared).
    """
    nan = float("nan")
    out = {"difference": nan, "difference_low": nan, "difference_high": nan,
           "ratio": nan, "ratio_low": nan, "ratio_high": nan, "high": -1, "low": -1}
    index = np.flatnonzero(compared & np.isfinite(mean))
    if index.shape[0] < 2:
        return out
    m, lo, hi = mean[index], low[index], high[index]
    top, bottom = index[np.argmax(m)], index[np.argmin(m)]
    out.update(high=int(top), low=int(bottom), difference=float(m.max() - m.min()))
    if np.isfinite(lo).all() and np.isfinite(hi).all():
        out["difference_low"] = float(max(lo.max() - hi.min(), 0.0))
        out["difference_high"] = float(hi.max() - lo.min())
    if (m > 0).all():
        out["ratio"] = float(m.min() / m.max())
        if np.isfinite(lo).all() and (lo > 0).all():
            out["ratio_low"] = float(lo.min() / hi.max())
            out["ratio_high"] = float(min(hi.min() / lo.max(), 1.0))
    return out


def distribution_gaps(values, codes, n_groups, compared, weights=None):
    """Each group's distance to the whole population's distribution of ``values``.

    The regression reading of statistical parity (Agarwal, Dudik and Wu,
    2019): per group, the Kolmogorov-Smirnov distance ``sup_z |F_g(z) -
    F(z)|`` and the Wasserstein-1 distance ``integral |F_g(z) - F(z)| dz``
    between the group's (weighted) distribution function and the
    population's. Groups not ``compared`` get nan. Returns ``(ks,
    wasserstein)``, arrays of shape ``(G,)``.
    """
    order = np.argsort(values, kind="stable")
    z = values[order]
    w = np.ones(z.shape[0]) if weights is None else weights[order]
    g = codes[order]
    last = np.r_[np.flatnonzero(np.diff(z) > 0), z.shape[0] - 1]  # each distinct value's end
    widths = np.diff(z[last])
    overall = np.cumsum(w)[last] / w.sum()
    ks = np.full(n_groups, np.nan)
    wasserstein = np.full(n_groups, np.nan)
    for k in np.flatnonzero(compared):
        mine = np.where(g == k, w, 0.0)
        total = mine.sum()
        if total <= 0:
            continue
        diff = np.abs(np.cumsum(mine)[last] / total - overall)
        ks[k] = diff.max()
        wasserstein[k] = float(np.dot(diff[:-1], widths))
    return ks, wasserstein
