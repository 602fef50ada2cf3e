"""CSV and JSON inputs read with pandas: columns checked, values matched, the features encoded."""

import io
import json
import sys

from ._messages import (
    CLIError,
    MSG_BAD_CHOICE,
    MSG_CANNOT_READ,
    MSG_DUPLICATE_COLUMN,
    MSG_DUPLICATED_HEADER,
    MSG_EMPTY_FILE,
    MSG_IDENTIFIER,
    MSG_MALFORMED,
    MSG_MISSING_COLUMN,
    MSG_MISSING_VALUES,
    MSG_NOT_NUMERIC,
    MSG_NOT_TEXT,
    MSG_NO_FEATURES,
    MSG_NO_FILE,
    MSG_PANDAS,
    MSG_TOO_FEW_ROWS,
)
from ._outputs import _reason


#: text feature columns keep at most this many categories (the rest are merged)
MAX_CATEGORIES = 50


def require_pandas(command):
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is in the dev extras
        raise CLIError(MSG_PANDAS.format(command=command)) from None
    return pd


def read_csv(path, *, sep, command, minimum_rows=2):
    """Read a CSV file into a DataFrame, turning every failure into a CLIError."""
    pd = require_pandas(command)
    # standard input is read once and kept: the header is read again on its own
    source = io.StringIO(sys.stdin.read()) if path == "-" else path
    try:
        # only an empty field is missing: NA, None, null, nan are ordinary values
        frame = pd.read_csv(source, sep=sep, skipinitialspace=True, keep_default_na=False,
                            na_values=[""])
        if path == "-":
            source.seek(0)
        _check_header(path, pd.read_csv(source, sep=sep, skipinitialspace=True, header=None,
                                        nrows=1, dtype=str, keep_default_na=False))
    except FileNotFoundError:
        raise CLIError(MSG_NO_FILE.format(path=path)) from None
    except IsADirectoryError:
        raise CLIError(MSG_NO_FILE.format(path=path) + " It is a folder.") from None
    except pd.errors.EmptyDataError:
        raise CLIError(MSG_EMPTY_FILE.format(path=path)) from None
    except pd.errors.ParserError as exc:
        detail = str(exc).strip().splitlines()[-1]
        raise CLIError(MSG_MALFORMED.format(path=path, detail=detail)) from None
    except UnicodeDecodeError:
        raise CLIError(MSG_NOT_TEXT.format(path=path)) from None
    except OSError as exc:
        raise CLIError(MSG_CANNOT_READ.format(path=path, reason=_reason(exc))) from None
    frame.columns = [str(c).strip() for c in frame.columns]
    if frame.shape[0] < minimum_rows:
        raise CLIError(MSG_TOO_FEW_ROWS.format(path=path, n=frame.shape[0],
                                               minimum=minimum_rows))
    return frame


def _check_header(path, first_line):
    """Refuse a header that names a column twice (pandas renames the copies ``name.1``)."""
    names = [str(c).strip() for c in first_line.iloc[0].tolist()] if len(first_line) else []
    seen = {}
    for position, name in enumerate(names, start=1):
        seen.setdefault(name, []).append(position)
    for name, positions in seen.items():
        if len(positions) > 1:
            raise CLIError(MSG_DUPLICATED_HEADER.format(
                path=path, column=name, times=len(positions),
                positions=", ".join(map(str, positions)),
                renamed=", ".join(repr(f"{name}.{i}") for i in range(1, len(positions)))))


def match_value(values, text, *, column, option):
    """The value among ``values`` that ``text`` from the command line names, or a CLIError.

    Text matches a value written the same way; a number also matches a numeric value equal
    to it ("1" matches 1.0, "1.0" matches 1), never a boolean.
    """
    import numpy as np

    for value in values:
        if str(value) == text:
            return value
    try:
        number = float(text)
    except ValueError:
        number = None
    if number is not None:
        for value in values:
            if isinstance(value, (int, float, np.integer, np.floating)) \
                    and not isinstance(value, (bool, np.bool_)) and value == number:
                return value
    shown = ", ".join(sorted(map(str, values))[:20])
    raise CLIError(MSG_BAD_CHOICE.format(option=option, value=text, column=column, values=shown))


