"""Loader of the Statlog German credit data (HFM paper: "credit")."""

from sklearn.utils import Bunch

from ..utils._typing import PathLike
from ._paper import PaperDataset, load_paper_dataset
from ._ricci import URL_FAIRNESS_COMPARISON

_KEEP = [
    "status", "month", "credit_history", "purpose", "credit_amount", "savings",
    "employment", "investment_as_income_percentage", "personal_status", "other_debtors",
    "residence_since", "property", "age", "installment_plans", "housing",
    "number_of_credits", "skill_level", "people_liable_for", "telephone",
    "foreign_worker", "credit",
]
_CATEGORICAL = [
    "status", "credit_history", "purpose", "savings", "employment", "other_debtors",
    "property", "installment_plans", "housing", "skill_level", "telephone",
    "foreign_worker",
]
_NUMERICAL = [
    "month", "credit_amount", "investment_as_income_percentage", "residence_since",
    "number_of_credits", "people_liable_for",
]
_SEX = {"A91": "male", "A93": "male", "A94": "male", "A92": "female", "A95": "female"}

DESCR = """\
Statlog (German Credit Data) (HFM paper: "credit")
==================================================

1000 rows. Raw columns (21): the 20 UCI attributes with readable names and ``credit``.
Values use the UCI codes (A11 ...; see german.txt). No missing values.

- target: ``credit``; 1 = good (700 rows), 0 = bad (file code 2, 300 rows).
- sensitive (two):
  ``sex`` derived from ``personal_status`` (A91, A93, A94 -> "male"; A92, A95 ->
  "female"), which it replaces: privileged "male" (690);
  ``age`` replaced by "adult" if age >= 25 else "youth" (the numeric age is not
  kept, as in the paper's code): privileged "adult" (851). Note ``>= 25``: a strict
  ``> 25`` gives 810 and does not match Table I. Both privileged: 625; either: 916.
- numerical (6): month, credit_amount, investment_as_income_percentage,
  residence_since, number_of_credits, people_liable_for; categorical (12): status,
  credit_history, purpose, savings, employment, other_debtors, property,
  installment_plans, housing, skill_level, telephone, foreign_worker. One-hot
  encoding gives 58 processed features (Table I), each sensitive attribute counted
  as one column.

Preprocessing: fairness-comparison's ``German`` class, copied by the HFM authors.
File: fairness/data/raw/german.csv of algofairness/fairness-comparison. Source: UCI
Statlog (German Credit Data), Prof. Dr. Hans Hofmann, Universitaet Hamburg.
"""


def _prepare(frame, filename):
    sex = frame["personal_status"].map(_SEX)
    if sex.isna().any():
        bad = sorted(set(frame.loc[sex.isna(), "personal_status"].astype(str)))
        raise ValueError(f"{filename.name}: unknown personal_status code(s) {bad!r}.")
    frame = frame.assign(
        personal_status=sex,
        age=(frame["age"] >= 25).map({True: "adult", False: "youth"}),
    ).rename(columns={"personal_status": "sex"})
    target = (frame["credit"] == 1).astype("int64")
    return frame.drop(columns="credit"), target, list(frame.columns)


GERMAN_CREDIT = PaperDataset(
    name="German credit", folder="german_credit", filenames=("german.csv",),
    url=URL_FAIRNESS_COMPARISON, columns=tuple(_KEEP),
    numeric=(*_NUMERICAL, "age", "credit"), prepare=_prepare, target_name="credit",
    sensitive_features=("sex", "age"), privileged={"sex": "male", "age": "adult"},
    numerical_features=tuple(_NUMERICAL), categorical_features=tuple(_CATEGORICAL),
    descr=DESCR)


def load_german_credit(
    path: PathLike | None = None,
    *,
    data_home: PathLike | None = None,
    as_frame: bool = True,
    return_X_y: bool = False,
) -> Bunch | tuple:
    """Load the German credit data, preprocessed as in the HFM paper.

    Parameters
    ----------
    path : str or os.PathLike, default=None
        The raw ``german.csv`` (fairness-comparison's copy, with a header of
        readable names). When None, looked for in ``data_home``.
    data_home : str or os.PathLike, default=None
        Folder holding the datasets, searched as
        ``<data_home>/german_credit/german.csv`` then ``<data_home>/german.csv``.
        Defaults to ``$SKFAIR_MANIFOLD_DATA``, then ``~/skfair_manifold_data``.
    as_frame : bool, default=True
        Return pandas objects; otherwise numpy arrays (``data`` of dtype object).
    return_X_y : bool, default=False
        Return ``(data, target, sensitive)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``data`` (1000 x 20, ``sex`` and ``age`` groups included), ``target``
        (``credit``, 1 = good), ``sensitive`` (``sex``, ``age``),
        ``feature_names``, ``target_name``, ``sensitive_features``,
        ``privileged`` (``{"sex": "male", "age": "adult"}``),
        ``numerical_features``, ``categorical_features``, ``raw_columns``,
        ``DESCR`` and ``filename``.
    (data, target, sensitive) : tuple if ``return_X_y`` is True

    Raises
    ------
    FileNotFoundError
        When the file is missing; the message says where to download it.

    References
    ----------
    Table I of the HFM paper; F. Kamiran and T. Calders, "Classifying without
    discriminating", 2009 (the age cut at 25).

    Examples
    --------
    >>> from skfair_manifold.datasets import load_german_credit
    >>> credit = load_german_credit(data_home="../shared/datasets")  # doctest: +SKIP
    >>> (credit.sensitive == credit.privileged).sum().to_dict()  # doctest: +SKIP
    {'sex': 690, 'age': 851}
    """
    return load_paper_dataset(GERMAN_CREDIT, path, data_home=data_home, as_frame=as_frame,
                              return_X_y=return_X_y)
