"""Situation testing: discrimination against one person.

``SituationTestingAuditor`` compares the decisions given to a person's
nearest look-alikes inside and outside the protected group, with the testers
chosen by KNN-DD (Luong, Ruggieri and Turini, 2011) or by CBN-DD (Zhang, Wu
and Wu, 2016), or by a method added with ``register_method``.
"""

from ._auditor import SituationTestingAuditor
from ._evidence import PersonEvidence, SituationTestingReport
from ._lazy._verdicts import cell_verdicts
from ._selection._methods import FitData, register_method, unregister_method

__all__ = ["FitData", "PersonEvidence", "SituationTestingAuditor", "SituationTestingReport",
           "cell_verdicts", "register_method", "unregister_method"]
