"""A verdict per audited person, with its robustness.

Labels (``VERDICTS``), for the candidates of an audit (protected group,
negative decision); other rows get ``""``:

``"insufficient"``
    Fewer than ``MIN_EFFECTIVE_TESTERS`` effective testers on a side
    (``n_eff = n**2 / sum(w**2)``, see ``_pvalue``): too little evidence
    either way, flagged or not. Also a flagged person with fewer than
    ``MIN_EFFECTIVE_TESTERS`` testers on a side within ``NEAR_DISTANCE`` of
    her (the testers are there, but far: the comparison is no longer one
    of similar people). The distance is the method's own: for CBN-DD
    Eq. 5, the sum over the attributes that differ of their causal effect
    on the decision (by default the larger of its effects on the two
    groups' rates) times their value distance, so a tester within 0.05 (the
    legal threshold ``tau``) differs from the claimant in attributes that
    move the expected decision by about ``tau`` at most; for KNN-DD the mean
    over the compared attributes of the range-normalised (or overlap)
    distance, within 0.2: one attribute in five differing, or every one by
    a fifth of its range. Checked for the flagged, whose testers the report
    lists (a clearance is not checked, see below).
``"fragile"``
    Flagged, but the flag does not survive another reasonable choice: the
    same rule does not hold with ``K/2`` or with ``2K`` testers a side (for
    the exact rule: ``diff > tau`` and the per-person test at
    ``alpha_test``, since a smaller K has less power than the audit's
    threshold asks for), or the causal graph
    has no arc from the protected attribute to the decision (CBN-DD's
    premise fails, so the graph itself says the decision does not depend
    on it directly), or, when the graph was learned and the structure
    bootstrap is asked for (``structure_bootstrap`` of the auditor, off by
    default: each replicate is one more structure search and, where its Q
    differs, one more selector), the flag does not hold with the Q learned
    on a subsample of half the rows in at least half of the replicates
    (:func:`structure_bootstrap`).
``"discriminated"``
    Flagged, and the flag holds at ``K/2``, ``K`` and ``2K``.
``"not discriminated"``
    Not flagged (with enough testers). The robustness of a clearance is not
    checked: a verdict of discrimination is the one that must hold up.
"""

import numpy as np
from sklearn.utils import check_random_state

from ._constants import MIN_EFFECTIVE_TESTERS
from ._selection._auto_k import auto_caliper, auto_k, rates_at
from ._selection._parent_search import local_parent_search, search_inputs
from ._selection._weak_parents import rule_k
from ._flags import table

VERDICTS = ("discriminated", "not discriminated", "fragile", "insufficient")



#: The least share of the structure bootstrap's replicates in which a flag must hold.
BOOTSTRAP_HOLD_SHARE = 0.5


def verdicts(*, candidate, flagged, n_eff, held_at, no_arc, near=None,
             near_distance=None, structure_held=None):
    """Labels and reasons of every row.

    Parameters
    ----------
    candidate, flagged : ndarray of bool, shape (m,)
    n_eff : ndarray of shape (m, 2)
        Effective testers of each side.
    held_at : dict of int or str -> ndarray of bool, shape (m,)
        Per other K, whether the rule holds with K testers (read for the
        flagged rows only); under ``k="auto"`` the keys are ``"K/2"`` and
        ``"2K"``, each row's own K halved and doubled.
    no_arc : bool
        The graph has no arc protected -> decision.
    near : ndarray of shape (m, 2) or None
        Testers of each side within ``near_distance`` of the person (NaN
        where not counted; read for the flagged rows only).
    near_distance : float or None
        The distance of ``near``, for the reason.
    structure_held : ndarray of float, shape (m,), or None
        Share of the structure bootstrap's replicates in which the flag
        holds (NaN or None: not run).

    Returns
    -------
    verdict, reason : ndarray of object, shape (m,)
    """
    m = candidate.shape[0]
    verdict = np.full(m, "", dtype=object)
    reason = np.full(m, "", dtype=object)
    verdict[candidate & ~flagged] = "not discriminated"
    fragile = np.zeros(m, dtype=bool)
    for k in sorted(held_at, key=str):
        lost = flagged & ~held_at[k]
        reason[lost] = [f"{r}; " if r else "" for r in reason[lost]]
        reason[lost] += f"not flagged at K={k}" if isinstance(k, (int, np.integer)) \
            else f"not flagged at {k}"
        fragile |= lost
    if structure_held is not None:
        with np.errstate(invalid="ignore"):
            lost = flagged & (np.asarray(structure_held) < BOOTSTRAP_HOLD_SHARE)
        reason[lost] = [f"{r}; " if r else "" for r in reason[lost]]
        reason[lost] = [f"{r}held in {100 * h:.0f}% of the structure bootstrap"
                        for r, h in zip(reason[lost], np.asarray(structure_held)[lost])]
        fragile |= lost
    if no_arc:
        reason[flagged] = [f"{r}; " if r else "" for r in reason[flagged]]
        reason[flagged] += "no arc protected -> decision in the graph"
        fragile |= flagged
    verdict[flagged & fragile] = "fragile"
    verdict[flagged & ~fragile] = "discriminated"
    with np.errstate(invalid="ignore"):
        few = candidate & ~(np.nanmin(np.where(np.isnan(n_eff), 0.0, n_eff), axis=1)
                            >= MIN_EFFECTIVE_TESTERS)
    verdict[few] = "insufficient"
    reason[few] = [f"fewer than {MIN_EFFECTIVE_TESTERS} effective testers on a side "
                   f"({a:.1f} / {b:.1f})" for a, b in n_eff[few]]
    if near is not None:
        near = np.asarray(near, dtype=np.float64)
        with np.errstate(invalid="ignore"):
            far = flagged & ~few & (np.nanmin(np.where(np.isnan(near), np.inf, near), axis=1)
                                    < MIN_EFFECTIVE_TESTERS)
        verdict[far] = "insufficient"
        reason[far] = [f"fewer than {MIN_EFFECTIVE_TESTERS} testers on a side within distance "
                       f"{near_distance:g} ({a:.1f} / {b:.1f})" for a, b in near[far]]
    return verdict, reason


