"""Generators of synthetic decision data with planted discrimination.

The data imitate a historical decision process (hiring, lending, admission):
a fair decision that depends only on a few qualifications, then a prejudiced
decision maker who turns some deserved positive decisions into negative ones
because of the person's sensitive attributes. Because the generator knows
which decisions were turned, it gives the ground truth that real data never
has: the rows that were discriminated against, and on which ground.
"""

import numbers

import numpy as np
from sklearn.utils import Bunch, check_random_state

from ..utils._memory import check_allocation
from ..utils._sizes import check_size
from ..utils._sklearn_compat import Interval, validate_params
from ..utils._typing import RandomStateLike

MSG_INFORMATIVE = "n_informative={n_informative} must be at most n_features={n_features}."
MSG_BIAS_LENGTH = (
    "bias has {got} values but there are {expected} sensitive attributes (one per entry of "
    "n_groups); pass one float, or one value per attribute."
)
MSG_BIAS_RANGE = "every value of bias must lie in [0, 1]; got {bias!r}."
MSG_GROUPS = "every entry of n_groups must be an integer >= 2; got {n_groups!r}."
MSG_PROXY = (
    "proxy > 0 turns the last feature into a proxy of the first sensitive attribute, so it "
    "must not be informative: n_features={n_features} must exceed n_informative="
    "{n_informative}."
)

TARGET_NAME = "decision"


def _check_groups(n_groups):
    n_groups = tuple(n_groups)
    if not n_groups or any(
        isinstance(g, bool) or not isinstance(g, numbers.Integral) or g < 2 for g in n_groups
    ):
        raise ValueError(MSG_GROUPS.format(n_groups=n_groups))
    return tuple(int(g) for g in n_groups)


def _check_bias(bias, n_attributes):
    arr = np.atleast_1d(np.asarray(bias, dtype=np.float64))
    if arr.ndim != 1:
        raise ValueError(MSG_BIAS_RANGE.format(bias=bias))
    if arr.shape[0] == 1:
        arr = np.repeat(arr, n_attributes)
    if arr.shape[0] != n_attributes:
        raise ValueError(MSG_BIAS_LENGTH.format(got=arr.shape[0], expected=n_attributes))
    if not np.all((arr >= 0) & (arr <= 1)):
        raise ValueError(MSG_BIAS_RANGE.format(bias=bias))
    return arr


