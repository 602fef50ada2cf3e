"""Parquet inputs opened as DuckDB relations (not read into memory), and values matched there."""

from ._csv import match_value
from ._messages import CLIError, MSG_DUCKDB, MSG_NOT_PARQUET, MSG_TOO_FEW_ROWS


#: the first (and last) four bytes of every Parquet file
PARQUET_MAGIC = b"PAR1"


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


def quote_identifier(column):
    """``column`` as a quoted SQL identifier for DuckDB: any name, never read as SQL.

    Double quotes around the name, each double quote in it doubled, so that a
    space, a keyword (``select``, ``default``), a quote, accents or an
    expression (``a) OR (1=1``) stay one column's name.
    """
    return '"' + str(column).replace('"', '""') + '"'


def parquet_value(relation, column, text, option):
    """``text`` from the command line as a value of a Parquet column, or a CLIError."""
    rows = relation.select(quote_identifier(column)).distinct().limit(1000).fetchall()
    return match_value([row[0] for row in rows if row[0] is not None], text,
                       column=column, option=option)
