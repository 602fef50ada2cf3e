"""Sensitive columns encoded as integer group codes, missing values and single groups refused."""

import numpy as np

from .._narwhals import eager, eager_columns, missing_mask, to_numpy
from ._frames import _is_pandas_frame, _needs_positional, pandas_columns
from ._labels import _kind, _type_names
from ._messages import (
    MSG_COMPLEX,
    MSG_LENGTH,
    MSG_MIXED,
    MSG_NOT_2D,
    MSG_NO_ROWS,
    MSG_NO_SENSITIVE,
    MSG_SENSITIVE_MISSING,
    MSG_SINGLE_GROUP,
)


def small_int_bounds(y):
    """``(lowest, highest)`` of an integer (or bool) array whose range is small enough for
    bincount (at most about 4 per row), else None."""
    if y.dtype.kind not in "biu" or y.size == 0:
        return None
    lo, hi = int(y.min()), int(y.max())
    if hi - lo <= 4 * y.size + 1024 and hi <= np.iinfo(np.intp).max:
        return lo, hi
    return None


#: rows converted to intp at a time when small integers are counted
_COUNT_BLOCK = 1 << 20


def small_int_counts(y, lo, size):
    """``np.bincount(y - lo, minlength=size)`` block by block.

    The subtraction is made in intp, so an int8 column from -128 to 127 does
    not wrap, and no intp copy of the whole column is made (8 bytes a row).
    """
    counts = np.zeros(size, dtype=np.int64)
    if y.dtype.kind == "b":
        y = y.view(np.uint8)
    for start in range(0, y.shape[0], _COUNT_BLOCK):
        block = y[start:start + _COUNT_BLOCK].astype(np.intp)
        block -= lo
        counts += np.bincount(block, minlength=size)
    return counts


def fast_unique(y):
    """``np.unique(y)`` in O(n) for small-range integers (sorting 1e6 rows costs ~50 ms)."""
    bounds = small_int_bounds(y)
    if bounds is not None:
        lo, hi = bounds
        if hi - lo <= 1:  # the lowest and the highest occur: nothing else to count
            return np.array(sorted({lo, hi}), dtype=y.dtype)
        present = np.flatnonzero(small_int_counts(y, lo, hi - lo + 1))
        return (present + lo).astype(y.dtype, copy=False)
    return np.unique(y)


def encode_column(col, attr, *, min_groups=2):
    """``(codes, values)`` of one sensitive column: codes ``0..g-1`` of the sorted values.

    ``col`` is a numpy array or a pandas Series. Missing values and values
    of types that cannot be ordered together raise, naming ``attr``; fewer
    than ``min_groups`` distinct values raise :data:`MSG_SINGLE_GROUP`.
    """
    bounds = small_int_bounds(col) if isinstance(col, np.ndarray) else None
    if bounds is not None:
        lo = bounds[0]
        shifted = col.astype(np.intp)
        shifted -= lo  # in intp: an int8 column from -128 to 127 does not wrap
        counts = np.bincount(shifted)
        present = np.flatnonzero(counts)
        lookup = np.zeros(counts.shape[0], dtype=np.intp)
        lookup[present] = np.arange(present.shape[0])
        codes, values = lookup[shifted], (present + lo).astype(col.dtype, copy=False)
    elif not isinstance(col, np.ndarray):  # a pandas Series: hashing beats sorting strings
        import pandas as pd

        codes = None
        if col.dtype == object and pd.api.types.infer_dtype(col, skipna=True) in (
                "mixed", "mixed-integer"):  # pandas would order "a" and 1 silently
            return encode_column(to_numpy(eager(col)), attr, min_groups=min_groups)
        try:
            codes, values = pd.factorize(col, sort=True)
        except TypeError:
            pass
        if codes is None or (codes.size and codes.min() < 0):
            return encode_column(to_numpy(eager(col)), attr, min_groups=min_groups)
        values = np.asarray(values)
        codes = codes.astype(np.intp, copy=False)
    else:
        if col.dtype.kind == "c":
            raise TypeError(MSG_COMPLEX.format(name=f"sensitive attribute {attr!r}",
                                               dtype=col.dtype))
        missing = missing_mask(col)
        if missing.any():
            raise ValueError(MSG_SENSITIVE_MISSING.format(
                attr=attr, count=int(missing.sum()), row=int(np.flatnonzero(missing)[0])))
        if col.dtype == object and _kind(col) == "mixed":
            raise TypeError(MSG_MIXED.format(name=f"sensitive attribute {attr!r}",
                                             types=_type_names(col)))
        try:
            values, codes = np.unique(col, return_inverse=True)
        except TypeError:  # e.g. a mix of numeric types numpy cannot order
            raise TypeError(MSG_MIXED.format(name=f"sensitive attribute {attr!r}",
                                             types=_type_names(col))) from None
        codes = codes.reshape(-1).astype(np.intp, copy=False)
    if not values.shape[0]:
        raise ValueError(MSG_NO_ROWS.format(name=f"sensitive attribute {attr!r}",
                                            what="a comparison between groups"))
    if values.shape[0] < min_groups:
        raise ValueError(MSG_SINGLE_GROUP.format(attr=attr, value=values[0]))
    return codes, values


