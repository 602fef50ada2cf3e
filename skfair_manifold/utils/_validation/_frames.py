"""DataFrames and Series of any library (narwhals) as numpy columns, each keeping its type."""

import numpy as np

from ._messages import MSG_COLUMN_NAMES_CLASH


_FRAME_MODULES = ("pandas", "polars", "pyarrow", "modin", "cudf")


def _frame_library(obj):
    return type(obj).__module__.split(".")[0] in _FRAME_MODULES


def _narwhals(obj):
    """A narwhals DataFrame or Series for a frame library's object, else None."""
    if isinstance(obj, np.ndarray) or not _frame_library(obj):
        return None
    import narwhals as nw

    converted = nw.from_native(obj, eager_only=True, allow_series=True, pass_through=True)
    return None if converted is obj else converted


def is_dataframe(obj):
    """True for an eager DataFrame of pandas, polars or another narwhals library."""
    if isinstance(obj, np.ndarray) or not _frame_library(obj):
        return False
    import narwhals as nw

    return isinstance(_narwhals(obj), nw.DataFrame)


def is_series(obj):
    """True for an eager Series of pandas, polars or another narwhals library."""
    if isinstance(obj, np.ndarray) or not _frame_library(obj):
        return False
    import narwhals as nw

    return isinstance(_narwhals(obj), nw.Series)


def _series_to_numpy(series):
    """A narwhals Series as a numpy column: numbers stay numbers, missing is NaN/None.

    Numeric columns with missing values come back as float64 with NaN; other
    columns with missing values as object arrays holding None there.
    """
    values = series.to_numpy()
    if series.dtype.is_numeric() or values.dtype.kind in "biufcmM":
        if values.dtype == object:  # e.g. a nullable integer column read as objects
            missing = _object_missing(values)
            out = np.full(values.shape, np.nan)
            out[~missing] = values[~missing].astype(np.float64)
            return out
        return values
    if values.dtype == object:
        missing = series.is_null().to_numpy()
        missing = np.asarray(missing, dtype=bool) | _object_missing(values)
        if missing.any():
            values = values.copy()
            values[missing] = None
    return values


def _is_pandas_frame(obj):
    return type(obj).__module__.startswith("pandas") and hasattr(obj, "iloc") \
        and getattr(obj, "ndim", 0) == 2


def pandas_columns(frame, name="X", *, flatten=False):
    """``(names, series)`` of a pandas DataFrame, its columns taken by position.

    narwhals needs unique string-like column names; pandas allows
    MultiIndex columns (tuple names) and names of several types. With
    ``flatten``, a tuple name becomes its parts joined by ``" / "``
    (``("a", "s")`` -> ``"a / s"``), so that results are labelled by text.
    Names that read the same as text (``1`` and ``"1"``, or a name given
    twice) would label two results alike and are refused.
    """
    names = list(frame.columns)
    if flatten:
        names = [" / ".join(map(str, c)) if isinstance(c, tuple) else c for c in names]
    seen = {}
    for label in names:
        seen.setdefault(str(label), []).append(label)
    for label, same in seen.items():
        if len(same) > 1:
            raise ValueError(MSG_COLUMN_NAMES_CLASH.format(
                name=name, count=len(same), label=label,
                names=", ".join(repr(v) for v in same)))
    return names, [frame.iloc[:, k] for k in range(len(names))]


def _needs_positional(frame):
    """True for a pandas DataFrame whose column names narwhals cannot take."""
    import pandas as pd

    columns = frame.columns
    return isinstance(columns, pd.MultiIndex) or not all(isinstance(c, str) for c in columns) \
        or columns.has_duplicates


def frame_columns(obj):
    """``(names, columns)`` of a DataFrame or a Series, each column a numpy array.

    Columns are converted one by one, so that every column keeps its own
    type (a DataFrame's ``to_numpy()`` would turn a frame of integers and
    strings into one object array). pandas columns with MultiIndex, non-text
    or repeated names are taken by position (see :func:`pandas_columns`).
    """
    if _is_pandas_frame(obj) and _needs_positional(obj):
        names, series = pandas_columns(obj)
        return names, [_series_to_numpy(_narwhals(s.rename(None))) for s in series]
    frame = _narwhals(obj)
    if frame is None:
        raise TypeError(f"expected a DataFrame or a Series; got {type(obj).__name__}.")
    import narwhals as nw

    if isinstance(frame, nw.Series):
        name = frame.name
        return [name if name is not None else 0], [_series_to_numpy(frame)]
    names = list(frame.columns)
    return names, [_series_to_numpy(frame[c]) for c in names]


def as_pandas_frame(X):
    """A DataFrame of another library (polars, ...) as a pandas DataFrame, column by column.

    pandas DataFrames and anything that is not a DataFrame are returned as
    they are. Each column keeps its own type (numbers, strings, booleans) and
    missing values become NaN or None, with no pyarrow needed.
    """
    if not is_dataframe(X) or type(X).__module__.startswith("pandas"):
        return X
    import pandas as pd

    names, columns = frame_columns(X)
    return pd.DataFrame(dict(zip(names, columns)), columns=names)


def _object_missing(values):
    """Boolean mask of None, NaN, NaT and pd.NA in an object array."""
    return np.fromiter(
        (v is None or (isinstance(v, float) and v != v)
         or type(v).__name__ in ("NAType", "NaTType") for v in values),
        dtype=bool, count=values.shape[0])