def read_json(path):
    """A JSON file, or a CLIError naming it."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        raise CLIError(MSG_NO_FILE.format(path=path)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CLIError(f"{path} is not valid JSON: {exc}.") from None
    except OSError as exc:
        raise CLIError(MSG_CANNOT_READ.format(path=path, reason=_reason(exc))) from None


def check_columns(frame, path, columns):
    """``columns``: list of (column, option). Every one must be in ``frame``."""
    seen = {}
    for column, option in columns:
        if column in seen and seen[column] != option:
            raise CLIError(MSG_DUPLICATE_COLUMN.format(column=column, first=seen[column],
                                                       second=option))
        seen[column] = option
        if column not in frame.columns:
            from skfair_manifold.utils._validation import did_you_mean

            hint = did_you_mean(column, list(frame.columns), limit=1)
            raise CLIError(MSG_MISSING_COLUMN.format(
                column=column, option=option, path=path, hint=hint,
                columns=", ".join(map(str, frame.columns))))


def _rows_and_lines(mask, limit=5):
    import numpy as np

    rows = np.flatnonzero(mask)
    shown = rows[:limit].tolist()
    more = f" and {rows.size - limit} more" if rows.size > limit else ""
    # line 1 is the header, so data row i is on line i + 2
    return (", ".join(map(str, shown)) + more,
            ", ".join(str(r + 2) for r in shown) + more)


def check_no_missing(frame, columns):
    for column in columns:
        mask = frame[column].isna().to_numpy()
        if mask.any():
            rows, lines = _rows_and_lines(mask)
            raise CLIError(MSG_MISSING_VALUES.format(column=column, rows=rows, lines=lines))


def numeric_column(frame, column, role):
    """The column as float64, or a CLIError naming the first value that is no number."""
    import numpy as np

    pd = require_pandas("hfm")
    series = frame[column]
    if series.dtype == bool:
        return series.to_numpy(dtype=np.float64)
    values = pd.to_numeric(series, errors="coerce")
    bad = values.isna().to_numpy() & series.notna().to_numpy()
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise CLIError(MSG_NOT_NUMERIC.format(column=column, role=role,
                                              value=series.iloc[row], row=row, line=row + 2))
    return values.to_numpy(dtype=np.float64)


def feature_matrix(frame, columns, *, max_categories=MAX_CATEGORIES):
    """Numeric columns as they are, text columns one-hot encoded (at most ``max_categories``).

    A column whose values are mostly numbers but with a few that are not is a
    bad value, not a category: that raises, with the row. A text column with
    more than ``max_categories`` distinct values of which more than half of
    the rows are distinct is an identifier (a name, an id) and is refused; a
    text column with more than ``max_categories`` values that is not an
    identifier keeps its ``max_categories - 1`` most frequent values and
    merges the others into one indicator, ``column=(other)``.

    Returns ``(matrix, names, encoded, merged)``: ``encoded`` lists the text
    columns that were one-hot encoded, ``merged`` those whose rare values
    were merged.
    """
    import numpy as np

    pd = require_pandas("hfm")
    parts, names, encoded, merged, identifiers = [], [], [], [], []
    n = frame.shape[0]
    for column in columns:
        series = frame[column]
        if series.dtype == bool or pd.api.types.is_numeric_dtype(series):
            parts.append(series.to_numpy(dtype=np.float64)[:, None])
            names.append(column)
            continue
        as_number = pd.to_numeric(series, errors="coerce")
        if as_number.notna().mean() >= 0.5:  # a numeric column with stray text
            numeric_column(frame, column, "a feature")
        text = series.astype(str)
        counts = text.value_counts(sort=True)
        if counts.shape[0] > max_categories:
            if counts.shape[0] > 0.5 * n:
                identifiers.append(column)
                continue
            keep = set(counts.index[:max_categories - 1])
            text = text.where(text.isin(keep), "(other)")
            merged.append(column)
        dummies = pd.get_dummies(text, prefix=column, prefix_sep="=")
        parts.append(dummies.to_numpy(dtype=np.float64))
        names.extend(dummies.columns)
        encoded.append(column)
    if identifiers:
        raise CLIError(MSG_IDENTIFIER.format(columns=", ".join(map(repr, identifiers)),
                                             cap=max_categories))
    if not parts:
        raise CLIError(MSG_NO_FEATURES)
    return np.hstack(parts), names, encoded, merged


def parse_value_like(frame, column, text, option):
    """Turn ``text`` from the command line into a value of ``column``, or raise."""
    return match_value(frame[column].dropna().unique(), text, column=column, option=option)
