"""Shared input checks and their messages.

Every public function validates its inputs here, once, at the boundary. The
layers below (the distance engine in particular) receive plain float arrays
and integer group codes and trust them.

The messages are module constants so that tests can assert on them.
"""

import numbers

import numpy as np

MSG_EMPTY = "{name} is empty: at least 2 rows are needed."
MSG_NOT_2D = "{name} must be 2-dimensional (n_samples, n_features); got shape {shape}."
MSG_NOT_1D = "{name} must be 1-dimensional (n_samples,); got shape {shape}."
MSG_NON_NUMERIC = (
    "{name} must be numeric; got dtype {dtype}. Encode categorical columns first "
    "(for example with sklearn.preprocessing.OneHotEncoder)."
)
MSG_NON_FINITE = "{name} contains NaN or infinity ({count} values); remove or impute them first."
MSG_LENGTH = "{name} has {got} rows but X has {expected}; they must describe the same rows."
MSG_SINGLE_GROUP = (
    "sensitive attribute {attr!r} has a single group ({value!r}): the distance to the "
    "nearest row of another group is undefined. Drop this attribute or pass data in which "
    "it takes at least 2 values."
)
MSG_SENSITIVE_MISSING = "sensitive attribute {attr!r} contains missing values (NaN or None)."


def _is_dataframe(obj):
    return hasattr(obj, "columns") and hasattr(obj, "iloc")


def check_features(X, *, name="X", allow_empty_columns=True):
    """Return ``X`` as a C-contiguous float64 2-D array, finite and numeric.

    Accepts numpy arrays, lists and pandas DataFrames (all columns numeric).
    The caller's object is never modified: a copy is made whenever the dtype
    or layout changes, and the engine only reads the result.
    """
    if _is_dataframe(X):
        from pandas.api.types import is_bool_dtype, is_numeric_dtype

        non_numeric = [c for c, dt in X.dtypes.items()
                       if not (is_numeric_dtype(dt) or is_bool_dtype(dt))]
        if non_numeric:
            raise TypeError(
                MSG_NON_NUMERIC.format(name=name, dtype=f"object in columns {non_numeric!r}")
            )
        X = X.to_numpy()
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(MSG_NOT_2D.format(name=name, shape=X.shape))
    if X.shape[0] == 0:
        raise ValueError(MSG_EMPTY.format(name=name))
    if not (np.issubdtype(X.dtype, np.number) or np.issubdtype(X.dtype, np.bool_)):
        raise TypeError(MSG_NON_NUMERIC.format(name=name, dtype=X.dtype))
    if np.issubdtype(X.dtype, np.complexfloating):
        raise TypeError(MSG_NON_NUMERIC.format(name=name, dtype=X.dtype))
    X = np.ascontiguousarray(X, dtype=np.float64)
    _check_finite(X, name)
    return X


def check_label(y, n_samples, *, name="y"):
    """Return a label vector as float64 of length ``n_samples``.

    The label is a coordinate of the points (HFM paper, Eq. 9), so it must be
    numeric: booleans and integers are accepted, strings are not.
    """
    if _is_dataframe(y):
        if y.shape[1] != 1:
            raise ValueError(MSG_NOT_1D.format(name=name, shape=y.shape))
        y = y.iloc[:, 0]
    if hasattr(y, "dtype") and hasattr(y, "to_numpy"):  # pandas Series
        from pandas.api.types import is_bool_dtype, is_numeric_dtype

        if not (is_numeric_dtype(y.dtype) or is_bool_dtype(y.dtype)):
            raise TypeError(MSG_NON_NUMERIC.format(name=name, dtype=y.dtype))
        y = y.to_numpy()
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(MSG_NOT_1D.format(name=name, shape=y.shape))
    if y.shape[0] != n_samples:
        raise ValueError(MSG_LENGTH.format(name=name, got=y.shape[0], expected=n_samples))
    if not (np.issubdtype(y.dtype, np.number) or np.issubdtype(y.dtype, np.bool_)):
        raise TypeError(MSG_NON_NUMERIC.format(name=name, dtype=y.dtype))
    y = np.asarray(y, dtype=np.float64)
    _check_finite(y, name)
    return y


def check_sensitive(A, n_samples, *, name="sensitive attribute"):
    """Encode one or several sensitive columns as integer group codes.

    Parameters
    ----------
    A : array-like of shape (n_samples,) or (n_samples, n_attributes), or DataFrame
        Any hashable values per column (strings, integers, categories).
    n_samples : int
        The number of rows the columns must have.

    Returns
    -------
    codes : list of ndarray of shape (n_samples,), dtype intp
        Codes ``0 .. n_groups - 1`` per attribute.
    names : list
        Column names (DataFrame) or positions.
    groups : list of ndarray
        The sorted distinct values per attribute (``groups[k][codes[k]]`` gives
        the original values back).
    """
    if _is_dataframe(A):
        names = list(A.columns)
        columns = [A.iloc[:, k].to_numpy() for k in range(A.shape[1])]
    else:
        if hasattr(A, "to_numpy") and hasattr(A, "name"):  # a pandas Series
            names = [A.name if A.name is not None else 0]
            columns = [A.to_numpy()]
        else:
            arr = np.asarray(A)
            if arr.ndim == 1:
                names, columns = [0], [arr]
            elif arr.ndim == 2:
                names = list(range(arr.shape[1]))
                columns = [arr[:, k] for k in range(arr.shape[1])]
            else:
                raise ValueError(MSG_NOT_2D.format(name=name, shape=arr.shape))
    if not columns:
        raise ValueError(f"{name}: no sensitive column given.")
    codes, groups = [], []
    for attr, col in zip(names, columns):
        col = np.asarray(col)
        if col.shape[0] != n_samples:
            raise ValueError(MSG_LENGTH.format(name=f"{name} {attr!r}", got=col.shape[0],
                                               expected=n_samples))
        if col.dtype.kind == "f" and np.isnan(col).any():
            raise ValueError(MSG_SENSITIVE_MISSING.format(attr=attr))
        if col.dtype == object:
            missing = np.array([v is None or (isinstance(v, float) and v != v) for v in col])
            if missing.any():
                raise ValueError(MSG_SENSITIVE_MISSING.format(attr=attr))
        try:
            values, inverse = np.unique(col, return_inverse=True)
        except TypeError as exc:  # mixed, unorderable types
            raise TypeError(
                f"{name} {attr!r} mixes values that cannot be compared ({exc}); "
                "use one type per column."
            ) from None
        if values.shape[0] < 2:
            raise ValueError(MSG_SINGLE_GROUP.format(attr=attr, value=values[0]))
        codes.append(inverse.reshape(-1).astype(np.intp, copy=False))
        groups.append(values)
    return codes, names, groups


def check_positive_int(value, name, *, minimum=1, allow_none=False):
    """Check an integer option such as ``m1`` or ``m2``."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {minimum}; got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}.")
    return int(value)


def _check_finite(arr, name):
    if not np.isfinite(arr).all():
        count = int(arr.size - np.isfinite(arr).sum())
        raise ValueError(MSG_NON_FINITE.format(name=name, count=count))
