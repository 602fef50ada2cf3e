"""A verdict per audited person, with its robustness.

Labels (``VERDICTS``), for the candidates of an audit (protected group,
negative decision); other rows get ``""``:

``"insufficient"``
    Fewer than ``MIN_EFFECTIVE_TESTERS`` effective testers on a side
    (``n_eff = n**2 / sum(w**2)``, see ``_pvalue``): too little evidence
    either way, flagged or not.
``"fragile"``
    Flagged, but the flag does not survive another reasonable choice: the
    same rule does not hold with ``K/2`` or with ``2K`` testers a side (for
    the exact rule: ``diff > tau`` and the per-person test at
    ``alpha_test``, since a smaller K has less power than the audit's
    threshold asks for), or the causal graph
    has no arc from the protected attribute to the decision (CBN-DD's
    premise fails, so the graph itself says the decision does not depend
    on it directly).
``"discriminated"``
    Flagged, and the flag holds at ``K/2``, ``K`` and ``2K``.
``"not discriminated"``
    Not flagged (with enough testers). The robustness of a clearance is not
    checked: a verdict of discrimination is the one that must hold up.
"""

import numpy as np

VERDICTS = ("discriminated", "not discriminated", "fragile", "insufficient")

#: The least effective number of testers per side for a verdict either way.
MIN_EFFECTIVE_TESTERS = 10


def verdicts(*, candidate, flagged, n_eff, held_at, no_arc):
    """Labels and reasons of every row.

    Parameters
    ----------
    candidate, flagged : ndarray of bool, shape (m,)
    n_eff : ndarray of shape (m, 2)
        Effective testers of each side.
    held_at : dict of int -> ndarray of bool, shape (m,)
        Per other K, whether the rule holds with K testers (read for the
        flagged rows only).
    no_arc : bool
        The graph has no arc protected -> decision.

    Returns
    -------
    verdict, reason : ndarray of object, shape (m,)
    """
    m = candidate.shape[0]
    verdict = np.full(m, "", dtype=object)
    reason = np.full(m, "", dtype=object)
    verdict[candidate & ~flagged] = "not discriminated"
    fragile = np.zeros(m, dtype=bool)
    for k in sorted(held_at):
        lost = flagged & ~held_at[k]
        reason[lost] = [f"{r}; " if r else "" for r in reason[lost]]
        reason[lost] += f"not flagged at K={k}"
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
    return verdict, reason
