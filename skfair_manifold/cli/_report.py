"""The ``report`` command: a self-contained HTML fairness report of a file of predictions.

A CSV file is read into memory (pandas) and reported in full, HFM included.
A Parquet file is reported out of core: DuckDB (embedded) aggregates it into
the cell table that the group report needs, so a file larger than memory is
reported with memory bounded by that table. HFM needs every row in memory
and in order, so it is left out for a Parquet file, with a note.

With ``--no-hfm`` a CSV file is reported out of core too
(:func:`load_csv_out_of_core`): DuckDB reads its used columns as text and
gives each the type pandas would give it, so the page is the pandas path's;
one pass over the file makes the cell table, and the report is computed from it.
Where the two readers could differ, or a check fails whose message names
rows, the file is read with pandas as with HFM.
"""

import re

from skfair_manifold.cli._hfm import (
    file_provenance,
    load_predictions,
    measure,
    note,
    note_favourable,
)
from skfair_manifold.cli._io import (
    CLIError,
    check_columns,
    is_parquet,
    match_value,
    open_parquet,
    parquet_value,
    quote_identifier,
    write_text,
)

NOTE_PARQUET_HFM = (
    "{path} is a Parquet file, reported out of core through DuckDB: the group report "
    "only. HFM needs every row in memory and is left out (--no-hfm silences this note; "
    "give a CSV file for HFM)."
)

MSG_FAVOURABLE_CLASSES = (
    "--favourable {favourable} is for a quantity (--target-type continuous: whether a higher "
    "or a lower prediction favours a person); with class labels the favourable outcome is a "
    "class: name it with --pos-label (for 0/1 labels where 0 is favourable, --pos-label 0) "
    "and leave --favourable out, or pass --target-type continuous for a quantity."
)

#: the Python API's words for an option, and the report command's
_WORDS = (("pos_label=<", "--pos-label <"), ("pos_label=", "--pos-label "),
          ("target_type='continuous'", "--target-type continuous"),
          ("target_type='binary'", "--target-type binary"))


def report_words(message):
    """A message of the Python API in the report command's words (its options)."""
    for api, cli in _WORDS:
        message = message.replace(api, cli)
    return message


def run_report(*, file, label, prediction, sensitive, features, max_categories, method, m1,
               m2, scale, pos_label, n_boot, confidence, intersect, seed, hfm, title, quiet,
               sep, output, min_group_size, target_type, favourable):
    """The ``report`` command; returns the exit code (0), raises CLIError on bad input.

    The options are the parser's (:data:`._options.REPORT_OPTIONS`, defaults there).
    """
    if target_type != "continuous" and favourable is not None:
        raise CLIError(MSG_FAVOURABLE_CLASSES.format(favourable=favourable))
    if target_type == "continuous":
        return _continuous_report(
            file=file, label=label, prediction=prediction, sensitive=sensitive, sep=sep,
            pos_label=pos_label, n_boot=n_boot, confidence=confidence, intersect=intersect,
            hfm=hfm, title=title, quiet=quiet, output=output, min_group_size=min_group_size,
            favourable=favourable, max_categories=max_categories)
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
    except CLIError as exc:  # the library's words for the options, as the command's
        raise CLIError(report_words(str(exc))) from None
    report.provenance.update(file_provenance(file))
    report.provenance["rows_dropped"] = 0
    report.options["hfm_features"] = data["features"] if hfm else None
    for message in messages:
        note(quiet, f"warning: {message}")
    note_favourable(quiet, report, pos_label)
    write_text(output, report.to_html(title=title))
    return 0


