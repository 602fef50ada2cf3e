"""Scorers for model selection: thin wrappers over :mod:`skfair_manifold.metrics`.

Lower fairness values are fairer, so every scorer returns the *negated* value
(``greater_is_better=False``, as scikit-learn does for losses): the search
keeps the largest score, i.e. the fairest model.

Two ways to give the scorer the sensitive attributes of the rows it scores:

1. Metadata routing (the ready objects ``hfm_max_scorer``, ``hfm_avg_scorer``,
   ``demographic_parity_scorer``, ...): they already request
   ``sensitive_features``, so after ``sklearn.set_config(enable_metadata_routing=True)``::

       GridSearchCV(est, grid, scoring={"acc": "accuracy", "hfm": hfm_avg_scorer},
                    refit="acc").fit(X, y, sensitive_features=A)
       cross_validate(est, X, y, scoring=hfm_avg_scorer, params={"sensitive_features": A})

   Without routing, scikit-learn hands ``fit(X, y, sensitive_features=A)`` to the
   estimator's own ``fit``, which fails with "unexpected keyword argument
   'sensitive_features'" before any scorer runs: enable routing first. A scorer
   that receives no ``sensitive_features`` raises a message that lists both ways.

2. Sensitive columns kept inside ``X``: ``make_hfm_scorer(sensitive=["sex", "race"])``
   (or any ``make_*_scorer(sensitive=...)``) takes them from ``X`` itself and needs
   no routing at all. For HFM they are dropped from the features of the
   distance (the paper's ``x`` without ``a``) unless ``drop_sensitive=False``.

Which features HFM measures distances on: with ``features="transformed"``
(the default) and a :class:`~sklearn.pipeline.Pipeline`, the features as the
final estimator sees them, i.e. the output of the pipeline's steps before the
last (one-hot encoded, scaled), with the outputs of the sensitive columns left
out; with ``features="input"``, the ``X`` the search hands to the scorer
(which must then be numeric). The transformed features are the default
because the distance between people should be measured on what the model
compares, and because a pipeline's raw input (strings) has no distance.

``response_method="predict_proba"`` or ``"decision_function"`` with a
``threshold`` turns scores into the two classes of a binary classifier; the
group metrics need classes, and a regression target is refused with a clear
error. A regressor is measured by the scorers of a quantity
(``mean_prediction_difference_scorer``, ``error_difference_scorer``,
``bounded_group_loss_scorer``, ``distribution_distance_scorer``), which take
its ``predict``.

The group scorers compare the groups that
:func:`~skfair_manifold.metrics.fairness_report` compares: groups of fewer than
``min_group_size`` rows (30 by default, the report's) are left out of the gap, so
a bound read off the report is the bound a search meets on the same rows.
``make_fairness_scorer("demographic_parity", min_group_size=1)`` compares every
group, as fairlearn does; a validation fold in which fewer than two groups have
that many rows scores ``nan``, with an ``UndefinedFairnessWarning`` that says so.

Scorers whose metric is randomised (HFM with the certified approximation,
which ``method="auto"`` uses beyond its crossover, and DR) use
``random_state=0`` unless told otherwise, so that every candidate of a search
is measured with the same projections or perturbation.
"""

from ._refit import (  # noqa: F401
    MSG_NONE_WITHIN,
    MostAccurateWithin,
)
# the messages the tests read here; the others are in ._messages
from ._messages import MSG_HFM_NO_WEIGHTS, MSG_NOT_BINARY_SCORES  # noqa: F401
from ._messages import MSG_STATE_OFF, MSG_STATE_ON  # noqa: F401
from ._group import (  # noqa: F401
    demographic_parity_scorer,
    equal_opportunity_scorer,
    make_fairness_scorer,
    predictive_quality_parity_scorer,
)
from ._hfm import (  # noqa: F401
    hfm_avg_scorer,
    hfm_max_scorer,
    make_hfm_scorer,
)
from ._dr import (  # noqa: F401
    make_dr_scorer,
)
from ._regression import (  # noqa: F401
    bounded_group_loss_scorer,
    distribution_distance_scorer,
    error_difference_scorer,
    mean_prediction_difference_scorer,
)

__all__ = [
    "MostAccurateWithin",
    "bounded_group_loss_scorer",
    "demographic_parity_scorer",
    "distribution_distance_scorer",
    "equal_opportunity_scorer",
    "error_difference_scorer",
    "hfm_avg_scorer",
    "hfm_max_scorer",
    "make_dr_scorer",
    "make_fairness_scorer",
    "make_hfm_scorer",
    "mean_prediction_difference_scorer",
    "predictive_quality_parity_scorer",
]

