"""The ``report`` command: a self-contained HTML fairness report of a file of predictions.

A CSV file is read into memory (pandas) and reported in full, HFM included.
A Parquet file is reported out of core: DuckDB (embedded) aggregates it into
the cell table that the group report needs, so a file larger than memory is
reported with memory bounded by that table. HFM needs every row in memory
and in order, so it is left out for a Parquet file, with a note.

With ``--no-hfm`` a CSV file is reported out of core too
(:func:`load_csv_out_of_core`): DuckDB reads its used columns as text and
gives each the type pandas would give it, so the page is the pandas path's.
Where the two readers could differ, or a check fails whose message names
rows, the file is read with pandas as with HFM.
"""

from skfair_manifold.cli._hfm import file_provenance, load_predictions, measure, note
from skfair_manifold.cli._io import (
    CLIError,
    check_columns,
    is_parquet,
    match_value,
    open_parquet,
    parquet_value,
    write_text,
)

NOTE_PARQUET_HFM = (
    "{path} is a Parquet file, reported out of core through DuckDB: the group report "
    "only. HFM needs every row in memory and is left out (--no-hfm silences this note; "
    "give a CSV file for HFM)."
)


def run_report(*, file, label, prediction, sensitive, features=None, max_categories=50,
               method="auto", m1=5, m2=None, scale=True, pos_label=None, n_boot=0,
               confidence=0.95, intersect=False, seed=0, hfm=True, title="Fairness report",
               quiet=False, sep=",", output=None, min_group_size=30):
    """The ``report`` command; returns the exit code (0), raises CLIError on bad input."""
    if is_parquet(file):
        if hfm:
            note(quiet, NOTE_PARQUET_HFM.format(path=file))
        data = load_parquet(file=file, label=label, prediction=prediction,
                            sensitive=sensitive, pos_label=pos_label)
        hfm = False
    else:
        data = None if hfm else load_csv_out_of_core(
            file=file, label=label, prediction=prediction, sensitive=sensitive, sep=sep,
            pos_label=pos_label)
    if data is None:
        data = load_predictions(file=file, label=label, prediction=prediction,
                                sensitive=sensitive, features=features, sep=sep,
                                max_categories=max_categories, pos_label=pos_label,
                                quiet=quiet, need_features=hfm)
    try:
        report, messages = measure(data, method=method, m1=m1, m2=m2, scale=scale,
                                   seed=seed, baselines=True, n_boot=n_boot,
                                   confidence=confidence, intersect=intersect, hfm=hfm,
                                   min_group_size=min_group_size)
    except ImportError as exc:  # the frame libraries installed cannot work together
        raise CLIError(" ".join(str(exc).split())) from None
    report.provenance.update(file_provenance(file))
    report.provenance["rows_dropped"] = 0
    report.options["hfm_features"] = data["features"] if hfm else None
    for message in messages:
        note(quiet, f"warning: {message}")
    write_text(output, report.to_html(title=title))
    return 0


def load_parquet(*, file, label, prediction, sensitive, pos_label):
    """A Parquet file of predictions as the input of :func:`measure`, nothing read yet.

    Returns the dict of :func:`load_predictions` with ``data`` (the DuckDB
    relation) and the column names in place of the columns.
    """
    relation, _ = open_parquet(file, command="report")

    class _Columns:  # check_columns reads .columns only
        columns = list(relation.columns)

    columns = [(label, "--label"), (prediction, "--prediction")]
    columns += [(c, "--sensitive") for c in sensitive]
    check_columns(_Columns, file, columns)
    if pos_label is not None:
        pos_label = parquet_value(relation, label, pos_label, "--pos-label")
    return {"data": relation, "y_true": label, "y_pred": prediction, "A": list(sensitive),
            "X": None, "features": [], "pos_label": pos_label}


#: how a value of a CSV column reads, as pandas reads it (``keep_default_na=False``)
_INT_TEXT = r"[+-]?[0-9]+"
_FLOAT_TEXT = r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"
_TRUE_TEXT = ("True", "TRUE", "true")
_BOOL_TEXT = _TRUE_TEXT + ("False", "FALSE", "false")


