"""Shared machinery of the dataset loaders: where files live, checks, the Bunch.

Every loader follows one path: find the raw file (``path`` or ``data_home``),
read it with pandas, apply the dataset's documented preprocessing, and hand
the cleaned table to :func:`_make_bunch`, which builds the ``Bunch`` or the
``(X, y, A)`` tuple. Encoding and scaling are *not* applied by the loaders:
they are learned on training folds through :func:`make_paper_preprocessor`.
"""

import os
from pathlib import Path
from typing import TYPE_CHECKING

from sklearn.utils import Bunch

from ..utils._typing import PathLike
from ..utils._validation import as_column_list

if TYPE_CHECKING:  # pragma: no cover
    from sklearn.compose import ColumnTransformer

ENV_DATA_HOME = "SKFAIR_MANIFOLD_DATA"

MSG_BOOL = "{name} must be True or False; got {value!r}."
MSG_PATH_TYPE = "{name} must be a str or os.PathLike, or None; got {type}."
MSG_PATH_IS_DIR = (
    "path {path!r} is a folder; pass the raw file itself as path=, or the folder that "
    "holds the datasets as data_home=."
)
MSG_NOT_FOUND = (
    "The {dataset} raw file was not found. Looked for: {tried}.\n"
    "Get {filename!r} from {url}\n"
    "and either pass its location as path=, or place it at "
    "<data_home>/{folder}/{filename} (data_home defaults to ${env}, then "
    "~/skfair_manifold_data)."
)
MSG_PANDAS = (
    "The dataset loaders need pandas (pip install 'skfair_manifold[pandas]' or "
    "pip install pandas)."
)
MSG_COLUMNS = (
    "{filename}: the file lacks the column(s) {missing!r} that the {dataset} "
    "preprocessing needs; is it the right file?"
)
MSG_SENSITIVE_OPTION = "sensitive must be one of {options!r}; got {value!r}."
MSG_EMPTY_FILE = "{filename}: the file is empty (no header, no rows); is it the right file?"
MSG_NOT_UTF8 = (
    "{filename}: the file is not UTF-8 text (byte {byte} at position {position}); re-save it "
    "as UTF-8 (CSV UTF-8 in a spreadsheet), or check that it is the right file."
)
MSG_NOT_PARSED = "{filename}: the file could not be read as {kind} ({reason}); is it the right file?"
MSG_NOT_NUMERIC_COLUMN = (
    "{filename}: column {column!r} must hold numbers for the {dataset} preprocessing, but "
    "row {row} (line {line} of the file) holds {value!r}; is it the right file?"
)

_SENSITIVE_OPTIONS = ("drop", "ordinal", "onehot")


def get_data_home(data_home: PathLike | None = None) -> Path:
    """Return the folder that holds the raw data files.

    Parameters
    ----------
    data_home : str or os.PathLike, default=None
        The folder. When None, the environment variable
        ``SKFAIR_MANIFOLD_DATA`` is used if set, else ``~/skfair_manifold_data``.
        The folder is not created: the loaders never download anything.

    Returns
    -------
    data_home : pathlib.Path
        The folder, with ``~`` expanded.

    Examples
    --------
    >>> from skfair_manifold.datasets import get_data_home
    >>> get_data_home("/data/fairness").as_posix()
    '/data/fairness'
    """
    _check_path(data_home, "data_home")
    if data_home is None:
        data_home = os.environ.get(ENV_DATA_HOME) or os.path.join("~", "skfair_manifold_data")
    return Path(data_home).expanduser()


def _check_bool(value, name):
    if not isinstance(value, bool):
        raise TypeError(MSG_BOOL.format(name=name, value=value))


def _check_path(value, name):
    if value is not None and not isinstance(value, (str, os.PathLike)):
        raise TypeError(MSG_PATH_TYPE.format(name=name, type=type(value).__name__))


def _check_loader_args(path, data_home, as_frame, return_X_y):
    _check_path(path, "path")
    _check_path(data_home, "data_home")
    _check_bool(as_frame, "as_frame")
    _check_bool(return_X_y, "return_X_y")


