"""Coordinates made safe for the distance algebra.

The engines compute squared distances, which overflow for coordinates above
about ``1e154`` and underflow below ``1e-162``, and the expanded product
``|a|^2 + |b|^2 - 2 a.b`` loses what the coordinates' common offset hides.
Three steps keep every representable distance representable:

1. integer columns are centred *in integer arithmetic* before they become
   float64, so that large integers that differ by small amounts keep their
   differences (``2**62`` and ``2**62 + 1`` are one apart); when the centred
   values still do not fit float64 exactly, a clear error names the column;
2. float columns are centred on the midpoint of their range, computed as
   ``lo / 2 + hi / 2`` so that it cannot overflow; a column whose range
   exceeds the float64 range is an error that names it;
3. the centred coordinates are divided by a power of two at least as large as
   their largest magnitude (an exact operation), the distances are computed
   in these units and multiplied back at the end.
"""

import math

import numpy as np

from skfair_manifold.utils._column_kind import column_kind
from skfair_manifold.utils._validation import frame_columns, is_dataframe

MSG_INTEGER_PRECISION = (
    "column {column} of {name} holds integers spread over {span} (more than 2**53): "
    "float64 cannot hold their differences exactly, so no float64 distance can be "
    "trusted. Subtract a common offset or rescale that column first."
)
MSG_RANGE = (
    "column {column} of {name} spans more than the float64 range (its largest minus its "
    "smallest value overflows): no float64 distance exists. Rescale that column first."
)
MSG_DISTANCE_RANGE = (
    "some distances exceed the float64 range (about 1.8e308): no float64 result exists. "
    "Rescale the features (and the label) first."
)

_EXACT_INT = 2 ** 53


def _centre_integers(col, column, name):
    """One integer column, centred exactly, as float64 (error if impossible).

    ``col`` is a numpy integer array or an object array of Python integers
    (which may exceed 64 bits).
    """
    if col.dtype == object:
        values = [int(v) for v in col.tolist()]
        lo, hi = min(values), max(values)
    else:
        values = None
        lo, hi = int(col.min()), int(col.max())
    span = hi - lo
    if span >= 2 ** 63:
        raise ValueError(MSG_INTEGER_PRECISION.format(column=column, name=name, span=span))
    centre = lo + span // 2
    if values is not None:
        diff = np.array([v - centre for v in values], dtype=np.int64)
    elif col.dtype.kind == "u":
        diff = (col.astype(np.uint64) - np.uint64(centre)).view(np.int64)
    else:
        diff = col.astype(np.int64) - np.int64(centre)
    out = diff.astype(np.float64)
    if span >= _EXACT_INT:
        back = out.astype(np.int64)
        if not np.array_equal(back, diff):
            raise ValueError(MSG_INTEGER_PRECISION.format(column=column, name=name,
                                                          span=span))
    return out


#: the conversion of a column by its :func:`column_kind`: ``"i"`` integers centred exactly
#: (numpy integers, or Python integers of any size in an object column), ``"f"`` other real
#: numbers as float64; any other kind is left to the feature check
_CONVERSION = {"int": "i", "bool": "f", "float": "f"}


def distance_features(X, *, name="X"):
    """``X`` converted once to the engine's layout, integer columns centred exactly.

    Every container (numpy arrays, lists, object arrays, pandas and polars
    DataFrames) goes through the same per-column rule, so the same values
    give the same distances whatever holds them: integer columns (numpy
    integers, or Python integers of any size in an object column) are
    centred *in integer arithmetic* before they become float64 (a
    translation, which changes no distance), so that ``2**60`` and
    ``2**60 + 1`` stay one apart; other real columns become float64.

    Returns a C-contiguous float64 array, written once. Anything it cannot
    convert (text, missing values, complex numbers, a wrong shape) is
    returned as it is, for the shared feature check to name the problem.
    """
    if is_dataframe(X):
        names, columns = frame_columns(X)
    else:
        if isinstance(X, np.ndarray):
            if X.dtype.kind in "bf":
                return X  # nothing to centre: the feature check converts it
            arr = X
        else:  # lists: per value, so that Python integers stay integers
            try:
                arr = np.array(X, dtype=object)
            except (ValueError, TypeError):
                return X
        if arr.ndim != 2 or arr.dtype.kind not in "biufO":
            return X
        names, columns = list(range(arr.shape[1])), [arr[:, j] for j in range(arr.shape[1])]
    if not columns or columns[0].shape[0] == 0:
        return X
    kinds = [_CONVERSION.get(column_kind(col)) for col in columns]
    if any(k is None for k in kinds):
        return X
    out = np.empty((columns[0].shape[0], len(columns)), dtype=np.float64)
    for j, (col, kind) in enumerate(zip(columns, kinds)):
        if kind == "i":
            out[:, j] = _centre_integers(col, names[j], name)
        else:
            with np.errstate(over="ignore"):
                out[:, j] = col.astype(np.float64)
    if not np.isfinite(out).all():
        return X  # missing or too-large values: the feature check names the column
    return out


