"""The ``report`` command: a self-contained HTML fairness report of a file of predictions.

A CSV file is read into memory (pandas) and reported in full, HFM included.
A Parquet file is reported out of core: DuckDB (embedded) aggregates it into
the cell table that the group report needs, so a file larger than memory is
reported with memory bounded by that table. HFM needs every row in memory
and in order, so it is left out for a Parquet file, with a note.
"""

from skfair_manifold.cli._hfm import file_provenance, load_predictions, measure, note
from skfair_manifold.cli._io import (
    CLIError,
    check_columns,
    is_parquet,
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
