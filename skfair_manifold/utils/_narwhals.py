"""The package's one door to narwhals: frames of any library read, collected and converted.

Every module that reads a DataFrame, LazyFrame, relation or Series through
narwhals comes here: :func:`to_narwhals` (any frame, with the package's
messages), :func:`eager` (an eager frame or Series of a frame library, or
None) and :func:`eager_columns`; :func:`is_frame`, :func:`is_lazy`,
:func:`is_dataframe` and :func:`is_series`; :func:`schema_names`,
:func:`collect` (a small result into memory), :func:`to_numpy` (a column as
numpy, with the package's one rule for missing values, read back by
:func:`missing_mask`) and :func:`replace_columns`. Modules that build
expressions (``nw.col``, ``nw.len``, ...) import narwhals for them; nothing
else does.
"""

import warnings

import numpy as np

__all__ = ["MSG_BACKEND", "MSG_NOT_A_FRAME", "collect", "eager", "eager_columns", "from_native",
           "is_dataframe", "is_frame", "is_lazy", "is_series", "missing_mask", "object_missing",
           "replace_columns", "schema_names", "to_narwhals", "to_numpy"]

MSG_NOT_A_FRAME = (
    "data must be a DataFrame, LazyFrame or relation that narwhals supports (pandas, "
    "polars, pyarrow, DuckDB, Dask, PySpark); got {type}."
)

MSG_BACKEND = (
    "the installed libraries cannot compute on a {type} here: {detail}. Upgrade narwhals "
    "and the frame's library (and pyarrow, whose recent versions need NumPy 2) together."
)

#: the libraries whose eager frames and Series :func:`eager` converts
_FRAME_MODULES = ("pandas", "polars", "pyarrow", "modin", "cudf")


def from_native(data, **options):
    """``narwhals.from_native(data, **options)``, without narwhals' notice about Dask."""
    import narwhals as nw

    with warnings.catch_warnings():
        # narwhals announces that its Dask support moves to another package: a notice
        # about narwhals' own packaging, not about the caller's data
        warnings.filterwarnings("ignore", message="Dask support is moving",
                                category=FutureWarning)
        return nw.from_native(data, **options)


def to_narwhals(data):
    """``data`` as a narwhals DataFrame or LazyFrame, or a TypeError."""
    import narwhals as nw

    try:
        frame = from_native(data)
    except TypeError:
        raise TypeError(MSG_NOT_A_FRAME.format(type=type(data).__name__)) from None
    except ImportError as exc:  # e.g. a narwhals older than the frame library
        raise ImportError(MSG_BACKEND.format(type=type(data).__name__, detail=exc)) from exc
    if not isinstance(frame, (nw.DataFrame, nw.LazyFrame)):
        raise TypeError(MSG_NOT_A_FRAME.format(type=type(data).__name__))
    return frame


def _frame_library(obj):
    return type(obj).__module__.split(".")[0] in _FRAME_MODULES


def eager(obj):
    """A narwhals DataFrame or Series for an eager frame library's object, else None.

    Arrays, lists and anything that is not an eager DataFrame or Series of
    pandas, polars, pyarrow (or modin, cuDF) give None.
    """
    if isinstance(obj, np.ndarray) or not _frame_library(obj):
        return None
    converted = from_native(obj, eager_only=True, allow_series=True, pass_through=True)
    return None if converted is obj else converted


def is_dataframe(obj):
    """True for an eager DataFrame of pandas, polars or another narwhals library."""
    converted = eager(obj)
    if converted is None:
        return False
    import narwhals as nw

    return isinstance(converted, nw.DataFrame)


def is_series(obj):
    """True for an eager Series of pandas, polars or another narwhals library."""
    converted = eager(obj)
    if converted is None:
        return False
    import narwhals as nw

    return isinstance(converted, nw.Series)


def eager_columns(converted):
    """``(names, series)`` of what :func:`eager` gives: a DataFrame's columns, or a
    Series as one column named by its name (0 without one)."""
    import narwhals as nw

    if isinstance(converted, nw.Series):
        return [converted.name if converted.name is not None else 0], [converted]
    names = list(converted.columns)
    return names, [converted[c] for c in names]


