"""Reading the command line's input files and writing its outputs safely.

Reading: every failure of a CSV file (missing, empty, malformed, not text, a
missing column, a missing or non-numeric value) becomes a :class:`CLIError`
with one line that names the file, the column and the row. Only an empty
field is a missing value: ``NA``, ``N/A``, ``None``, ``null``, ``nan`` and
the like are ordinary text (a region code, a name, an id), so that a group,
an id or ``--protected-value`` may be any of them; in a numeric column they
are values that are not numbers, reported as such.

Parquet files (``report``) are not read into memory: :func:`open_parquet`
opens them as a DuckDB relation (embedded, no server), and the group report
is aggregated there, with memory bounded by the cell table rather than by
the file. A CSV file is read with pandas as above, so that its rule for
missing values stays the one of every command; only ``report --no-hfm``
reads one out of core through DuckDB, where the result is pandas' own
(:func:`skfair_manifold.cli._report.load_csv_out_of_core`).

Writing:

- **Atomic.** A result is written to a temporary file in the target's folder
  and renamed over the target only once complete, so an interruption or a
  full disk never leaves a truncated file and never destroys the file that
  was there. Targets that are not regular files (``/dev/stdout``,
  ``/dev/full``, a pipe) are written directly.
- **All or nothing.** Inside :func:`staged_outputs` (the command line runs
  every command in one), :func:`write_text` only stages: every output is
  written to its temporary file, and the files are renamed over their
  targets (and standard output written) only when the command has produced
  all of them. :func:`check_outputs` refuses, before any work, two outputs
  naming one file, more than one output on standard output, a folder or a
  missing folder, a read-only file and a folder where no file can be made.
- **CSV injection.** A text cell that begins with ``=``, ``+``, ``-``, ``@``,
  a tab or a carriage return is prefixed with a single quote, so that a
  spreadsheet shows it as text rather than running it as a formula (OWASP's
  advice). Numbers are left alone (``-0.25`` is a number, not a formula).
  ``--no-csv-escape`` turns this off for programs that read the file.
- **JSON.** Undefined values are ``null`` (never the non-standard ``NaN`` or
  ``Infinity`` tokens) and listed with their reason under ``"undefined"``;
  floats are rounded to :data:`JSON_DIGITS` significant digits, and values
  smaller than :data:`ZERO_BELOW` in magnitude (floating-point round-off,
  such as ``-2.2e-16`` for an HFM that is 0) are written as ``0``.
"""

import json
import math
import os
import sys
import tempfile

from skfair_manifold.utils._visible import visible_text

