"""PaperDataset: what the loader of one paper data set declares, and the one load of them all.

Every loader of the papers' data sets takes the same steps: check its
arguments, find the file (``path``, else ``data_home``), read it, check that
the columns it needs are there and numeric where they must be, keep those
columns (without the rows that miss a value), make the target and return the
Bunch or ``(X, y, A)``. :func:`load_paper_dataset` takes them; a data set
declares only what is its own (:class:`PaperDataset`): its file, its columns
and ``prepare``, the rows it keeps and how its target is made.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from ._base import (
    _check_columns,
    _check_loader_args,
    _check_numeric,
    _find_file,
    _import_pandas,
    _make_bunch,
    _read_csv,
)


@dataclass(frozen=True)
class PaperDataset:
    """One data set of the papers, as its loader declares it.

    ``prepare(frame, filename)`` receives the checked table (the ``columns``
    only, rows with a missing value dropped when ``dropna``) and returns
    ``(data, target, raw_columns)``: the features with the sensitive
    columns, the 0/1 target, and the raw columns the preprocessing kept.
    ``read(filename, pd)`` reads a file that is not a plain CSV (default:
    pandas' reader with ``read_options``). ``check_name`` names the data set
    in the column checks' messages when it differs from ``name``.
    """

    name: str
    folder: str
    filenames: tuple
    url: str
    columns: tuple
    numeric: tuple
    prepare: Callable
    target_name: str
    sensitive_features: tuple
    privileged: dict
    numerical_features: tuple
    categorical_features: tuple
    descr: str
    read: Callable | None = None
    read_options: dict = field(default_factory=dict)
    check_name: str | None = None
    dropna: bool = True


def load_paper_dataset(dataset, path, *, data_home, as_frame, return_X_y):
    """Read, check and prepare ``dataset`` (a :class:`PaperDataset`); a loader's result."""
    _check_loader_args(path, data_home, as_frame, return_X_y)
    pd = _import_pandas()
    filename = _find_file(path, data_home, dataset=dataset.name, folder=dataset.folder,
                          filenames=list(dataset.filenames), url=dataset.url)
    if dataset.read is not None:
        frame = dataset.read(filename, pd)
    else:
        frame = _read_csv(filename, pd, **dataset.read_options)
    name = dataset.check_name or dataset.name
    _check_columns(frame, list(dataset.columns), filename=filename.name, dataset=name)
    _check_numeric(frame, list(dataset.numeric), filename=filename.name, dataset=name)
    frame = frame[list(dataset.columns)]
    if dataset.dropna:
        frame = frame.dropna()
    data, target, raw_columns = dataset.prepare(frame, filename)
    return _make_bunch(
        data,
        target=target,
        target_name=dataset.target_name,
        sensitive_features=list(dataset.sensitive_features),
        privileged=dataset.privileged,
        numerical_features=list(dataset.numerical_features),
        categorical_features=list(dataset.categorical_features),
        raw_columns=raw_columns,
        descr=dataset.descr,
        filename=filename,
        as_frame=as_frame,
        return_X_y=return_X_y,
    )
