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

# CLIError, and the messages read here; the others are in ._messages
from ._messages import CLIError, MSG_BAD_CHOICE  # noqa: F401
from ._messages import MSG_NOT_NUMERIC, MSG_NO_FILE, MSG_OUTPUT_IS_INPUT  # noqa: F401
from ._csv import (  # noqa: F401
    MAX_CATEGORIES,
    check_columns,
    check_no_missing,
    feature_matrix,
    match_value,
    numeric_column,
    parse_value_like,
    read_csv,
    read_json,
    require_pandas,
)
from ._parquet import (  # noqa: F401
    PARQUET_MAGIC,
    is_parquet,
    open_parquet,
    parquet_value,
    quote_identifier,
)
from ._outputs import (  # noqa: F401
    StagedOutputs,
    check_output,
    check_outputs,
    folder_writable,
    is_read_only,
    same_file,
    staged_outputs,
    write_text,
)
from ._formats import (  # noqa: F401
    FORMULA_START,
    JSON_DIGITS,
    ZERO_BELOW,
    dump_json,
    escape_cell,
    escape_frame,
    frame_to_csv,
    join_cells,
    json_safe,
    round_significant,
)
