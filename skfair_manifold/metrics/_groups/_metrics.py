"""Group fairness baselines: demographic parity, equal opportunity, predictive quality parity.

Each is the largest gap of a per-group rate, for any number of groups and any
number of sensitive attributes (one gap per attribute, then the maximum or the
mean over attributes). The rates come from the cell table of :mod:`._cells` (one
count per group combination, true label and prediction), never from a Python
loop over groups. The groups compared are :func:`fairness_report`'s, by the
same rule and default (``min_group_size``), so a metric is the report's gap.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import Any, Literal

import numpy as np
from ...utils._docstring import Substitution
from ...utils._typing import ArrayLike, Label, SensitiveLike
from ...utils._sklearn_compat import Interval, StrOptions, validate_params
from ...utils._validation import check_pair, check_sample_weight
from ._cells import rows_cell_table
from ._frame_cells import frame_cell_table
from .._frames import MSG_NEED_DATA, FrameConstraint
from ._engine import MIN_GROUP_SIZE, rate_gaps
from ._rates import GAP_RATES
from .._common import UndefinedFairnessWarning, positive_masks

_PARAMS = {
    "y_true": ["array-like", str],
    "y_pred": ["array-like", str],
    "sensitive_features": ["array-like", str],
    "data": [FrameConstraint(), None],
    "pos_label": [Real, str, "boolean", None],
    "method": [StrOptions({"between_groups", "to_overall"})],
    "aggregate": [StrOptions({"max", "mean"})],
    "sample_weight": ["array-like", str, None],
    "kind": [StrOptions({"difference", "ratio"})],
    "intersect": ["boolean"],
    "min_group_size": [Interval(Integral, 1, None, closed="left")],
}

_COMMON_DOC = """
    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or str
        True labels (with ``data``, the name of their column).

    y_pred : array-like of shape (n_samples,) or str
        Predicted labels (with ``data``, the name of their column).

    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), \
