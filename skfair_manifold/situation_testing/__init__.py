"""Situation testing: discrimination against one person.

``SituationTestingAuditor`` compares the decisions given to a person's
nearest look-alikes inside and outside the protected group, with the testers
chosen by KNN-DD (Luong, Ruggieri and Turini, 2011) or by CBN-DD (Zhang, Wu
and Wu, 2016), or by a method added with ``register_method``. Its report
gives each candidate's probability of having been refused because she is
protected (or her shortfall, for an amount) and how many were harmed;
``counterfactual_decisions`` asks a model one can call directly.
"""

from ._auditor import SituationTestingAuditor
from ._evidence import PersonEvidence, SituationTestingReport
from ._harm._counterfactual import counterfactual_decisions
from ._lazy._verdicts import cell_verdicts
from ._selection._methods import FitData, register_method, unregister_method

__all__ = ["FitData", "PersonEvidence", "SituationTestingAuditor", "SituationTestingReport",
           "cell_verdicts", "counterfactual_decisions", "register_method",
           "unregister_method"]
