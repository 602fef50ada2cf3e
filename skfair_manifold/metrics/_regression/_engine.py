"""The group engine of a continuous target: per-group means, losses and their gaps, with intervals.

For a continuous decision (a wage, a credit limit, a risk score) the groups
are compared on the means of four quantities of each row: the prediction,
the true value, the absolute error and the squared error (root mean squared
error is the square root of the last), and on the residual ``y_pred -
y_true`` (the model's bias). Everything comes from per-group weighted sums
(:func:`group_moments`), computed in two passes (the mean, then the squared
deviations from it), so a column of large values with a small spread loses
no digits.

Scale
-----
Every sum is of the values shifted and scaled (:class:`Scale`): ``y_true``
and ``y_pred`` less a middle prediction ``ref``, divided by a power of two
that brings their spread to about 1, so that the squares of amounts of
``1e160`` do not overflow nor those of ``1e-300`` underflow, and a column of
``1e12 + a few units`` keeps its digits. Each mean and bound is brought back
to the decision's units at the end (:meth:`Scale.quantity`), the root mean
squared error as ``scale sqrt(mean of the scaled squares)``: every quantity
is scale-equivariant from 1e-300 to 1e300.

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


def _power_of_two_above(value):
    """The least power of two at least ``value`` (> 0, finite); 1 for 0."""
    return float(np.ldexp(1.0, int(np.frexp(value)[1]))) if value > 0 else 1.0


def _half_power_above(value):
    """Half the least power of two above ``value`` (> 0, finite), without overflow; 1 for 0."""
    return float(np.ldexp(1.0, int(np.frexp(value)[1]) - 1)) if value > 0 else 1.0


class Scale:
    """Values ``v`` as ``((v / first) - (ref / first)) / second`` (powers of two: exact).

    :meth:`of` chooses them for arrays of values (``ref`` a middle value of
    the first, the spread of every array brought to at most 1); :meth:`down`
    maps values to the scaled ones, :meth:`up` back (``shift``: add ``ref``).
    """

    def __init__(self, ref=0.0, first=1.0, second=1.0):
        self.ref, self.first, self.second = float(ref), float(first), float(second)

    @classmethod
    def of(cls, *arrays, ref=None):
        values = [np.asarray(a, dtype=np.float64) for a in arrays]
        if not values[0].shape[0]:
            return cls()
        if ref is None:
            middle = (values[0].shape[0] - 1) // 2
            ref = float(np.partition(values[0], middle)[middle])
        top = max(float(np.max(np.abs(v))) for v in values if v.shape[0])
        first = max(_half_power_above(max(top, abs(ref))), 2.0 ** -1022)
        spread = max(float(np.max(np.abs(v / first - ref / first))) for v in values
                     if v.shape[0])
        return cls(ref, first, _power_of_two_above(spread))

    def down(self, values):
        return (np.asarray(values, dtype=np.float64) / self.first
                - self.ref / self.first) / self.second

    def up(self, values, *, shift=True):
        out = (np.asarray(values, dtype=np.float64) * self.second) * self.first
        return out + self.ref if shift else out

    def quantity(self, q, values):
        """Means or bounds of quantity ``q`` (:data:`QUANTITIES`' position) of scaled
        rows back in the decision's units; the squared error's as its root (the RMSE)."""
        values = np.asarray(values, dtype=np.float64)
        if q == 3:
            return self.up(np.sqrt(np.clip(values, 0.0, None)), shift=False)
        return self.up(values, shift=q in (0, 1))


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
    ks = np.full(n_groups, np.nan)
    wasserstein = np.full(n_groups, np.nan)
    if not w.sum() > 0:  # no weight at all: no distribution (the groups' moments say so)
        return ks, wasserstein
    overall = np.cumsum(w)[last] / w.sum()
    for k in np.flatnonzero(compared):
        mine = np.where(g == k, w, 0.0)
        total = mine.sum()
        if total <= 0:
            continue
        diff = np.abs(np.cumsum(mine)[last] / total - overall)
        ks[k] = diff.max()
        wasserstein[k] = float(np.dot(diff[:-1], widths))
    return ks, wasserstein


def undefined_groups(attr, labels, moments, *, intervals=True):
    """The messages of the groups whose mean (or, with ``intervals``, interval) is
    undefined (nan): no row of non-zero weight, a single row."""
    weight, n_eff, count = moments["weight"], moments["n_eff"], moments["count"]
    out = []
    empty = labels[(count > 0) & ~(weight > 0)]
    if empty.shape[0]:
        out.append(f"attribute {attr!s}: group(s) {_shown(empty)} have no row of non-zero "
                   f"weight, so their means are undefined (nan) and they are left out of the "
                   f"gaps; give them weight or drop their rows.")
    alone = labels[(weight > 0) & ~(n_eff > 1)]
    if intervals and alone.shape[0]:
        out.append(f"attribute {attr!s}: group(s) {_shown(alone)} have a single row (an "
                   f"effective size of 1 at most), so their t intervals, and the intervals "
                   f"of the gaps they enter, are undefined (nan); merge rare groups, or raise "
                   f"min_group_size to leave them out of the gaps.")
    return out


def _shown(labels, limit=8):
    shown = [str(v) for v in labels[:limit].tolist()]
    return "[" + ", ".join(repr(v) for v in shown) + (", ...]" if len(labels) > limit else "]")
