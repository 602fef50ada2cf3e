"""Fairness metrics of a continuous prediction: one number each, lower is fairer.

The single numbers behind the continuous report (:mod:`._regression_report`)
for model selection: the largest difference of the groups' mean prediction
(statistical parity read for a quantity), of their errors, the worst group's
error (bounded group loss, Agarwal, Dudik and Wu, 2019), and the largest
distance of a group's distribution of predictions to the population's. Each
is computed per sensitive attribute over the groups of at least
``min_group_size`` rows (the report's rule and default) and aggregated over the
attributes (``aggregate``); they equal the corresponding columns of
``fairness_report(...).gaps`` with the same ``min_group_size``.
"""

from __future__ import annotations

import warnings
from numbers import Integral
from typing import Literal

import numpy as np

from ...utils._docstring import Substitution
from ...utils._sklearn_compat import Interval, StrOptions, validate_params
from ...utils._typing import ArrayLike, SensitiveLike
from ...utils._validation import MSG_NO_ROWS, check_sample_weight, encode_sensitive
from .._common import UndefinedFairnessWarning
from .._groups._engine import MIN_GROUP_SIZE
from ._engine import (
    Scale,
    distribution_gaps,
    group_moments,
    row_quantities,
    undefined_groups,
)
from ._inputs import continuous_column

_LOSSES = {"absolute": 2, "squared": 3}  # positions in row_quantities

_PARAMS = {
    "y_true": ["array-like"],
    "y_pred": ["array-like"],
    "sensitive_features": ["array-like"],
    "sample_weight": ["array-like", None],
    "aggregate": [StrOptions({"max", "mean"})],
    "min_group_size": [Interval(Integral, 1, None, closed="left")],
}


_COMMON_DOC = """    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True values (numbers).

    y_pred : array-like of shape (n_samples,)
        Predicted values (numbers).

    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        One or several sensitive columns.

    sample_weight : array-like of shape (n_samples,), default=None
        Row weights.
{option}
    aggregate : {{"max", "mean"}}, default="max"
        How the attributes' values are combined.

    min_group_size : int, default=30
        Groups with fewer rows are left out, as :func:`fairness_report` leaves
        them out of its gaps, with the same default: the same call gives the
        report's number. ``min_group_size=1`` takes every group. An attribute
        with too few groups of that size (2 for a difference, 1 otherwise) is
        ``nan``, with an :class:`UndefinedFairnessWarning` that names the sizes."""

MSG_TOO_FEW_COMPARED = (
    "{metric}: sensitive attribute {attr} has {n} group(s) of at least min_group_size={size} "
    "rows (rows per group: {counts}), fewer than the {need} it needs, so it is nan. Pass a "
    "smaller min_group_size (1 takes every group), knowing that small groups' means are "
    "noisy."
)

_LOSS_DOC = """
    loss : {"absolute", "squared"}, default="absolute"
        Each group's mean absolute error (in the units of ``y``) or mean
        squared error.
"""

_DISTANCE_DOC = """
    distance : {"ks", "wasserstein"}, default="ks"
        The Kolmogorov-Smirnov distance (a share of people) or the
        Wasserstein-1 distance (in the units of ``y_pred``).
"""


def _per_attribute(y_true, y_pred, sensitive_features, sample_weight, quantity, *,
                   min_group_size, metric, need=2):
    """``quantity(moments, codes, n_groups, weights, y_pred, scale, compared)`` per attribute.

    The moments are of the values scaled by ``scale`` (``_engine.Scale``), as is
    ``y_pred``, their means of the compared groups only: those of at least
    ``min_group_size`` rows and some weight (as the report compares). An attribute
    with fewer than ``need`` of them is nan, with a warning.
    """
    y_true = continuous_column(y_true, "y_true")
    y_pred = continuous_column(y_pred, "y_pred", y_true.shape[0])
    if not y_true.shape[0]:
        raise ValueError(MSG_NO_ROWS.format(name="y_true", what=metric))
    weights = check_sample_weight(sample_weight, y_true.shape[0])
    codes, names, groups = encode_sensitive(sensitive_features, y_true.shape[0])
    scale = Scale.of(y_pred, y_true)
    scaled_pred = scale.down(y_pred)
    values = row_quantities(scale.down(y_true), scaled_pred)
    out = np.empty(len(codes))
    for k, (code, name, labels) in enumerate(zip(codes, names, groups)):
        moments = group_moments(values, code, labels.shape[0], weights)
        for message in undefined_groups(name, labels, moments, intervals=False):
            warnings.warn(f"{metric}: {message}", UndefinedFairnessWarning, stacklevel=4)
        large = moments["count"] >= min_group_size
        compared = large & (moments["weight"] > 0)
        if int(compared.sum()) < need:
            message = (MSG_TOO_FEW_COMPARED.format(
                metric=metric, attr=repr(name), n=int(large.sum()), size=min_group_size,
                counts=dict(zip(labels.tolist(), moments["count"].tolist())),
                need=f"{need} group(s)") if int(large.sum()) < need
                else MSG_TOO_FEW.format(metric=metric, attr=name, need=need))
            warnings.warn(message, UndefinedFairnessWarning, stacklevel=4)
            out[k] = np.nan
            continue
        moments["mean"] = moments["mean"][:, compared]
        out[k] = quantity(moments, code, labels.shape[0], weights, scaled_pred, scale,
                          compared)
    return out


