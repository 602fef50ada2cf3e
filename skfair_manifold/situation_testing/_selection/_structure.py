"""The causal structure around the decision: the graph a user gives.

CBN-DD (Zhang, Wu and Wu, 2016, section 4) needs only the decision's parents:
``Q = Par(E) \\ {C}``. They are obtained in one of three ways:

* from a graph given by the user (this module) (a mapping child -> parents, or any object
  with ``predecessors(node)`` and ``nodes`` such as ``networkx.DiGraph``),
  checked for a cycle, for the decision node and for an edge into the
  protected attribute;
* by a local search around the decision with conditional independence
  tests (``_parent_search``, the tests in ``_citests``: G-test, generalized
  Cochran-Mantel-Haenszel test, or both; the default, scipy only);
* by the full PC algorithm of causal-learn (optional extra ``causal``,
  ``_parent_search.pc_parents``).

The local search's assumptions and why it finds ``Par(E)`` are given in
``_parent_search``.
"""

import numpy as np

MSG_GRAPH_TYPE = (
    "graph must be None, a mapping child -> parents, an object with `predecessors` and "
    "`nodes` (such as networkx.DiGraph), or a sequence of the decision's parents; got {kind}."
)
MSG_GRAPH_NO_DECISION = (
    "the graph has no decision node {decision!r}: name the decision node as y's name "
    "(a pandas Series name) or 'y'."
)
MSG_GRAPH_UNKNOWN_NODE = "the graph names {nodes!r}, which are neither columns of X nor the decision."
MSG_GRAPH_CYCLE = "the graph has a cycle through {nodes!r}; a causal Bayesian network is acyclic."
MSG_GRAPH_INTO_PROTECTED = (
    "the graph has an arc {parent!r} -> {protected!r} into the protected attribute; the "
    "paper assumes none (the protected attribute is an inherent trait). Remove it."
)
MSG_GRAPH_DECISION_PARENT = (
    "the graph has an arc from the decision {decision!r} to {child!r}; the decision must have "
    "no children."
)
MSG_GRAPH_NODE_TYPE = (
    "the graph's nodes must be column names or positions; {child!r} lists {node!r} "
    "({kind}). Write each node's parents as a flat list of names, for example ['age', 'edu']."
)


def graph_to_parents(graph, columns, decision, protected):
    """Normalise a user graph to a dict ``node -> tuple of parents``.

    Parameters
    ----------
    graph : mapping, DiGraph-like or sequence
        A mapping child -> iterable of parents, an object with ``nodes`` and
        ``predecessors(node)``, or a sequence of the decision's parents.
    columns : list
        The column names of X (positions for arrays).
    decision : hashable
        The name of the decision node.
    protected : hashable
        The name of the protected column.

    Returns
    -------
    parents : dict
        ``node -> tuple of parents`` for every node named by the graph.
    """
    if hasattr(graph, "predecessors") and hasattr(graph, "nodes"):
        parents = {node: tuple(graph.predecessors(node)) for node in graph.nodes}
    elif isinstance(graph, dict) or (hasattr(graph, "keys") and hasattr(graph, "items")):
        parents = {}
        for child, pars in graph.items():
            if isinstance(pars, (str, bytes)) or not hasattr(pars, "__iter__"):
                pars = (pars,)
            parents[child] = tuple(pars)
        for child, pars in list(parents.items()):
            for p in pars:
                _check_node(child, p)
                parents.setdefault(p, ())
    elif isinstance(graph, (list, tuple, np.ndarray)):
        parents = {decision: tuple(graph)}
        for p in parents[decision]:
            _check_node(decision, p)
            parents.setdefault(p, ())
    else:
        raise TypeError(MSG_GRAPH_TYPE.format(kind=type(graph).__name__))

    if decision not in parents:
        raise ValueError(MSG_GRAPH_NO_DECISION.format(decision=decision))
    known = set(columns) | {decision}
    unknown = [n for n in parents if n not in known]
    if unknown:
        raise ValueError(MSG_GRAPH_UNKNOWN_NODE.format(nodes=unknown))
    for p in parents.get(protected, ()):
        raise ValueError(MSG_GRAPH_INTO_PROTECTED.format(parent=p, protected=protected))
    for child, pars in parents.items():
        if decision in pars:
            raise ValueError(MSG_GRAPH_DECISION_PARENT.format(decision=decision, child=child))
    cycle = _find_cycle(parents)
    if cycle:
        raise ValueError(MSG_GRAPH_CYCLE.format(nodes=cycle))
    return parents


def _check_node(child, node):
    if isinstance(node, (list, tuple, dict, set, np.ndarray)):
        raise TypeError(MSG_GRAPH_NODE_TYPE.format(child=child, node=node,
                                                   kind=type(node).__name__))


def _find_cycle(parents):
    """Return the nodes of one directed cycle, or an empty list (iterative DFS)."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = {n: WHITE for n in parents}
    for start in parents:
        if colour[start] != WHITE:
            continue
        stack = [(start, iter(parents[start]))]
        path = [start]
        colour[start] = GREY
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = BLACK
                stack.pop()
                path.pop()
                continue
            if colour.get(nxt, WHITE) == GREY:
                return path[path.index(nxt):] + [nxt]
            if colour.get(nxt, WHITE) == WHITE:
                colour[nxt] = GREY
                stack.append((nxt, iter(parents.get(nxt, ()))))
                path.append(nxt)
    return []

