"""The package's one door to narwhals: frames of any library read, collected and converted.

Every module that reads a DataFrame, LazyFrame or relation through narwhals
comes here: :func:`to_narwhals` (with the package's messages), :func:`is_lazy`,
:func:`schema_names`, :func:`collect` (a small result into memory) and
:func:`to_numpy` (a column as numpy, missing values as None or NaN).
"""

import warnings

import numpy as np

MSG_NOT_A_FRAME = (
    "data must be a DataFrame, LazyFrame or relation that narwhals supports (pandas, "
    "polars, pyarrow, DuckDB, Dask, PySpark); got {type}."
)

MSG_BACKEND = (
    "the installed libraries cannot compute on a {type} here: {detail}. Upgrade narwhals "
    "and the frame's library (and pyarrow, whose recent versions need NumPy 2) together."
)

def from_native(data, **options):
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
    import narwhals as nw

    if isinstance(frame, nw.LazyFrame):
        return list(frame.collect_schema().names())
    return list(frame.columns)


def collect(frame):
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
    """A narwhals Series as numpy; missing values as None (objects) or NaN (floats)."""
    values = series.to_numpy()
    if values.dtype.kind == "U":  # text as Python strings, as pandas gives them
        values = values.astype(object)
    if values.dtype == object or series.null_count():
        missing = np.asarray(series.is_null().to_numpy(), dtype=bool)
        if missing.any():
            values = values.astype(object)
            values[missing] = None
    return values
