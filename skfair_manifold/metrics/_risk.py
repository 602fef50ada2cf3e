"""Discriminative risk (DR): do predictions change when the sensitive attributes change?

Bian and Zhang's measure, reference [32] of the HFM paper: the share of rows
whose prediction changes when their sensitive attributes are perturbed while
every other feature stays. It needs the estimator, and the sensitive columns
must be among the estimator's inputs.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any, Literal

import numpy as np
from sklearn.utils import check_random_state

from ..utils._narwhals import replace_columns
from ..utils._sklearn_compat import HasMethods, Interval, StrOptions, validate_params
from ..utils._typing import MatrixLike, RandomStateLike
from ..utils._validation import encode_column, frame_columns, is_dataframe, resolve_columns


def _column_values(X, pos):
    if is_dataframe(X):
        return frame_columns(X)[1][pos]
    return np.asarray(X)[:, pos]


def _sorted_codes(codes, groups, values):
    """``(codes, values)`` of a column encoded elsewhere, its groups in sorted order.

    ``codes`` index ``groups`` (a :class:`~..utils._validation.SensitiveFeatures`'
    encoding, whose groups may follow a categorical's order); the result is
    what :func:`encode_column` gives for ``values``: codes of the sorted values,
    and the values themselves as ``values`` holds them.
    """
    _, rank = np.unique(groups, return_inverse=True)
    codes = rank.reshape(-1)[codes]
    first = np.zeros(groups.shape[0], dtype=np.intp)
    first[codes[::-1]] = np.arange(codes.shape[0] - 1, -1, -1)  # each group's first row
    return codes, values[first]


def _draw(values, codes, uniq, privileged, ratio, rng, name):
    """New values for one sensitive column (see ``discriminative_risk``, Notes)."""
    g, n = uniq.shape[0], codes.shape[0]
    perturb = rng.random_sample(n) < ratio
    if privileged is None:
        # a uniformly random *other* value: shift the code by 1..g-1 (mod g)
        new = (codes + rng.randint(1, g, size=n)) % g
    else:
        hits = np.flatnonzero(uniq == privileged)
        if hits.size == 0:
            raise ValueError(
                f"privileged value {privileged!r} does not occur in sensitive column "
                f"{name!r} (values: {uniq.tolist()[:10]!r}).")
        p = int(hits[0])
        other = rng.randint(0, g - 1, size=n)
        other = other + (other >= p)  # skip the privileged code
        new = np.where(codes == p, other, p)
    return np.where(perturb, uniq[new], values)


def _replace(X, columns):
    """A copy of ``X`` with ``{position: new values}`` put in."""
    if is_dataframe(X):
        if type(X).__module__.startswith("pandas"):
            import pandas as pd

            X_new = X.copy()
            for pos, vals in columns.items():
                X_new.isetitem(pos, pd.Series(vals, index=X.index, dtype=X.dtypes.iloc[pos]))
            return X_new
        return replace_columns(X, columns)
    X_new = np.array(X, copy=True)
    for pos, vals in columns.items():
        X_new[:, pos] = vals
    return X_new


@validate_params(
    {
        "estimator": [HasMethods(["predict"])],
        "X": ["array-like"],
        "sensitive": [str, Integral, list, tuple],
        "ratio": [Interval(Real, 0, 1, closed="right")],
        "privileged": [list, tuple, None],
        "aggregate": [StrOptions({"mean", "max", "joint"})],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def discriminative_risk(
    estimator: Any,
    X: MatrixLike,
    *,
    sensitive: str | int | list | tuple,
    ratio: float = 1.0,
    privileged: list | tuple | None = None,
    aggregate: Literal["mean", "max", "joint"] = "mean",
    random_state: RandomStateLike = None,
) -> float:
    """Discriminative risk: the share of predictions that change when ``a`` is perturbed.

    ``DR = mean_i 1[f(x_i, a_i) != f(x_i, a~_i)]``: the fitted ``estimator``
    predicts every row of ``X`` twice, as it is and with its sensitive
    columns perturbed (all other columns unchanged). 0 means the prediction
    never depends on the sensitive attributes directly.

    Parameters
    ----------
    estimator : fitted estimator with ``predict``
        Takes ``X`` with the sensitive columns in it (a Pipeline is fine).

    X : array-like or DataFrame of shape (n_samples, n_features)
        The rows, sensitive columns included.

    sensitive : str, int or list of them
        The sensitive columns of ``X``: DataFrame column names or integer
        positions.

    ratio : float in (0, 1], default=1.0
        Probability that a given row's attribute is perturbed. With ``1.0``
        every row is switched, so DR is the share of rows whose prediction
        depends on the attribute; the authors' code defaults to 0.5, which
        for one attribute gives about half of that in expectation.

    privileged : list or None, default=None
        One privileged value per sensitive column, for the authors' scheme
        (see Notes). ``None``: a uniformly random *other* value.

    aggregate : {"mean", "max", "joint"}, default="mean"
        Several attributes: ``"mean"`` perturbs one attribute at a time and
        averages the risks (``DR_avg`` of the HFM paper, Table III);
        ``"max"`` takes the largest; ``"joint"`` perturbs all attributes at
        once and returns one risk (the authors' code with several
        attributes).

    random_state : int, RandomState instance or None, default=None
        Draws the perturbation.

    Returns
    -------
    dr : float
        In [0, 1]; lower is fairer.

    Notes
    -----
    The perturbation, per row and per sensitive column, with probability
    ``ratio`` (independently): with ``privileged=None`` the value is replaced
    by one drawn uniformly among the *other* values the column takes in
    ``X``; with ``privileged`` given, as in the authors' code, an
    unprivileged value becomes the privileged one and the privileged value
    becomes a uniformly drawn unprivileged one. For a binary attribute both
    are the same flip. The draws are made once, up front, from
    ``random_state``.

    References
    ----------
    HFM paper, Section 4.1 and Table III, reference [32]: Bian and Zhang,
    "Increasing fairness via combination with learning guarantees".

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from skfair_manifold.metrics import discriminative_risk
    >>> rng = np.random.RandomState(0)
    >>> X = np.column_stack([rng.rand(200), rng.randint(0, 2, 200)])
    >>> y = (X[:, 1] == 1).astype(int)  # the label is the sensitive column
    >>> clf = DecisionTreeClassifier(random_state=0).fit(X, y)
    >>> discriminative_risk(clf, X, sensitive=1, random_state=0)
    1.0
    >>> fair = DecisionTreeClassifier(random_state=0).fit(X, X[:, 0] > 0.5)
    >>> discriminative_risk(fair, X, sensitive=1, random_state=0)
    0.0
    """
    positions, names = resolve_columns(X, sensitive)
    return column_risk(estimator, X, positions, names, ratio=ratio, privileged=privileged,
                       aggregate=aggregate, random_state=random_state)


def column_risk(estimator, X, positions, names, *, encoded=None, ratio=1.0, privileged=None,
                aggregate="mean", random_state=None):
    """:func:`discriminative_risk` of the columns of ``X`` at ``positions`` (named ``names``).

    The columns are found by the caller; ``encoded`` gives each one's
    ``(codes, groups)`` when the caller holds them (``fairness_report``'s
    :class:`~..utils._validation.SensitiveFeatures`), else each column is
    encoded here. The options are ``discriminative_risk``'s.
    """
    if privileged is not None and len(privileged) != len(positions):
        raise ValueError(
            f"privileged has {len(privileged)} values for {len(positions)} sensitive columns; "
            "give one per column.")
    rng = check_random_state(random_state)
    privileged = [None] * len(positions) if privileged is None else list(privileged)
    new_values = {}
    for k, (pos, priv, name) in enumerate(zip(positions, privileged, names)):
        values = _column_values(X, pos)
        codes, uniq = (encode_column(values, name) if encoded is None
                       else _sorted_codes(*encoded[k], values))
        new_values[pos] = _draw(values, codes, uniq, priv, ratio, rng, name)
    y = np.asarray(estimator.predict(X))
    if aggregate == "joint":
        return float(np.mean(np.asarray(estimator.predict(_replace(X, new_values))) != y))
    risks = [np.mean(np.asarray(estimator.predict(_replace(X, {pos: vals}))) != y)
             for pos, vals in new_values.items()]
    return float(np.max(risks) if aggregate == "max" else np.mean(risks))
