"""Weak parents: which of the decision's parents found Q leaves out.

Significance grows with the rows: at 60,000 rows of the Dutch census the
search admits parents whose association with the decision, given the other
parents, is real but tiny (a household size, a previous residence). A
parent's *effect* is the largest shift of the decision's rate that one of
its levels (holding at least 5% of the rows) makes within the strata of all
the other parents found (:func:`._parent_search.parent_effects`,
:func:`._citests.level_shift`, each cell's rate pulled towards its stratum's
by an m-estimate of weight 5): the direct effect Lemma 3 weighs. A parent
below ``min_effect`` (default :data:`MIN_PARENT_EFFECT`, 0.05, the order of
``tau``) is *weak*: matching on it changes the testers' rates by less than
the gap the audit looks for. It costs the testers only where it splits
CBN-DD's subgroups so finely that Algorithm 1 must widen to farther
subgroups, which differ in the attributes that matter. So the weak parents
leave Q (``q_``, the attributes the testers are matched on; they stay in
``graph_``, the search's answer), weakest first, only while fewer than
:data:`MIN_OWN_SUBGROUP_SHARE` (half) of the protected rows find ``K`` rows
of each group in their own subgroup over Q (``K`` the auditor's ``k``, at
most :data:`RULE_TESTERS`, 50; :func:`own_subgroup_share`,
:func:`leave_out_weak`); without ``k`` every weak parent leaves. The
protected attribute never leaves: its arc is the paper's premise, judged by
significance alone.

Measured (K = 50; benchmarks/results/situation_testing_dutch_defaults.md,
situation_testing_networks.md). Dutch variant: effects 0.07-0.18 (age,
education, economic status, current activity) and 0.002-0.04 (previous
residence, country of birth, household position and size); the share of the
women with K a side in their own subgroup is 12.5% over all eight parents,
13.1%, 14.5%, 22.0% as the weak leave, 67.8% over the four strong (Q).
Known networks: 85-100% over every graph holding a weak true parent, so Q
keeps it and has the graph's precision / recall (0.974 / 0.985, 1.000 /
1.000, 1.000 / 1.000 at 5,000, 20,000, 60,000 rows); with every weak parent
out 0.919 / 0.874, 0.956 / 0.878, 0.978 / 0.944 (alarm lost KINKEDTUBE,
0.01, and INTUBATION, 0.05, whose rare levels hold its effect; insurance
SocioEcon, 0.04-0.05, GoodStudent's only parent: Q empty). Half lies well
between the 22% where leaving out must go on and the 68% and 85% where it
must stop.
"""

import numpy as np

from .._constants import AUTO_FLOOR
from ._citests import _strata_code

#: The most testers a side the weak-parent rule asks of a person's own subgroup:
#: the auditor's ``k`` up to 50, the least number of tester pairs situation
#: testing asks for (Bendick 2007). A larger ``k`` buys the flags power; it
#: must not make the matched attributes coarser.
RULE_TESTERS = 50


def rule_k(k):
    """The ``k`` of the weak-parent rule for an auditor's ``k``."""
    if isinstance(k, str):  # "auto": its floor, the paper's K
        k = AUTO_FLOOR
    return min(k, RULE_TESTERS)


#: The least effect (largest shift of the decision's rate by one of its levels,
#: given the other parents) of a parent that is not weak; see the module's docstring.
MIN_PARENT_EFFECT = 0.05
#: The least share of the protected rows whose own subgroup over Q holds ``K`` rows of
#: each group; below it the weakest weak parent leaves Q (see the module's docstring).
MIN_OWN_SUBGROUP_SHARE = 0.5


def leave_out_weak(codes, q, effects, min_effect, group, k, levels):
    """The weak parents Q leaves out (weakest first, only while the subgroups are too
    small; all without ``k``) and the share of :func:`own_subgroup_share` after.

    ``effects`` maps each column of ``q`` to its effect; ``min_effect`` None
    is :data:`MIN_PARENT_EFFECT` (read at the call).
    """
    if min_effect is None:
        min_effect = MIN_PARENT_EFFECT
    q = list(q)
    weak = sorted((j for j in q if effects[j] < min_effect), key=lambda j: (effects[j], j))
    if k is None or group is None:
        return sorted(weak), None
    left_out = []
    share = own_subgroup_share(codes, q, group, k, levels)
    for j in weak:
        if share >= MIN_OWN_SUBGROUP_SHARE:
            break
        left_out.append(j)
        q.remove(j)
        share = own_subgroup_share(codes, q, group, k, levels)
    return sorted(left_out), share


def own_subgroup_share(codes, q, group, k, levels):
    """Share of the ``group`` rows whose subgroup over the columns ``q`` holds at least
    ``k`` rows of the group and ``k`` of the others (1.0 when ``group`` is empty): those
    for whom CBN-DD need not widen to farther subgroups."""
    group = np.asarray(group, dtype=bool)
    if not group.any():
        return 1.0
    strata = _strata_code(codes, q, levels)
    sub = np.unique(strata, return_inverse=True)[1].reshape(-1)
    n_prot = np.bincount(sub, weights=group.astype(np.float64))
    side = np.minimum(n_prot, np.bincount(sub) - n_prot)
    return float(np.mean(side[sub[group]] >= k))
