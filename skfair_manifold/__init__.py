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
metrics
    HFM (Eq. 8), demographic parity, equal opportunity, predictive quality
    parity, discriminative risk.
scorers
    The metrics as scikit-learn scorers for model selection.
situation_testing
    ``SituationTestingAuditor``: situation testing of individual decisions
    (KNN-DD and CBN-DD).
"""

__version__ = "0.1.0.dev0"

from skfair_manifold.metrics import (  # noqa: E402
    demographic_parity,
    discriminative_risk,
    equal_opportunity,
    hfm_avg,
    hfm_max,
    hfm_report,
    predictive_quality_parity,
)
from skfair_manifold.situation_testing import SituationTestingAuditor  # noqa: E402
from skfair_manifold.scorers import (  # noqa: E402
    demographic_parity_scorer,
    equal_opportunity_scorer,
    hfm_avg_scorer,
    hfm_max_scorer,
    make_dr_scorer,
    make_fairness_scorer,
    make_hfm_scorer,
    predictive_quality_parity_scorer,
)

__all__ = [
    "__version__",
    # metrics
    "demographic_parity",
    "discriminative_risk",
    "equal_opportunity",
    "hfm_avg",
    "hfm_max",
    "hfm_report",
    "predictive_quality_parity",
    # scorers
    "demographic_parity_scorer",
    "equal_opportunity_scorer",
    "hfm_avg_scorer",
    "hfm_max_scorer",
    "make_dr_scorer",
    "make_fairness_scorer",
    "make_hfm_scorer",
    "predictive_quality_parity_scorer",
    # situation testing
    "SituationTestingAuditor",
]
