"""Loader of ProPublica's COMPAS data (HFM paper: "ppr" and "ppvr")."""

from sklearn.utils import Bunch

from ..utils._typing import PathLike
from ._paper import PaperDataset, load_paper_dataset

_URL = (
    "https://github.com/propublica/compas-analysis (commit "
    "bafff5da3f2e45eca6c2d5055faad269defd135a), also byte-identical in "
    "algofairness/fairness-comparison fairness/data/raw/ as "
    "propublica-recidivism.csv / propublica-violent-recidivism.csv"
)
_KEEP = [
    "sex", "age", "age_cat", "race", "juv_fel_count", "juv_misd_count",
    "juv_other_count", "priors_count", "c_charge_degree", "c_charge_desc",
    "decile_score", "score_text", "two_year_recid", "days_b_screening_arrest",
    "is_recid",
]
_DROPPED = ["days_b_screening_arrest", "is_recid", "decile_score", "score_text"]
_CATEGORICAL = ["age_cat", "c_charge_degree", "c_charge_desc"]
_NUMERICAL = ["age", "juv_fel_count", "juv_misd_count", "juv_other_count", "priors_count"]
_TARGET = "two_year_recid"

_FILES = {
    False: ("compas_recid", ["compas-scores-two-years.csv", "propublica-recidivism.csv"]),
    True: ("compas_violent",
           ["compas-scores-two-years-violent.csv", "propublica-violent-recidivism.csv"]),
}

DESCR = """\
ProPublica COMPAS, Broward County (HFM paper: "ppr" and, with violent=True, "ppvr")
==================================================================================

Files: compas-scores-two-years.csv (7214 rows; "ppr") and
compas-scores-two-years-violent.csv (4743 rows; "ppvr", where ``two_year_recid`` is
*violent* recidivism within two years; its duplicated column ``two_year_recid.1`` is
ignored).

Preprocessing (fairness-comparison's PropublicaRecidivism / ...ViolentRecidivism,
copied by the HFM authors):
1. keep sex, age, age_cat, race, juv_fel_count, juv_misd_count, juv_other_count,
   priors_count, c_charge_degree, c_charge_desc, decile_score, score_text,
   two_year_recid, days_b_screening_arrest, is_recid;
2. drop rows with a missing value (pandas reads the literal ``N/A`` of score_text
   as missing);
3. ProPublica's filter: -30 <= days_b_screening_arrest <= 30, is_recid != -1,
   c_charge_degree != "O", score_text != "N/A";
4. drop days_b_screening_arrest, is_recid, decile_score, score_text.
This leaves 6167 rows (ppr) or 4010 rows (ppvr) and 11 raw columns, label included.
ProPublica's filter alone gives the usual 6172; the 5 extra rows lack c_charge_desc.

- target: ``two_year_recid``, 1 = re-offended (the unfavourable outcome; the
  paper's code takes 1 as the positive label). ppr: 2809 of 6167; ppvr: 652 of 4010.
- sensitive (two): ``sex``, privileged "Male" (ppr 4994, ppvr 3173); ``race``
  (six values), privileged "Caucasian" (ppr 2100, ppvr 1452). Both privileged:
  1620 / 1119; either: 5474 / 3506.
- numerical (5): age, juv_fel_count, juv_misd_count, juv_other_count,
  priors_count; categorical (3): age_cat, c_charge_degree, c_charge_desc.
  One-hot encoding gives 401 (ppr) or 327 (ppvr) processed features (Table I),
  each sensitive attribute counted as one column.

Source: propublica/compas-analysis ("Machine Bias"); the repository has no licence
file and states no terms of use.
"""


def _prepare(frame, filename):
    frame = frame[
        frame["days_b_screening_arrest"].between(-30, 30)
        & (frame["is_recid"] != -1)
        & (frame["c_charge_degree"] != "O")
        & (frame["score_text"] != "N/A")
    ]
    frame = frame.drop(columns=_DROPPED)
    target = frame[_TARGET].astype("int64")
    return frame.drop(columns=_TARGET), target, list(frame.columns)


#: the two variants, by ``violent``
COMPAS = {
    violent: PaperDataset(
        name="COMPAS violent recidivism" if violent else "COMPAS recidivism",
        folder=folder, filenames=tuple(names), url=_URL, columns=tuple(_KEEP),
        numeric=(*_NUMERICAL, "days_b_screening_arrest", "is_recid", _TARGET),
        prepare=_prepare, target_name=_TARGET, sensitive_features=("sex", "race"),
        privileged={"sex": "Male", "race": "Caucasian"},
        numerical_features=tuple(_NUMERICAL), categorical_features=tuple(_CATEGORICAL),
        descr=DESCR)
    for violent, (folder, names) in _FILES.items()
}


def load_compas(
    path: PathLike | None = None,
    *,
    violent: bool = False,
    data_home: PathLike | None = None,
    as_frame: bool = True,
    return_X_y: bool = False,
) -> Bunch | tuple:
    """Load ProPublica's COMPAS recidivism data, preprocessed as in the HFM paper.

    Parameters
    ----------
    path : str or os.PathLike, default=None
        The raw file (``compas-scores-two-years.csv``, or
        ``compas-scores-two-years-violent.csv`` when ``violent=True``). When
        None, looked for in ``data_home``.
    violent : bool, default=False
        False: general recidivism ("ppr" in the paper). True: violent
        recidivism ("ppvr").
    data_home : str or os.PathLike, default=None
        Folder holding the datasets, searched as
        ``<data_home>/compas_recid/compas-scores-two-years.csv`` (or
        ``compas_violent/compas-scores-two-years-violent.csv``), then the
        fairness-comparison names ``propublica-recidivism.csv`` /
        ``propublica-violent-recidivism.csv``, then the same names directly in
        ``data_home``. Defaults to ``$SKFAIR_MANIFOLD_DATA``, then
        ``~/skfair_manifold_data``.
    as_frame : bool, default=True
        Return pandas objects; otherwise numpy arrays (``data`` of dtype object).
    return_X_y : bool, default=False
        Return ``(data, target, sensitive)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``data`` (6167 or 4010 rows x 10, ``sex`` and ``race`` included),
        ``target`` (``two_year_recid``, 1 = re-offended), ``sensitive``
        (``sex``, ``race``), ``feature_names``, ``target_name``,
        ``sensitive_features``, ``privileged``
        (``{"sex": "Male", "race": "Caucasian"}``), ``numerical_features``,
        ``categorical_features``, ``raw_columns``, ``DESCR`` and ``filename``.
    (data, target, sensitive) : tuple if ``return_X_y`` is True

    Raises
    ------
    FileNotFoundError
        When the file is missing; the message says where to download it.

    References
    ----------
    Table I of the HFM paper; J. Angwin, J. Larson, S. Mattu and L. Kirchner,
    "Machine Bias", ProPublica, 2016.

    Examples
    --------
    >>> from skfair_manifold.datasets import load_compas
    >>> ppvr = load_compas(violent=True, data_home="../shared/datasets")  # doctest: +SKIP
    >>> ppvr.data.shape  # doctest: +SKIP
    (4010, 10)
    """
    if not isinstance(violent, bool):
        raise TypeError(f"violent must be True or False; got {violent!r}.")
    return load_paper_dataset(COMPAS[violent], path, data_home=data_home, as_frame=as_frame,
                              return_X_y=return_X_y)
