"""The decision's parents learned from the data: a local search, or causal-learn's PC.

The local search relies on the paper's assumptions: no arc points into the
protected attribute and the decision has no children. Then every attribute
adjacent to the decision is a parent, and ``Par(E)`` separates the decision
from every other attribute (all of them are non-descendants of ``E``, Markov
condition). So the PC adjacency phase run for the decision alone, with the
conditioning sets drawn from the decision's current candidates, finds
``Par(E)`` under faithfulness (the "PC-simple" idea of Buhlmann, Kalisch and
Maathuis, 2010). The tests are those of ``_citests``. Of the parents found,
the weak ones may leave Q (the attributes the testers are matched on): the
rule and its measurements are in ``_weak_parents``; the search measures each
parent's effect (:func:`parent_effects`) and applies the rule.
"""

from itertools import combinations

import numpy as np

from ._citests import (
    TESTS,
    _n_strata,
    _strata_code,
    _stratified_counts,
    ci_test,
    ci_test_counts,
    level_shift,
)
from ._weak_parents import leave_out_weak

MSG_NO_CAUSAL_LEARN = (
    "structure='pc' needs causal-learn, an optional extra: pip install "
    "'skfair_manifold[causal]' (or pip install causal-learn)."
)


def search_inputs(B, identifiers):
    """The searches' input from binned records ``B``: each column coded 0..k-1, and the
    candidate columns (all but the identifier-like ones)."""
    codes = np.column_stack([np.unique(B[:, j], return_inverse=True)[1].reshape(-1)
                             for j in range(B.shape[1])])
    return codes, [j for j in range(B.shape[1]) if j not in identifiers]


