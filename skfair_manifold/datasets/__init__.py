"""Datasets: loaders of the papers' data and generators.

The loaders read raw files that the user already has (they never download):
pass the file as ``path=`` or a folder as ``data_home=`` laid out like
``<data_home>/<dataset folder>/<file>``. Each applies the preprocessing that
reproduces the counts of the paper that used the data, and returns a
``Bunch`` (``data``, ``target``, ``sensitive``, ``feature_names``,
``privileged``, ``DESCR``...) or ``(X, y, A)`` with ``return_X_y=True``.
Scaling and one-hot encoding are left to :func:`make_paper_preprocessor`, a
``ColumnTransformer`` to fit on training folds.
"""

from ._base import get_data_home, make_paper_preprocessor
from ._adult import load_adult
from ._compas import load_compas
from ._dutch import load_dutch_census
from ._german import load_german_credit
from ._ricci import load_ricci

# --- generators (owned by the userside engineer) -----------------------------
from ._generators import make_biased_decisions
from ._situation_testing import make_planted_bias
from ._wages import make_biased_wages

# ------------------------------------------------------------------------------

__all__ = [
    "get_data_home",
    "load_adult",
    "load_compas",
    "load_dutch_census",
    "load_german_credit",
    "load_ricci",
    "make_biased_decisions",
    "make_biased_wages",
    "make_paper_preprocessor",
    "make_planted_bias",
]
