"""Probability scores by group: ranking quality (AUC) and calibration (ECE, reliability table).

Given the scores a classifier gives the favourable class (``predict_proba``'s
column, or any score that ranks), :func:`score_tables` computes per group:

* the area under the ROC curve, the probability that a random person with
  the favourable true label is scored above a random one without it (ties
  count one half), weighted by the sample weights; its interval is the score
  interval of Hanley and McNeil's (1982) variance (:func:`auc_interval`),
  inside [0, 1] and not degenerate at an AUC of 0 or 1 (on binormal scores of
  true AUC 0.76 to 0.999, 10 to 1,000 rows a class, perfect rankings
  included, it covered the AUC 95.2% to 100% of 1,000 samples; the test
  suite checks at least 93%);
* the expected calibration error over :data:`SCORE_BINS` equal-width bins of
  ``[0, 1]``: the weighted mean over the group's rows of ``|mean score of the
  bin - share of favourable labels in the bin|``, and the reliability table
  behind it (nan when the scores leave ``[0, 1]``: they are then not
  probabilities);

and per attribute the largest AUC gap and the worst calibration, with the
groups behind them.
"""

import warnings

import numpy as np
from scipy import optimize, stats

from ...utils._interval import ConfidenceInterval
from ...utils._narwhals import to_narwhals
from .._common import UndefinedFairnessWarning
from .._frames import MSG_NEED_DATA, refuse_rows
from .._regression._engine import row_groups
from .._regression._inputs import continuous_column

#: equal-width bins of [0, 1] of the calibration error and the reliability table
SCORE_BINS = 10

MSG_AUC_ONE_CLASS = (
    "fairness_report: the AUC of group(s) {groups!r} of attribute {attr!s} is undefined "
    "(nan): their rows hold one class of the true label, and an AUC ranks the favourable "
    "against the others; they are left out of the AUC gap (merge rare groups, or score on "
    "more rows)."
)
MSG_SCORES_NO_WEIGHT = (
    "fairness_report: group(s) {groups!r} of attribute {attr!s} have no row of non-zero "
    "weight: their AUC, mean score and calibration error are undefined (nan) and left out of "
    "the score gaps."
)


def score_column(y_score, n_samples):
    """``y_score`` as a finite float64 column of ``n_samples`` rows, or a clear error."""
    return continuous_column(y_score, "y_score", n_samples, what="(a score per row)")


def weighted_auc(score, positive, weights):
    """The weighted area under the ROC curve (ties one half); nan without both classes."""
    w = np.ones(score.shape[0]) if weights is None else weights
    values, inverse = np.unique(score, return_inverse=True)
    pos = np.bincount(inverse, weights=np.where(positive, w, 0.0), minlength=values.shape[0])
    neg = np.bincount(inverse, weights=np.where(positive, 0.0, w), minlength=values.shape[0])
    total_pos, total_neg = pos.sum(), neg.sum()
    if total_pos <= 0 or total_neg <= 0:
        return np.nan
    below = np.cumsum(neg) - neg  # negatives strictly below each value
    return float(np.dot(pos, below + 0.5 * neg) / (total_pos * total_neg))


def _hanley_mcneil_variance(a, n_pos, n_neg):
    """Hanley and McNeil's (1982) variance of an AUC estimate at a true AUC ``a``."""
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    return (a * (1 - a) + (n_pos - 1) * (q1 - a * a) + (n_neg - 1) * (q2 - a * a)) \
        / (n_pos * n_neg)


def auc_interval(auc, n_pos, n_neg, confidence):
    """The score interval of an AUC: every ``A`` with ``(auc - A)**2 <= z**2 V(A)``.

    ``V(A)`` is Hanley and McNeil's variance evaluated at the candidate
    ``A``, not at the estimate (as Wilson's interval of a rate takes the
    variance at the candidate rate): the interval stays inside [0, 1], and at
    an AUC of 1 (a perfect ranking) or 0 it is not degenerate: its far end is
    where ``A``'s own spread reaches the estimate (``auc_interval(1.0, 45,
    46, .95)`` is (0.956, 1.0)). Its coverage is in the module's docstring.
    """
    if not (np.isfinite(auc) and n_pos > 0 and n_neg > 0):
        return ConfidenceInterval(np.nan, np.nan)
    z2 = stats.norm.ppf(0.5 + confidence / 2) ** 2
    auc = float(min(max(auc, 0.0), 1.0))

    def excess(a):  # > 0 outside the interval, <= 0 inside
        return (auc - a) ** 2 - z2 * _hanley_mcneil_variance(a, n_pos, n_neg)

    # a point inside: the estimate, or just off it at 0 and 1 (where V vanishes)
    inner = min(max(auc, 1e-9), 1.0 - 1e-9)
    low = 0.0 if excess(0.0) <= 0 else optimize.brentq(excess, 0.0, inner, xtol=1e-13)
    high = 1.0 if excess(1.0) <= 0 else optimize.brentq(excess, inner, 1.0, xtol=1e-13)
    return ConfidenceInterval(float(low), float(high))