def _import_pandas():
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas is installed in CI
        raise ImportError(MSG_PANDAS) from exc
    return pd


def _find_file(path, data_home, *, dataset, folder, filenames, url):
    """Locate a raw file: ``path`` if given, else ``data_home/folder/name``.

    ``filenames`` lists accepted names in order of preference; the flat layout
    ``data_home/name`` is accepted too. Raises FileNotFoundError naming every
    place looked at and where to download the file.
    """
    if path is not None:
        candidate = Path(path).expanduser()
        if candidate.is_dir():
            raise FileNotFoundError(MSG_PATH_IS_DIR.format(path=str(path)))
        tried = [candidate]
    else:
        home = get_data_home(data_home)
        tried = [home / folder / name for name in filenames]
        tried += [home / name for name in filenames]
    for candidate in tried:
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        MSG_NOT_FOUND.format(
            dataset=dataset,
            tried=", ".join(str(t) for t in tried),
            filename=filenames[0],
            url=url,
            folder=folder,
            env=ENV_DATA_HOME,
        )
    )


def _check_columns(frame, required, *, filename, dataset):
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ValueError(MSG_COLUMNS.format(filename=filename, missing=missing, dataset=dataset))


def _make_bunch(
    frame,
    *,
    target,
    target_name,
    sensitive_features,
    privileged,
    numerical_features,
    categorical_features,
    raw_columns,
    descr,
    filename,
    as_frame,
    return_X_y,
):
    """Assemble what every loader returns from a cleaned table.

    ``frame`` holds the features only (sensitive attributes included, target
    excluded), with a fresh 0..n-1 index. ``target`` is a 0/1 Series.
    """
    frame = frame.reset_index(drop=True)
    target = target.reset_index(drop=True).astype("int64").rename(target_name)
    sensitive = frame[list(sensitive_features)].copy()
    feature_names = list(frame.columns)
    if as_frame:
        X, y, A = frame, target, sensitive
    else:
        X, y, A = frame.to_numpy(), target.to_numpy(), sensitive.to_numpy()
    if return_X_y:
        return X, y, A
    return Bunch(
        data=X,
        target=y,
        sensitive=A,
        feature_names=feature_names,
        target_name=target_name,
        sensitive_features=list(sensitive_features),
        privileged=dict(privileged),
        numerical_features=list(numerical_features),
        categorical_features=list(categorical_features),
        raw_columns=list(raw_columns),
        DESCR=descr,
        filename=str(filename),
    )