def is_frame(obj):
    """True for anything narwhals takes as a DataFrame or a LazyFrame (eager or lazy)."""
    import narwhals as nw

    return isinstance(from_native(obj, pass_through=True), (nw.DataFrame, nw.LazyFrame))


def is_lazy(obj):
    """True when ``obj`` is a frame that narwhals takes as lazy (no rows in memory).

    False for arrays, lists, eager frames and anything narwhals does not take.
    """
    if isinstance(obj, (np.ndarray, list, tuple)) or obj is None:
        return False
    import narwhals as nw

    try:
        frame = from_native(obj, pass_through=True)
    except (TypeError, ImportError):
        return False
    return isinstance(frame, nw.LazyFrame)


def schema_names(frame):
    """The column names of a narwhals DataFrame or LazyFrame (nothing is computed)."""
    import narwhals as nw

    if isinstance(frame, nw.LazyFrame):
        return list(frame.collect_schema().names())
    return list(frame.columns)


def collect(frame):
    """A narwhals LazyFrame's (small) result in memory; a DataFrame as it is."""
    import narwhals as nw

    if not isinstance(frame, nw.LazyFrame):
        return frame
    # DuckDB's result as pandas (its own conversion): narwhals' default, pyarrow, is
    # not needed for a table of a few hundred rows
    backend = "pandas" if type(frame.to_native()).__module__.startswith("duckdb") else None
    try:
        return frame.collect(backend=backend)
    except ImportError as exc:  # the result's library (pyarrow for DuckDB) cannot load
        raise ImportError(MSG_BACKEND.format(type=type(frame.to_native()).__name__,
                                             detail=exc)) from exc


def to_numpy(series):
    """A narwhals Series as a numpy column: the package's one rule for missing values.

    * Numbers stay numbers: a numeric column (integers, floats, decimals) or a
      column of dates and durations keeps its numpy dtype; with missing
      values, a numeric column becomes float64 with NaN there (nullable
      integers and decimals read as objects included), dates keep NaT.
    * Text comes as Python strings in an object array, as pandas gives it.
    * Other columns (text, booleans with missing values, categories,
      objects) are object arrays with ``None`` at every missing value
      (``None``, ``NaN``, ``NaT`` and ``pd.NA`` alike).

    So a missing value is NaN in a float array, NaT in a date array and
    ``None`` in an object array, and never a value of another type.
    """
    values = series.to_numpy()
    if series.dtype.is_numeric() or values.dtype.kind in "biufcmM":
        if values.dtype == object:  # e.g. nullable integers or decimals read as objects
            missing = object_missing(values)
            out = np.full(values.shape, np.nan)
            out[~missing] = values[~missing].astype(np.float64)
            return out
        return values
    if values.dtype.kind == "U":  # text as Python strings, as pandas gives them
        values = values.astype(object)
    if values.dtype == object:
        missing = np.asarray(series.is_null().to_numpy(), dtype=bool) | object_missing(values)
        if missing.any():
            values = values.copy()
            values[missing] = None
    return values


def missing_mask(values):
    """Boolean mask of the missing values of a numpy column, as :func:`to_numpy` gives them.

    NaN in float and complex arrays, NaT in date and duration arrays, and in
    object arrays :func:`object_missing`; nothing in other arrays.
    """
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype.kind == "c":
        return np.isnan(values.real) | np.isnan(values.imag)
    if values.dtype.kind in "mM":
        return np.isnat(values)
    if values.dtype == object:
        return object_missing(values)
    return np.zeros(values.shape[0], dtype=bool)


def object_missing(values):
    """Boolean mask of the missing values of an object array: None, NaN, NaT and pd.NA."""
    return np.fromiter(
        (v is None or (isinstance(v, float) and v != v)
         or type(v).__name__ in ("NAType", "NaTType") for v in values),
        dtype=bool, count=values.shape[0])


def replace_columns(frame, columns):
    """A copy of an eager DataFrame (not pandas) with ``{position: values}`` put in.

    Each new column keeps the dtype of the column it replaces.
    """
    import narwhals as nw

    converted = eager(frame)
    names = converted.columns
    new = [nw.new_series(names[pos], values.tolist(), converted[names[pos]].dtype,
                         backend=nw.get_native_namespace(converted))
           for pos, values in columns.items()]
    return converted.with_columns(*new).to_native()