MSG_TOO_FEW = (
    "{metric} is undefined for sensitive attribute {attr!r}: fewer than {need} group(s) have "
    "rows of non-zero weight. Returning nan (policy: undefined values are nan, never a "
    "sentinel)."
)


def _spread(scale, q, values):
    """The largest minus the smallest group mean of quantity ``q`` in the decision's units
    (a mean squared error as it is: the square of the scale's unit)."""
    if q != 3:
        return float(np.ptp(scale.up(values, shift=False)))
    return _squared(scale, float(np.ptp(values)))


def _squared(scale, value):
    """A mean of scaled squares in the squared units, or an error where it leaves float64."""
    unit = np.float64(scale.first) * np.float64(scale.second)
    with np.errstate(over="ignore", under="ignore"):
        out = float(np.float64(value) * unit * unit)
    if value > 0 and not (np.isfinite(out) and out >= np.finfo(np.float64).tiny):
        raise ValueError(MSG_SQUARED_RANGE.format(value=np.sqrt(value) * scale.first
                                                  * scale.second))
    return out


MSG_SQUARED_RANGE = (
    "the mean squared errors are squares of amounts about {value:.3g}, outside the range of "
    "a float64 (1e-308 to 1e308); pass loss='absolute' (in the units of y), or divide y_true "
    "and y_pred by a power of ten first."
)


def _largest(scale, q, values):
    """The largest group mean of quantity ``q`` in the decision's units (see ``_spread``)."""
    if q != 3:
        return float(np.max(scale.up(values, shift=False)))
    return _squared(scale, float(np.max(values)))


def _aggregate(values, aggregate):
    return float(np.max(values) if aggregate == "max" else np.mean(values))


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
@Substitution(common=_COMMON_DOC.format(option=""))
def mean_prediction_difference(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sensitive_features: SensitiveLike,
    sample_weight: ArrayLike | None = None,
    aggregate: Literal["max", "mean"] = "max",
    min_group_size: int = MIN_GROUP_SIZE,
) -> float:
    """The largest difference between two groups' mean prediction of a quantity.

    The regression reading of demographic parity: how much more the
    best-predicted group gets, on average, than the worst (``y_true`` is
    checked but not used). Per attribute, then the largest (or mean) over
    attributes.

    {common}

    Returns
    -------
    difference : float
        In the units of ``y_pred``; 0 when every group's mean is the same.

    Examples
    --------
    >>> from skfair_manifold.metrics import mean_prediction_difference
    >>> y = [30.0, 40.0, 35.0, 45.0]
    >>> pred = [28.0, 38.0, 36.0, 47.0]
    >>> mean_prediction_difference(y, pred, sensitive_features=["f", "f", "m", "m"],
    ...                            min_group_size=1)
    8.5
    """
    return _aggregate(_per_attribute(
        y_true, y_pred, sensitive_features, sample_weight,
        lambda m, *rest: _spread(rest[-2], 0, m["mean"][0]), min_group_size=min_group_size,
        metric="mean_prediction_difference"), aggregate)


@validate_params({**_PARAMS, "loss": [StrOptions(set(_LOSSES))]},
                 prefer_skip_nested_validation=True)
