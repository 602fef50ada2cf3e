"""A causal graph as parents, and its layers of ancestors: for the plot and the HTML page."""

MSG_GRAPH_KIND = (
    "graph must be a mapping child -> parents, an object with `nodes` and `predecessors` "
    "(such as a networkx.DiGraph), or a fitted SituationTestingAuditor; got {kind}."
)


def parents_mapping(graph):
    """Normalise any accepted graph to ``{node: [parents]}`` with every node a key."""
    if hasattr(graph, "predecessors") and hasattr(graph, "nodes"):
        nodes = list(graph.nodes)
        parents = {node: list(graph.predecessors(node)) for node in nodes}
    elif hasattr(graph, "items"):
        parents = {child: list(ps) for child, ps in graph.items()}
    else:
        raise TypeError(MSG_GRAPH_KIND.format(kind=type(graph).__name__))
    for ps in list(parents.values()):
        for p in ps:
            parents.setdefault(p, [])
    return parents


def ancestor_layers(parents, decision, depth):
    """Breadth-first layers of ancestors: [decision], [its parents], [theirs], ..."""
    layers, seen = [[decision]], {decision}
    for _ in range(depth):
        layer = []
        for node in layers[-1]:
            for p in parents[node]:
                if p not in seen:
                    seen.add(p)
                    layer.append(p)
        if not layer:
            break
        layers.append(layer)
    return layers
