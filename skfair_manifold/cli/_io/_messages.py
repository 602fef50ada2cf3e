"""CLIError, the one exception the command line reports, and its inputs' and outputs' messages."""


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

MSG_DUPLICATED_HEADER = (
    "{path}: the header names column {column!r} {times} times (columns {positions}); a CSV "
    "reader would rename the copies {renamed} without a word, and an option naming "
    "{column!r} could mean any of them. Give each column its own name in the header line, "
    "or drop the copies."
)

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


class CLIError(Exception):
    """An error in the user's input, reported as one line, exit code 1."""
