"""One characteristic's rows of the bias-audit table: rates, ratios, bounds, intervals, tests.

Each category gets its known assessed ``n`` and selected ``n_selected``, the
rate and the impact ratio against the comparator computed on the known people
alone (what a published audit reports), the bounds of both over where the
unknown people belong (:mod:`._bounds`), the interval of the ratio over the
bounds and the sampling (:mod:`._intervals`), the four-fifths verdict on that
interval and, beside the ratio, the two tests of the Uniform Guidelines
against the comparator: Fisher's exact test and the two-standard-deviation
(pooled two-proportion z) test.
"""

import numpy as np
from scipy import stats

from ._bounds import rate_bounds, ratio_bounds
from ._frechet import frechet_bounds
from ._intervals import ratio_intervals

#: the four-fifths rule: an impact ratio below this fails
FOUR_FIFTHS = 0.8

#: the comparator rules
COMPARATORS = ("most_selected", "most_selected_any")

#: the table's columns after the characteristic and its attributes
NUMBER_COLUMNS = ["n", "n_selected", "rate", "impact_ratio", "comparator", "excluded",
                  "rate_low", "rate_high", "impact_ratio_low", "impact_ratio_high",
                  "impact_ratio_ci_low", "impact_ratio_ci_high", "verdict",
                  "fisher_p_value", "z_score", "share", "estimate", "note"]