MSG_PANDAS = (
    "the {command} command reads CSV files with pandas, which is not installed: "
    "pip install 'skfair_manifold[pandas]'."
)
MSG_NO_FILE = "cannot read {path}: no such file."
MSG_EMPTY_FILE = "{path} is empty: expected a CSV file with a header line and data rows."
MSG_MALFORMED = "{path} is not a well-formed CSV file: {detail}"
MSG_NOT_TEXT = "{path} is not a UTF-8 text file (a CSV file was expected)."
MSG_TOO_FEW_ROWS = "{path} has {n} data row(s); at least {minimum} are needed."
MSG_MISSING_COLUMN = (
    "column {column!r} ({option}) is not in {path}.{hint} Its columns are: {columns}."
)
MSG_DUPLICATE_COLUMN = "column {column!r} is given to both {first} and {second}."
MSG_MISSING_VALUES = (
    "column {column!r} has missing values at row(s) {rows} (line(s) {lines} of the file); "
    "fill or drop them first."
)
MSG_NOT_NUMERIC = (
    "column {column!r} ({role}) must be numeric; the value {value!r} at row {row} (line "
    "{line} of the file) is not a number."
)
MSG_BAD_CHOICE = "{option} {value!r} is not a value of column {column!r}; its values are: {values}."
MSG_NO_FEATURES = "no feature columns left: pass --features, or a file with more columns."
MSG_IDENTIFIER = (
    "text column(s) {columns} look like identifiers (more than {cap} distinct values, and "
    "more than half of the rows distinct) and cannot be one-hot encoded as features; leave "
    "them out by listing the feature columns with --features."
)
MSG_OUTPUT_IS_INPUT = "-o/--output {path} is the input file; write the result elsewhere."
MSG_OUTPUT_FOLDER = "cannot write {path}: it is a folder; give a file name."
MSG_OUTPUT_NO_FOLDER = "cannot write {path}: the folder {folder} does not exist."
MSG_CANNOT_WRITE = "cannot write {path}: {reason}."
MSG_OUTPUT_READ_ONLY = (
    "cannot write {path}: the file is read-only (mode {mode}) and is not replaced; make it "
    "writable or give another file."
)
MSG_OUTPUT_FOLDER_READ_ONLY = (
    "cannot write {path}: the folder {folder} is not writable, and every output is written "
    "to a temporary file in its folder first; give a file in a writable folder."
)
MSG_OUTPUTS_SAME = (
    "{first} and {second} name the same file {path}; give each output its own file."
)
MSG_OUTPUTS_STDOUT = (
    "{options} all go to standard output ('-', and -o/--output when it is not given); "
    "only one output can: give the others a file."
)
MSG_CANNOT_READ = "cannot read {path}: {reason}."
MSG_DUCKDB = (
    "the {command} command reads Parquet files with DuckDB, which is not installed: "
    "pip install 'skfair_manifold[cli]'."
)
MSG_NOT_PARQUET = "{path} is not a readable Parquet file: {detail}"
#: the first (and last) four bytes of every Parquet file
PARQUET_MAGIC = b"PAR1"

#: significant digits of the floats written in JSON
JSON_DIGITS = 6
#: magnitudes below this are floating-point round-off and are written as 0
ZERO_BELOW = 1e-12
#: text feature columns keep at most this many categories (the rest are merged)
MAX_CATEGORIES = 50
#: first characters that make a spreadsheet read a cell as a formula
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


class CLIError(Exception):
    """An error in the user's input, reported as one line, exit code 1."""


# ----------------------------------------------------------------------------- reading


def require_pandas(command):
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is in the dev extras
        raise CLIError(MSG_PANDAS.format(command=command)) from None
    return pd


def read_csv(path, *, sep, command, minimum_rows=2):
    """Read a CSV file into a DataFrame, turning every failure into a CLIError."""
    pd = require_pandas(command)
    source = sys.stdin if path == "-" else path
    try:
        # only an empty field is missing: NA, None, null, nan are ordinary values
        frame = pd.read_csv(source, sep=sep, skipinitialspace=True, keep_default_na=False,
                            na_values=[""])
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


def is_parquet(path):
    """True when ``path`` is a file that begins with Parquet's magic bytes."""
    if path == "-":
        return False
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == PARQUET_MAGIC
    except OSError:
        return False  # read_csv names the problem


def open_parquet(path, *, command, minimum_rows=2):
    """A Parquet file as a DuckDB relation (nothing read yet), or a CLIError."""
    try:
        import duckdb
    except ImportError:  # pragma: no cover - duckdb is in the cli and dev extras
        raise CLIError(MSG_DUCKDB.format(command=command)) from None
    connection = duckdb.connect()  # in memory, this process only
    try:
        relation = connection.read_parquet(str(path))
        n_rows = relation.aggregate("count(*)").fetchall()[0][0]
    except duckdb.Error as exc:
        detail = " ".join(str(exc).split())
        raise CLIError(MSG_NOT_PARQUET.format(path=path, detail=detail)) from None
    if n_rows < minimum_rows:
        raise CLIError(MSG_TOO_FEW_ROWS.format(path=path, n=n_rows, minimum=minimum_rows))
    return relation, int(n_rows)


def parquet_value(relation, column, text, option):
    """``text`` from the command line as a value of a Parquet column, or a CLIError."""
    rows = relation.select(column).distinct().limit(1000).fetchall()
    return match_value([row[0] for row in rows if row[0] is not None], text,
                       column=column, option=option)


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


