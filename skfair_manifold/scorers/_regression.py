"""The ready scorers of a regressor: gaps of the groups' mean predictions, errors, distributions.

Each is the negated metric of :mod:`skfair_manifold.metrics` (higher is
fairer), requests ``sensitive_features`` through metadata routing, and takes
the regressor's ``predict``. ``make_fairness_scorer("error_difference",
loss="squared", sensitive="sex")`` gives the other settings.
"""

from ._scorer import _FairnessScorer

mean_prediction_difference_scorer = _FairnessScorer(
    "mean_prediction_difference", {}, label="mean_prediction_difference_scorer")
error_difference_scorer = _FairnessScorer(
    "error_difference", {}, label="error_difference_scorer")
bounded_group_loss_scorer = _FairnessScorer(
    "bounded_group_loss", {}, label="bounded_group_loss_scorer")
distribution_distance_scorer = _FairnessScorer(
    "distribution_distance", {}, label="distribution_distance_scorer")