@validate_params(
    {
        "n_samples": [Interval(numbers.Integral, 10, None, closed="left")],
        "n_features": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_informative": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_levels": [Interval(numbers.Integral, 2, None, closed="left")],
        "n_groups": ["array-like"],
        "bias": [Interval(numbers.Real, 0, 1, closed="both"), "array-like"],
        "noise": [Interval(numbers.Real, 0, None, closed="left")],
        "proxy": [Interval(numbers.Real, 0, 1, closed="both")],
        "random_state": ["random_state"],
        "as_frame": ["boolean"],
        "return_X_y": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def make_biased_decisions(
    n_samples: int = 2000,
    *,
    n_features: int = 6,
    n_informative: int = 3,
    n_levels: int = 5,
    n_groups: int | tuple | list = (2, 3, 4),
    bias: float | tuple | list = (0.4, 0.2, 0.2),
    noise: float = 0.05,
    proxy: float = 0.0,
    random_state: RandomStateLike = None,
    as_frame: bool = False,
    return_X_y: bool = False,
) -> Bunch | tuple:
    """Generate decisions with planted discrimination and its ground truth.

    The process has three steps.

    1. **People.** Every row has ``n_features`` ordinal features with values
       ``0 .. n_levels - 1`` (think education level, experience band), drawn
       uniformly and independently, and one column per entry of ``n_groups``
       for the sensitive attributes, with values ``0 .. n_groups[k] - 1``.
       Group ``0`` is the privileged group of every attribute; group sizes
       shrink with the group code (the privileged group is the largest).
    2. **Fair decision.** Only the first ``n_informative`` features matter:
       ``score = mean(x[:n_informative]) / (n_levels - 1) + noise * N(0, 1)``
       and ``fair_target = score > median(score)``. The other features are
       irrelevant to the decision, like height and weight in the admission
       example of Zhang, Wu and Wu.
    3. **Prejudice.** For each sensitive attribute ``k`` and each row whose
       fair decision is positive, the decision maker turns it negative with
       probability ``bias[k] * g / (n_groups[k] - 1)``, where ``g`` is the
       row's group in that attribute: never for the privileged group ``0``,
       with the full ``bias[k]`` for the last group, and in proportion in
       between (a multi-valued attribute is discriminated by degree, as
       age bands may be). Each attribute's prejudice acts independently; a
       row is discriminated when any of them turned its decision.

    With ``proxy > 0``, the last feature also becomes a *proxy* of the first
    sensitive attribute: for a share ``proxy`` of the rows (drawn at random)
    its value is replaced by ``round(s0 * (n_levels - 1) / (n_groups[0] - 1))``.
    It still plays no part in the fair decision, but a model that never sees
    the sensitive columns can learn the prejudice through it, like a postcode
    standing for an origin.

    The observed decision ``target`` is the fair decision after the prejudice.
    Rows whose decision was turned are the ground truth of discrimination:
    ``discriminated`` (any ground) and ``discriminated_by`` (per attribute).

    Parameters
    ----------
    n_samples : int, default=2000
        Number of rows, at least 10.
    n_features : int, default=6
        Number of non-sensitive ordinal features.
    n_informative : int, default=3
        How many of them (the first ones) decide the fair decision.
    n_levels : int, default=5
        Number of values of every feature, ``0 .. n_levels - 1``.
    n_groups : sequence of int, default=(2, 3, 4)
        Number of groups of each sensitive attribute (each at least 2).
    bias : float or sequence of float in [0, 1], default=(0.4, 0.2, 0.2)
        The probability that a deserved positive decision is turned negative
        for the last group of each attribute (one value, or one per
        attribute). ``0`` plants no discrimination on that attribute.
    noise : float, default=0.05
        Standard deviation of the Gaussian noise added to the score on its
        ``[0, 1]`` scale. Low noise makes the fair decision nearly a function
        of the informative features, which is what situation testing assumes.
    proxy : float in [0, 1], default=0.0
        Share of the rows whose last feature reveals the first sensitive
        attribute (see above); ``0`` makes every feature independent of the
        sensitive attributes.
    random_state : int, RandomState instance or None, default=None
        Seed of the generator; an int gives identical data on every call.
    as_frame : bool, default=False
        Return pandas objects (``DataFrame`` and ``Series``) with named
        columns instead of numpy arrays. Requires pandas.
    return_X_y : bool, default=False
        Return ``(X, y, A)``: the features, the observed decisions and the
        sensitive attributes, instead of a ``Bunch``.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        With the keys:

        ``data`` : ndarray of shape (n_samples, n_features) or DataFrame
            The non-sensitive features (integers ``0 .. n_levels - 1``).
        ``target`` : ndarray of shape (n_samples,) or Series
            The observed, biased decisions (1 positive, 0 negative).
        ``sensitive`` : ndarray of shape (n_samples, n_attributes) or DataFrame
            The sensitive attributes, group ``0`` privileged.
        ``fair_target`` : ndarray of shape (n_samples,)
            The decisions before the prejudice.
        ``discriminated`` : ndarray of bool of shape (n_samples,)
            Ground truth: the rows whose decision the prejudice turned.
        ``discriminated_by`` : ndarray of bool of shape (n_samples, n_attributes)
            Which attribute's prejudice turned it (several may be true).
        ``frame`` : DataFrame or None
            Features, sensitive attributes and the decision in one table
            when ``as_frame=True``.
        ``feature_names``, ``sensitive_names``, ``target_name`` : names
            ``x0, x1, ...``, ``s0, s1, ...`` and ``"decision"``.
        ``informative`` : list of str
            The names of the features that decide the fair decision.
        ``proxies`` : list of str
            The names of the proxy features (the last one when ``proxy > 0``).
        ``privileged`` : dict
            The privileged group of every sensitive attribute (always 0).
        ``DESCR`` : str
            This description of the process.

    (X, y, A) : tuple
        When ``return_X_y=True``.

    See Also
    --------
    skfair_manifold.situation_testing.SituationTestingAuditor :
        finds the discriminated rows without knowing the ground truth.

    References
    ----------
    .. [1] L. Zhang, Y. Wu and X. Wu, "Situation Testing-Based Discrimination
       Discovery: A Causal Inference Approach", IJCAI 2016, section 5 (the
       semi-synthetic ground truth this generator follows: a prejudiced
       decision maker turning positive decisions of a protected group).

    Examples
    --------
    >>> from skfair_manifold.datasets import make_biased_decisions
    >>> data = make_biased_decisions(1000, random_state=0)
    >>> data.data.shape, data.sensitive.shape
    ((1000, 6), (1000, 3))
    >>> data.sensitive_names, data.informative
    (['s0', 's1', 's2'], ['x0', 'x1', 'x2'])
    >>> bool((data.target[data.discriminated] == 0).all())
    True
    >>> bool((data.fair_target[data.discriminated] == 1).all())
    True
    >>> X, y, A = make_biased_decisions(100, random_state=0, return_X_y=True)
    >>> X.shape, y.shape, A.shape
    ((100, 6), (100,), (100, 3))
    """
    # the features (float64) and the decisions and groups, per row; before any draw
    check_size(n_samples, name="n_samples", low=10, bytes_per_unit=8 * 9)
    check_size(n_features, name="n_features", low=1, bytes_per_unit=8 * 10)
    check_allocation(8 * n_samples * (n_features + 8), what=f"n_samples={n_samples} rows of "
                     f"n_features={n_features} features", fix="ask for fewer rows or features.")
    if n_informative > n_features:
        raise ValueError(MSG_INFORMATIVE.format(n_informative=n_informative,
                                                n_features=n_features))
    if proxy > 0 and n_features <= n_informative:
        raise ValueError(MSG_PROXY.format(n_features=n_features, n_informative=n_informative))
    n_groups = _check_groups(n_groups)
    bias = _check_bias(bias, len(n_groups))
    if as_frame:
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - pandas is in the dev extras
            raise ImportError(
                "as_frame=True needs pandas: pip install 'skfair_manifold[pandas]'."
            ) from exc

    rng = check_random_state(random_state)
    n_attributes = len(n_groups)
    # Every random draw happens here, in a fixed order, so that a seed gives
    # the same data whatever the options that only change the output format.
    X = rng.randint(0, n_levels, size=(n_samples, n_features))
    A = np.empty((n_samples, n_attributes), dtype=np.int64)
    for k, g in enumerate(n_groups):
        # Shares proportional to 1 / (group + 1): the privileged group 0 is
        # the largest, as majorities are in real data.
        share = 1.0 / np.arange(1, g + 1)
        A[:, k] = rng.choice(g, size=n_samples, p=share / share.sum())
    score = X[:, :n_informative].mean(axis=1) / (n_levels - 1)
    score = score + noise * rng.standard_normal(n_samples)
    fair = (score > np.median(score)).astype(np.int64)
    uniform = rng.random_sample((n_samples, n_attributes))
    if proxy > 0:  # drawn last, so that proxy=0 leaves every other draw unchanged
        reveal = rng.random_sample(n_samples) < proxy
        level = np.rint(A[:, 0] * (n_levels - 1) / (n_groups[0] - 1)).astype(X.dtype)
        X[reveal, -1] = level[reveal]

    degree = A / (np.asarray(n_groups) - 1.0)  # 0 for group 0, 1 for the last group
    flip_probability = bias[np.newaxis, :] * degree
    discriminated_by = (uniform < flip_probability) & (fair[:, np.newaxis] == 1)
    discriminated = discriminated_by.any(axis=1)
    y = np.where(discriminated, 0, fair)

    feature_names = [f"x{j}" for j in range(n_features)]
    sensitive_names = [f"s{k}" for k in range(n_attributes)]
    frame = None
    if as_frame:
        data = pd.DataFrame(X, columns=feature_names)
        sensitive = pd.DataFrame(A, columns=sensitive_names)
        target = pd.Series(y, name=TARGET_NAME)
        frame = pd.concat([data, sensitive, target], axis=1)
    else:
        data, sensitive, target = X, A, y
    if return_X_y:
        return data, target, sensitive
    descr = (make_biased_decisions.__doc__ or "").split("Parameters\n")[0]
    return Bunch(
        data=data,
        target=target,
        sensitive=sensitive,
        fair_target=fair,
        discriminated=discriminated,
        discriminated_by=discriminated_by,
        frame=frame,
        feature_names=feature_names,
        sensitive_names=sensitive_names,
        target_name=TARGET_NAME,
        informative=feature_names[:n_informative],
        proxies=feature_names[-1:] if proxy > 0 else [],
        privileged={name: 0 for name in sensitive_names},
        DESCR="Biased decisions with a known ground truth.\n\n" + _dedent(descr),
    )


def _dedent(text):
    import textwrap

    first, _, rest = text.partition("\n")
    return (first + "\n" + textwrap.dedent(rest)).strip() + "\n"
