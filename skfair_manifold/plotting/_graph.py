"""The causal graph around the decision, as situation testing uses it."""

from typing import Any

import numpy as np

from skfair_manifold.plotting._base import get_axes
from skfair_manifold.utils._graph import MSG_GRAPH_KIND  # noqa: F401  (the tests')
from skfair_manifold.utils._graph import ancestor_layers as _layers
from skfair_manifold.utils._graph import parents_mapping as _parents_mapping

MSG_NO_DECISION = (
    "the decision node {decision!r} is not in the graph (nodes: {nodes}); pass decision=... "
    "with its name."
)

# Fitted attributes of SituationTestingAuditor that the plot reads, in order of preference.
_GRAPH_ATTRS = ("graph_",)
_Q_ATTRS = ("q_", "Q_", "q_names_")
_DECISION_ATTRS = ("decision_", "decision_name_")


def _first_attr(obj, names):
    for name in names:
        value = getattr(obj, name, None)
        if value is not None:
            return value
    return None


def plot_causal_graph(
    graph: Any,
    *,
    decision: str = "y",
    protected: str | None = None,
    q: list | tuple | None = None,
    depth: int = 2,
    ax: Any = None,
) -> Any:
    """Draw the decision, its parents and their ancestors, from a causal graph.

    CBN-DD (Zhang, Wu and Wu, Algorithm 1) measures the distance between
    people on ``Q = Par(decision) \\ {protected}`` only. The plot shows the
    decision on the right, its parents in the next column (the protected
    attribute in red, ``Q`` in blue), then their own parents up to ``depth``
    steps; every edge between the nodes drawn is an arrow.

    Parameters
    ----------
    graph : mapping, DiGraph-like or fitted auditor
        A mapping child -> parents, an object with ``nodes`` and
        ``predecessors`` (``networkx.DiGraph``), or a fitted
        :class:`~skfair_manifold.situation_testing.SituationTestingAuditor`,
        whose learned graph, protected attribute and ``Q`` are then read.
    decision : str, default="y"
        The name of the decision node.
    protected : str, default=None
        The protected attribute, drawn in red (read from the auditor when
        ``graph`` is one).
    q : iterable of str, default=None
        The attributes of ``Q``, drawn in blue; by default the decision's
        parents other than ``protected``.
    depth : int, default=2
        How many generations of ancestors of the decision to draw.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure when None.

    Returns
    -------
    ax : matplotlib Axes
        ``ax.positions_`` maps each drawn node to its ``(x, y)``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skfair_manifold.plotting import plot_causal_graph
    >>> graph = {"admission": ["gender", "major", "score"], "major": ["gender"],
    ...          "height": ["gender"], "weight": ["height"]}
    >>> ax = plot_causal_graph(graph, decision="admission", protected="gender")
    >>> sorted(ax.positions_)
    ['admission', 'gender', 'major', 'score']
    """
    if hasattr(graph, "fit") and hasattr(graph, "get_params"):  # a fitted auditor
        auditor = graph
        graph = _first_attr(auditor, _GRAPH_ATTRS)
        if graph is None:
            raise ValueError("the auditor has no learned graph: fit it first "
                             "(with method='cbn').")
        if protected is None:
            protected = auditor.get_params().get("protected")
        if q is None:
            q = _first_attr(auditor, _Q_ATTRS)
        fitted_decision = _first_attr(auditor, _DECISION_ATTRS)
        if fitted_decision is not None:
            decision = fitted_decision
    parents = _parents_mapping(graph)
    if decision not in parents:
        raise ValueError(MSG_NO_DECISION.format(decision=decision, nodes=sorted(map(str, parents))))
    if q is None:
        q = [p for p in parents[decision] if p != protected]
    q = set(q)

    layers = _layers(parents, decision, depth)
    positions = {}
    for column, layer in enumerate(layers):
        ys = np.linspace(1, -1, len(layer)) if len(layer) > 1 else [0.0]
        for node, yy in zip(layer, ys):
            positions[node] = (-float(column), float(yy))

    ax = get_axes(ax, "plot_causal_graph")
    for child, ps in parents.items():
        for p in ps:
            if child in positions and p in positions:
                ax.annotate("", xy=positions[child], xytext=positions[p],
                            arrowprops=dict(arrowstyle="->", color="0.35", shrinkA=18,
                                            shrinkB=18, linewidth=1.2))
    for node, (x, yy) in positions.items():
        if node == decision:
            color = "gold"
        elif node == protected:
            color = "salmon"
        elif node in q:
            color = "lightskyblue"
        else:
            color = "0.9"
        ax.text(x, yy, str(node), ha="center", va="center", fontsize=10,
                bbox=dict(boxstyle="round,pad=0.4", facecolor=color, edgecolor="0.3"))
    ax.set_xlim(-len(layers) + 0.4, 0.6)
    ax.set_ylim(-1.4, 1.4)
    ax.set_axis_off()
    title = f"Causal graph around {decision!s}"
    if q:
        title += f"; Q = {{{', '.join(sorted(map(str, q)))}}}"
    ax.set_title(title)
    ax.positions_ = positions
    return ax
