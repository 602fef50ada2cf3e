"""Situation testing of a continuous decision (a wage, a limit, an amount).

With ``decision="continuous"`` the testers are chosen as for a yes/no
decision (KNN-DD by their distance alone; CBN-DD by Eq. 5, whose causal
effects are now changes of the expected decision ``E[y | c, q]`` in the
decision's units), and their *mean decisions* are compared: ``mean1``
(unprotected testers), ``mean2`` (protected testers), ``diff = mean1 -
mean2``, in the decision's units, as ``tau`` is.

The moments. Per person and side, the selector's weights ``w`` (the
probability that each record is a tester, the expectation over every
tie-break) give ``W = sum w``, ``S1 = sum w y`` and ``S2 = sum w y**2``
(:func:`tester_moments`, from the long table of the testers' cells: each
cell's sums over its records, less the person's own record where it is left
out). The mean is ``S1 / W``; the variance ``s**2 = (S2 / W - mean**2)
n_eff / (n_eff - 1)`` with ``n_eff = W**2 / sum w**2`` (the sample variance
when every weight is equal).

The test. The null hypothesis is ``mean1 <= mean2`` among the person's
testers; the p-value is Welch's one-sided t-test on the two weighted means,
``se**2 = s1**2 / n1_eff + s2**2 / n2_eff`` with the Welch-Satterthwaite
degrees of freedom on the effective sizes: for equal weights it is
``scipy.stats.ttest_ind(..., equal_var=False, alternative="greater")``
(tested). It is a large-sample test for skewed decisions (wages): its level
at 50 testers a side is checked by simulation in the test suite on
log-normal wages. When both sides' testers hold one value each
(``se = 0``), the p-value is 0 if ``mean1 > mean2`` and 1 otherwise.

Scale. The sums are of ``(y - r) / c`` (:func:`scaled_decisions`), ``r`` the
decisions' middle value and ``c`` a power of two of their spread, and every
amount of the table is brought back to the decision's units at the end
(:func:`unscale_table`): a wage in cents or in billions, or an amount of
``1e-300`` or ``1e300``, gives the same p-values and flags (``tau`` scaled
alike), and no square overflows or underflows.

The bounds ``diff_lower`` and ``diff_upper`` are ``diff -/+ t se``, ``t``
the ``1 - alpha_test`` quantile at those degrees of freedom; ``diff_se``
and ``df`` are the last two columns of ``transform``. The false discovery
rate across an audit and the verdicts are those of the binary decision
(CBN-DD's near distance of a verdict, 0.05 in a rate, is ``tau`` in the
decision's units);
the smallest detectable gap is ``max(tau, t_c se) + t_0.8 se``, ``t_c`` the
quantile of one more flag's threshold (the gap at which the rule flags with
probability 0.8 when ``diff`` is normal about it).

The graph. A given graph is used as it is. A learned one is searched with
the decision cut at its median (above or not): the conditional tests need
classes, and CMH's a yes/no decision; an interval column's supervised bins
are cut on the same two classes.

A candidate is every person of the protected group, whatever her own
amount: the test is of her situation (do people like her receive ``tau``
less when they are protected?), and a woman paid 10% less than her fair wage
may still be paid more than the men like her, by chance. Selecting on her
own amount would also make the candidates depend on the noise of the
decision. Her own decision is on the evidence beside her testers'.
"""

import numpy as np
from scipy import stats

#: the columns of ``transform`` for a continuous decision
CONTINUOUS_COLUMNS = ["mean1", "mean2", "diff", "diff_lower", "diff_upper", "p_value",
                      "diff_se", "df"]

DECISIONS = ("binary", "continuous")

MSG_CONTINUOUS_Y = (
    "decision='continuous' compares the testers' mean decisions, so y must be numbers; got "
    "{what}. Pass the amounts (a wage, a limit) as numbers, or use decision='binary' for "
    "classes."
)
MSG_CONTINUOUS_FINITE = (
    "y holds {count} value(s) that are not finite (NaN or inf); a mean decision cannot be "
    "computed with them: drop or fill those rows."
)
MSG_CONTINUOUS_OPTION = (
    "{name}={value!r} is not available with decision='continuous': {why}"
)
MSG_CONTINUOUS_LAZY = (
    "decision='continuous' is audited on rows in memory: a lazy frame's engine aggregates "
    "favourable counts only. Collect the rows (for example .to_pandas() or .collect()) or "
    "audit a yes/no decision."
)


def check_continuous_y(y):
    """``y`` as float64, or a ValueError naming the problem."""
    y = np.asarray(y)
    if y.dtype.kind not in "biuf" or y.dtype.kind == "b":
        raise ValueError(MSG_CONTINUOUS_Y.format(what=f"dtype {y.dtype}"))
    y = y.astype(np.float64)
    bad = ~np.isfinite(y)
    if bad.any():
        raise ValueError(MSG_CONTINUOUS_FINITE.format(count=int(bad.sum())))
    return y


def decision_codes(y):
    """A continuous decision as two classes, above its median or not: what CBN-DD's
    structure search (whose CMH test needs a yes/no decision) and the supervised binning
    of interval columns are given."""
    return (y > np.median(y)).astype(np.intp)


def _power_of_two_above(value):
    """The least power of two at least ``value`` (> 0, finite), as a float; 1 for 0."""
    if not value > 0:
        return 1.0
    return float(np.ldexp(1.0, int(np.frexp(value)[1])))


