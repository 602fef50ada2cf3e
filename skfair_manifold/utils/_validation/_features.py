"""The features ``X`` checked: numeric, finite and complete, as a C-contiguous float64 array."""

import numpy as np

from .._column_kind import NUMBER_KINDS, column_kind
from .._narwhals import is_dataframe, missing_mask, object_missing
from ._frames import _is_pandas_frame, frame_columns
from ._messages import (
    MSG_COMPLEX,
    MSG_EMPTY,
    MSG_MISSING,
    MSG_NON_FINITE,
    MSG_NON_NUMERIC,
    MSG_NON_NUMERIC_COLUMNS,
    MSG_NOT_2D,
)


def _raise_missing(mask, name, where=""):
    count = int(mask.sum())
    row = int(np.flatnonzero(mask)[0])
    raise ValueError(MSG_MISSING.format(name=name, count=count, where=where, row=row))


def _example(values):
    values = np.asarray(values).reshape(-1)
    return values[0].item() if values.size and hasattr(values[0], "item") else (
        values[0] if values.size else None)


def _numeric_object_column(col):
    """An object column of numbers (and bools) as float64, or None if it holds others."""
    if column_kind(col) in (*NUMBER_KINDS, "empty"):
        return col.astype(np.float64)
    return None


def check_features(X, *, name="X"):
    """Return ``X`` as a C-contiguous float64 2-D array, finite and numeric.

    Accepts numpy arrays, lists, and pandas or polars DataFrames (pandas'
    nullable numeric and boolean dtypes included). Missing values, text and
    complex numbers raise with the offending columns named. The caller's
    object is never modified: a copy is made whenever the dtype or layout
    changes, and the engine only reads the result.
    """
    if is_dataframe(X):
        names, columns = frame_columns(X)
        if not columns:
            raise ValueError(MSG_NOT_2D.format(name=name, shape=(len(X), 0)))
        converted, non_numeric = [], []
        for col_name, col in zip(names, columns):
            missing = missing_mask(col)
            if missing.any():
                _raise_missing(missing, name, where=f" in column {col_name!r}")
            if col.dtype.kind in "biuf":
                converted.append(col.astype(np.float64, copy=False))
                continue
            numeric = _numeric_object_column(col) if col.dtype == object else None
            if numeric is None:
                non_numeric.append((col_name, col))
            else:
                converted.append(numeric)
        if non_numeric:
            raise TypeError(MSG_NON_NUMERIC_COLUMNS.format(
                name=name, columns=[c for c, _ in non_numeric][:10],
                example=_example(non_numeric[0][1])))
        X = np.column_stack(converted)
    else:
        X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(MSG_NOT_2D.format(name=name, shape=X.shape))
    if X.shape[0] == 0:
        raise ValueError(MSG_EMPTY.format(name=name))
    if X.dtype.kind == "c":
        raise TypeError(MSG_COMPLEX.format(name=name, dtype=X.dtype))
    if X.dtype == object:
        for j in range(X.shape[1]):
            missing = object_missing(X[:, j])
            if missing.any():
                _raise_missing(missing, name, where=f" in column {j}")
        numeric = [_numeric_object_column(X[:, j]) for j in range(X.shape[1])]
        bad = [j for j, col in enumerate(numeric) if col is None]
        if bad:
            raise TypeError(MSG_NON_NUMERIC_COLUMNS.format(
                name=name, columns=bad[:10], example=_example(X[:, bad[0]])))
        X = np.column_stack(numeric) if numeric else X.astype(np.float64)
    elif not (np.issubdtype(X.dtype, np.number) or np.issubdtype(X.dtype, np.bool_)):
        raise TypeError(MSG_NON_NUMERIC.format(name=name, dtype=X.dtype))
    X = np.ascontiguousarray(X, dtype=np.float64)
    _check_finite(X, name)
    return X


def check_complete(X, *, name="X"):
    """Raise, naming the column, when a DataFrame or an array holds a missing value.

    Missing: ``None``, ``NaN``, ``NaT`` and ``pd.NA`` (in object, string,
    nullable and float columns alike), so that ``None`` among strings is not
    taken for a number and ``pd.NA`` never reaches a comparison. Other
    inputs (lists, ...) are checked as numpy arrays; 1-D and 2-D only.
    """
    if _is_pandas_frame(X):  # pandas' isna is vectorised, object columns included
        missing = X.isna().to_numpy()
        if missing.any():
            j = int(np.flatnonzero(missing.any(axis=0))[0])
            _raise_missing(missing[:, j], name, where=f" in column {X.columns[j]!r}")
        return
    if is_dataframe(X):
        names, columns = frame_columns(X)
    else:
        arr = X if isinstance(X, np.ndarray) else np.asarray(X, dtype=object)
        if arr.ndim != 2 or arr.dtype.kind not in "fcmMO":
            return
        names = list(range(arr.shape[1]))
        columns = [arr[:, j] for j in names]
    for column, col in zip(names, columns):
        missing = missing_mask(col)
        if missing.any():
            _raise_missing(missing, name, where=f" in column {column!r}")


def _check_finite(arr, name):
    if arr.dtype.kind in "biu":  # always finite: no boolean copy of the column
        return
    finite = np.isfinite(arr)
    if not finite.all():
        count = int(arr.size - finite.sum())
        raise ValueError(MSG_NON_FINITE.format(name=name, count=count))
