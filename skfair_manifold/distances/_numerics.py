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


def _column_names(X):
    if hasattr(X, "columns"):
        return list(X.columns)
    return list(range(X.shape[1]))


def _centre_integers(col, column, name):
    """One integer column, centred exactly, as float64 (error if impossible)."""
    lo, hi = int(col.min()), int(col.max())
    span = hi - lo
    if span >= 2 ** 63:
        raise ValueError(MSG_INTEGER_PRECISION.format(column=column, name=name, span=span))
    centre = lo + span // 2
    if col.dtype.kind == "u":
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


def centre_integer_columns(X, *, name="X"):
    """Integer columns of ``X`` centred exactly; other inputs are returned as they are.

    Applied before the features become float64 (the translation changes no
    distance). Only numpy integer arrays and DataFrames with numpy integer
    columns are touched; everything else is left to the feature check.
    """
    if hasattr(X, "dtypes") and hasattr(X, "columns") and hasattr(X, "iloc"):
        dtypes = list(X.dtypes)
        if not all(isinstance(dt, np.dtype) and dt.kind in "biuf" for dt in dtypes):
            return X
        if not any(dt.kind in "iu" for dt in dtypes) or X.shape[0] == 0:
            return X
        names = _column_names(X)
        out = np.empty(X.shape, dtype=np.float64)
        for j, dt in enumerate(dtypes):
            col = X.iloc[:, j].to_numpy()
            out[:, j] = (_centre_integers(col, names[j], name) if dt.kind in "iu"
                         else col.astype(np.float64))
        return out
    if isinstance(X, np.ndarray) and X.dtype.kind in "iu" and X.ndim == 2 and X.size:
        out = np.empty(X.shape, dtype=np.float64)
        for j in range(X.shape[1]):
            out[:, j] = _centre_integers(X[:, j], j, name)
        return out
    return X


def centre_columns(Z, *, name="X", first_name=None):
    """``Z`` (float64, finite) centred on the midpoint of each column's range.

    ``first_name`` names column 0 in errors when it is not a column of
    ``name`` (the label in front of the features).
    """
    if Z.shape[1] == 0:
        return Z.copy()
    lo, hi = Z.min(axis=0), Z.max(axis=0)
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
    return Z - (lo / 2 + hi / 2)


def power_of_two_scale(Z):
    """The smallest power of two at or above ``max |Z|`` (1.0 for all zeros)."""
    top = float(np.max(np.abs(Z))) if Z.size else 0.0
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
