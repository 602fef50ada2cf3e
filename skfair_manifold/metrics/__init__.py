"""Numbers about a model or a dataset.

- HFM, the harmonic fairness measure via manifolds (HFM paper, Eq. 8):
  :func:`hfm_max`, :func:`hfm_avg`, and :func:`hfm_report` for both values and
  the per-attribute breakdown in one call. Natural logarithm.
- Group baselines for any number of groups and attributes:
  :func:`demographic_parity`, :func:`equal_opportunity`,
  :func:`predictive_quality_parity`.
- :func:`discriminative_risk`: the share of predictions that change when the
  sensitive attributes are perturbed (needs the estimator).
- :func:`fairness_report`: the view behind the numbers, a
  :class:`FairnessReport` with the per-group rates, the gaps and ratios
  (four-fifths rule), HFM, DR and bootstrap intervals; for a continuous
  target (a wage, a score), a :class:`RegressionReport` with the groups' mean
  predictions, errors and distributions, and its single numbers
  :func:`mean_prediction_difference`, :func:`error_difference`,
  :func:`bounded_group_loss`, :func:`distribution_distance`.
- :func:`bias_audit`: the bias audit of a selection tool (New York City's Local
  Law 144, the four-fifths rule) without labels: per category of each
  sensitive attribute and their intersection, the selection or scoring rate and
  the impact ratio, with unknown categories bounded instead of dropped, in a
  :class:`BiasAudit`.

The metric functions compare the groups :func:`fairness_report` compares, those of
at least ``min_group_size`` rows (30 by default in both), so that a metric is the
report's gap; ``min_group_size=1`` compares every group, as fairlearn does.

Undefined values are ``nan`` with an :class:`UndefinedFairnessWarning`, never a
sentinel; invalid input raises. In the group baselines a group whose own rate is
undefined (no positives for EO or PQP) is left out of its attribute's gap with
that warning, and the gap is ``nan`` only when fewer than 2 groups remain.
"""

from ._audit._api import bias_audit
from ._audit._object import BiasAudit
from ._common import UndefinedFairnessWarning
from ._groups._metrics import demographic_parity, equal_opportunity, predictive_quality_parity
from ._hfm._metrics import LOG10_FACTOR, hfm_avg, hfm_max, hfm_report
from ._regression._metrics import (
    bounded_group_loss,
    distribution_distance,
    error_difference,
    mean_prediction_difference,
)
from ._report._continuous import RegressionReport
from ._report._fairness_report import FairnessReport, fairness_report
from ._risk import discriminative_risk

__all__ = [
    "BiasAudit",
    "FairnessReport",
    "LOG10_FACTOR",
    "RegressionReport",
    "UndefinedFairnessWarning",
    "bias_audit",
    "bounded_group_loss",
    "demographic_parity",
    "discriminative_risk",
    "distribution_distance",
    "equal_opportunity",
    "error_difference",
    "fairness_report",
    "hfm_avg",
    "hfm_max",
    "hfm_report",
    "mean_prediction_difference",
    "predictive_quality_parity",
]