str or list of str
        One or several sensitive columns (1-D or 2-D array, Series, DataFrame),
        each with any hashable values and 2 or more groups; with ``data``,
        the name of one column of ``data`` or a list of names.

    data : DataFrame, LazyFrame or relation, default=None
        A frame that holds the columns named by ``y_true``, ``y_pred``,
        ``sensitive_features`` and ``sample_weight``: a polars ``LazyFrame``
        or ``DataFrame``, a DuckDB relation, a Dask or PySpark DataFrame, a
        pandas DataFrame or a pyarrow Table. The per-group sums are computed
        in the frame's own engine (one group-by) and the value is the same
        as on the rows in memory; see :ref:`lazy_frames`.

    pos_label : int, float, bool, str or None, default=None
        The favourable class; every other class counts as negative. ``None``
        accepts binary labels coded 0/1 (or -1/1, or booleans) and takes 1 as
        positive; any other label set (strings, three or more classes) raises
        and asks for ``pos_label``: no class is ever chosen silently.

    method : {"between_groups", "to_overall"}, default="between_groups"
        As in fairlearn: ``"between_groups"`` is the largest rate minus the
        smallest; ``"to_overall"`` the largest absolute difference between a
        group's rate and the rate over all rows.

    aggregate : {"max", "mean"}, default="max"
        How the per-attribute gaps combine when there are several attributes.
        ``"max"`` is the worst attribute: the largest difference, or the
        smallest ratio with ``kind="ratio"``.

    sample_weight : array-like of shape (n_samples,) or str, default=None
        Non-negative row weights (with ``data``, a column name).

    kind : {"difference", "ratio"}, default="difference"
        ``"difference"``: the gap of the rates (0 is equal). ``"ratio"``, as
        fairlearn's ``*_ratio`` metrics: the smallest rate over the largest
        (``"between_groups"``), or the smallest of ``min(rate / overall,
        overall / rate)`` (``"to_overall"``); 1 is equal, and the selection
        rate ratio below 0.8 fails the four-fifths rule. A ratio whose
        largest rate is 0 is ``nan`` with an :class:`UndefinedFairnessWarning`.

    intersect : bool, default=False
        With several attributes, ``False`` measures each attribute alone and
        aggregates (``aggregate``); ``True`` takes the combinations of the
        attributes as the groups (fairlearn's reading of several columns),
        one gap over every combination present in the data. The two answer
        different questions: with ``True`` a gap between, say, black women
        and white men counts, which no single attribute shows.

    min_group_size : int, default=30
        Groups with fewer rows are left out of the gap, as
        :func:`fairness_report` leaves them out of its gaps, with the same
        default: the same call gives the report's number, and a bound read
        off the report is one a search (a scorer,
        :class:`~skfair_manifold.scorers.MostAccurateWithin`) can meet. The
        rate of a group of a few rows is noise (see ``fairness_report``).
        ``min_group_size=1`` compares every group, as fairlearn's
        ``demographic_parity_difference`` and its kin do (the values equal
        theirs). With fewer than 2 groups of that size the gap is ``nan``,
        with an :class:`UndefinedFairnessWarning` that names the groups' sizes.

    Returns
    -------
    gap : float
        With ``kind="difference"`` in [0, 1], 0 meaning equal rates; with
        ``kind="ratio"`` in [0, 1], 1 meaning equal. Undefined rates: a group whose rate is
        0/0 (for DP, no row of non-zero weight; for EO, none with
        ``y_true == pos_label``; for PQP, none with ``y_pred == pos_label``) is
        left out of its attribute's gap, with one :class:`UndefinedFairnessWarning` per
        attribute naming the groups left out. An attribute's gap is ``nan``
        (with the warning) only when fewer than 2 of its groups keep a defined
        rate, and a ``nan`` attribute makes the aggregate ``nan``. The overall
        rate of ``"to_overall"`` is unaffected: a group left out adds nothing
        to the rate's denominator."""


MSG_TOO_FEW_COMPARED = (
    "{metric}: sensitive attribute {attr!r} has {n} group(s) of at least "
    "min_group_size={size} rows (rows per group: {counts}), fewer than the 2 a gap needs, so "
    "the gap is nan. Pass a smaller min_group_size to compare smaller groups "
    "(min_group_size=1 compares every group, as fairlearn does), knowing that their rates "
    "are noisy."
)

MSG_RATIO_UNDEFINED = (
    "{metric} ratio is undefined for sensitive attribute {attr!r}: every group's rate is 0, "
    "so the ratio is 0/0. Returning nan (policy: undefined values are nan, never a "
    "sentinel)."
)


def _table(y_true, y_pred, sensitive_features, data, pos_label, sample_weight, metric):
    """The cell table of the metric's input: arrays, or column names of ``data``."""
    if data is not None:
        return frame_cell_table(data, y_true=y_true, y_pred=y_pred,
                                sensitive_features=sensitive_features,
                                sample_weight=sample_weight, pos_label=pos_label,
                                metric=metric)[0]
    for name, value in (("y_true", y_true), ("y_pred", y_pred),
                        ("sample_weight", sample_weight)):
        if isinstance(value, str):
            raise ValueError(MSG_NEED_DATA.format(name=name, value=value))
    y_true, y_pred = check_pair(y_true, y_pred)
    n = y_true.shape[0]
    true_pos, pred_pos = positive_masks(y_true, y_pred, pos_label, metric)
    weights = check_sample_weight(sample_weight, n)
    return rows_cell_table(sensitive_features, n, true_pos, pred_pos, weights)


def _rate_gaps(table, *, method, metric, kind="difference", intersect=False,
               min_group_size=MIN_GROUP_SIZE):
    """Per-attribute largest gap of ``metric``'s rate over groups, from the cell table.

    The groups of at least ``min_group_size`` rows are compared
    (:func:`._group_engine.rate_gaps`, the report's computation); groups with a
    zero denominator are left out of the gap (one warning per attribute);
    fewer than 2 groups left gives ``nan``.
    """
    if intersect:
        table = table.intersect()
    total = table.total()
    form = ("" if method == "between_groups" else "_to_overall")
    gaps = np.empty(len(table.attributes))
    for k, name in enumerate(table.attributes):
        values = table.groups[k]
        sums = table.sums(k)
        count = sums["count"].sum(axis=(1, 2))
        compared = count >= min_group_size
        if int(compared.sum()) < 2:
            warnings.warn(MSG_TOO_FEW_COMPARED.format(
                metric=metric, attr=name, n=int(compared.sum()), size=min_group_size,
                counts=dict(zip(values.tolist(), count.astype(np.int64).tolist()))),
                UndefinedFairnessWarning, stacklevel=3)
            gaps[k] = np.nan
            continue
        _, rate_gap, n_defined, message = rate_gaps(
            sums, total, GAP_RATES[metric], compared, metric=metric, attr=name, values=values)
        if message is not None:
            warnings.warn(message, UndefinedFairnessWarning, stacklevel=3)
        if n_defined < 2:
            gaps[k] = np.nan
            continue
        gaps[k] = rate_gap[kind + form]
        if np.isnan(gaps[k]):
            warnings.warn(MSG_RATIO_UNDEFINED.format(metric=metric, attr=name),
                          UndefinedFairnessWarning, stacklevel=3)
    return gaps


def _aggregate(gaps, aggregate, kind="difference"):
    # nan propagates on purpose: an attribute with fewer than 2 defined groups makes the
    # whole value undefined
    if aggregate == "mean":
        return float(np.mean(gaps))
    return float(np.max(gaps) if kind == "difference" else np.min(gaps))


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
@Substitution(common=_COMMON_DOC)
def demographic_parity(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sensitive_features: SensitiveLike,
    data: Any = None,
    pos_label: Label | None = None,
    method: Literal["between_groups", "to_overall"] = "between_groups",
    aggregate: Literal["max", "mean"] = "max",
    sample_weight: ArrayLike | None = None,
    kind: Literal["difference", "ratio"] = "difference",
    intersect: bool = False,
    min_group_size: int = MIN_GROUP_SIZE,
) -> float:
    """Demographic parity gap: how much the rate of positive predictions differs by group.

    For each attribute, the selection rate ``P(y_pred = pos | group)`` of every
    group; the gap between them (``method``); then the maximum or the mean over
    attributes (``aggregate``). ``y_true`` only fixes the label set.
    {common}

    See Also
    --------
    equal_opportunity, predictive_quality_parity

    References
    ----------
    HFM paper, Section 4.1, baseline DP [35, 36]; fairlearn's
    ``demographic_parity_difference`` for ``method``.

    Examples
    --------
    >>> from skfair_manifold.metrics import demographic_parity
    >>> y_true = [0, 1, 1, 0, 1, 0]
    >>> y_pred = [1, 1, 0, 0, 1, 0]
    >>> group = ["a", "a", "b", "b", "c", "c"]
    >>> demographic_parity(y_true, y_pred, sensitive_features=group, min_group_size=1)
    1.0
    >>> demographic_parity(y_true, y_pred, sensitive_features=group, method="to_overall",
    ...                    min_group_size=1)
    0.5
    >>> demographic_parity(y_true, y_pred, sensitive_features=group, kind="ratio",
    ...                    min_group_size=1)
    0.0

    Groups of two rows are noise: by default (``min_group_size=30``, as in
    :func:`fairness_report`) these are not compared, and the gap is ``nan``
    with a warning; ``min_group_size=1`` above compares every group.
    """
    table = _table(y_true, y_pred, sensitive_features, data, pos_label, sample_weight,
                   "demographic_parity")
    gaps = _rate_gaps(table, method=method, metric="demographic_parity", kind=kind,
                      intersect=intersect, min_group_size=min_group_size)
    return _aggregate(gaps, aggregate, kind)


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
@Substitution(common=_COMMON_DOC)
def equal_opportunity(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sensitive_features: SensitiveLike,
    data: Any = None,
    pos_label: Label | None = None,
    method: Literal["between_groups", "to_overall"] = "between_groups",
    aggregate: Literal["max", "mean"] = "max",
    sample_weight: ArrayLike | None = None,
    kind: Literal["difference", "ratio"] = "difference",
    intersect: bool = False,
    min_group_size: int = MIN_GROUP_SIZE,
) -> float:
    """Equal opportunity gap: how much the true positive rate differs by group.

    For each attribute, ``P(y_pred = pos | y_true = pos, group)`` (recall) of
    every group, the gap between them, then the maximum or mean over attributes.
    A group with no row where ``y_true == pos_label`` has an undefined rate and
    is left out of its attribute's gap, with an :class:`UndefinedFairnessWarning`
    (see Returns).
    {common}

    See Also
    --------
    demographic_parity, predictive_quality_parity

    References
    ----------
    HFM paper, Section 4.1, baseline EO [37] (Hardt et al., 2016).

    Examples
    --------
    >>> from skfair_manifold.metrics import equal_opportunity
    >>> y_true = [1, 1, 1, 1, 0, 0]
    >>> y_pred = [1, 0, 1, 1, 0, 1]
    >>> sex = ["f", "f", "m", "m", "f", "m"]
    >>> equal_opportunity(y_true, y_pred, sensitive_features=sex, min_group_size=1)
    0.5
    """
    table = _table(y_true, y_pred, sensitive_features, data, pos_label, sample_weight,
                   "equal_opportunity")
    gaps = _rate_gaps(table, method=method, metric="equal_opportunity", kind=kind,
                      intersect=intersect, min_group_size=min_group_size)
    return _aggregate(gaps, aggregate, kind)


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
@Substitution(common=_COMMON_DOC)
def predictive_quality_parity(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sensitive_features: SensitiveLike,
    data: Any = None,
    pos_label: Label | None = None,
    method: Literal["between_groups", "to_overall"] = "between_groups",
    aggregate: Literal["max", "mean"] = "max",
    sample_weight: ArrayLike | None = None,
    kind: Literal["difference", "ratio"] = "difference",
    intersect: bool = False,
    min_group_size: int = MIN_GROUP_SIZE,
) -> float:
    """Predictive quality parity gap: how much the precision differs by group.

    For each attribute, ``P(y_true = pos | y_pred = pos, group)`` (positive
    predictive value) of every group, the gap between them, then the maximum
    or mean over attributes. A group with no row where ``y_pred == pos_label``
    has an undefined precision and is left out of its attribute's gap, with an
    :class:`UndefinedFairnessWarning` (see Returns).
    {common}

    See Also
    --------
    demographic_parity, equal_opportunity

    References
    ----------
    HFM paper, Section 4.1, baseline PQP [38, 2] (Chouldechova, 2017).

    Examples
    --------
    >>> from skfair_manifold.metrics import predictive_quality_parity
    >>> y_true = [1, 0, 1, 1, 0, 0]
    >>> y_pred = [1, 1, 1, 1, 0, 0]
    >>> sex = ["f", "f", "m", "m", "f", "m"]
    >>> predictive_quality_parity(y_true, y_pred, sensitive_features=sex, min_group_size=1)
    0.5
    """
    table = _table(y_true, y_pred, sensitive_features, data, pos_label, sample_weight,
                   "predictive_quality_parity")
    gaps = _rate_gaps(table, method=method, metric="predictive_quality_parity", kind=kind,
                      intersect=intersect, min_group_size=min_group_size)
    return _aggregate(gaps, aggregate, kind)


