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
    parity, discriminative risk, and :func:`~skfair_manifold.metrics.fairness_report`
    (every per-group rate, gap and ratio in one object).
scorers
    The metrics as scikit-learn scorers for model selection.
situation_testing
    ``SituationTestingAuditor``: situation testing of individual decisions
    (KNN-DD and CBN-DD).

The names below are loaded on first use (PEP 562), so that ``import
skfair_manifold`` and the command line's ``--help`` and ``--version`` do not
import scikit-learn, scipy or pandas.
"""

import importlib

__version__ = "0.1.0.dev0"

# public name -> the module that defines it
_LAZY = {
    "bias_audit": "skfair_manifold.metrics",
    "BiasAudit": "skfair_manifold.metrics",
    "demographic_parity": "skfair_manifold.metrics",
    "discriminative_risk": "skfair_manifold.metrics",
    "equal_opportunity": "skfair_manifold.metrics",
    "fairness_report": "skfair_manifold.metrics",
    "FairnessReport": "skfair_manifold.metrics",
    "hfm_avg": "skfair_manifold.metrics",
    "hfm_max": "skfair_manifold.metrics",
    "hfm_report": "skfair_manifold.metrics",
    "predictive_quality_parity": "skfair_manifold.metrics",
    "demographic_parity_scorer": "skfair_manifold.scorers",
    "equal_opportunity_scorer": "skfair_manifold.scorers",
    "hfm_avg_scorer": "skfair_manifold.scorers",
    "hfm_max_scorer": "skfair_manifold.scorers",
    "make_dr_scorer": "skfair_manifold.scorers",
    "make_fairness_scorer": "skfair_manifold.scorers",
    "make_hfm_scorer": "skfair_manifold.scorers",
    "predictive_quality_parity_scorer": "skfair_manifold.scorers",
    "SituationTestingAuditor": "skfair_manifold.situation_testing",
}
_SUBMODULES = {"cli", "datasets", "distances", "metrics", "plotting", "reports", "scorers",
               "situation_testing"}

__all__ = ["__version__", *sorted(_LAZY)]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | _SUBMODULES)