@Substitution(common=_COMMON_DOC.format(option=_LOSS_DOC))
def error_difference(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sensitive_features: SensitiveLike,
    sample_weight: ArrayLike | None = None,
    loss: Literal["absolute", "squared"] = "absolute",
    aggregate: Literal["max", "mean"] = "max",
    min_group_size: int = MIN_GROUP_SIZE,
) -> float:
    """The largest difference between two groups' mean error (absolute or squared).

    {common}

    Returns
    -------
    difference : float

    Examples
    --------
    >>> from skfair_manifold.metrics import error_difference
    >>> y = [30.0, 40.0, 35.0, 45.0]
    >>> pred = [28.0, 38.0, 36.0, 47.0]
    >>> error_difference(y, pred, sensitive_features=["f", "f", "m", "m"], min_group_size=1)
    0.5
    """
    q = _LOSSES[loss]
    return _aggregate(_per_attribute(
        y_true, y_pred, sensitive_features, sample_weight,
        lambda m, *rest: _spread(rest[-2], q, m["mean"][q]), min_group_size=min_group_size,
        metric="error_difference"), aggregate)


@validate_params({**_PARAMS, "loss": [StrOptions(set(_LOSSES))]},
                 prefer_skip_nested_validation=True)
@Substitution(common=_COMMON_DOC.format(option=_LOSS_DOC))
def bounded_group_loss(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sensitive_features: SensitiveLike,
    sample_weight: ArrayLike | None = None,
    loss: Literal["absolute", "squared"] = "absolute",
    aggregate: Literal["max", "mean"] = "max",
    min_group_size: int = MIN_GROUP_SIZE,
) -> float:
    """The worst group's mean error: bounded group loss (Agarwal, Dudik and Wu, 2019).

    {common}

    Returns
    -------
    loss : float

    Examples
    --------
    >>> from skfair_manifold.metrics import bounded_group_loss
    >>> y = [30.0, 40.0, 35.0, 45.0]
    >>> pred = [28.0, 38.0, 36.0, 47.0]
    >>> bounded_group_loss(y, pred, sensitive_features=["f", "f", "m", "m"], min_group_size=1)
    2.0
    """
    q = _LOSSES[loss]
    return _aggregate(_per_attribute(
        y_true, y_pred, sensitive_features, sample_weight,
        lambda m, *rest: _largest(rest[-2], q, m["mean"][q]), min_group_size=min_group_size,
        metric="bounded_group_loss", need=1), aggregate)


@validate_params({**_PARAMS, "distance": [StrOptions({"ks", "wasserstein"})]},
                 prefer_skip_nested_validation=True)
@Substitution(common=_COMMON_DOC.format(option=_DISTANCE_DOC))
def distribution_distance(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sensitive_features: SensitiveLike,
    sample_weight: ArrayLike | None = None,
    distance: Literal["ks", "wasserstein"] = "ks",
    aggregate: Literal["max", "mean"] = "max",
    min_group_size: int = MIN_GROUP_SIZE,
) -> float:
    """The largest distance of a group's distribution of predictions to the population's.

    Statistical parity for a quantity (Agarwal, Dudik and Wu, 2019): 0 when
    every group's predictions are distributed as everyone's. ``"ks"`` is the
    Kolmogorov-Smirnov distance (a share of people, in [0, 1]),
    ``"wasserstein"`` the Wasserstein-1 distance (in the units of
    ``y_pred``).

    {common}

    Returns
    -------
    distance : float

    Examples
    --------
    >>> from skfair_manifold.metrics import distribution_distance
    >>> y = [30.0, 40.0, 35.0, 45.0]
    >>> pred = [28.0, 38.0, 36.0, 47.0]
    >>> distribution_distance(y, pred, sensitive_features=["f", "f", "m", "m"],
    ...                       min_group_size=1)
    0.25
    """
    pick = 0 if distance == "ks" else 1

    def largest(m, code, n_groups, weights, y_pred, scale, compared):
        dist = distribution_gaps(y_pred, code, n_groups, compared, weights)[pick]
        return float(np.nanmax(dist)) if pick == 0 else \
            float(scale.up(np.nanmax(dist), shift=False))

    return _aggregate(_per_attribute(y_true, y_pred, sensitive_features, sample_weight,
                                     largest, min_group_size=min_group_size,
                                     metric="distribution_distance", need=1), aggregate)
