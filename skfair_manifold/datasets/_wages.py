"""make_biased_wages: wages with a pay gap planted for women in known cells, and the truth."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch, check_random_state

from ..utils._sizes import check_size
from ..utils._typing import RandomStateLike

REGIONS = ("north", "south", "east", "west")
SECTORS = ("public", "private")
#: the cells (region, sector) where women are paid less by default
BIASED_CELLS = (("south", "private"), ("east", "private"))

MSG_GAP = "gap must be a number in [0, 1); got {value!r}."
MSG_CELLS = (
    "biased_cells must be pairs (region, sector) of {regions} and {sectors}; got {value!r}."
)


def make_biased_wages(
    n_samples: int = 5000,
    *,
    gap: float = 0.1,
    biased_cells: tuple = BIASED_CELLS,
    noise: float = 0.2,
    random_state: RandomStateLike = None,
) -> Bunch:
    """Generate yearly wages with a pay gap planted for women in chosen cells.

    People have a ``sex`` (half ``"female"``), an ``education`` level (1 to
    4), ``experience`` (0 to 40 years), a ``region`` and a ``sector``. The
    fair wage is log-linear: ``log(wage) = 10 + 0.15 education + 0.03
    experience - 0.0005 experience^2 + region and sector effects + noise *
    N(0, 1)``, the same for both sexes. Then every woman in a cell
    ``(region, sector)`` of ``biased_cells`` is paid ``gap`` less (her wage
    times ``1 - gap``): the ground truth of who was discriminated, and by how
    much.

    Parameters
    ----------
    n_samples : int, default=5000
        Rows.
    gap : float in [0, 1), default=0.1
        The share of the fair wage withheld from the women of the biased
        cells; 0 gives wages independent of sex.
    biased_cells : tuple of (region, sector), default=(("south", "private"), \
("east", "private"))
        Where the gap is planted; regions ``north``, ``south``, ``east``,
        ``west``, sectors ``public``, ``private``.
    noise : float, default=0.2
        Standard deviation of the log wage around its fair value.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    data : sklearn.utils.Bunch
        ``data`` (DataFrame: ``sex``, ``education``, ``experience``,
        ``region``, ``sector``), ``target`` (the wage paid), ``fair_target``
        (the wage without the gap), ``discriminated`` (boolean: a woman of a
        biased cell, when ``gap > 0``), ``sensitive`` (the ``sex`` column),
        ``feature_names``, ``biased_cells``, ``gap`` and ``DESCR``.

    Examples
    --------
    >>> from skfair_manifold.datasets import make_biased_wages
    >>> wages = make_biased_wages(2000, random_state=0)
    >>> wages.data.columns.tolist()
    ['sex', 'education', 'experience', 'region', 'sector']
    >>> paid = wages.target / wages.fair_target
    >>> round(float(paid[wages.discriminated].mean()), 3), int(wages.discriminated.sum())
    (0.9, 231)
    """
    import pandas as pd

    if not (isinstance(gap, (int, float)) and not isinstance(gap, bool) and 0 <= gap < 1):
        raise ValueError(MSG_GAP.format(value=gap))
    cells = [tuple(c) for c in biased_cells]
    if any(len(c) != 2 or c[0] not in REGIONS or c[1] not in SECTORS for c in cells):
        raise ValueError(MSG_CELLS.format(regions=REGIONS, sectors=SECTORS,
                                          value=biased_cells))
    # about 12 float64 columns and 2 text columns a row, while it is made
    n = check_size(n_samples, name="n_samples", low=1, bytes_per_unit=8 * 16)
    rng = check_random_state(random_state)
    sex = np.where(rng.random_sample(n) < 0.5, "female", "male")
    education = rng.randint(1, 5, n)
    experience = rng.randint(0, 41, n)
    region = np.asarray(REGIONS, dtype=object)[rng.randint(0, len(REGIONS), n)]
    sector = np.asarray(SECTORS, dtype=object)[rng.randint(0, len(SECTORS), n)]
    region_effect = {"north": 0.10, "south": -0.05, "east": 0.0, "west": 0.05}
    log_wage = (10.0 + 0.15 * education + 0.03 * experience - 0.0005 * experience ** 2
                + np.array([region_effect[r] for r in region])
                + np.where(sector == "private", 0.08, 0.0)
                + noise * rng.standard_normal(n))
    fair = np.round(np.exp(log_wage), 2)
    in_cell = np.zeros(n, dtype=bool)
    for r, s in cells:
        in_cell |= (region == r) & (sector == s)
    discriminated = (sex == "female") & in_cell & (gap > 0)
    wage = np.where(discriminated, np.round(fair * (1 - gap), 2), fair)
    data = pd.DataFrame({"sex": sex, "education": education, "experience": experience,
                         "region": region, "sector": sector})
    return Bunch(
        data=data, target=pd.Series(wage, name="wage"),
        fair_target=pd.Series(fair, name="fair_wage"),
        discriminated=pd.Series(discriminated, name="discriminated"),
        sensitive=data["sex"], feature_names=list(data.columns), biased_cells=cells,
        gap=gap,
        DESCR=("Yearly wages, log-linear in education and experience, with women in "
               f"{cells} paid {gap:.0%} less than their fair wage."))