def make_paper_preprocessor(
    numerical_features: list,
    categorical_features: list,
    *,
    sensitive_features: list | tuple = (),
    sensitive: str = "drop",
) -> "ColumnTransformer":
    """Scale to [0, 1] and one-hot encode, as in the HFM paper's experiments.

    The HFM paper (section 4.1, "Implementation details") scales every feature
    to lie between 0 and 1 and one-hot encodes the categorical ones; the
    sensitive attributes are kept apart from the features that the distances
    use. This returns an unfitted scikit-learn ``ColumnTransformer`` doing
    exactly that, to be fitted on the training fold (inside a ``Pipeline`` it
    is refitted on each fold of a cross-validation).

    Parameters
    ----------
    numerical_features : list of str
        Columns scaled by ``MinMaxScaler``: the range seen in fit is mapped to
        [0, 1] (not clipped: rows transformed later may fall outside, as in
        the paper's code).
    categorical_features : list of str
        Columns one-hot encoded by ``OneHotEncoder`` (dense output, one column
        per category seen in the training data, unseen categories ignored).
    sensitive_features : list of str, default=()
        The sensitive columns. Their treatment is set by ``sensitive``.
    sensitive : {"drop", "ordinal", "onehot"}, default="drop"
        - ``"drop"``: leave them out. This gives the features x-breve of the
          paper (Eq. 1-9), on which the distances between groups are computed.
        - ``"ordinal"``: one column per attribute holding integer group codes
          (``OrdinalEncoder``, values in sorted order), not scaled, like the
          authors' "numerical-multisen" table. This is how Table I counts
          "processed" features.
        - ``"onehot"``: one-hot encode them like the categorical features.

    Returns
    -------
    preprocessor : sklearn.compose.ColumnTransformer
        Unfitted; ``verbose_feature_names_out=False`` so that output names are
        the input names (``"Race"``) or ``"<column>_<category>"``. Columns not
        listed are dropped.

    References
    ----------
    Section 4.1 (Implementation details) and Table I of the HFM paper,
    "Approximating Discrimination Within Models When Faced With Several
    Non-Binary Sensitive Attributes".

    Examples
    --------
    >>> import pandas as pd
    >>> from skfair_manifold.datasets import make_paper_preprocessor
    >>> X = pd.DataFrame({"score": [50.0, 75.0, 100.0],
    ...                   "position": ["Captain", "Lieutenant", "Captain"],
    ...                   "race": ["W", "B", "H"]})
    >>> pre = make_paper_preprocessor(["score"], ["position"], sensitive_features=["race"],
    ...                               sensitive="ordinal")
    >>> pre.fit_transform(X)
    array([[0. , 1. , 0. , 2. ],
           [0.5, 0. , 1. , 0. ],
           [1. , 1. , 0. , 1. ]])
    >>> list(pre.get_feature_names_out())
    ['score', 'position_Captain', 'position_Lieutenant', 'race']
    """
    from sklearn.compose import ColumnTransformer
    from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, OrdinalEncoder

    if sensitive not in _SENSITIVE_OPTIONS:
        raise ValueError(MSG_SENSITIVE_OPTION.format(options=_SENSITIVE_OPTIONS, value=sensitive))
    numerical_features = as_column_list(numerical_features, "numerical_features")
    categorical_features = as_column_list(categorical_features, "categorical_features")
    sensitive_features = as_column_list(sensitive_features, "sensitive_features")

    def onehot():
        return OneHotEncoder(handle_unknown="ignore", sparse_output=False)

    transformers = []
    if numerical_features:
        transformers.append(("numerical", MinMaxScaler(), numerical_features))
    if categorical_features:
        transformers.append(("categorical", onehot(), categorical_features))
    if sensitive_features and sensitive == "onehot":
        transformers.append(("sensitive", onehot(), sensitive_features))
    elif sensitive_features and sensitive == "ordinal":
        transformers.append((
            "sensitive",
            OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
            sensitive_features,
        ))
    return ColumnTransformer(
        transformers, remainder="drop", verbose_feature_names_out=False
    )


def _read_csv(filename, pd, **kwargs):
    """``pd.read_csv`` with its failures turned into one clear ``ValueError``."""
    try:
        return pd.read_csv(filename, **kwargs)
    except pd.errors.EmptyDataError:
        raise ValueError(MSG_EMPTY_FILE.format(filename=Path(filename).name)) from None
    except UnicodeDecodeError as exc:
        raise ValueError(MSG_NOT_UTF8.format(
            filename=Path(filename).name, byte=hex(exc.object[exc.start]),
            position=exc.start)) from None
    except pd.errors.ParserError as exc:
        raise ValueError(MSG_NOT_PARSED.format(
            filename=Path(filename).name, kind="CSV",
            reason=str(exc).strip().splitlines()[-1])) from None


def _check_numeric(frame, columns, *, filename, dataset):
    """Every column in ``columns`` holds numbers (missing values are handled elsewhere)."""
    pd = _import_pandas()
    for column in columns:
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values.dtype):
            continue
        converted = pd.to_numeric(values, errors="coerce")
        bad = converted.isna() & values.notna()
        if bad.any():
            row = int(bad.to_numpy().nonzero()[0][0])
            raise ValueError(MSG_NOT_NUMERIC_COLUMN.format(
                filename=filename, column=column, dataset=dataset, row=row, line=row + 2,
                value=values.iloc[row]))
        frame[column] = converted
