"""The causal structure around the decision: graph input, Q, local search.

CBN-DD (Zhang, Wu and Wu, 2016, section 4) needs only the decision's parents:
``Q = Par(E) \\ {C}``. This module obtains them in one of three ways:

* from a graph given by the user (a mapping child -> parents, or any object
  with ``predecessors(node)`` and ``nodes`` such as ``networkx.DiGraph``),
  checked for a cycle, for the decision node and for an edge into the
  protected attribute;
* by a local search around the decision with G-tests (the default, scipy
  only);
* by the full PC algorithm of causal-learn (optional extra ``causal``).

The local search relies on the paper's assumptions: no arc points into the
protected attribute and the decision has no children. Then every attribute
adjacent to the decision is a parent, and ``Par(E)`` separates the decision
from every other attribute (all of them are non-descendants of ``E``, Markov
condition). So the PC adjacency phase run for the decision alone, with the
conditioning sets drawn from the decision's current candidates, finds
``Par(E)`` under faithfulness (the "PC-simple" idea of Buhlmann, Kalisch and
Maathuis, 2010).
"""

from itertools import combinations

import numpy as np
from scipy import stats

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
MSG_NO_CAUSAL_LEARN = (
    "structure='pc' needs causal-learn, an optional extra: pip install "
    "'skfair_manifold[causal]' (or pip install causal-learn)."
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


def g_test(x, e, s, n_levels):
    """Conditional G-test of independence ``x _||_ e | s`` on integer codes.

    Parameters
    ----------
    x, e : ndarray of shape (n,), dtype intp
        Codes ``0 .. n_levels[.] - 1``.
    s : ndarray of shape (n,) or None
        One integer code per stratum of the conditioning set (None: none).
    n_levels : tuple of int
        Numbers of levels of ``x`` and ``e``.

    Returns
    -------
    p_value : float
    statistic : float
    dof : int
        Degrees of freedom, counted per stratum over the levels actually
        seen: ``sum_s (|x seen in s| - 1) * (|e seen in s| - 1)`` (empty
        rows and columns carry no information).
    """
    nx, ne = n_levels
    if s is None:
        s = np.zeros_like(x)
        ns = 1
    else:
        ns = int(s.max()) + 1
        if ns * nx * ne > 4 * s.shape[0] + 1024:  # sparse strata: relabel densely
            _, s = np.unique(s, return_inverse=True)
            s = s.reshape(-1)
            ns = int(s.max()) + 1
    counts = np.bincount((s * nx + x) * ne + e, minlength=ns * nx * ne).reshape(ns, nx, ne)
    counts = counts.astype(np.float64)
    n_sx = counts.sum(axis=2, keepdims=True)
    n_se = counts.sum(axis=1, keepdims=True)
    n_s = counts.sum(axis=(1, 2), keepdims=True)
    expected = n_sx * n_se / np.where(n_s > 0, n_s, 1.0)
    nz = counts > 0
    stat = 2.0 * float(np.sum(counts[nz] * np.log(counts[nz] / expected[nz])))
    dof = int(np.sum(np.maximum((n_sx[:, :, 0] > 0).sum(axis=1) - 1, 0)
                     * np.maximum((n_se[:, 0, :] > 0).sum(axis=1) - 1, 0)))
    if dof <= 0:
        return 1.0, stat, 0
    return float(stats.chi2.sf(stat, dof)), stat, dof


def local_parent_search(codes, e, *, alpha, protected_idx, min_rows_per_dof=5,
                        candidates=None):
    """Find the decision's parents by a local G-test search (PC-simple).

    Parameters
    ----------
    codes : ndarray of shape (n, p), dtype intp
        Every attribute (protected included) as integer codes ``0 .. levels-1``.
    e : ndarray of shape (n,), dtype intp
        The decision as codes 0/1.
    alpha : float
        Significance level of each test.
    protected_idx : int
        Column of the protected attribute; it is a candidate parent like any
        other (conditioning on it may be needed), never removed by force.
    min_rows_per_dof : float, default=5
        A test whose table has fewer rows than ``min_rows_per_dof`` times its
        degrees of freedom is too sparse to trust; it is skipped and the
        dependence kept (the usual heuristic of constraint-based search).
    candidates : sequence of int or None, default=None
        The columns that may be parents (None: all). The others (for
        instance identifier-like columns) are never tested.

    Cost: one G-test per candidate column, then, for a candidate set of
    size ``c`` after the marginal tests, at most ``sum_d C(c - 1, d)`` tests
    per candidate (``d = 1 .. c - 1``), each one ``np.bincount`` over the
    rows: at most ``c * 2**(c - 1)`` tests of ``O(n)`` each, in practice far
    fewer since a candidate leaves at its first separating set.

    Returns
    -------
    parents : list of int
        Column indices of ``Par(E)``, in column order.
    log : dict
        ``n_tests`` and, per removed column, the separating set and p-value.
    """
    n, p = codes.shape
    levels = codes.max(axis=0) + 1 if n else np.ones(p, dtype=np.intp)
    n_tests = 0
    sepsets = {}
    cand = []
    allowed = range(p) if candidates is None else sorted(candidates)
    for j in allowed:
        pv, _, dof = g_test(codes[:, j], e, None, (int(levels[j]), 2))
        n_tests += 1
        if dof > 0 and pv <= alpha:
            cand.append(j)
        else:
            sepsets[j] = ((), pv)
    depth = 1
    while len(cand) - 1 >= depth:
        for j in list(cand):
            if j not in cand:
                continue
            others = [i for i in cand if i != j]
            for subset in combinations(others, depth):
                strata = _strata_code(codes, subset, levels)
                top = int(strata.max()) + 1 if n else 1
                n_strata = int(np.count_nonzero(np.bincount(strata))) \
                    if top <= 4 * n + 1024 else len(np.unique(strata))
                max_dof = (levels[j] - 1) * n_strata
                if n < min_rows_per_dof * max(max_dof, 1):
                    continue
                pv, _, dof = g_test(codes[:, j], e, strata, (int(levels[j]), 2))
                n_tests += 1
                if dof == 0 or pv > alpha:
                    cand.remove(j)
                    sepsets[j] = (subset, pv)
                    break
        depth += 1
    del protected_idx  # documented: C is treated as any other candidate
    return sorted(cand), {"n_tests": n_tests, "sepsets": sepsets}


def _strata_code(codes, subset, levels):
    """One dense int64 code per row for the joint value of the columns in ``subset``.

    Codes are combined column by column and relabelled densely (``np.unique``)
    whenever the next product could leave int64, so any number of columns
    works.
    """
    code = np.zeros(codes.shape[0], dtype=np.int64)
    size = 1
    for i in subset:
        lev = int(levels[i])
        if size * lev >= 2 ** 62:
            uniq, code = np.unique(code, return_inverse=True)
            code = code.reshape(-1).astype(np.int64)
            size = uniq.shape[0]
        code = code * lev + codes[:, i]
        size *= lev
    return code


def pc_parents(codes, e, *, alpha, protected_idx):
    """Parents of the decision by causal-learn's PC (optional extra).

    Background knowledge: no arc into the protected attribute, no arc out of
    the decision. An undirected edge at the decision is read as a parent (the
    decision has no children).
    """
    try:
        from causallearn.search.ConstraintBased.PC import pc
        from causallearn.utils.PCUtils.BackgroundKnowledge import BackgroundKnowledge
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(MSG_NO_CAUSAL_LEARN) from None
    data = np.column_stack([codes, e]).astype(np.float64)
    n_nodes = data.shape[1]
    e_idx = n_nodes - 1
    from causallearn.graph.GraphNode import GraphNode

    nodes = [GraphNode(f"X{i + 1}") for i in range(n_nodes)]
    bk = BackgroundKnowledge()
    for i in range(n_nodes):
        if i != protected_idx:
            bk.add_forbidden_by_node(nodes[i], nodes[protected_idx])
        if i != e_idx:
            bk.add_forbidden_by_node(nodes[e_idx], nodes[i])
    cg = pc(data, alpha=alpha, indep_test="gsq", show_progress=False,
            background_knowledge=bk)
    g = cg.G.graph
    # causal-learn: g[j, i] == 1 and g[i, j] == -1 means i -> j; -1/-1 undirected.
    return sorted(i for i in range(n_nodes - 1) if g[e_idx, i] != 0 or g[i, e_idx] != 0)
