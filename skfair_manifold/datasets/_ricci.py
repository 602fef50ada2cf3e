"""Loader of the Ricci v. DeStefano promotion exam data (HFM paper: "ricci")."""

from sklearn.utils import Bunch

from ..utils._typing import PathLike
from ._paper import PaperDataset, load_paper_dataset

URL_FAIRNESS_COMPARISON = (
    "https://github.com/algofairness/fairness-comparison (commit "
    "80b34d25bb9b0387691c6cb8651f0e40edd262c8, folder fairness/data/raw/)"
)
_KEEP = ["Position", "Oral", "Written", "Race", "Combine"]

DESCR = """\
Ricci v. DeStefano promotion exams (HFM paper: "ricci")
=======================================================

118 rows. Raw columns (5): Position, Oral, Written, Race, Combine. No missing values.

- target: ``Class`` = 1 if ``Combine >= 70`` (a pass, after Miao 2010), else 0:
  56 pass, 62 fail. ``Combine`` stays a feature, as in the paper's code, so the
  label is a deterministic function of a feature.
- sensitive: ``Race`` (W 68, B 27, H 23); privileged ``"W"``.
- numerical: Oral, Written, Combine; categorical: Position (Captain, Lieutenant).
  One-hot encoding gives 6 processed features (Table I), Race counted as one column.

Preprocessing: fairness-comparison's ``Ricci`` class, copied by the HFM authors
(eustomaqua/ApproxBias, experiment/datasets.py). File: fairness/data/raw/ricci.csv of
algofairness/fairness-comparison. Data from the district court's decision, briefs and
appendices in Ricci v. DeStefano, 554 F. Supp. 2d 142 (D. Conn.), submitted by Weiwen
Miao; no licence is stated.
"""


def _prepare(frame, filename):
    return frame, (frame["Combine"] >= 70.0).astype("int64"), _KEEP


RICCI = PaperDataset(
    name="Ricci", folder="ricci", filenames=("ricci.csv",), url=URL_FAIRNESS_COMPARISON,
    columns=tuple(_KEEP), numeric=("Oral", "Written", "Combine"), prepare=_prepare,
    target_name="Class", sensitive_features=("Race",), privileged={"Race": "W"},
    numerical_features=("Oral", "Written", "Combine"), categorical_features=("Position",),
    descr=DESCR)


def load_ricci(
    path: PathLike | None = None,
    *,
    data_home: PathLike | None = None,
    as_frame: bool = True,
    return_X_y: bool = False,
) -> Bunch | tuple:
    """Load the Ricci promotion exam data, preprocessed as in the HFM paper.

    Parameters
    ----------
    path : str or os.PathLike, default=None
        The raw ``ricci.csv``. When None, looked for in ``data_home``.
    data_home : str or os.PathLike, default=None
        Folder holding the datasets, searched as ``<data_home>/ricci/ricci.csv``
        then ``<data_home>/ricci.csv``. Defaults to ``$SKFAIR_MANIFOLD_DATA``,
        then ``~/skfair_manifold_data`` (see :func:`get_data_home`).
    as_frame : bool, default=True
        Return pandas objects; otherwise numpy arrays (``data`` of dtype
        object, since it mixes strings and numbers).
    return_X_y : bool, default=False
        Return ``(data, target, sensitive)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``data`` (118 x 5, ``Race`` included), ``target`` (``Class``, 1 = pass),
        ``sensitive`` (``Race``), ``feature_names``, ``target_name``,
        ``sensitive_features``, ``privileged`` (``{"Race": "W"}``),
        ``numerical_features``, ``categorical_features``, ``raw_columns``,
        ``DESCR`` and ``filename``. Feed the feature lists to
        :func:`make_paper_preprocessor` to scale and encode.
    (data, target, sensitive) : tuple if ``return_X_y`` is True

    Raises
    ------
    FileNotFoundError
        When the file is missing; the message says where to download it.

    References
    ----------
    Table I of the HFM paper; W. Miao, "Did the results of promotion exams have a
    disparate impact on minorities? Using statistical evidence in Ricci v.
    DeStefano", Journal of Statistics Education 18(3), 2010.

    Examples
    --------
    >>> from skfair_manifold.datasets import load_ricci
    >>> ricci = load_ricci(data_home="../shared/datasets")  # doctest: +SKIP
    >>> ricci.data.shape, ricci.sensitive["Race"].value_counts()["W"]  # doctest: +SKIP
    ((118, 5), 68)
    """
    return load_paper_dataset(RICCI, path, data_home=data_home, as_frame=as_frame,
                              return_X_y=return_X_y)
