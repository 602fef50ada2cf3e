"""make_planted_bias: mixed-type decisions with bias planted in known cells.

The data of the situation-testing tests and benchmarks (a person-level
ground truth: who was discriminated and who was not).

Columns: ``sex`` (protected, ``"female"`` is ``c-``), ``income`` and ``age``
(continuous), ``region`` (nominal strings), ``edu`` (ordinal 0..4) and two
irrelevant columns, ``noise`` (continuous) and ``colour`` (nominal). The
fair decision depends on income, age, edu and region:

    logit P(e+) = -1.2 + 1.1 z(log income) + 0.45 (edu - 2)
                  - 0.6 (age_band == 0) + region effect

In the *biased* regions (``"north"`` and ``"east"``) the decision maker
turns each positive woman negative with probability ``bias_share``. The
ground truth: the flipped women are discriminated; women with a negative
decision in the other regions are not.
"""

import numpy as np

from ..utils._sizes import check_size

REGIONS = np.array(["north", "east", "south", "west", "centre"], dtype=object)
REGION_EFFECT = np.array([0.3, -0.2, 0.0, 0.4, -0.4])
BIASED_REGIONS = ("north", "east")


__all__ = ["make_planted_bias"]


def make_planted_bias(n_samples=6000, *, bias_share=0.5, random_state=0):
    """Records, decisions and the ground truth of a planted bias.

    The fair decision depends on income, age, education and region; in
    the regions ``"north"`` and ``"east"`` each woman with the positive
    decision is turned negative with probability ``bias_share``. Those
    women are the discriminated; the women with a negative decision in the
    other regions are not (``bias_share=0``: a null data set).

    Parameters
    ----------
    n_samples : int, default=6000
    bias_share : float, default=0.5
        Probability that a positive woman of a biased region is turned
        negative.
    random_state : int, default=0

    Returns
    -------
    X : pandas DataFrame of shape (n_samples, 7)
    y : ndarray of shape (n_samples,), 0/1
    discriminated : ndarray of bool
        The flipped women.
    clean : ndarray of bool
        Women with a negative decision outside the biased regions.

    Examples
    --------
    >>> from skfair_manifold.datasets import make_planted_bias
    >>> X, y, discriminated, clean = make_planted_bias(2000, random_state=0)
    >>> list(X.columns)
    ['sex', 'income', 'age', 'region', 'edu', 'noise', 'colour']
    >>> bool(discriminated.any()), bool((discriminated & clean).any())
    (True, False)
    >>> bool(y[discriminated].any())
    False
    """
    import pandas as pd

    rng = np.random.RandomState(random_state)
    # seven columns and the decisions, ground truth and mask: about 11 floats a row
    n = check_size(n_samples, name="n_samples", low=1, bytes_per_unit=8 * 11)
    female = rng.rand(n) < 0.45
    region = rng.randint(0, REGIONS.shape[0], n)
    edu = np.clip(np.round(rng.normal(2.0, 1.1, n)), 0, 4)
    income = np.exp(rng.normal(10.2, 0.5, n)) * (1.0 + 0.08 * edu)
    age = np.round(rng.uniform(18, 70, n), 1)
    noise = rng.normal(0.0, 1.0, n)
    colour = rng.choice(np.array(["red", "green", "blue"], dtype=object), n)
    y = (rng.rand(n) < fair_rate(income, age, edu, region)).astype(int)
    biased = np.isin(REGIONS[region], BIASED_REGIONS)
    flipped = biased & female & (y == 1) & (rng.rand(n) < bias_share)
    y[flipped] = 0
    X = pd.DataFrame({
        "sex": np.where(female, "female", "male").astype(object),
        "income": np.round(income, 2),
        "age": age,
        "region": REGIONS[region],
        "edu": edu.astype(int),
        "noise": noise,
        "colour": colour,
    })
    clean = female & (y == 0) & ~biased
    return X, y, flipped, clean


def fair_rate(income, age, edu, region):
    """The fair decision's ``P(e+)`` of :func:`make_planted_bias` (``region`` as its index
    in ``REGIONS``): the rate of a man, and of a woman outside the biased regions."""
    log_income = np.log(np.asarray(income, dtype=np.float64))
    z = (log_income - log_income.mean()) / log_income.std()
    logit = (-1.2 + 1.1 * z + 0.45 * (np.asarray(edu) - 2) - 0.6 * (np.asarray(age) < 25)
             + REGION_EFFECT[region])
    return 1.0 / (1.0 + np.exp(-logit))


def null_decisions(n, rng, kind):
    """Decisions that do not depend on sex (no discrimination to find), for calibration.

    A nominal column ``r`` and a continuous ``x`` (``kind="continuous"``) or a
    nominal ``g`` (``kind="nominal"``) drive the decision; ``sex`` ("f" for
    45% of the rows) does not. ``rng`` is a ``RandomState``. Returns the
    DataFrame of the records and the 0/1 decisions.
    """
    import pandas as pd

    sex = rng.rand(n) < 0.45
    r = rng.randint(0, 3, n)
    x = rng.normal(size=n)
    logit = -0.3 + np.array([-1.0, 0.0, 1.0])[r] + (x if kind == "continuous" else 0.0)
    y = (rng.rand(n) < 1 / (1 + np.exp(-logit))).astype(int)
    cols = {"sex": np.where(sex, "f", "m").astype(object),
            "r": np.array(["a", "b", "c"], dtype=object)[r]}
    if kind == "continuous":
        cols["x"] = np.round(x, 3)
    else:
        cols["g"] = np.array(["u", "v", "w", "z"], dtype=object)[rng.randint(0, 4, n)]
    return pd.DataFrame(cols), y


def planted_cells(n, rng, share):
    """Nominal records whose situation is exactly their cell (region x edu, 12 cells).

    The decision depends on the cell alone, except that in the regions ``"n"``
    and ``"e"`` each woman's positive decision is turned negative with
    probability ``share``. ``rng`` is a ``RandomState``. Returns the records
    (``sex``, ``region``, ``edu``), the 0/1 decisions, the flipped women and
    the women with a negative decision elsewhere (exactly null for the
    per-person test).
    """
    import pandas as pd

    sex = np.where(rng.rand(n) < 0.5, "f", "m").astype(object)
    region = rng.choice(["n", "e", "s", "w"], n).astype(object)
    edu = rng.choice(["a", "b", "c"], n).astype(object)
    y = (rng.rand(n) < 0.25 + 0.2 * (edu == "b") + 0.4 * (edu == "c")
         + 0.1 * (region == "s")).astype(int)
    biased = np.isin(region, ["n", "e"])
    flipped = biased & (sex == "f") & (y == 1) & (rng.rand(n) < share)
    y[flipped] = 0
    clean = (sex == "f") & (y == 0) & ~biased
    return pd.DataFrame({"sex": sex, "region": region, "edu": edu}), y, flipped, clean
