"""Column names and positions resolved, with suggestions, and ``X`` split at them."""

import difflib
import numbers

import numpy as np

from .._narwhals import eager, is_dataframe
from ._messages import MSG_COLUMN_LIST_STRING, MSG_COLUMN_MISSING, MSG_COLUMN_TWICE, MSG_NO_COLUMNS


def is_int(value):
    """True for an integer that is not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def as_column_list(value, name):
    """A list of column names or positions; a bare string is refused, not split."""
    if isinstance(value, (str, bytes)):
        raise TypeError(MSG_COLUMN_LIST_STRING.format(name=name, value=value))
    return list(value)


def locate_column(column, names, *, has_names=True):
    """The position of ``column`` among ``names``, or None: the one rule of the package.

    A name that is in ``names`` is that column; otherwise an integer (not a
    bool) in ``-len(names) .. len(names) - 1`` is a position. Without names
    (``has_names=False``, a plain array) only positions count.
    """
    if has_names and column in names:
        return list(names).index(column)
    if is_int(column) and -len(names) <= column < len(names):
        return int(column) % len(names)
    return None


def did_you_mean(column, names, *, limit=3):
    """`` Did you mean 'x'?`` for the names closest to ``column`` (case ignored), or ''."""
    by_lower = {}
    for n in names:
        by_lower.setdefault(str(n).lower(), n)
    close = difflib.get_close_matches(str(column).lower(), list(by_lower), n=limit)
    return f" Did you mean {', '.join(repr(by_lower[c]) for c in close)}?" if close else ""


def resolve_columns(X, columns, *, name="sensitive"):
    """Positions and names of some columns of ``X``.

    ``columns`` is one column or a list: DataFrame column names, or integer
    positions (for a DataFrame, an integer that is not a column name is a
    position). An unknown name raises with the closest names offered.
    """
    cols = list(columns) if isinstance(columns, (list, tuple, np.ndarray)) else [columns]
    if not cols:
        raise ValueError(MSG_NO_COLUMNS.format(name=name))
    has_names = is_dataframe(X)
    names_in = list(eager(X).columns) if has_names else \
        list(range(np.shape(X)[1] if np.ndim(X) == 2 else 0))
    positions = []
    for col in cols:
        pos = locate_column(col, names_in, has_names=has_names)
        if pos is None:
            where = (f"columns {names_in[:10]!r}{'...' if len(names_in) > 10 else ''}"
                     if has_names else f"an array with {len(names_in)} columns")
            hint = did_you_mean(col, names_in) if has_names else ""
            raise ValueError(MSG_COLUMN_MISSING.format(name=name, col=col, where=where,
                                                       hint=hint))
        positions.append(pos)
    names = [names_in[p] for p in positions]
    if len(set(positions)) != len(positions):
        twice = next(n for k, n in enumerate(names) if n in names[:k])
        raise ValueError(MSG_COLUMN_TWICE.format(name=name, col=twice))
    return positions, names


def split_columns(X, positions, *, drop):
    """``(A, X_rest)``: the columns at ``positions``, and ``X`` without them when ``drop``.

    DataFrames stay DataFrames of their own library.
    """
    if is_dataframe(X):
        frame = eager(X)
        names = list(frame.columns)
        chosen = [names[p] for p in positions]
        A = frame.select(chosen).to_native()
        rest = frame.drop(chosen).to_native() if drop else X
        return A, rest
    X = np.asarray(X)
    A = X[:, positions]
    rest = np.delete(X, positions, axis=1) if drop else X
    return A, rest
