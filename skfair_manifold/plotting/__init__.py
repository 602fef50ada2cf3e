"""Plots of fairness measures and audits (matplotlib optional).

Importing this module does not import matplotlib; each function imports it
when called and raises one clear error when it is missing
(``pip install 'skfair_manifold[plot]'``).
"""

from skfair_manifold.plotting._bars import plot_group_rates, plot_hfm_by_attribute
from skfair_manifold.plotting._graph import plot_causal_graph
from skfair_manifold.plotting._pareto import pareto_front
from skfair_manifold.plotting._scatter import plot_approx_vs_exact
from skfair_manifold.plotting._tradeoff import plot_fairness_tradeoff

__all__ = [
    "pareto_front",
    "plot_approx_vs_exact",
    "plot_causal_graph",
    "plot_fairness_tradeoff",
    "plot_group_rates",
    "plot_hfm_by_attribute",
]