# ----------------------------------------------------------------------------- writing


def _reason(exc):
    return (exc.strerror or str(exc)).rstrip(".").lower() if exc.strerror else str(exc)


def same_file(output, inputs):
    """True when ``output`` names one of the ``inputs`` (after links and ``..``)."""
    if output in (None, "-"):
        return False
    target = os.path.realpath(output)
    for path in inputs:
        if path in (None, "-"):
            continue
        if os.path.realpath(path) == target:
            return True
        try:
            if os.path.samefile(path, output):
                return True
        except OSError:
            pass
    return False


def is_read_only(path):
    """True when ``path`` is a regular file that its mode or the system says not to write.

    The mode is read as well as ``os.access``: an administrator may write any
    file, but a file made read-only (``chmod a-w``, or a file of ``/proc``)
    is still not to be replaced.
    """
    try:
        st = os.stat(path)
    except OSError:
        return False
    import stat

    if not stat.S_ISREG(st.st_mode):
        return False
    return (st.st_mode & 0o222) == 0 or not os.access(path, os.W_OK)


def folder_writable(folder):
    """True when a new file can be made in ``folder`` (write and search permission)."""
    return os.access(folder, os.W_OK | os.X_OK)


def check_output(path):
    """Raise a CLIError naming ``path`` or its folder when ``path`` cannot be written.

    Standard output (None or ``"-"``) and existing non-regular files (devices,
    pipes) are written directly and pass. Otherwise ``path`` must not be a
    folder, its folder must exist and be writable (the output is written to
    a temporary file beside it), and an existing file must not be read-only.
    """
    if path is None or path == "-":
        return
    if os.path.isdir(path):
        raise CLIError(MSG_OUTPUT_FOLDER.format(path=path))
    if os.path.exists(path) and not os.path.isfile(path):
        return  # a device or a pipe, written directly
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CLIError(MSG_OUTPUT_NO_FOLDER.format(path=path, folder=folder))
    if is_read_only(path):
        mode = oct(os.stat(path).st_mode & 0o777)[2:]
        raise CLIError(MSG_OUTPUT_READ_ONLY.format(path=path, mode=mode))
    if not folder_writable(folder):
        raise CLIError(MSG_OUTPUT_FOLDER_READ_ONLY.format(path=path, folder=folder))


def check_outputs(outputs):
    """Refuse outputs of one command that would overwrite each other.

    ``outputs``: list of ``(option, path)``; a path of None or ``"-"`` is
    standard output. Two outputs naming one file (after links and ``..``),
    or more than one on standard output, raise a CLIError (a problem of the
    command line); each path alone is checked by :func:`check_output`.
    """
    to_stdout = [option for option, path in outputs if path in (None, "-")]
    if len(to_stdout) > 1:
        raise CLIError(MSG_OUTPUTS_STDOUT.format(options=" and ".join(to_stdout)))
    seen = {}
    for option, path in outputs:
        if path in (None, "-"):
            continue
        key = os.path.realpath(path)
        for other_option, other in seen.items():
            if key == other[0] or same_file(path, [other[1]]):
                raise CLIError(MSG_OUTPUTS_SAME.format(first=other_option, second=option,
                                                       path=path))
        seen[option] = (key, path)


