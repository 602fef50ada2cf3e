"""The causal structure around the decision: graph input, Q, local search.

CBN-DD (Zhang, Wu and Wu, 2016, section 4) needs only the decision's parents:
``Q = Par(E) \\ {C}``. This module obtains them in one of three ways:

* from a graph given by the user (a mapping child -> parents, or any object
  with ``predecessors(node)`` and ``nodes`` such as ``networkx.DiGraph``),
  checked for a cycle, for the decision node and for an edge into the
  protected attribute;
* by a local search around the decision with conditional independence
  tests (G-test, generalized Cochran-Mantel-Haenszel test, or both; the
  default, scipy only);
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
    return _g_test(_stratified_counts(x, e, s, *n_levels))


def _margins(counts):
    """Row and column margins per stratum and the counts expected under independence."""
    n_sx = counts.sum(axis=2, keepdims=True)
    n_se = counts.sum(axis=1, keepdims=True)
    n_s = counts.sum(axis=(1, 2), keepdims=True)
    return n_sx, n_se, n_sx * n_se / np.where(n_s > 0, n_s, 1.0)


def _g_test(counts):
    """:func:`g_test` on the stratified counts."""
    n_sx, n_se, expected = _margins(counts)
    nz = counts > 0
    stat = 2.0 * float(np.sum(counts[nz] * np.log(counts[nz] / expected[nz])))
    dof = int(np.sum(np.maximum((n_sx[:, :, 0] > 0).sum(axis=1) - 1, 0)
                     * np.maximum((n_se[:, 0, :] > 0).sum(axis=1) - 1, 0)))
    if dof <= 0:
        return 1.0, stat, 0
    return float(stats.chi2.sf(stat, dof)), stat, dof


def cmh_test(x, e, s, n_levels):
    """Generalized Cochran-Mantel-Haenszel test of ``x _||_ e | s``, ``e`` binary.

    The statistic compares, summed over the strata, the count of ``e = 1`` at
    each level of ``x`` with its expectation under independence within the
    stratum, scaled by the hypergeometric covariance (margins of each stratum
    fixed):

    ``Q = d' V^+ d``, ``d = sum_k (n_k1 - r_k m_k1 / m_k)``,
    ``V = sum_k m_k1 m_k0 / (m_k^2 (m_k - 1)) (m_k diag(r_k) - r_k r_k')``

    where ``r_k`` holds the level counts of ``x`` in stratum ``k``, ``m_k``
    its rows and ``m_k1``, ``m_k0`` its decisions. Under conditional
    independence ``Q`` is asymptotically chi-squared with ``rank(V)``
    (at most ``levels - 1``) degrees of freedom whatever the number of
    strata, so it keeps its level and its power with many sparse strata; it
    detects an association of the same direction in every stratum, not one
    that changes sign across strata.

    Parameters
    ----------
    x, e : ndarray of shape (n,), dtype intp
        Codes; ``e`` is 0/1.
    s : ndarray of shape (n,) or None
        One integer code per stratum (None: one stratum).
    n_levels : tuple of int
        Numbers of levels of ``x`` and ``e`` (``e`` must have 2).

    Returns
    -------
    p_value : float
    statistic : float
    dof : int
        The rank of ``V`` (0 when no stratum holds both decisions and two
        levels of ``x``; the p-value is then 1).

    References
    ----------
    Landis, Heyman and Koch (1978), "Average partial association in
    three-way contingency tables", International Statistical Review 46.
    """
    return _cmh_test(_stratified_counts(x, e, s, n_levels[0], 2))


def _cmh_test(counts):
    """:func:`cmh_test` on the stratified counts (decision levels last, 2 of them)."""
    m = counts.sum(axis=(1, 2))
    keep = m > 1
    counts, m = counts[keep], m[keep]
    r = counts.sum(axis=2)  # (ns, nx)
    m1 = counts[:, :, 1].sum(axis=1)
    m0 = m - m1
    d = (counts[:, :, 1] - r * (m1 / m)[:, None]).sum(axis=0)
    w = m1 * m0 / (m * m * (m - 1.0))
    V = np.diag((w * m) @ r) - np.einsum("k,ki,kj->ij", w, r, r)
    dof = int(np.linalg.matrix_rank(V, tol=1e-9 * max(float(np.abs(V).max()), 1e-300)))
    if dof == 0:
        return 1.0, 0.0, 0
    stat = float(d @ np.linalg.pinv(V, rcond=1e-9, hermitian=True) @ d)
    return float(stats.chi2.sf(stat, dof)), stat, dof


def _n_strata(s):
    """The number of distinct stratum codes (``bincount`` when the codes are dense)."""
    n = s.shape[0]
    if not n:
        return 0
    top = int(s.max()) + 1
    if top <= 4 * n + 1024:
        return int(np.count_nonzero(np.bincount(s)))
    return len(np.unique(s))


def _stratified_counts(x, e, s, nx, ne):
    """Counts of shape (strata seen, nx, ne) as float64."""
    if s is None:
        s = np.zeros_like(x)
        ns = 1
    else:
        ns = int(s.max()) + 1 if s.shape[0] else 1
        if ns * nx * ne > 4 * s.shape[0] + 1024:  # sparse strata: relabel densely
            _, s = np.unique(s, return_inverse=True)
            s = s.reshape(-1)
            ns = int(s.max()) + 1 if s.shape[0] else 1
    counts = np.bincount((s * nx + x) * ne + e, minlength=ns * nx * ne).reshape(ns, nx, ne)
    return counts.astype(np.float64)


TESTS = ("g", "cmh", "g+cmh")


MIN_ROWS_PER_CELL = 5
MIN_EXPECTED = 5.0  # Cochran's rule: at most 20% of the cells expect fewer rows
MAX_SMALL_SHARE = 0.2


def g_is_reliable(x, e, s, n_levels):
    """Cochran's rule for the G-test's chi-squared approximation.

    True when at most ``MAX_SMALL_SHARE`` of the cells (levels seen in each
    stratum seen) expect fewer than ``MIN_EXPECTED`` rows under
    independence. Beyond it the G-test is liberal, badly so with many small
    strata: with 480 strata of 20,000 rows it rejects a column drawn
    independently of everything in 95% of the draws at level 0.005 (the
    CMH test in none).
    """
    return _cochran_holds(_stratified_counts(x, e, s, *n_levels))


def _cochran_holds(counts):
    """:func:`g_is_reliable` on the stratified counts."""
    n_sx, n_se, expected = _margins(counts)
    seen = (n_sx > 0) & (n_se > 0)
    cells = int(seen.sum())
    return cells == 0 or float(np.mean(expected[seen] < MIN_EXPECTED)) <= MAX_SMALL_SHARE


def ci_test(x, e, s, n_levels, test):
    """One conditional independence test; returns ``(p_value, dof)``.

    ``"g"``: the G-test where its chi-squared approximation holds
    (Cochran's rule, :func:`g_is_reliable`), else the CMH test, which keeps
    its level in sparse tables; ``"cmh"``: the generalized
    Cochran-Mantel-Haenszel test; ``"g+cmh"``: both, with the Bonferroni
    p-value ``min(1, 2 min(p_g, p_cmh))`` (dependence when either rejects at
    ``alpha / 2``): the CMH test's power against an association of one
    direction across many strata, the G-test's against one that changes
    direction; the CMH test alone where the G-test is not reliable.
    ``dof`` is that of the test (the larger of the two when both).
    """
    counts = _stratified_counts(x, e, s, *n_levels)  # one pass over the rows for every test
    if test == "g":
        pv, _, dof = _g_test(counts) if _cochran_holds(counts) else _cmh_test(counts)
        return pv, dof
    pc, _, dc = _cmh_test(counts)
    n_strata = int(np.count_nonzero(counts.sum(axis=(1, 2))))
    if test == "cmh" or x.shape[0] < MIN_ROWS_PER_CELL * 2 * n_levels[0] * n_strata \
            or not _cochran_holds(counts):
        return pc, dc
    pg, _, dg = _g_test(counts)
    if dg == 0 and dc == 0:
        return 1.0, 0
    return min(1.0, 2.0 * min(pg, pc)), max(dg, dc)


def local_parent_search(codes, e, *, alpha, protected_idx, min_rows_per_dof=5,
                        candidates=None, max_depth=None, test="g",
                        repair=True):
    """Find the decision's parents by a local conditional-test search (PC-simple).

    Three steps: the marginal test of every candidate; the PC-simple
    elimination, depth by depth, in which the candidate with the largest
    p-value above ``alpha`` leaves first (:func:`_shrink`; the result does not
    depend on the column order); and a repair step (:func:`_repair`) that
    re-tests the removed columns given the parents found.

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
        A G-test whose table has fewer rows than ``min_rows_per_dof`` times
        its degrees of freedom is too sparse to trust: the CMH test decides
        instead (so does a table that fails Cochran's rule, see
        :func:`ci_test`). Keeping the dependence instead, the usual heuristic
        of constraint-based search, keeps false parents.
    candidates : sequence of int or None, default=None
        The columns that may be parents (None: all). The others (for
        instance identifier-like columns) are never tested.
    max_depth : int or None, default=None
        The largest conditioning set tried (None: no bound).
    test : {"g", "cmh", "g+cmh"}, default="g"
        The conditional independence test (see :func:`ci_test`).
    repair : bool, default=True
        Run the repair step.

    Cost: ``p`` marginal tests; for the ``c`` candidates left, at most
    ``c * sum_{d=1..D} C(c - 1, d)`` tests, ``D = min(max_depth, c - 1)``
    (each pair of a candidate and a set is tested once); the repair step at
    most ``p`` re-tests and ``k (k + 1) / 2`` backward tests (``k`` the
    members after re-admission). Each test is one ``np.bincount`` over the
    ``n`` rows.

    Returns
    -------
    parents : list of int
        Column indices of ``Par(E)``, in column order.
    log : dict
        ``n_tests``, ``depth`` (the largest conditioning set of the
        elimination; the repair step conditions on all the parents found),
        ``depth_bound_hit`` (whether ``max_depth`` stopped the search while
        larger conditioning sets were left), ``n_skipped`` (G-tests too sparse
        by ``min_rows_per_dof``, decided by the CMH test), ``re_added`` (the columns re-admitted by the repair) and
        ``sepsets``: per removed column, the separating set and p-value.
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {TESTS}; got {test!r}.")
    n, p = codes.shape
    levels = codes.max(axis=0) + 1 if n else np.ones(p, dtype=np.intp)
    state = {"n_tests": 0, "n_skipped": 0, "depth": 0, "bound_hit": False}
    sepsets = {}
    cand = []
    allowed = range(p) if candidates is None else sorted(candidates)
    for j in allowed:
        pv, dof = ci_test(codes[:, j], e, None, (int(levels[j]), 2), test)
        state["n_tests"] += 1
        if dof > 0 and pv <= alpha:
            cand.append(j)
        else:
            sepsets[j] = ((), pv)
    cand = _shrink(codes, e, cand, levels, alpha, min_rows_per_dof, max_depth, test,
                   sepsets, state)
    added = []
    if repair and cand:
        cand, added = _repair(codes, e, cand, allowed, levels, alpha, min_rows_per_dof, test,
                              sepsets, state)
    del protected_idx  # documented: C is treated as any other candidate
    return sorted(cand), {"n_tests": state["n_tests"], "depth": state["depth"],
                          "depth_bound_hit": state["bound_hit"],
                          "n_skipped": state["n_skipped"], "re_added": added,
                          "sepsets": sepsets}


def _repair(codes, e, cand, allowed, levels, alpha, min_rows_per_dof, test, sepsets, state):
    """Re-test the removed columns given the parents found; re-admit, then eliminate.

    A parent wrongly separated (by a weak test, or by a proxy of several
    parents that stays because that parent left first) depends on ``E``
    given the parents found; a non-parent does not (Markov condition). The
    removed columns are re-tested given the whole set at the Bonferroni
    level ``alpha / (number re-tested)``; those admitted join it, and a
    backward elimination given all the other members follows.
    """
    n = codes.shape[0]
    removed = [j for j in allowed if j not in cand]
    if not removed:
        return cand, []
    strata = _strata_code(codes, cand, levels)
    n_strata = _n_strata(strata)
    level = alpha / len(removed)
    back = []
    for j in removed:
        # Given every parent found the strata are many, and the G-test's chi-squared
        # approximation is liberal unless every cell expects min_rows_per_dof rows; the
        # CMH test keeps its level there (and has power against a steady effect).
        dense = n >= min_rows_per_dof * 2 * levels[j] * n_strata
        kind = test if dense else "cmh"
        pv, dof = ci_test(codes[:, j], e, strata, (int(levels[j]), 2), kind)
        state["n_tests"] += 1
        if dof > 0 and pv <= level:
            back.append(j)
    if not back:
        return cand, []
    for j in back:
        del sepsets[j]
    cand = _backward(codes, e, sorted(cand + back), levels, alpha, min_rows_per_dof, test,
                     sepsets, state)
    return cand, back


def _shrink(codes, e, cand, levels, alpha, min_rows_per_dof, max_depth, test, sepsets,
            state):
    """The PC-simple elimination, most independent candidate first.

    At each depth ``d`` every candidate is tested against every set of ``d``
    other candidates, and the candidate with the largest p-value above
    ``alpha`` leaves first (its separating set is that of the largest
    p-value); the p-values of the others are kept (a set holding the removed
    candidate no longer counts). The result does not depend on the column
    order, and a proxy of several parents (largely independent given them)
    leaves before the parent it would have screened off.
    """
    n = codes.shape[0]
    cand = list(cand)
    cache = {}
    depth = 1
    limit = np.inf if max_depth is None else max_depth
    while len(cand) - 1 >= depth and depth <= limit:
        while True:
            best = None
            for j in cand:
                others = [i for i in cand if i != j]
                for subset in combinations(others, depth):
                    key = (j, subset)
                    if key not in cache:
                        cache[key] = _one_test(codes, e, j, subset, levels, min_rows_per_dof,
                                               test, state, n)
                        state["depth"] = max(state["depth"], depth)
                    best = _more_independent(best, *cache[key], j, subset, alpha)
            if best is None:
                break
            _remove(best, cand, sepsets)
            if len(cand) - 1 < depth:
                break
        depth += 1
    if max_depth is not None and len(cand) - 1 > max_depth:
        state["bound_hit"] = True
    return cand


def _backward(codes, e, cand, levels, alpha, min_rows_per_dof, test, sepsets, state):
    """Backward elimination given all the other candidates (Markov blanket).

    ``Par(E)`` separates ``E`` from every other attribute, so a candidate
    independent of ``E`` given all the others is not a parent; the one with
    the largest p-value above ``alpha`` leaves first, then the others are
    re-tested.
    """
    n = codes.shape[0]
    cand = list(cand)
    while len(cand) > 1:
        best = None
        for j in cand:
            subset = tuple(i for i in cand if i != j)
            pv, informative = _one_test(codes, e, j, subset, levels, min_rows_per_dof, test,
                                        state, n)
            best = _more_independent(best, pv, informative, j, subset, alpha)
        if best is None:
            break
        _remove(best, cand, sepsets)
    return cand


def _more_independent(best, pv, informative, j, subset, alpha):
    """The more independent of ``best`` and the test of ``j`` given ``subset``.

    Only a p-value above ``alpha`` separates; an informative test ranks above
    an uninformative one (a column constant within every stratum), then the
    larger p-value. Returns ``(informative, p_value, j, subset)`` or None.
    """
    if pv > alpha and (best is None or (informative, pv) > best[:2]):
        return (informative, pv, j, subset)
    return best


def _remove(best, cand, sepsets):
    """Remove the separated candidate of ``best`` and record its separating set."""
    _, pv, j, subset = best
    cand.remove(j)
    sepsets[j] = (subset, pv)


def _one_test(codes, e, j, subset, levels, min_rows_per_dof, test, state, n):
    """``(p_value, informative)`` of ``j _||_ e | subset`` (the CMH test where too sparse)."""
    strata = _strata_code(codes, subset, levels)
    n_strata = _n_strata(strata)
    max_dof = (levels[j] - 1) * n_strata
    sparse = n < min_rows_per_dof * max(max_dof, 1)
    if sparse and test == "g":
        state["n_skipped"] += 1  # too sparse for the G-test: the CMH test decides
        test = "cmh"
    pv, dof = ci_test(codes[:, j], e, strata, (int(levels[j]), 2), test)
    state["n_tests"] += 1
    return (1.0, False) if dof == 0 else (pv, True)


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
