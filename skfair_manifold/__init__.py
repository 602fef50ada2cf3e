"""skfair_manifold: discrimination in data and in models, for scikit-learn.

The package measures how far the groups defined by several sensitive
attributes (each with any number of values) lie apart, in the data and in a
model's predictions, with the harmonic fairness measure via manifolds (HFM),
and audits individual decisions by situation testing.

Subpackages
-----------
distances
    Distance from every row to the nearest row of another group: exact
    (Eq. 4-7 of the HFM paper) and by random projections (Algorithms 1-3).
situation_testing
    ``SituationTestingAuditor``: situation testing of individual decisions
    (KNN-DD and CBN-DD).
"""

__version__ = "0.1.0.dev0"

from .situation_testing import SituationTestingAuditor  # noqa: E402

__all__ = ["__version__", "SituationTestingAuditor"]