class StagedOutputs:
    """The outputs of one command, made complete before any is put in place.

    :func:`write_text` inside :func:`staged_outputs` calls :meth:`add`: a
    regular file is written to a temporary file in its folder, a device or
    standard output is kept in memory. :meth:`commit` then writes the
    devices, renames every temporary file over its target, and writes
    standard output last; :meth:`discard` removes the temporary files.
    ``done`` lists the targets already replaced, for the message of an
    interruption.
    """

    def __init__(self):
        self.staged = []  # (kind, path, payload): "file" (tmp), "direct" or "stdout" (text)
        self.targets = []  # every file output, in the order of the command
        self.done = []

    def add(self, path, text, stdout=None):
        if path is None or path == "-":
            self.staged.append(("stdout", stdout, text))
            return
        check_output(path)
        self.targets.append(path)
        if os.path.exists(path) and not os.path.isfile(path):
            self.staged.append(("direct", path, text))
            return
        self.staged.append(("file", path, _temporary(path, text.encode("utf-8"))))

    def commit(self):
        order = {"direct": 0, "file": 1, "stdout": 2}
        for kind, path, payload in sorted(self.staged, key=lambda item: order[item[0]]):
            if kind == "stdout":
                _write_stdout(payload, path)
                continue
            try:
                if kind == "direct":
                    with open(path, "wb") as handle:
                        handle.write(payload.encode("utf-8"))
                else:
                    os.replace(payload, path)
            except OSError as exc:
                raise CLIError(MSG_CANNOT_WRITE.format(path=path, reason=_reason(exc))
                               + self.changed_sentence()) from None
            self.done.append(path)
        self.staged = []

    def discard(self):
        for kind, _, payload in self.staged:
            if kind == "file":
                try:
                    os.unlink(payload)
                except OSError:
                    pass
        self.staged = []

    def changed_sentence(self):
        """What the command changed, as a sentence that begins with a space."""
        if not self.done:
            return " No output file was changed."
        left = [path for path in self.targets if path not in self.done]
        return (f" Written: {', '.join(self.done)}"
                + (f"; not changed: {', '.join(left)}." if left else "."))


_STAGE = []  # the StagedOutputs of the running command, if any


class staged_outputs:
    """Context manager: the :func:`write_text` calls inside it are staged, then committed.

    On leaving normally every output is put in place (:meth:`StagedOutputs.commit`); on an
    exception the temporary files are removed. The object is the ``StagedOutputs``.
    """

    def __enter__(self):
        self.stage = StagedOutputs()
        _STAGE.append(self.stage)
        return self.stage

    def __exit__(self, kind, exc, tb):
        _STAGE.remove(self.stage)
        try:
            if kind is None:
                self.stage.commit()
        finally:
            self.stage.discard()
        return False


def _write_stdout(text, stdout=None):
    out = sys.stdout if stdout is None else stdout
    out.write(text)
    out.flush()


def _temporary(path, data):
    """``data`` in a new temporary file beside ``path``, with ``path``'s mode; its name."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else None
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp",
                                   dir=folder)
    except OSError as exc:
        reason = f"no temporary file can be made in its folder {folder} ({_reason(exc)})"
        raise CLIError(MSG_CANNOT_WRITE.format(path=path, reason=reason)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode if mode is not None else 0o666 & ~_umask())
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise CLIError(MSG_CANNOT_WRITE.format(path=path, reason=_reason(exc))) from None
        raise
    return tmp


def write_text(path, text, *, stdout=None):
    """Write ``text`` to ``path`` atomically (standard output for None or ``"-"``).

    Regular files (and new files) are written to a temporary file in the same
    folder, flushed to disk and renamed over ``path``; on any failure the
    temporary file is removed and ``path`` is left as it was. A ``path`` that
    exists and is not a regular file (a device such as ``/dev/full``, a pipe)
    is written directly. A read-only file, a folder, a missing or read-only
    folder are refused (:func:`check_output`). Inside :func:`staged_outputs`
    the write is only staged, and happens with the command's other outputs.
    Every failure is a :class:`CLIError` of one line.
    """
    stage = StagedOutputs() if not _STAGE else _STAGE[-1]
    stage.add(path, text, stdout)
    if not _STAGE:
        try:
            stage.commit()
        finally:
            stage.discard()


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _is_number_text(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def escape_cell(value):
    """``value`` with a leading quote when a spreadsheet would read it as a formula.

    Only text is escaped, and only when it is not a plain number: ``-0.25``
    stays a number, ``=1+2`` becomes ``'=1+2``. Its format characters (a
    right-to-left override U+202E, a zero-width space U+200B, ...) are
    written as visible escapes ``<U+202E>`` (:func:`~skfair_manifold.utils._visible.visible_text`),
    so that a spreadsheet cannot show a name reversed or two names alike.
    """
    if isinstance(value, str):
        value = visible_text(value)
    if isinstance(value, str) and value.startswith(FORMULA_START) \
            and not _is_number_text(value):
        return "'" + value
    return value


def escape_frame(frame):
    """A copy of ``frame`` whose text cells and column names are escaped for spreadsheets."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    out = frame.copy()
    for column in out.columns:
        dtype = out[column].dtype
        if not (is_numeric_dtype(dtype) or is_bool_dtype(dtype)):  # text, object, category
            out[column] = out[column].astype(object).map(escape_cell)
    out.columns = [escape_cell(str(c)) for c in out.columns]
    return out