def local_parent_search(codes, e, *, alpha, protected_idx, min_rows_per_dof=5,
                        candidates=None, max_depth=None, test="g",
                        repair=True, min_effect=None, group=None, k=None):
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
        A G-test with fewer rows than ``min_rows_per_dof`` times its degrees of
        freedom (or failing Cochran's rule, :func:`ci_test`) is decided by the
        CMH test (keeping the dependence instead keeps false parents).
    candidates : sequence of int or None, default=None
        The columns that may be parents (None: all). The others (for
        instance identifier-like columns) are never tested.
    max_depth : int or None, default=None
        The largest conditioning set tried (None: no bound).
    test : {"g", "cmh", "g+cmh"}, default="g"
        The conditional independence test (see :func:`ci_test`).
    repair : bool, default=True
        Run the repair step.
    min_effect : float or None, default=None
        Parents other than ``protected_idx`` below this effect are weak (see
        ``_weak_parents``). None: ``_weak_parents.MIN_PARENT_EFFECT`` (read
        at the call).
    group : ndarray of shape (n,), dtype bool, or None
        The protected rows.
    k : float or None
        The testers a side: weak parents leave Q, weakest first, only while
        fewer than ``_weak_parents.MIN_OWN_SUBGROUP_SHARE`` of the ``group`` rows find
        ``k`` of each group in their own subgroup. None (or no ``group``):
        every weak parent leaves Q.

    Cost: ``p`` marginal tests; for the ``c`` candidates left, at most
    ``c * sum_{d=1..D} C(c - 1, d)`` tests, ``D = min(max_depth, c - 1)``;
    the repair step at most ``p`` re-tests and ``m (m + 1) / 2`` backward
    tests (``m`` members after re-admission); one ``np.bincount`` each.

    Returns
    -------
    parents : list of int
        Column indices of ``Par(E)``, in column order: every parent the
        tests found (the graph's), the weak ones included.
    log : dict
        ``n_tests``, ``depth`` (the largest conditioning set of the
        elimination; the repair step conditions on all the parents found),
        ``depth_bound_hit`` (whether ``max_depth`` stopped the search while
        larger conditioning sets were left), ``n_skipped`` (G-tests too sparse
        by ``min_rows_per_dof``, decided by the CMH test), ``re_added`` (the
        columns re-admitted by the repair), ``sepsets``: per removed column,
        the separating set and p-value, ``effects``: per parent found, its
        effect, ``weak_parents``: the weak parents left out of Q (they stay in
        the graph), ``own_subgroup_share``: with ``k``, the share of the
        ``group`` rows whose own subgroup over that Q holds ``k`` a side.
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {TESTS}; got {test!r}.")
    n, p = codes.shape
    levels = codes.max(axis=0) + 1 if n else np.ones(p, dtype=np.intp)
    state = {"n_tests": 0, "n_skipped": 0, "depth": 0, "bound_hit": False, "effects": {}}
    sepsets = {}
    cand = []
    allowed = range(p) if candidates is None else sorted(candidates)
    for j in allowed:
        counts = _stratified_counts(codes[:, j], e, None, int(levels[j]), 2)
        pv, dof = ci_test_counts(counts, test)
        state["n_tests"] += 1
        state["effects"][(j, ())] = level_shift(counts)
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
    # C is a candidate like any other in the tests; only the weak-parent rule spares it
    effects = parent_effects(codes, e, sorted(cand), levels, min_rows_per_dof, test, state)
    left_out, share = leave_out_weak(codes, [j for j in sorted(cand) if j != protected_idx],
                                     effects, min_effect, group, k, levels)
    return sorted(cand), {"n_tests": state["n_tests"], "depth": state["depth"],
                          "depth_bound_hit": state["bound_hit"],
                          "n_skipped": state["n_skipped"], "re_added": added,
                          "sepsets": sepsets, "effects": effects,
                          "weak_parents": left_out, "own_subgroup_share": share}


def parent_effects(codes, e, parents, levels, min_rows_per_dof, test, state):
    """Per parent, its largest level shift of the decision's rate given the other parents.

    The dependence given every other parent is the parent's own (direct)
    effect, the one Lemma 3 weighs; the test the repair step ran is reused
    (``state["effects"]``), else it is run (and counted).
    """
    n = codes.shape[0]
    cache = state["effects"]
    effects = {}
    for j in parents:
        subset = tuple(i for i in parents if i != j)
        if (j, subset) not in cache:
            _one_test(codes, e, j, subset, levels, min_rows_per_dof, test, state, n)
        effects[j] = float(cache[(j, subset)])
    return effects


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
    others; the one with the largest p-value above ``alpha`` leaves first (with
    that set as its separating set), the others' p-values are kept. The result
    does not depend on the column order, and a proxy of several parents leaves
    before the parent it would have screened off.
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
    strata = _strata_code(codes, subset, levels) if subset else None
    counts = _stratified_counts(codes[:, j], e, strata, int(levels[j]), 2)
    n_strata = int(np.count_nonzero(counts.sum(axis=(1, 2))))
    max_dof = (levels[j] - 1) * n_strata
    sparse = n < min_rows_per_dof * max(max_dof, 1)
    if sparse and test == "g":
        state["n_skipped"] += 1  # too sparse for the G-test: the CMH test decides
        test = "cmh"
    pv, dof = ci_test_counts(counts, test)
    state["n_tests"] += 1
    state["effects"][(j, tuple(subset))] = level_shift(counts)
    return (1.0, False) if dof == 0 else (pv, True)


def pc_parents(codes, e, *, alpha, protected_idx):
    """Parents of the decision by causal-learn's PC (optional extra).

    Background knowledge: no arc into the protected attribute, no arc out of
    the decision. An undirected edge at the decision is read as a parent (the
    decision has no children).
    """
    try:
        from causallearn.graph.GraphNode import GraphNode
        from causallearn.search.ConstraintBased.PC import pc
        from causallearn.utils.PCUtils.BackgroundKnowledge import BackgroundKnowledge
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(MSG_NO_CAUSAL_LEARN) from None
    data = np.column_stack([codes, e]).astype(np.float64)
    n_nodes = data.shape[1]
    e_idx = n_nodes - 1
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