def _continuous_report(*, file, label, prediction, sensitive, sep, pos_label, n_boot,
                       confidence, intersect, hfm, title, quiet, output, min_group_size,
                       favourable, max_categories):
    """``report --target-type continuous``: the continuous report's page of a CSV or Parquet."""
    for option, given in (("--pos-label", pos_label is not None), ("--n-boot", n_boot > 0)):
        if given:
            raise CLIError(f"{option} is for class labels; a continuous target has no "
                           f"favourable class and t intervals (leave {option} out).")
    if hfm:
        note(quiet, "HFM is not part of the continuous report yet: left out (--no-hfm "
                    "silences this note).")
    from skfair_manifold.metrics import fairness_report

    if is_parquet(file):
        data = load_parquet(file=file, label=label, prediction=prediction,
                            sensitive=sensitive, pos_label=None)
        args = (label, prediction)
        kwargs = {"sensitive_features": list(sensitive), "data": data["data"]}
    else:
        data = load_predictions(file=file, label=label, prediction=prediction,
                                sensitive=sensitive, features=None, sep=sep,
                                max_categories=max_categories, pos_label=None, quiet=quiet,
                                need_features=False)
        args = (data["y_true"], data["y_pred"])
        kwargs = {"sensitive_features": data["A"]}
    try:
        report = fairness_report(*args, target_type="continuous",
                                 favourable=favourable or "higher",
                                 intersect=intersect, confidence=confidence,
                                 min_group_size=min_group_size, **kwargs)
    except (ValueError, TypeError) as exc:
        raise CLIError(" ".join(str(exc).split())) from None
    report.provenance.update(file_provenance(file))
    for message in report.warnings:
        note(quiet, f"note: {message}")
    write_text(output, report.to_html(title=title))
    return 0


def load_parquet(*, file, label, prediction, sensitive, pos_label):
    """A Parquet file of predictions as the input of :func:`measure`, nothing read yet.

    Returns the dict of :func:`load_predictions` with ``data`` (the DuckDB
    relation) and the column names in place of the columns.
    """
    relation, _ = open_parquet(file, command="report")
    _check_used_columns(list(relation.columns), file, label, prediction, sensitive)
    if pos_label is not None:
        pos_label = parquet_value(relation, label, pos_label, "--pos-label")
    return {"data": relation, "y_true": label, "y_pred": prediction, "A": list(sensitive),
            "X": None, "features": [], "pos_label": pos_label}


def _check_used_columns(names, file, label, prediction, sensitive):
    """The label, prediction and sensitive columns among ``names``, or a CLIError."""

    class _Columns:  # check_columns reads .columns only
        columns = names

    columns = [(label, "--label"), (prediction, "--prediction")]
    columns += [(c, "--sensitive") for c in sensitive]
    check_columns(_Columns, file, columns)


#: how a value of a CSV column reads, as pandas reads it (``keep_default_na=False``)
_INT_TEXT = re.compile(r"[+-]?[0-9]+")
#: a float that pandas and DuckDB both round correctly: at most 15 digits, no exponent
_FLOAT_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)")
_TRUE_TEXT = ("True", "TRUE", "true")
_BOOL_TEXT = _TRUE_TEXT + ("False", "FALSE", "false")


