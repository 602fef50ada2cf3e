"""Loader of the Dutch Virtual Census of 2001 (situation-testing paper, section 5)."""

from sklearn.utils import Bunch

from ..utils._typing import PathLike
from ._base import MSG_NOT_PARSED, MSG_NOT_UTF8, _read_csv
from ._paper import PaperDataset, load_paper_dataset

_URL = (
    "https://github.com/tailequy/fairness_dataset (commit "
    "abb5a18b822ba56a221c5311082e192e85000b95: experiments/data/dutch.csv or "
    "Dutch_census/dutch_census_2001.arff)"
)
_COLUMNS = [
    "sex", "age", "household_position", "household_size", "prev_residence_place",
    "citizenship", "country_birth", "edu_level", "economic_status", "cur_eco_activity",
    "marital_status", "occupation",
]
_TARGET = "occupation"
# Codes whose order carries meaning (age bands, education levels); the others
# are nominal codes.
_ORDINAL = ["age", "edu_level"]

DESCR = """\
Dutch Virtual Census of 2001 (situation-testing paper, Zhang, Wu and Wu, section 5)
====================================================================================

60420 rows, 12 categorical attributes given as numeric codes (the paper says 60421
tuples: that is the line count of dutch.csv with its header; every public copy holds
60420 data rows). Exact duplicate rows are many and are kept.

- data: the 11 attributes other than the decision, ``sex`` included.
- target: ``occupation``; 1 = ARFF value ``2_1`` (the high-income occupations,
  taken as the positive decision), 0 = ``5_4_9``. This code-to-meaning mapping is
  an inference from the data (62.6% of men and 32.7% of women are in ``2_1``).
- sensitive: ``sex`` as ``"male"`` / ``"female"`` (ARFF codes 1 / 2);
  privileged: ``"male"``.

Both files of tailequy/fairness_dataset are read: ``dutch.csv`` (lower-case header,
sex as male/female, occupation as 1/0) and ``dutch_census_2001.arff`` (Weka ARFF,
all values codes, ``Marital_status``); the ARFF is converted to the CSV's form, so
both give the same table. Source: "The Dutch Virtual Census of 2001", IPUMS-Europe
(https://microdata.worldbank.org/index.php/catalog/2102/data-dictionary). The
source repository states no licence.
"""


def _read(filename, pd):
    """``dutch.csv`` (its header in lower case) or the Weka ARFF in the CSV's form."""
    if filename.suffix.lower() == ".arff":
        return _read_arff(filename, pd)
    frame = _read_csv(filename, pd)
    frame.columns = [c.lower() for c in frame.columns]
    return frame


def _prepare(frame, filename):
    target = frame[_TARGET].astype("int64")
    data = frame.drop(columns=_TARGET)
    data["sex"] = data["sex"].astype(str)
    return data, target, _COLUMNS


_FEATURES = [c for c in _COLUMNS if c not in ("sex", _TARGET)]

DUTCH_CENSUS = PaperDataset(
    name="Dutch census 2001", check_name="Dutch census", folder="dutch_census",
    filenames=("dutch.csv", "dutch_census_2001.arff"), url=_URL, columns=tuple(_COLUMNS),
    numeric=tuple(c for c in _COLUMNS if c != "sex"), prepare=_prepare, read=_read,
    dropna=False, target_name=_TARGET, sensitive_features=("sex",),
    privileged={"sex": "male"},
    numerical_features=tuple(c for c in _FEATURES if c in _ORDINAL),
    categorical_features=tuple(c for c in _FEATURES if c not in _ORDINAL), descr=DESCR)


def load_dutch_census(
    path: PathLike | None = None,
    *,
    data_home: PathLike | None = None,
    as_frame: bool = True,
    return_X_y: bool = False,
) -> Bunch | tuple:
    """Load the Dutch Census 2001 data used by the situation-testing paper.

    Parameters
    ----------
    path : str or os.PathLike, default=None
        The raw file: ``dutch.csv`` or ``dutch_census_2001.arff`` (a name
        ending in ``.arff`` is read as ARFF, anything else as CSV). When None,
        the file is looked for in ``data_home``.
    data_home : str or os.PathLike, default=None
        Folder holding the datasets, searched as
        ``<data_home>/dutch_census/dutch.csv``, then the ARFF, then the same
        names directly in ``data_home``. Defaults to ``$SKFAIR_MANIFOLD_DATA``,
        then ``~/skfair_manifold_data`` (see :func:`get_data_home`).
    as_frame : bool, default=True
        Return pandas objects (DataFrame / Series / DataFrame); otherwise numpy
        arrays (``data`` then has dtype object because ``sex`` holds strings).
    return_X_y : bool, default=False
        Return ``(data, target, sensitive)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``data`` (60420 x 11 attribute codes, ``sex`` included), ``target``
        (``occupation``, 1 for ``2_1``), ``sensitive`` (the ``sex`` column),
        ``feature_names``, ``target_name``, ``sensitive_features``,
        ``privileged`` (``{"sex": "male"}``), ``numerical_features`` (the
        ordinal codes ``age`` and ``edu_level``), ``categorical_features`` (the
        nominal codes), ``raw_columns``, ``DESCR`` and ``filename``.
    (data, target, sensitive) : tuple if ``return_X_y`` is True

    Raises
    ------
    FileNotFoundError
        When the file is missing; the message says where to download it.

    References
    ----------
    L. Zhang, Y. Wu and X. Wu, "Situation Testing-Based Discrimination Discovery:
    A Causal Inference Approach", IJCAI 2016, section 5.

    Examples
    --------
    >>> from skfair_manifold.datasets import load_dutch_census
    >>> dutch = load_dutch_census(data_home="../shared/datasets")  # doctest: +SKIP
    >>> dutch.data.shape, int(dutch.target.sum())  # doctest: +SKIP
    ((60420, 11), 28763)
    """
    return load_paper_dataset(DUTCH_CENSUS, path, data_home=data_home, as_frame=as_frame,
                              return_X_y=return_X_y)
def _read_arff(filename, pd):
    """Read the Weka ARFF and convert it to the form of ``dutch.csv``."""
    from scipy.io import arff

    try:
        records, _ = arff.loadarff(str(filename))
    except (ValueError, arff.ParseArffError) as exc:
        raise ValueError(MSG_NOT_PARSED.format(
            filename=filename.name, kind="Weka ARFF",
            reason=f"{exc}; a value outside its attribute's declared domain, or a broken "
                   "header")) from None
    except UnicodeDecodeError as exc:
        raise ValueError(MSG_NOT_UTF8.format(filename=filename.name,
                                             byte=hex(exc.object[exc.start]),
                                             position=exc.start)) from None
    frame = pd.DataFrame(records)
    frame.columns = [c.lower() for c in frame.columns]
    for column in frame.columns:
        # Nominal values come back as bytes.
        frame[column] = frame[column].map(
            lambda v: v.decode() if isinstance(v, bytes) else v
        )
    frame["sex"] = frame["sex"].map({"1": "male", "2": "female"})
    frame["occupation"] = frame["occupation"].map({"2_1": 1, "5_4_9": 0})
    for column in frame.columns:
        if column not in ("sex", "occupation"):
            frame[column] = frame[column].astype("int64")
    if frame[["sex", "occupation"]].isna().any().any():
        raise ValueError(
            f"{filename.name}: unexpected codes in 'sex' (expected 1, 2) or "
            "'occupation' (expected 2_1, 5_4_9)."
        )
    return frame