def encode_sensitive(sensitive_features, n_samples, *, name="sensitive_features"):
    """Encode one or several sensitive columns as integer group codes.

    Parameters
    ----------
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        A 1-D array, list or Series (one attribute), or a 2-D array, list of
        rows or DataFrame (one attribute per column) of pandas or polars.
        Any values that can be ordered within a column (strings, integers,
        categories, booleans).
    n_samples : int
        The number of rows the columns must have.
    name : str, default="sensitive_features"
        The argument's name, for the messages.

    Returns
    -------
    codes : list of ndarray of shape (n_samples,), dtype intp
        Codes ``0 .. n_groups - 1`` per attribute.
    names : list
        Column names (DataFrame, named Series) or positions.
    groups : list of ndarray
        The sorted distinct values per attribute (``groups[k][codes[k]]`` gives
        the original values back).
    """
    names, columns = sensitive_columns(sensitive_features, n_samples, name=name)
    codes, groups = [], []
    for attr, col in zip(names, columns):
        code, values = encode_column(col, attr)
        codes.append(code)
        groups.append(values)
    return codes, names, groups


def sensitive_columns(sensitive_features, n_samples, *, name="sensitive_features"):
    """The names and the columns of :func:`encode_sensitive`'s input, not yet encoded.

    Each column is a numpy array (integer and boolean columns as they are, no
    copy) or a pandas Series, of length ``n_samples``; what
    :func:`encode_column` takes.
    """
    A = sensitive_features
    frame = eager(A) if not (_is_pandas_frame(A) and _needs_positional(A)) else None
    if frame is None and _is_pandas_frame(A):  # MultiIndex or non-text column names
        names, native = pandas_columns(A, name, flatten=True)
        columns = [s.to_numpy() if s.dtype.kind in "biu" else s.rename(None)
                   for s in native]
    elif frame is not None:
        names, series = eager_columns(frame)
        if type(A).__module__.startswith("pandas"):
            native = [s.to_native() for s in series]
            columns = [s.to_numpy() if s.dtype.kind in "biu" else s for s in native]
        else:
            columns = [to_numpy(s) for s in series]
    else:
        arr = np.asarray(A) if not isinstance(A, np.ndarray) else A
        if arr.ndim == 1:
            names, columns = [0], [arr]
        elif arr.ndim == 2:
            names = list(range(arr.shape[1]))
            columns = [arr[:, k] for k in range(arr.shape[1])]
        else:
            raise ValueError(MSG_NOT_2D.format(name=name, shape=arr.shape))
    if not columns:
        raise ValueError(MSG_NO_SENSITIVE.format(name=name))
    for attr, col in zip(names, columns):
        if len(col) != n_samples:
            raise ValueError(MSG_LENGTH.format(name=f"{name} {attr!r}", got=len(col),
                                               other="X", expected=n_samples))
    return names, columns
