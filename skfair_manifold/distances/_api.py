"""The distance functions' shared part: inputs checked once, results summarised (Eq. 6-7).

The public functions are in :mod:`._exact_api` (Eq. 4-7) and
:mod:`._approx_api` (Algorithms 1-3 of the HFM paper).
"""

from __future__ import annotations

from numbers import Integral

from sklearn.utils import Bunch

from skfair_manifold.utils._validation import (
    MSG_TOO_FEW_ROWS,
    check_features,
    check_label,
    encode_sensitive,
)
from skfair_manifold.distances._numerics import distance_features


MSG_W_NON_NUMERIC = (
    "w must be a projection vector of numbers, label coordinate first; got values such as "
    "{example!r}."
)

MSG_ONE_ATTRIBUTE = (
    "{func} takes one sensitive attribute (a 1-D array); got {n} columns. Use {other} "
    "for several attributes."
)


def _check_inputs(X, y, A, *, single):
    X = check_features(distance_features(X))
    y = check_label(y, X.shape[0])
    if X.shape[0] < 2:
        raise ValueError(MSG_TOO_FEW_ROWS.format(name="X"))
    codes, names, groups = encode_sensitive(A, X.shape[0], name="A")
    if single and len(codes) != 1:
        raise ValueError(MSG_ONE_ATTRIBUTE.format(
            func=single[0], n=len(codes), other=single[1]))
    return X, y, codes, names, groups


def _summarise(row_distances, names, groups, **extra):
    """(d_max, d_avg) per attribute and Eq. 6-7 over attributes."""
    d_max = row_distances.max(axis=1)
    d_avg = row_distances.mean(axis=1)
    details = Bunch(
        attributes=list(names),
        groups=list(groups),
        d_max=d_max,
        d_avg=d_avg,
        row_distances=row_distances.T.copy(),
        **extra,
    )
    return float(d_max.max()), float(d_avg.mean()), details


def _result(d_max, d_avg, details, return_details):
    if return_details:
        return d_max, d_avg, details
    return d_max, d_avg


_COMMON = {
    "X": ["array-like"],
    "y": ["array-like"],
    "n_jobs": [Integral, None],
    "return_details": ["boolean"],
}