def reliability(score, positive, weights, n_bins):
    """Per bin of ``[0, 1]``: ``(count, weight, mean score, favourable share)``; ECE."""
    w = np.ones(score.shape[0]) if weights is None else weights
    bins = np.clip((score * n_bins).astype(np.int64), 0, n_bins - 1)
    count = np.bincount(bins, minlength=n_bins)
    weight = np.bincount(bins, weights=w, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_score = np.bincount(bins, weights=w * score, minlength=n_bins) / weight
        share = np.bincount(bins, weights=w * positive, minlength=n_bins) / weight
    filled = weight > 0
    ece = float(np.sum(weight[filled] * np.abs(mean_score[filled] - share[filled]))
                / weight.sum())
    return count, weight, mean_score, share, ece


def score_tables(score, true_pos, codes, names, groups, weights, *, confidence, n_bins,
                 min_group_size):
    """``(scores, reliability, gaps)`` DataFrames of the scores by group (see the module)."""
    import pandas as pd

    probabilities = bool(score.min() >= 0 and score.max() <= 1)
    rows, index, table, gap_rows = [], [], [], {}
    edges = np.linspace(0, 1, n_bins + 1)
    undefined = []
    for code, attr, labels in zip(codes, names, groups):
        aucs, eces, compared = [], [], []
        one_class, no_weight = [], []
        for g, group in enumerate(labels.tolist()):
            mine = code == g
            s, y = score[mine], true_pos[mine]
            w = None if weights is None else weights[mine]
            n_pos, n_neg = int(y.sum()), int((~y).sum())
            weighted = w is None or w.sum() > 0
            auc = weighted_auc(s, y, w)
            if not weighted:
                no_weight.append(group)
            elif not np.isfinite(auc):
                one_class.append(group)
            low, high = auc_interval(auc, n_pos, n_neg, confidence)
            ece = np.nan
            if probabilities and weighted:
                count, weight, mean_score, share, ece = reliability(s, y, w, n_bins)
                for b in range(n_bins):
                    table.append({"attribute": attr, "group": group, "bin": b,
                                  "bin_low": edges[b], "bin_high": edges[b + 1],
                                  "count": int(count[b]), "mean_score": mean_score[b],
                                  "favourable_share": share[b]})
            index.append((attr, group))
            rows.append({"count": int(mine.sum()), "positives": n_pos, "auc": auc,
                         "auc_low": low, "auc_high": high, "mean_score": float(
                             np.average(s, weights=w)) if weighted else np.nan, "ece": ece})
            aucs.append(auc)
            eces.append(ece)
            compared.append(mine.sum() >= min_group_size)
        if one_class:
            undefined.append(MSG_AUC_ONE_CLASS.format(attr=attr, groups=one_class))
        if no_weight:
            undefined.append(MSG_SCORES_NO_WEIGHT.format(attr=attr, groups=no_weight))
        aucs, eces, compared = np.array(aucs), np.array(eces), np.array(compared)
        ok = np.flatnonzero(compared & np.isfinite(aucs))
        row = {"auc_difference": np.nan, "auc_group_high": None, "auc_group_low": None,
               "ece_worst": np.nan, "ece_worst_group": None}
        if ok.shape[0] >= 2:
            top, bottom = ok[np.argmax(aucs[ok])], ok[np.argmin(aucs[ok])]
            row.update(auc_difference=float(aucs[top] - aucs[bottom]),
                       auc_group_high=labels[top], auc_group_low=labels[bottom])
        ok = np.flatnonzero(compared & np.isfinite(eces))
        if ok.shape[0]:
            worst = ok[np.argmax(eces[ok])]
            row.update(ece_worst=float(eces[worst]), ece_worst_group=labels[worst])
        gap_rows[attr] = row
    scores = pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(
        index, names=["attribute", "group"]))
    frame = pd.DataFrame(table, columns=["attribute", "group", "bin", "bin_low", "bin_high",
                                         "count", "mean_score", "favourable_share"])
    gaps = pd.DataFrame.from_dict(gap_rows, orient="index")
    gaps.index.name = "attribute"
    return scores, frame, gaps, undefined


def add_scores(report, y_score, *, data, rows, favourable, intersect, confidence,
               min_group_size):
    """The scores' tables of the rows added to ``report`` (``fairness_report(y_score=)``)."""
    if rows is None:
        refuse_rows(data, what="the scores' AUC and calibration (y_score=)",
                    argument="y_score")
    if isinstance(y_score, str):
        if data is None:
            raise ValueError(MSG_NEED_DATA.format(name="y_score", value=y_score))
        y_score = to_narwhals(data)[y_score].to_numpy()
    n = report.options["n_samples"]
    score = score_column(y_score, n)
    true_pos = np.asarray(rows["y_true"] == favourable)
    codes, names, groups = row_groups(rows["sensitive"], n, intersect=intersect)
    report["scores"], report["score_reliability"], report["score_gaps"], undefined = \
        score_tables(score, true_pos, codes, names, groups, rows.get("weights"),
                     confidence=confidence, n_bins=SCORE_BINS, min_group_size=min_group_size)
    for message in undefined:
        warnings.warn(message, UndefinedFairnessWarning, stacklevel=3)
        report.warnings.append(message)
    report.options["score_bins"] = SCORE_BINS