def scaled_decisions(y):
    """``(v, ref, scale)``: the decisions as ``v = (y - ref) / scale``, in [-1, 1].

    ``ref`` is the decisions' lower middle value (a value of ``y``: what is
    subtracted keeps the digits of amounts far from 0, a 1e12 offset), and
    ``scale`` a pair of powers of two (exact divisions) that bring the
    spread to about 1, computed without overflow for amounts up to the
    largest float and without underflow down to the smallest normal one.
    :func:`unscale_table` maps the table of ``v`` back.
    """
    y = np.asarray(y, dtype=np.float64)
    if y.shape[0] == 0:
        return y.copy(), 0.0, (1.0, 1.0)
    ref = float(np.partition(y, (y.shape[0] - 1) // 2)[(y.shape[0] - 1) // 2])
    top = float(np.max(np.abs(y)))  # |y| / first < 2, first without overflow
    first = max(float(np.ldexp(1.0, int(np.frexp(top)[1]) - 1)), 2.0 ** -1022) \
        if top > 0 else 1.0
    d = y / first - ref / first
    second = _power_of_two_above(float(np.max(np.abs(d))))
    return d / second, ref, (first, second)


def unscale_table(out, ref, scale):
    """:func:`mean_table`'s table of scaled decisions in the decision's units: the means
    ``ref + c m``, the differences, bounds and standard error ``c x`` (``c`` the scale);
    the p-value and the degrees of freedom are left as they are."""
    first, second = scale
    out = out.copy()
    for j in (0, 1):
        out[:, j] = (out[:, j] * second) * first + ref
    for j in (2, 3, 4, 6):
        out[:, j] = (out[:, j] * second) * first
    return out


def segment_sums(cell_rows, y):
    """Per segment of ``cell_rows`` (a ``_selection._methods.CellRows``): the number of
    records, the sum of their decisions and of their squares."""
    bounds = cell_rows.bounds
    count = np.diff(bounds).astype(np.float64)
    v = y[cell_rows.rows]
    c1 = np.concatenate([[0.0], np.cumsum(v)])
    c2 = np.concatenate([[0.0], np.cumsum(v * v)])
    return count, c1[bounds[1:]] - c1[bounds[:-1]], c2[bounds[1:]] - c2[bounds[:-1]]


def tester_moments(cells, sums, sides, own_value, m):
    """``S1`` and ``S2`` (shape (m, 2)) of each query's testers from the cells' table.

    ``cells``: the selector's long table (``query``, ``side``, ``cell``,
    ``weight``, ``n_records``); ``sums``: :func:`segment_sums`; ``sides``:
    the segments per cell (1: a unit of identical records, 2: one per side of
    a subgroup); ``own_value``: each query's own decision (NaN when it is not
    a fitted record): where a cell holds fewer records for the person than it
    has (her own record left out), her value is taken off the cell's sums.
    """
    query, side = cells["query"], cells["side"]
    seg = cells["cell"].astype(np.intp) * sides + (side if sides == 2 else 0)
    count, s1, s2 = (part[seg] for part in sums)
    left_out = np.maximum(count - cells["n_records"], 0.0)
    own = np.where(left_out > 0, own_value[query], 0.0)
    w = cells["weight"]
    S1, S2 = np.zeros((m, 2)), np.zeros((m, 2))
    np.add.at(S1, (query, side), w * (s1 - left_out * own))
    np.add.at(S2, (query, side), w * (s2 - left_out * own * own))
    return S1, S2


def mean_table(S1, n, w2, S2, *, alpha):
    """Means, Welch bounds and p-value of each row: (m, 8) as :data:`CONTINUOUS_COLUMNS`,
    and the effective testers (m, 2)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = S1 / n
        n_eff = n * n / w2
        var = np.maximum(S2 / n - mean * mean, 0.0) * n_eff / (n_eff - 1.0)
        var = np.where(n_eff > 1.0, var, np.nan)
        a = var / n_eff  # the squared standard error of each side's mean
        se = np.sqrt(a[:, 0] + a[:, 1])
        df = (a[:, 0] + a[:, 1]) ** 2 / (a[:, 0] ** 2 / (n_eff[:, 0] - 1.0)
                                         + a[:, 1] ** 2 / (n_eff[:, 1] - 1.0))
    diff = mean[:, 0] - mean[:, 1]
    df = np.where(se > 0, df, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = stats.t.sf(diff / se, df)
    flat = np.isfinite(diff) & (se == 0)  # both sides hold one value each
    p = np.where(flat, np.where(diff > 0, 0.0, 1.0), p)
    half = np.where(flat, 0.0, stats.t.ppf(1.0 - alpha, df) * se)
    out = np.column_stack([mean[:, 0], mean[:, 1], diff, diff - half, diff + half, p, se,
                           df])
    return out, n_eff


def detectable_mean_gaps(out, *, tau, threshold, power=0.8):
    """The smallest gap of means the rule flags with probability ``power``: nan where
    the spread is unknown; ``threshold`` None (a rule without test): ``tau`` plus the
    spread's ``power`` quantile."""
    se, df = out[:, 6], out[:, 7]
    with np.errstate(invalid="ignore"):
        needed = np.full(se.shape, float(tau)) if threshold is None else \
            np.maximum(tau, stats.t.isf(threshold, df) * se)
        gap = needed + stats.t.ppf(power, df) * se
    return np.where(se == 0, np.maximum(tau, 0.0), gap)
