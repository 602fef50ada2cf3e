"""The situation-testing benchmarks' evaluation: flag rules, audits against the truth, cells.

What the ``situation_testing_*`` scripts share: the flags of a rule read from
``transform``'s output, the best threshold any rule on a score reaches, an
audit's flags, verdicts and passes with its recall, precision and false
discovery proportion against the planted truth, and the cells of their tables.
"""

from ._io import Timer


def situation_rule_label(rule):
    """The words of a situation-testing rule ``(kind, bound, alpha)`` for a table."""
    kind, bound, alpha = rule
    if kind == "tau":
        return "diff > tau"
    level = f"{bound} {100 * (1 - alpha):g}%"
    return (f"diff > tau and diff_lower > 0 ({level})" if kind == "significant"
            else f"diff_lower > tau ({level})")


def situation_flags(out, rule, *, tau, alpha_fitted):
    """The flags of a situation-testing rule from ``transform``'s output.

    ``rule`` is ``(kind, bound, alpha)`` with kind ``"significant"`` (diff >
    tau and diff_lower > 0), ``"bound"`` (diff_lower > tau) or ``"tau"``
    (diff > tau). The Wald lower bound at another level ``alpha`` is
    ``diff - z_alpha * se``, with ``se`` recovered from the bound computed at
    ``alpha_fitted``: valid for the Wald bound at any level; for another
    bound only at its own level (``alpha == alpha_fitted``, where it returns
    ``out[:, 3]``).
    """
    from scipy import stats

    kind, _, alpha = rule
    diff = out[:, 2]
    se = (diff - out[:, 3]) / stats.norm.ppf(1 - alpha_fitted)
    lower = diff - stats.norm.ppf(1 - alpha) * se
    if kind == "tau":
        return diff > tau
    if kind == "bound":
        return lower > tau
    return (diff > tau) & (lower > 0)


def best_threshold(scores, truth):
    """The best ``min(TP, TN)`` of any rule ``score > t``, over all thresholds t.

    ``truth`` is True for a discriminated target, False for a clean one.
    An upper bound for every flag rule that thresholds ``score``.
    """
    import numpy as np

    scores, truth = np.asarray(scores, dtype=float), np.asarray(truth, dtype=bool)
    order = np.argsort(-scores, kind="stable")
    s, t = scores[order], truth[order]
    tp = np.cumsum(t) / max(t.sum(), 1)          # flag the first i + 1
    tn = 1 - np.cumsum(~t) / max((~t).sum(), 1)
    last = np.r_[s[1:] != s[:-1], True]           # cut only between distinct scores
    best = np.minimum(tp, tn)[last]
    return float(best.max(initial=0.0))


def audit_error_control(est, X, y, *, discriminated=None, clean=None):
    """One audit of every row with ``est`` (fitted): flags, verdicts and their truth.

    Returns a dict: ``candidates`` (protected rows with a negative decision),
    ``flagged`` (share of the candidates flagged by the auditor's rule),
    ``alone`` (share flagged with each person tested alone at
    ``alpha_test``: ``q_value`` replaced by ``p_value``), ``verdicts`` (label
    -> count among the flagged), ``report_passes`` (passes over the rows'
    rates made by ``flag`` then ``report``: 1 when ``report`` reuses
    ``flag``'s rates), ``flag_s`` and ``report_s`` (seconds) and, given the
    truth (boolean masks over the rows), ``recall`` (share of the
    discriminated flagged), ``precision`` (discriminated flagged over
    flagged among the discriminated and the clean candidates) and ``fdp``
    (clean flagged over every flag: the false discovery proportion).
    """
    import numpy as np

    from skfair_manifold.situation_testing._testing import alpha_test, last_rates, rate_passes

    with Timer() as t_flag:
        flags = est.flag(X, y)
    with Timer() as t_rep:
        rep = est.report(X, y)
    audit = rep.audit
    cand = audit["candidate"]
    out = last_rates(est)[0]
    alone = cand & (out[:, 2] > est.tau + 1e-12) & (out[:, 5] <= alpha_test(est))
    labels, counts = np.unique(np.asarray(audit["verdict"])[flags], return_counts=True)
    res = {"candidates": int(cand.sum()), "flagged": float(flags[cand].mean()),
           "n_flagged": int(flags.sum()), "alone": float(alone[cand].mean()),
           "verdicts": dict(zip(labels.tolist(), counts.tolist())),
           "report_passes": int(rate_passes(est)), "flag_s": t_flag.seconds,
           "report_s": t_rep.seconds}
    if discriminated is not None:
        tp = int((flags & discriminated).sum())
        fp = int((flags & clean).sum())
        res["recall"] = tp / max(int(discriminated.sum()), 1)
        res["precision"] = tp / (tp + fp) if tp + fp else float("nan")
        # the false discovery proportion the procedure promises to keep: the flagged women
        # of situations without bias among every flag (the negative women of the biased
        # situations who were not flipped count as true for it, not for the precision)
        res["fdp"] = fp / flags.sum() if flags.sum() else 0.0
        res["n_discriminated_flagged"], res["n_clean_flagged"] = tp, fp
    return res


def verdict_shares(verdicts):
    """``label share`` of each verdict among the flagged, for a table cell."""
    total = sum(verdicts.values())
    if not total:
        return "-"
    return ", ".join(f"{label} {count / total:.0%}" for label, count in sorted(verdicts.items()))


def result_mean(results, key):
    """Mean of ``key`` over a list of result dicts (such as :func:`audit_error_control`'s),
    NaN values left out."""
    import numpy as np

    return np.nanmean([res[key] for res in results])


def mean_sd_cell(results, key):
    """``mean (standard deviation)`` of ``key`` over a list of result dicts, NaN values
    left out, to three decimals: a table cell."""
    import numpy as np

    values = [res[key] for res in results]
    return f"{np.nanmean(values):.3f} ({np.nanstd(values):.3f})"
