"""Fairness-performance trade-off from a search's ``cv_results_``."""

from collections.abc import Mapping
from typing import Any

import numpy as np

from skfair_manifold.plotting._base import get_axes
from skfair_manifold.plotting._pareto import pareto_front

MSG_MISSING_KEY = (
    "cv_results has no key {key!r}: pass the scorer names used in `scoring` (found "
    "{available}). With scoring={{'acc': 'accuracy', 'hfm': hfm_avg_scorer}}, use "
    "fairness='hfm', performance='acc'."
)


MSG_NOT_RESULTS = (
    "cv_results must be a search's cv_results_ (a dict of arrays) or the fitted search "
    "itself; got {type}."
)
MSG_SCORES_LENGTHS = (
    "cv_results holds {n_fair} values of {fair!r} and {n_perf} of {perf!r}: one value per "
    "candidate is needed in each; pass cv_results_ as the search wrote it."
)
MSG_SCORES_NON_NUMERIC = "cv_results[{key!r}] must hold numbers; got values such as {example!r}."


def _results(cv_results):
    results = getattr(cv_results, "cv_results_", cv_results)
    if not isinstance(results, Mapping):
        raise TypeError(MSG_NOT_RESULTS.format(type=type(cv_results).__name__))
    return results


def _as_scores(results, key):
    values = np.asarray(results[key])
    if values.dtype.kind not in "biuf":
        raise TypeError(MSG_SCORES_NON_NUMERIC.format(
            key=key, example=values.reshape(-1)[0] if values.size else None))
    return values.astype(np.float64).reshape(-1)


def _mean_scores(results, name):
    key = f"mean_test_{name}"
    if key not in results:
        if name == "score" or "mean_test_score" in results:
            available = ["score"]
        else:
            available = sorted(k[len("mean_test_"):] for k in results
                               if k.startswith("mean_test_"))
        raise KeyError(MSG_MISSING_KEY.format(key=key, available=available))
    return _as_scores(results, key)


def plot_fairness_tradeoff(
    cv_results: Any,
    *,
    fairness: str = "hfm",
    performance: str = "accuracy",
    negate_fairness: bool = True,
    annotate: bool = False,
    error_bars: bool = True,
    chosen: int | None = None,
    ax: Any = None,
) -> Any:
    """Plot every candidate of a search by unfairness and performance.

    One point per candidate (mean over the folds), the Pareto front drawn as a
    step line through the candidates that no other beats on both counts, and
    the front's points circled.

    Parameters
    ----------
    cv_results : dict or fitted search
        ``search.cv_results_`` of a :class:`~sklearn.model_selection.GridSearchCV`
        or :class:`~sklearn.model_selection.RandomizedSearchCV` fitted with
        several scorers, or the search itself.
    fairness : str, default="hfm"
        The name of the fairness scorer in ``scoring``: the plot reads
        ``cv_results["mean_test_" + fairness]``.
    performance : str, default="accuracy"
        The name of the performance scorer in ``scoring``.
    negate_fairness : bool, default=True
        Whether the fairness scorer returned the negated measure. All the
        scorers of :mod:`skfair_manifold.scorers` do (lower unfairness is
        better, so the scorer returns minus the measure, as scikit-learn's
        ``greater_is_better=False`` does): the plot shows the measure itself,
        lower is fairer.
    annotate : bool, default=False
        Write the candidate's index (its row in ``cv_results``) beside each
        point on the front.
    error_bars : bool, default=True
        Draw the spread over the folds (``std_test_<name>``, one standard
        deviation each way) on both axes, when ``cv_results`` has it.
    chosen : int or None, default=None
        The candidate to mark as the chosen model (a star). None: the
        search's ``best_index_`` when a fitted search is given.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure when None.

    Returns
    -------
    ax : matplotlib Axes
        ``ax.front_`` holds the indices of the candidates on the front,
        ``ax.chosen_`` the chosen one (or None).

    See Also
    --------
    pareto_front : the same front, without the plot.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skfair_manifold.plotting import plot_fairness_tradeoff
    >>> results = {"mean_test_acc": [0.70, 0.80, 0.75],
    ...            "mean_test_hfm": [-0.10, -0.20, -0.30]}
    >>> ax = plot_fairness_tradeoff(results, fairness="hfm", performance="acc")
    >>> ax.front_.tolist()
    [0, 1]
    """
    results = _results(cv_results)
    unfair = _mean_scores(results, fairness)
    perf = _mean_scores(results, performance)
    if unfair.shape != perf.shape:
        raise ValueError(MSG_SCORES_LENGTHS.format(n_fair=unfair.shape[0], fair=fairness,
                                                   n_perf=perf.shape[0], perf=performance))
    if negate_fairness:
        unfair = -unfair
    ax = get_axes(ax, "plot_fairness_tradeoff")
    keep = ~(np.isnan(unfair) | np.isnan(perf))
    idx = np.flatnonzero(keep)
    front = idx[pareto_front(unfair[keep], perf[keep])]
    ax.scatter(unfair[keep], perf[keep], color="tab:blue", alpha=0.6, label="candidates")
    ax.step(unfair[front], perf[front], where="post", color="tab:red", linewidth=1.5)
    ax.scatter(unfair[front], perf[front], facecolors="none", edgecolors="tab:red", s=120,
               linewidths=1.5, label="Pareto front")
    if error_bars and f"std_test_{fairness}" in results and f"std_test_{performance}" in results:
        xerr = _as_scores(results, f"std_test_{fairness}")[keep]
        yerr = _as_scores(results, f"std_test_{performance}")[keep]
        ax.errorbar(unfair[keep], perf[keep], xerr=xerr, yerr=yerr, fmt="none",
                    ecolor="tab:blue", alpha=0.35, linewidth=1, label="spread over folds")
    if annotate:
        for i in front:
            ax.annotate(str(i), (unfair[i], perf[i]), textcoords="offset points",
                        xytext=(6, -10), fontsize=8)
    if chosen is None:
        chosen = getattr(cv_results, "best_index_", None)
    if chosen is not None:
        chosen = int(chosen)
        if not 0 <= chosen < unfair.shape[0]:
            raise ValueError(f"chosen={chosen} is not a candidate: cv_results has "
                             f"{unfair.shape[0]}.")
        ax.scatter([unfair[chosen]], [perf[chosen]], marker="*", s=260, color="gold",
                   edgecolors="black", zorder=5, label=f"chosen (candidate {chosen})")
    ax.chosen_ = chosen
    ax.set_xlabel(f"{fairness} (lower is fairer)")
    ax.set_ylabel(f"{performance} (higher is better)")
    ax.set_title("Fairness-performance trade-off")
    ax.legend(loc="best")
    ax.front_ = front
    return ax
