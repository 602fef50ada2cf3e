"""DataFrames and Series of any library as numpy columns, each keeping its type (narwhals)."""

from .._narwhals import eager, eager_columns, is_dataframe, to_numpy
from ._messages import MSG_COLUMN_NAMES_CLASH


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

    Columns are converted one by one (:func:`~.._narwhals.to_numpy`, the
    package's rule for missing values), so that every column keeps its own
    type (a DataFrame's ``to_numpy()`` would turn a frame of integers and
    strings into one object array). pandas columns with MultiIndex, non-text
    or repeated names are taken by position (see :func:`pandas_columns`).
    """
    if _is_pandas_frame(obj) and _needs_positional(obj):
        names, series = pandas_columns(obj)
        return names, [to_numpy(eager(s.rename(None))) for s in series]
    frame = eager(obj)
    if frame is None:
        raise TypeError(f"expected a DataFrame or a Series; got {type(obj).__name__}.")
    names, series = eager_columns(frame)
    return names, [to_numpy(s) for s in series]


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


def caller_index(*objects):
    """The labels of the first pandas index among ``objects`` that is not its positions.

    How a page names rows: by the caller's index (a DataFrame or Series whose
    index is anything but ``0, 1, ..., n - 1``), else by position (None).
    """
    import numpy as np

    for obj in objects:
        index = getattr(obj, "index", None)
        if index is None or not type(index).__module__.startswith("pandas"):
            continue
        labels = index.to_numpy()
        if not (labels.dtype.kind in "iu" and np.array_equal(labels, np.arange(len(labels)))):
            return labels
    return None