def near_testers(cells, n_rows, max_distance):
    """Testers of each side within ``max_distance`` of each query: shape (n_rows, 2).

    ``cells`` is the selectors' table of the testers taken (``query``,
    ``side``, ``distance``, ``n_records``, ``weight``): a cell counts with its
    expected testers ``weight * n_records``.
    """
    near = np.zeros((n_rows, 2))
    keep = cells["distance"] <= max_distance + 1e-12
    np.add.at(near, (cells["query"][keep], cells["side"][keep]),
              (cells["weight"] * cells["n_records"])[keep])
    return near


def structure_bootstrap(fitted, settings, Z, rows, self_unit, holds, *, n_replicates,
                        random_state):
    """Share of the structure bootstrap's replicates in which each flag holds.

    Each replicate draws half the fitted rows without replacement (a
    subsample, as in stability selection: a bootstrap sample with
    replacement repeats rows, and repeated rows make the conditional tests
    liberal), runs the auditor's structure search on them (same
    test, level, depth and weak-parent rule, its subgroup sizes scaled to the half: ``K / 2``)
    and, where the Q it learns differs from ``q_``, rebuilds CBN-DD's
    selector with that Q on all the fitted rows (the testers' pool does not
    change, only the graph) and recomputes the rates of the flagged rows.
    ``holds(out)`` says whether the flag holds on the (rows, 6) output (the
    same rule as at ``K/2`` and ``2K``). A replicate that learns ``q_`` again
    keeps every flag.

    Parameters
    ----------
    fitted : FittedAudit
        Of ``method="cbn"`` with a graph learned by the local search.
    settings : AuditSettings
    Z : ndarray
        The encoded rows of the audit.
    rows : ndarray of int
        The flagged rows of ``Z``.
    self_unit : ndarray of int, shape (len(rows),)
    holds : callable
    n_replicates : int
    random_state : int, RandomState or None

    Returns
    -------
    share : ndarray of shape (len(rows),)
    qs : list of tuple
        The Q (column positions) of each replicate.
    """
    rng = check_random_state(random_state)
    records = fitted.records
    B = records.binned(records.Z)
    codes, candidates = search_inputs(B, records.identifiers)
    positive = fitted.positive(fitted.y_fit)
    group = fitted.group(records.Z)
    e = fitted.decision_classes(positive)
    c = fitted.protected_column
    n = codes.shape[0]
    Q = records.binned(Z[rows])
    kept = np.zeros(rows.shape[0])
    qs = []
    for _ in range(n_replicates):
        idx = rng.choice(n, n // 2, replace=False)
        par, log = local_parent_search(codes[idx], e[idx], alpha=settings.alpha,
                                       protected_idx=c, candidates=candidates,
                                       max_depth=settings.max_depth,
                                       test=settings.structure_test, group=group[idx],
                                       k=rule_k(settings.k) * idx.shape[0] / n)
        q = tuple(j for j in par if j != c and j not in log["weak_parents"])
        qs.append(q)
        if list(q) == list(fitted.q_idx):
            kept += 1.0
            continue
        if not q:
            continue  # no parent: no subgroups to compare, the flag does not hold
        q = list(q)
        selector = fitted.method.selector_for(q, B)
        k = settings.k
        if isinstance(k, str):  # "auto": each row's K among the testers of this selector
            k = auto_k(selector, Q[:, q], self_unit, auto_caliper("cbn", settings.tau),
                       n_jobs=settings.n_jobs)
        continuous = settings.continuous
        out = table(fitted, settings,
                    rates_at(selector, Q[:, q], self_unit, k, n_jobs=settings.n_jobs,
                             cells=continuous), self_unit,
                    fitted.method.cell_rows(selector) if continuous else None)[0]
        kept += holds(out)
    return kept / max(n_replicates, 1), qs