def load_csv_out_of_core(*, file, label, prediction, sensitive, sep, pos_label):
    """A CSV file of predictions as a DuckDB relation for the group report, or None.

    DuckDB reads every field as text and counts the rows of each combination
    of the used columns' texts in one pass over the file (the cell table, as
    text: memory bounded by it). Each column is given the type pandas would
    give it from its distinct texts: integers, then floats, then
    ``True``/``False``, else text. The report then counts the cells' rows
    from that table, typed.
    The groups, the labels and ``--pos-label`` are thus the pandas path's
    values. Returns None, and the caller reads the file with pandas,
    whenever this reading could differ from pandas' or a check fails whose
    message names rows: standard input, a separator of more than one
    character, a header that DuckDB names otherwise, a file DuckDB cannot
    parse (malformed, not UTF-8, empty), fewer than 2 rows, a missing value,
    a value with leading or trailing white space, an integer of more than 18
    digits, a float of more than 15 digits or with an exponent, a label or
    prediction that is not a number, a sensitive column with a single value.
    A missing column is reported here, with the pandas path's message.
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
        connection.execute("SET enable_progress_bar = false")
        relation = connection.read_csv(str(file), sep=sep, header=True, all_varchar=True,
                                       quotechar='"', escapechar='"')
    except duckdb.Error:
        return None
    if list(relation.columns) != names:
        return None

    used = list(dict.fromkeys([label, prediction, *sensitive]))
    if any(c not in names for c in used):
        try:  # pandas reports an unreadable file before a missing column
            n_rows = relation.aggregate("count(*)").fetchall()[0][0]
        except duckdb.Error:
            return None
        if n_rows < 2:
            return None
    _check_used_columns(names, file, label, prediction, sensitive)
    if len(used) != 2 + len(sensitive):
        return None  # a column in two roles: read as pandas reads it
    quoted = [quote_identifier(c) for c in used]
    count = quote_identifier("rows " + "".join(used))  # names no used column has
    ordinal = quote_identifier("row " + "".join(used))
    try:  # the cell table, as text: one pass over the file
        connection.execute(f"CREATE TEMP TABLE cells AS SELECT {', '.join(quoted)}, "
                           f"count(*) AS {count} FROM relation GROUP BY ALL")
        cells = connection.sql("SELECT * FROM cells").fetchall()
    except duckdb.Error:
        return None
    n_rows = sum(row[-1] for row in cells)
    if n_rows < 2:
        return None
    texts = {c: list(dict.fromkeys(row[i] for row in cells)) for i, c in enumerate(used)}
    kinds, values = {}, {}
    for column in used:
        kind, typed = _pandas_kind(texts[column])
        if kind is None:
            return None
        if column in (label, prediction) and kind == "text":
            return None  # not a number: pandas names the row
        if column in sensitive and len(set(typed)) < 2:
            return None  # a single value: pandas names it
        kinds[column], values[column] = kind, typed
    if pos_label is not None:
        pos_label = float(match_value(list(dict.fromkeys(values[label])), pos_label,
                                      column=label, option="--pos-label"))
    # each cell's rows again (the report counts rows), from the cell table, not the file;
    # the label and the prediction as float64, as the pandas path reads them
    typed = connection.sql("SELECT " + ", ".join(
        (f"CAST({_typed(c, kinds[c])} AS DOUBLE)" if c in (label, prediction)
         else _typed(c, kinds[c])) + f" AS {quote_identifier(c)}" for c in used)
        + f" FROM range({max(row[-1] for row in cells)}) AS counter({ordinal})"
        f" JOIN cells ON {ordinal} < cells.{count}")  # streamed: memory of the cells only
    return {"data": typed, "y_true": label, "y_pred": prediction,
            "A": list(sensitive), "X": None, "features": [], "pos_label": pos_label}


def _pandas_kind(texts):
    """The kind pandas gives a column of these distinct texts, and their values as typed.

    ``(None, None)`` when pandas could read them otherwise than DuckDB or
    would report them (a missing value, white space around a value, a
    number beyond what both read alike).
    """
    if any(t is None or t != t.strip() for t in texts):
        return None, None
    if all(_INT_TEXT.fullmatch(t) for t in texts):
        if any(len(t.lstrip("+-")) > 18 for t in texts):
            return None, None
        return "int", [int(t) for t in texts]
    if all(_FLOAT_TEXT.fullmatch(t) for t in texts):
        if any(sum(ch.isdigit() for ch in t) > 15 for t in texts):
            return None, None
        return "float", [float(t) for t in texts]
    if all(t in _BOOL_TEXT for t in texts):
        return "bool", [t in _TRUE_TEXT for t in texts]
    if all(_is_float(t) for t in texts):
        return None, None  # numbers read otherwise ("2e0", "inf"): pandas' types
    return "text", list(texts)


def _is_float(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _typed(column, kind):
    q = quote_identifier(column)
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
