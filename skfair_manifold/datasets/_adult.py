"""Loader of the UCI Adult census income data (HFM paper: "income")."""

from sklearn.utils import Bunch

from ..utils._typing import PathLike
from ._paper import PaperDataset, load_paper_dataset
from ._ricci import URL_FAIRNESS_COMPARISON

_KEEP = [
    "age", "workclass", "education", "education-num", "marital-status", "occupation",
    "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
    "native-country", "income-per-year",
]
_CATEGORICAL = [
    "workclass", "education", "marital-status", "occupation", "relationship",
    "native-country",
]
_NUMERICAL = ["age", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
_TARGET = "income-per-year"

DESCR = """\
UCI Adult / Census Income, training split (HFM paper: "income")
===============================================================

32561 rows in the file (UCI adult.data with a header); 30162 after preprocessing.
Raw columns kept (14): age, workclass, education, education-num, marital-status,
occupation, relationship, race, sex, capital-gain, capital-loss, hours-per-week,
native-country, income-per-year (``fnlwgt`` is dropped).

Preprocessing: ``?`` is a missing value; every row with one is dropped (2399 rows).

- target: ``income-per-year``; 1 = ``>50K`` (7508), 0 = ``<=50K`` (22654).
- sensitive (two): ``race``, privileged "White" (25933 of 30162); ``sex``,
  privileged "Male" (20380). Both privileged: 18038; either: 28275.
- numerical (5): age, education-num, capital-gain, capital-loss, hours-per-week;
  categorical (6): workclass, education, marital-status, occupation, relationship,
  native-country. One-hot encoding gives 98 processed features (Table I), each
  sensitive attribute counted as one column.

Preprocessing: fairness-comparison's ``Adult`` class, copied by the HFM authors. File:
fairness/data/raw/adult.csv of algofairness/fairness-comparison. Source: UCI Machine
Learning Repository, "Census Income" (Becker and Kohavi, 1996).
"""


def _prepare(frame, filename):
    # The UCI test split writes ">50K." with a full stop.
    labels = frame[_TARGET].astype(str).str.rstrip(".")
    target = (labels == ">50K").astype("int64")
    return frame.drop(columns=_TARGET), target, _KEEP


ADULT = PaperDataset(
    name="Adult", folder="adult", filenames=("adult.csv",), url=URL_FAIRNESS_COMPARISON,
    columns=tuple(_KEEP), numeric=tuple(_NUMERICAL), prepare=_prepare, target_name=_TARGET,
    sensitive_features=("race", "sex"), privileged={"race": "White", "sex": "Male"},
    numerical_features=tuple(_NUMERICAL), categorical_features=tuple(_CATEGORICAL),
    descr=DESCR, read_options={"na_values": "?", "skipinitialspace": True})


def load_adult(
    path: PathLike | None = None,
    *,
    data_home: PathLike | None = None,
    as_frame: bool = True,
    return_X_y: bool = False,
) -> Bunch | tuple:
    """Load the Adult census income data, preprocessed as in the HFM paper.

    Parameters
    ----------
    path : str or os.PathLike, default=None
        The raw ``adult.csv`` (UCI ``adult.data`` with a header row). When
        None, looked for in ``data_home``.
    data_home : str or os.PathLike, default=None
        Folder holding the datasets, searched as ``<data_home>/adult/adult.csv``
        then ``<data_home>/adult.csv``. Defaults to ``$SKFAIR_MANIFOLD_DATA``,
        then ``~/skfair_manifold_data``.
    as_frame : bool, default=True
        Return pandas objects; otherwise numpy arrays (``data`` of dtype object).
    return_X_y : bool, default=False
        Return ``(data, target, sensitive)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``data`` (30162 x 13, ``race`` and ``sex`` included), ``target``
        (``income-per-year``, 1 = ``>50K``), ``sensitive`` (``race``, ``sex``),
        ``feature_names``, ``target_name``, ``sensitive_features``,
        ``privileged`` (``{"race": "White", "sex": "Male"}``),
        ``numerical_features``, ``categorical_features``, ``raw_columns``,
        ``DESCR`` and ``filename``.
    (data, target, sensitive) : tuple if ``return_X_y`` is True

    Raises
    ------
    FileNotFoundError
        When the file is missing; the message says where to download it.

    References
    ----------
    Table I of the HFM paper; R. Kohavi, "Scaling up the accuracy of naive-Bayes
    classifiers: a decision-tree hybrid", KDD 1996.

    Examples
    --------
    >>> from skfair_manifold.datasets import load_adult
    >>> X, y, A = load_adult(data_home="../shared/datasets", return_X_y=True)  # doctest: +SKIP
    >>> X.shape, int(y.sum())  # doctest: +SKIP
    ((30162, 13), 7508)
    """
    return load_paper_dataset(ADULT, path, data_home=data_home, as_frame=as_frame,
                              return_X_y=return_X_y)