def load_csv_out_of_core(*, file, label, prediction, sensitive, sep, pos_label):
    """A CSV file of predictions as a DuckDB relation for the group report, or None.

    DuckDB reads every field as text, and each used column is given the type
    pandas would give it (integers, then floats, then ``True``/``False``,
    else text), so that the groups, the labels and ``--pos-label`` are the
    values of the pandas path. Returns None, and the caller reads the file
    with pandas, whenever this reading could differ from pandas' or a check
    fails whose message names rows: standard input, a separator of more than
    one character, a header that DuckDB names otherwise, a file DuckDB cannot
    parse (malformed, not UTF-8, empty), fewer than 2 rows, a missing value,
    a value with leading or trailing white space, an integer of more than 18
    digits, a label or prediction that is not a number, a sensitive column
    with a single value. A missing column is reported here, with the pandas
    path's message.
    """
    if file == "-" or len(sep) != 1 or is_parquet(file):
        return None
    try:
        import duckdb
    except ImportError:  # pragma: no cover - duckdb is in the cli and dev extras
        return None
    names = _csv_header(file, sep)
    if names is None:
        return None
    connection = duckdb.connect()  # in memory, this process only
    try:
        relation = connection.read_csv(str(file), sep=sep, header=True, all_varchar=True,
                                       quotechar='"', escapechar='"')
    except duckdb.Error:
        return None
    if list(relation.columns) != names:
        return None

    class _Columns:  # check_columns reads .columns only
        columns = names

    columns = [(label, "--label"), (prediction, "--prediction")]
    columns += [(c, "--sensitive") for c in sensitive]
    used = list(dict.fromkeys([label, prediction, *sensitive]))
    if any(c not in names for c in used):
        try:  # pandas reports an unreadable file before a missing column
            n_rows = relation.aggregate("count(*)").fetchall()[0][0]
        except duckdb.Error:
            return None
        if n_rows < 2:
            return None
    check_columns(_Columns, file, columns)
    if len(used) != 2 + len(sensitive):
        return None  # a column in two roles: read as pandas reads it
    stats = ["count(*)"]
    for column in used:
        q = _quote(column)
        stats += [f"count({q})", f"bool_or(regexp_matches({q}, '^\\s|\\s$'))",
                  f"bool_and(regexp_full_match({q}, '{_INT_TEXT}'))",
                  f"bool_or(length({q}) > 18)",
                  f"bool_and(regexp_full_match({q}, '{_FLOAT_TEXT}'))",
                  f"bool_and({q} IN ({', '.join(repr(t) for t in _BOOL_TEXT)}))",
                  f"min({q}) < max({q})"]
    try:
        row = relation.aggregate(", ".join(stats)).fetchall()[0]
    except duckdb.Error:
        return None
    n_rows, kinds = row[0], {}
    if n_rows < 2:
        return None
    for i, column in enumerate(used):
        count, spaced, is_int, long, is_float, is_bool, several = row[1 + 7 * i:8 + 7 * i]
        if count < n_rows or spaced or (is_int and long):
            return None
        kind = "int" if is_int else "float" if is_float else "bool" if is_bool else "text"
        if column in (label, prediction) and kind == "text":
            return None  # not a number: pandas names the row
        if column in sensitive and not several:
            return None  # a single value: pandas names it
        kinds[column] = kind
    typed = relation.project(", ".join(
        f"{_typed(column, kinds[column])} AS {_quote(column)}" for column in used))
    if pos_label is not None:
        values = typed.select(_quote(label)).distinct().limit(1000).fetchall()
        pos_label = float(match_value([v[0] for v in values], pos_label,
                                      column=label, option="--pos-label"))
    numbers = ", ".join(
        f"CAST({_quote(c)} AS DOUBLE) AS {_quote(c)}" if c in (label, prediction)
        else _quote(c) for c in used)
    return {"data": typed.project(numbers), "y_true": label, "y_pred": prediction,
            "A": list(sensitive), "X": None, "features": [], "pos_label": pos_label}


def _quote(column):
    return '"' + str(column).replace('"', '""') + '"'


def _typed(column, kind):
    q = _quote(column)
    if kind == "int":
        return f"CAST({q} AS BIGINT)"
    if kind == "float":
        return f"CAST({q} AS DOUBLE)"
    if kind == "bool":
        return f"({q} IN ({', '.join(repr(t) for t in _TRUE_TEXT)}))"
    return q


def _csv_header(file, sep):
    """The column names pandas gives the CSV file's header, or None (pandas will say why)."""
    import csv

    try:
        with open(file, encoding="utf-8-sig", newline="") as handle:
            header = next(csv.reader(handle, delimiter=sep, skipinitialspace=True))
    except (OSError, UnicodeDecodeError, StopIteration, csv.Error):
        return None
    names = [name.strip() for name in header]
    if "" in names or len(set(names)) != len(names):
        return None
    return names