def centre_columns(Z, *, name="X", first_name=None, copy=True):
    """``Z`` (float64, finite) centred on the midpoint of each column's range.

    ``first_name`` names column 0 in errors when it is not a column of
    ``name`` (the label in front of the features). ``copy=False`` centres
    ``Z`` itself (an array the caller owns) and returns it.
    """
    if Z.shape[1] == 0:
        return Z.copy() if copy else Z
    lo, hi = Z.min(axis=0), Z.max(axis=0)
    mid = column_midpoints(lo, hi, name=name, first_name=first_name)
    if copy:
        return Z - mid
    Z -= mid
    return Z


def column_midpoints(lo, hi, *, name="X", first_name=None):
    """``lo / 2 + hi / 2``, the centre of each column's range (checked finite)."""
    with np.errstate(over="ignore"):
        span = hi - lo
    bad = np.flatnonzero(~np.isfinite(span))
    if bad.size:
        j = int(bad[0])
        if first_name is not None:
            column, where = (first_name, "the data") if j == 0 else (j - 1, name)
        else:
            column, where = j, name
        raise ValueError(MSG_RANGE.format(column=column, name=where))
    return lo / 2 + hi / 2


def min_max(X):
    """``(lo, span)`` of each column of ``X``, a constant column's span 1.

    ``(X - lo) / span`` scales every column to [0, 1]; the engines apply it
    to their own copy of ``X`` (:func:`apply_min_max`), so no scaled copy of
    ``X`` is kept beside them.
    """
    lo = X.min(axis=0)
    span = X.max(axis=0) - lo
    span[span == 0] = 1.0
    return lo, span


def apply_min_max(Z, minmax):
    """``Z`` (an array the caller owns) min-max scaled in place by ``minmax`` (or None)."""
    if minmax is not None:
        Z -= minmax[0]
        Z /= minmax[1]
    return Z


def scaled_features(X, minmax=None):
    """One float64 copy of ``X``, centred and divided by its power-of-two scale, and the scale.

    The engines' coordinates (see the module's steps 2 and 3), made with a
    single copy of ``X``: the min-max scaling (``minmax`` from
    :func:`min_max`, or None), the centring and the (exact) division run in
    place.
    """
    Z = np.array(X, dtype=np.float64)  # the copy
    Z = centre_columns(apply_min_max(Z, minmax), copy=False)
    scale = power_of_two_scale(Z)
    Z /= scale
    return Z, scale


def feature_scaling(X, minmax=None, *, rows=1 << 14):
    """The centres and the scale of :func:`scaled_features`, read from ``X`` in chunks.

    Returns ``(mid, scale)`` such that ``scale_rows(X[r], minmax, mid, scale)``
    equals ``scaled_features(X, minmax)[0][r]`` bit for bit (the same
    elementwise operations; minima and maxima are exact), without a copy of
    ``X``: for an engine that gathers its own layout of the rows.
    """
    n, d = X.shape
    if d == 0 or n == 0:
        return np.zeros(d), 1.0
    lo, hi = np.full(d, np.inf), np.full(d, -np.inf)
    for s in range(0, n, rows):
        part = apply_min_max(np.array(X[s:s + rows], dtype=np.float64), minmax)
        np.minimum(lo, part.min(axis=0), out=lo)
        np.maximum(hi, part.max(axis=0), out=hi)
    mid = column_midpoints(lo, hi)
    # subtracting mid is monotone in floating point: the extremes of x - mid are lo - mid
    # and hi - mid, so no second pass over X is needed
    top = max(0.0, float(np.max(mid - lo)), float(np.max(hi - mid)))
    return mid, scale_of_top(top)


def scale_rows(Z, minmax, mid, scale):
    """``Z`` (float64 rows of ``X`` the caller owns) scaled in place as :func:`scaled_features`."""
    apply_min_max(Z, minmax)
    Z -= mid
    Z /= scale
    return Z


def power_of_two_scale(Z):
    """The smallest power of two at or above ``max |Z|`` (1.0 for all zeros)."""
    # max |Z| from the extremes: no temporary of Z's size.
    return scale_of_top(float(max(-np.min(Z), np.max(Z))) if Z.size else 0.0)


def scale_of_top(top):
    """The smallest power of two at or above ``top`` >= 0 (1.0 for zero or non-finite)."""
    if top == 0.0 or not math.isfinite(top):
        return 1.0
    mantissa, exponent = math.frexp(top)  # top = mantissa * 2**exponent, 0.5 <= m < 1
    return math.ldexp(1.0, exponent)


def robust_norms(diff):
    """Row norms of ``diff`` without overflow or underflow of the squares."""
    top = np.max(np.abs(diff), axis=1)
    safe = np.where(top > 0, top, 1.0)
    scaled = diff / safe[:, None]
    return top * np.sqrt(np.einsum("ij,ij->i", scaled, scaled))


def check_distances_finite(values):
    if not np.all(np.isfinite(values)):
        raise ValueError(MSG_DISTANCE_RANGE)
    return values