def _div(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(a, dtype=np.float64) / np.asarray(b, dtype=np.float64)


def comparator_index(ch, comparator):
    """The position of a named comparator category in ``ch``, or None (not its category)."""
    if comparator in COMPARATORS:
        return None
    if isinstance(comparator, dict):
        comparator = comparator.get(ch.name)
        if comparator is None or comparator in COMPARATORS:
            return None
    wanted = comparator if isinstance(comparator, tuple) else (comparator,)
    for i, cell in enumerate(ch.cells):
        if tuple(cell) == tuple(wanted) or (len(cell) > 1 and " & ".join(map(str, cell)) ==
                                             str(comparator)):
            return i
    return None


def rule_of(ch, comparator):
    """The comparator rule that applies to ``ch``: ``"most_selected"``,
    ``"most_selected_any"`` or ``"named"``."""
    if comparator_index(ch, comparator) is not None:
        return "named"
    if isinstance(comparator, str) and comparator in COMPARATORS:
        return comparator
    if isinstance(comparator, dict) and comparator.get(ch.name) in COMPARATORS:
        return comparator[ch.name]
    return "most_selected"


def _comparison(ch, comparator, min_share, share):
    """The categories rated and eligible, the comparator's position, the rates and ratios."""
    K = len(ch.cells)
    excluded = share < min_share
    rate = _div(ch.s, ch.n)
    rule = rule_of(ch, comparator)
    named = comparator_index(ch, comparator)
    rated = ~excluded
    if rule == "named":
        eligible = np.ones(K, dtype=bool)
        rated[named] = True
        ref = named
    else:
        eligible = rated.copy() if rule == "most_selected" else np.ones(K, dtype=bool)
        candidates = np.where(eligible & np.isfinite(rate), rate, -np.inf)
        ref = int(np.argmax(candidates)) if np.isfinite(candidates).any() else None
    ratio = np.full(K, np.nan)
    if ref is not None and rate[ref] > 0:
        ratio = np.where(rated, rate / rate[ref], np.nan)
    return excluded, rate, rule, named, rated, eligible, ref, ratio


def _notes(K, excluded, rated, share, min_share, ref):
    note = np.array(["" for _ in range(K)], dtype=object)
    for i in range(K):
        if excluded[i] and not rated[i]:
            note[i] = (f"under {min_share:g} of the assessed ({share[i]:.4f}): left out of "
                       f"the ratios")
        if ref is not None and i == ref:
            note[i] = "comparator" + (f"; {note[i]}" if note[i] else "")
    return note


def estimated_rows(ch, *, comparator, min_share, confidence):
    """The rows of a characteristic estimated from membership probabilities
    (:class:`._strata.EstimatedCharacteristic`): the estimate, the Frechet bounds over its
    strata and their interval (:mod:`._frechet`); the tests need observed categories."""
    K = len(ch.cells)
    total = ch.n_rows
    share = _div((ch.m0 + ch.m1).sum(axis=0), total) if total > 0 else np.full(K, np.nan)
    excluded, rate, rule, named, rated, eligible, ref, ratio = _comparison(
        ch, comparator, min_share, share)
    bounds = frechet_bounds(ch.n0, ch.n1, ch.m0, ch.m1, eligible=eligible, rated=rated,
                            comparator=named, confidence=confidence)
    verdict = np.array([_verdict(r, lo, hi, x) for r, lo, hi, x in
                        zip(ratio, bounds["ci_low"], bounds["ci_high"], excluded & ~rated)],
                       dtype=object)
    columns = {
        "n": np.asarray(ch.n, dtype=np.float64).copy(),
        "n_selected": np.asarray(ch.s, dtype=np.float64).copy(), "rate": rate,
        "impact_ratio": ratio,
        "comparator": np.arange(K) == (ref if ref is not None else -1),
        "excluded": excluded & ~rated,
        "rate_low": bounds["rate_low"], "rate_high": bounds["rate_high"],
        "impact_ratio_low": np.where(rated, bounds["low"], np.nan),
        "impact_ratio_high": np.where(rated, bounds["high"], np.nan),
        "impact_ratio_ci_low": np.where(rated, bounds["ci_low"], np.nan),
        "impact_ratio_ci_high": np.where(rated, bounds["ci_high"], np.nan),
        "verdict": verdict, "fisher_p_value": np.full(K, np.nan),
        "z_score": np.full(K, np.nan), "share": share,
        "estimate": np.array([ch.estimate] * K, dtype=object),
        "note": _notes(K, excluded, rated, share, min_share, ref),
    }
    used = {"rule": rule, "category": None if ref is None else ch.cells[ref]}
    return columns, used


def characteristic_rows(ch, *, comparator, min_share, confidence):
    """The rows (a dict of columns) of one characteristic, and what its comparator was."""
    if hasattr(ch, "m0"):
        return estimated_rows(ch, comparator=comparator, min_share=min_share,
                              confidence=confidence)
    K = len(ch.cells)
    total = float(ch.n.sum()) + ch.n_unknown
    share = _div(ch.n, total) if total > 0 else np.full(K, np.nan)
    excluded, rate, rule, named, rated, eligible, ref, ratio = _comparison(
        ch, comparator, min_share, share)
    S, F, D = ch.pools()
    rate_low, rate_high = rate_bounds(ch.n, ch.s, S, F, D)
    low, high = ratio_bounds(ch.n, ch.s, ch.selected.sum(), ch.not_selected.sum(),
                             ch.undecided.sum(), eligible=eligible, rated=rated,
                             comparator=named, all_compatible=ch.all_compatible,
                             pools=(S, F, D), integer=ch.integer,
                             types=(ch.compatible, ch.selected, ch.not_selected))
    ci_low, ci_high = ratio_intervals(ch, eligible=eligible, rated=rated, comparator=named,
                                      confidence=confidence)
    verdict = np.array([_verdict(r, lo, hi, x) for r, lo, hi, x in
                        zip(ratio, ci_low, ci_high, excluded & ~rated)], dtype=object)
    fisher, z = _tests(ch.n, ch.s, ref)
    note = _notes(K, excluded, rated, share, min_share, ref)
    columns = {
        "n": ch.n.copy(), "n_selected": ch.s.copy(), "rate": rate, "impact_ratio": ratio,
        "comparator": np.arange(K) == (ref if ref is not None else -1),
        "excluded": excluded & ~rated,
        "rate_low": rate_low, "rate_high": rate_high,
        "impact_ratio_low": np.where(rated, low, np.nan),
        "impact_ratio_high": np.where(rated, high, np.nan),
        "impact_ratio_ci_low": np.where(rated, ci_low, np.nan),
        "impact_ratio_ci_high": np.where(rated, ci_high, np.nan),
        "verdict": verdict, "fisher_p_value": fisher, "z_score": z, "share": share,
        "estimate": np.array(["observed"] * K, dtype=object), "note": note,
    }
    used = {"rule": rule, "category": None if ref is None else ch.cells[ref]}
    return columns, used


def _verdict(ratio, low, high, excluded):
    if excluded:
        return "excluded"
    if not np.isfinite(ratio) and not (np.isfinite(low) and np.isfinite(high)):
        return "undefined"
    if np.isfinite(low) and low >= FOUR_FIFTHS:
        return "passes"
    if np.isfinite(high) and high < FOUR_FIFTHS:
        return "fails"
    return "inconclusive"


def _tests(n, s, ref):
    """Fisher's exact test (two-sided) and the pooled two-proportion z of each category
    against the comparator ``ref`` (NaN for the comparator itself and without one)."""
    K = n.shape[0]
    fisher = np.full(K, np.nan)
    z = np.full(K, np.nan)
    if ref is None:
        return fisher, z
    for i in range(K):
        if i == ref or n[i] <= 0 or n[ref] <= 0:
            continue
        a, b = int(round(s[i])), int(round(n[i] - s[i]))
        c, d = int(round(s[ref])), int(round(n[ref] - s[ref]))
        fisher[i] = stats.fisher_exact([[a, b], [c, d]])[1] if a + b and c + d else np.nan
        pooled = (s[i] + s[ref]) / (n[i] + n[ref])
        se = np.sqrt(pooled * (1 - pooled) * (1 / n[i] + 1 / n[ref]))
        z[i] = (s[i] / n[i] - s[ref] / n[ref]) / se if se > 0 else 0.0
    return fisher, z