def join_cells(values, *, escape):
    """A list as one ``;``-joined cell, each element escaped when ``escape``."""
    items = [str(v) for v in values]
    if escape:
        items = [escape_cell(v) for v in items]
    return ";".join(items)


def frame_to_csv(frame, *, escape):
    """CSV text of ``frame`` (escaped for spreadsheets unless ``escape`` is False)."""
    if escape:
        frame = escape_frame(frame)
    return frame.to_csv(index=False, lineterminator="\n")


def json_safe(obj, *, digits=JSON_DIGITS, path="", undefined=None):
    """``obj`` with numpy scalars and arrays as Python values, floats rounded, NaN as None.

    ``undefined``, a dict, receives the path of every value that was NaN or
    infinite (``"per_attribute.sex.hfm_max"``).
    """
    import numbers

    if isinstance(obj, dict):
        return {str(k): json_safe(v, digits=digits, path=f"{path}.{k}" if path else str(k),
                                  undefined=undefined) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v, digits=digits, path=f"{path}[{i}]", undefined=undefined)
                for i, v in enumerate(obj)]
    if hasattr(obj, "tolist") and not isinstance(obj, (str, bytes)):  # numpy values
        return json_safe(obj.tolist(), digits=digits, path=path, undefined=undefined)
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, numbers.Integral):
        return int(obj)
    if isinstance(obj, numbers.Real):
        value = float(obj)
        if not math.isfinite(value):
            if undefined is not None:
                undefined[path] = "nan" if value != value else "infinite"
            return None
        return round_significant(value, digits)
    return str(obj)


def round_significant(value, digits=JSON_DIGITS):
    """``value`` rounded to ``digits`` significant digits; round-off below ZERO_BELOW is 0."""
    if value == 0 or abs(value) < ZERO_BELOW:
        return 0.0
    return float(f"{value:.{digits}g}")


def dump_json(payload, *, reasons=(), digits=JSON_DIGITS):
    """JSON text of ``payload``: no NaN/Infinity token, floats rounded.

    Every value that was undefined is ``null`` and listed under
    ``"undefined"`` with its reason: the first of ``reasons`` (warning
    messages) that names the value's last key, else "undefined on the data
    given". Text stays faithful to the data: a format character in a name
    (U+202E, U+200B, ...) is written as its JSON escape (``"\\u202e"``,
    ``json.dumps``'s ``ensure_ascii``), never raw, so that no viewer of the
    file shows it reversed or hidden, and every JSON reader gets it back.
    """
    undefined = {}
    clean = json_safe(payload, digits=digits, undefined=undefined)
    if undefined:
        explained = {}
        for where in undefined:
            keys = where.replace("[", ".").replace("]", "").split(".")
            words = [k for k in keys if k and not k.isdigit()]
            reason = next((r for r in reasons if words and words[-1] in r
                           and all(w in r for w in words[-2:-1])), None) \
                or next((r for r in reasons if words and words[-1] in r), None)
            explained[where] = reason or "undefined on the data given"
        clean["undefined"] = explained
    clean.setdefault("digits", digits)
    return json.dumps(clean, indent=2, allow_nan=False, ensure_ascii=True) + "\n"
