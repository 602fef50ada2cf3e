"""The refit rule of a search under a fairness bound: the most accurate candidate within it."""

import warnings
from numbers import Real

import numpy as np

MSG_BOUND = (
    "MostAccurateWithin's bound must be a finite number (the largest fairness value "
    "allowed, say 0.05); got {bound!r}."
)
MSG_NO_CANDIDATES = (
    "{rule}: cv_results holds no candidate (its {key!r} is empty); the search has nothing to "
    "refit. Give the search a parameter grid of at least one candidate."
)
MSG_ALL_UNDEFINED = (
    "{rule}: every candidate's mean {fairness!r} score is nan (undefined in some fold of "
    "each, see the UndefinedFairnessWarning of the scorer), so none can be compared with the "
    "bound. Score on folds where every group has rows (StratifiedKFold on the groups, fewer "
    "splits), or merge rare groups."
)
MSG_NONE_WITHIN = (
    "no candidate has a mean {fairness!r} score within the bound {bound} (the fairest "
    "reaches {best:.4g}); refitting the fairest candidate instead."
)


class MostAccurateWithin:
    """A ``refit`` rule: the most accurate candidate whose fairness stays within a bound.

    For ``GridSearchCV(..., scoring={"acc": ..., "hfm": hfm_avg_scorer},
    refit=MostAccurateWithin(0.05, fairness="hfm", score="acc"))``: among
    the candidates whose mean fairness value (the negated score) is at most
    ``bound``, the one with the best mean ``score``; ties go to the fairer.
    When no candidate is within the bound, the fairest is chosen, with a
    warning. Candidates whose fairness is ``nan`` are never within.

    Parameters
    ----------
    bound : float
        The largest fairness value allowed (say 0.05 for HFM avg, or 0.1 for
        a DP gap): the scorers return its negation.

    fairness : str, default="hfm"
        The key of the fairness scorer in ``scoring``.

    score : str, default="acc"
        The key of the performance scorer in ``scoring``.

    Examples
    --------
    >>> from skfair_manifold.scorers import MostAccurateWithin
    >>> rule = MostAccurateWithin(0.1, fairness="dp", score="acc")
    >>> rule({"mean_test_acc": [0.9, 0.85, 0.8], "mean_test_dp": [-0.3, -0.08, -0.02]})
    1
    """

    def __init__(self, bound: float, *, fairness: str = "hfm", score: str = "acc") -> None:
        if isinstance(bound, bool) or not isinstance(bound, Real):
            raise TypeError(MSG_BOUND.format(bound=bound))
        if not np.isfinite(float(bound)):
            raise ValueError(MSG_BOUND.format(bound=bound))
        self.bound = bound
        self.fairness = fairness
        self.score = score

    def __repr__(self):
        return (f"MostAccurateWithin({self.bound!r}, fairness={self.fairness!r}, "
                f"score={self.score!r})")

    def __call__(self, cv_results):
        for key in (self.fairness, self.score):
            if f"mean_test_{key}" not in cv_results:
                found = sorted(k[len("mean_test_"):] for k in cv_results
                               if k.startswith("mean_test_"))
                raise KeyError(f"{self!r}: no scorer named {key!r} in scoring; the "
                               f"search has {found}.")
        value = -np.asarray(cv_results[f"mean_test_{self.fairness}"], dtype=np.float64)
        perf = np.asarray(cv_results[f"mean_test_{self.score}"], dtype=np.float64)
        if value.shape[0] == 0:
            raise ValueError(MSG_NO_CANDIDATES.format(rule=repr(self),
                                                      key=f"mean_test_{self.fairness}"))
        within = np.flatnonzero(np.nan_to_num(value, nan=np.inf) <= self.bound)
        if within.size == 0:
            if np.isnan(value).all():
                raise ValueError(MSG_ALL_UNDEFINED.format(rule=repr(self),
                                                          fairness=self.fairness))
            best = int(np.nanargmin(value))
            warnings.warn(MSG_NONE_WITHIN.format(fairness=self.fairness, bound=self.bound,
                                                 best=value[best]), UserWarning, stacklevel=2)
            return best
        order = np.lexsort((value[within], -np.nan_to_num(perf[within], nan=-np.inf)))
        return int(within[order[0]])
