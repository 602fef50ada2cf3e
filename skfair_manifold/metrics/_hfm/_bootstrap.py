"""Intervals of HFM's means over the sampling of rows: a bootstrap of the per-row distances.

What is estimated
-----------------
A row's distance ``d_i`` is the distance from row ``i`` to the nearest row of
*another group* in the table scored ``T`` (the label as first coordinate). A
row is never its own neighbour, so ``d_i = d(Z_i; T)``, the value at the
person ``Z_i`` of a function fixed by the table: the distance from a person
to the nearest person of another group in ``T``. The estimand is its mean
over the population the rows are drawn from, with the table held fixed as
the reference::

    theta(T) = E_Z[ d(Z; T) ]                  (true labels: d_avg)
    theta_f(T) = E_Z[ d_f(Z; T) ]              (the model's predictions, the
                                                model held fixed: d_f_avg)
    log(theta_f(T) / theta(T))                 (hfm_avg)

per attribute (Eq. 5) and as the mean over the attributes (Eq. 7). It
answers "how far could ``d_avg`` be from the mean distance of the people of
this population to the nearest person of another group in this table, only
because these rows were drawn". It is not the spread of ``d_avg`` over
tables of the same size drawn afresh: the reference moves with such a table
(nearest-neighbour distances shrink as the table grows), which the rows of
one table cannot show. Leave-one-out: ``d(Z_i; T)`` is measured on ``T``
that holds ``Z_i``; row ``i`` is never a neighbour of its own group, so
only the distances of other groups' rows feel it (an ``O(1/n)`` share).
With ``scale=True`` the min-max scaling comes from the table too and is held
fixed with it.

The rows play two parts: each is a person whose distance is measured (a
query) and a possible nearest person of the others (the reference). A
bootstrap that resamples the rows as queries of a fixed reference misses the
second part and is too narrow: measured coverage of ``d_avg`` and
``d_f_avg`` 82% and 85% for a nominal 90% (2 features, 2 groups, 100 rows,
300 tables); the variance of ``d_avg - theta(T)`` was 1.4 to 1.7 times its
estimate (2 features at 100 and 400 rows, 5 features and 3 groups at 200). The second part is
the *neighbour term*: were row ``i`` absent, each row ``j`` whose nearest
row it is would move to its second nearest, a rise ``g_j = second_j -
first_j``; the rows that fall nearest to ``i`` are a draw, and their summed
rise a compound Poisson count with variance ``sum g_j^2``. Its covariance
over the series (labels x attributes) is :func:`neighbour_covariance`
``/ n``, estimated from each row's two nearest rows of other groups on at
most ``NEIGHBOUR_ROWS`` rows drawn at random. Each replicate is the mean
over a resample of the rows (with replacement; the per-row distances
already computed, no pair computed again, ``O(n)`` a replicate) plus a
normal draw of the neighbour term; the interval is the percentile interval
of the replicates, and ``hfm_avg``'s is that of the replicates' log-ratio.
Measured coverage of the 90% intervals (``tests/metrics/test_hfm_bootstrap.py``,
3 features, 2 groups): 120 rows, 150 tables: 0.91 ``d_avg``, 0.95
``d_f_avg``, 0.97 ``hfm_avg``; 400 rows, 300 tables: 0.92, 0.93, 0.92. The
term counts the whole Poisson variance and no covariance between the two
parts, so the intervals lean to the safe side (more so in few dimensions).

With the certified approximation, each replicate is the difference
estimator on the resampled rows: the mean of the approximate distances
minus the mean excess (approximate minus exact) of the resampled rows of the
exact sample, so the interval covers the sampling of the rows and of the
approximation's sample together (the stratum of rows checked for the maxima
is not separated); measured 0.96, 0.94, 0.94 (400 rows, a sample of 150,
200 tables).

The maxima have no such interval. The population value of ``d_max`` is the
largest ``d(Z; T)`` the population reaches, never below the largest seen,
and a bootstrap of a maximum cannot look beyond the largest value seen: a
replicate's maximum is the sample's own maximum with probability
``1 - (1 - 1/n)^n`` (about 63%), so the percentile interval ends at the
sample maximum and misses every population maximum above it, and the
bootstrap distribution of a maximum does not converge to its sampling
distribution (Bickel and Freedman, 1981). No interval is given rather than
one that looks valid and is not.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch, check_random_state

from ...distances._rows import apply_min_max
from ...utils._interval import ConfidenceInterval
from .._bootstrap import percentile

#: Replicate counts held at once: ``chunk * n_samples`` integers at most.
CHUNK_CELLS = 1 << 22

ESTIMAND = (
    "the population mean of the distance from a person to the nearest person of another "
    "group in the table scored (the table and the model held fixed), per attribute and "
    "over the attributes; percentile bootstrap over rows")


def log_ratio(num, den):
    """``log(num / den)`` with nan where it is undefined (either side 0)."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    out = np.full(np.broadcast(num, den).shape, np.nan)
    ok = (num > 0) & (den > 0)
    np.log(num / np.where(ok, den, 1.0), out=out, where=ok)
    return out


def replicate_means(rows, *, n_boot, random_state=None, sample=None, sample_exact=None):
    """Bootstrap replicates of the mean per-row distance of every series.

    Parameters
    ----------
    rows : ndarray of shape (m, n_samples)
        Per-row distances of ``m`` series (labels x attributes).
    n_boot : int
        Replicates.
    random_state : int, RandomState instance or None
        Draws the resamples.
    sample : ndarray of int, default=None
        With the certified approximation: the rows of its exact sample;
        ``rows`` are then the approximate distances.
    sample_exact : ndarray of shape (m, len(sample)), default=None
        The exact distances of ``sample``.

    Returns
    -------
    means : ndarray of shape (n_boot, m)
        Each replicate's mean (the difference estimator with ``sample``).
    """
    rows = np.asarray(rows, dtype=np.float64)
    m, n = rows.shape
    rng = check_random_state(random_state)
    excess = None
    if sample is not None:
        excess = np.zeros_like(rows)
        excess[:, sample] = rows[:, sample] - np.asarray(sample_exact, dtype=np.float64)
        in_sample = np.zeros(n)
        in_sample[sample] = 1.0
    chunk = max(1, CHUNK_CELLS // n)
    out = np.empty((n_boot, m))
    uniform = np.full(n, 1.0 / n)
    for start in range(0, n_boot, chunk):
        stop = min(start + chunk, n_boot)
        counts = rng.multinomial(n, uniform, size=stop - start).astype(np.float64)
        means = counts @ rows.T / n
        if excess is not None:
            drawn = counts @ in_sample
            drawn = np.where(drawn > 0, drawn, np.nan)  # no sample row drawn: undefined
            means -= (counts @ excess.T) / drawn[:, None]
        out[start:stop] = means
    return out


def neighbour_covariance(first, second, nearest):
    """The neighbour term: covariance of the error the rows make as each other's reference.

    Parameters
    ----------
    first, second : ndarray of shape (m, n_samples)
        Per series (label x attribute), each row's distance to the nearest and
        to the second nearest row of another group.
    nearest : ndarray of int, shape (m, n_samples)
        The nearest row of another group, per series.

    Returns
    -------
    C : ndarray of shape (m, m)
        ``C[s, t] = mean_j [nearest_s(j) = nearest_t(j)] g_s(j) g_t(j)`` with
        ``g = second - first``, the rise of row ``j``'s distance were its
        nearest row absent. Removing row ``i`` from the reference moves the
        distances of the rows whose nearest row it is; ``C / n`` is the
        variance (and covariance across series) of that movement summed over
        the rows, as if the rows that fall nearest to each row were a Poisson
        draw.
    """
    gap = np.asarray(second, dtype=np.float64) - np.asarray(first, dtype=np.float64)
    gap = np.where(np.isfinite(gap), gap, 0.0)  # no second row: no rise counted
    nearest = np.asarray(nearest)
    m, n = gap.shape
    C = np.empty((m, m))
    for s in range(m):
        for t in range(s, m):
            same = nearest[s] == nearest[t]
            C[s, t] = C[t, s] = float(np.sum(gap[s] * gap[t] * same)) / n
    return C


#: Rows whose two nearest rows of other groups estimate the neighbour term.
NEIGHBOUR_ROWS = 2000
_BLOCK = 256


def two_nearest(X, labels, codes, rows):
    """For each of ``rows``, the nearest and second nearest rows of another group.

    A plain search over all rows (Gram form; the values serve a variance, not
    a distance reported). Returns ``first``, ``second`` (distances) and
    ``nearest`` (the row), each of shape (n_labels, n_attributes,
    len(rows)); ``second`` is ``inf`` where a group has a single row of
    another group.
    """
    X = np.asarray(X, dtype=np.float64)
    X = X - X.mean(axis=0)
    sq = np.einsum("ij,ij->i", X, X)
    rows = np.asarray(rows, dtype=np.intp)
    L, K, r = len(labels), len(codes), rows.size
    first, second = np.empty((L, K, r)), np.empty((L, K, r))
    nearest = np.empty((L, K, r), dtype=np.intp)
    for s in range(0, r, _BLOCK):
        q = rows[s:s + _BLOCK]
        feat = np.maximum(sq[q, None] + sq[None, :] - 2.0 * (X[q] @ X.T), 0.0)
        for l, y in enumerate(labels):
            total = feat + (y[q, None] - y[None, :]) ** 2
            for k, code in enumerate(codes):
                masked = np.where(code[q, None] != code[None, :], total, np.inf)
                two = np.argpartition(masked, 1, axis=1)[:, :2] if masked.shape[1] > 1 \
                    else np.zeros((q.size, 2), dtype=np.intp)
                vals = np.take_along_axis(masked, two, axis=1)
                order = np.argsort(vals, axis=1, kind="stable")
                two = np.take_along_axis(two, order, axis=1)
                vals = np.take_along_axis(vals, order, axis=1)
                first[l, k, s:s + q.size] = np.sqrt(vals[:, 0])
                second[l, k, s:s + q.size] = np.sqrt(vals[:, 1])
                nearest[l, k, s:s + q.size] = two[:, 0]
    return first, second, nearest


def row_bootstrap(row_true, row_pred, *, n_boot, confidence=0.95, random_state=None,
                  neighbours=None, sample=None, sample_true=None, sample_pred=None):
    """Intervals of ``d_avg``, ``d_f_avg`` and ``hfm_avg`` over the sampling of rows.

    Each replicate is the mean over a resample of the rows (with
    replacement) plus a draw of the neighbour term (normal, covariance
    :func:`neighbour_covariance` ``/ n``); the intervals are the percentiles
    of the replicates.

    Parameters
    ----------
    row_true, row_pred : ndarray of shape (n_samples, n_attributes)
        Per-row distances with the true labels and with the predictions (as
        ``hfm_report`` holds them; the approximate ones for the
        approximation).
    n_boot : int
        Replicates (at least 1).
    confidence : float, default=0.95
    random_state : int, RandomState instance or None, default=None
    neighbours : ndarray of shape (2 * n_attributes, 2 * n_attributes), default=None
        :func:`neighbour_covariance` of the series true labels by attribute,
        then predictions by attribute; None leaves the term out (the rows
        then count as queries of a fixed reference only, which is too
        narrow).
    sample : ndarray of int, default=None
        The certified approximation's sample, with ``sample_true`` and
        ``sample_pred`` (len(sample), n_attributes), its exact distances.

    Returns
    -------
    row_ci : Bunch
        ``d_avg``, ``d_f_avg``, ``hfm_avg``: a ``ConfidenceInterval(low, high)``
        over the attributes (Eq. 7, 8b); ``per_attribute``: the same keys as arrays of
        shape (n_attributes, 2); ``n_boot``, ``confidence``, ``method``,
        ``estimand`` (in words; see the module's notes) and ``maxima`` (why
        the max forms have none).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> d = rng.exponential(size=(500, 2))
    >>> ci = row_bootstrap(d, 1.1 * d, n_boot=200, random_state=0)
    >>> low, high = ci.d_avg
    >>> bool(low < d.mean() < high), [round(v, 4) for v in ci.hfm_avg]
    (True, [0.0953, 0.0953])
    """
    row_true = np.asarray(row_true, dtype=np.float64)
    row_pred = np.asarray(row_pred, dtype=np.float64)
    n, k = row_true.shape
    rng = check_random_state(random_state)
    # series: true per attribute, pred per attribute, then both over the attributes
    weights = np.zeros((2 * k + 2, 2 * k))
    weights[:2 * k, :2 * k] = np.eye(2 * k)
    weights[2 * k, :k] = weights[2 * k + 1, k:] = 1.0 / k
    base = np.concatenate([row_true.T, row_pred.T])
    exact = None
    if sample is not None:
        exact = weights @ np.concatenate([np.asarray(sample_true, dtype=float).T,
                                          np.asarray(sample_pred, dtype=float).T])
    means = replicate_means(weights @ base, n_boot=n_boot, random_state=rng, sample=sample,
                            sample_exact=exact)
    if neighbours is not None:
        noise = rng.multivariate_normal(np.zeros(2 * k), np.asarray(neighbours) / n,
                                        size=n_boot, check_valid="ignore")
        means = means + noise @ weights.T
    t_k, p_k = means[:, :k], means[:, k:2 * k]
    t_all, p_all = means[:, 2 * k], means[:, 2 * k + 1]
    low_t, high_t = percentile(t_k, confidence)
    low_p, high_p = percentile(p_k, confidence)
    low_h, high_h = percentile(log_ratio(p_k, t_k), confidence)
    (lt, ht), (lp, hp) = percentile(t_all, confidence), percentile(p_all, confidence)
    lh, hh = percentile(log_ratio(p_all, t_all), confidence)

    def pairs(low, high):
        return np.column_stack([low, high])

    return Bunch(
        d_avg=ConfidenceInterval(float(lt), float(ht)),
        d_f_avg=ConfidenceInterval(float(lp), float(hp)),
        hfm_avg=ConfidenceInterval(float(lh), float(hh)),
        per_attribute=Bunch(d_avg=pairs(low_t, high_t), d_f_avg=pairs(low_p, high_p),
                            hfm_avg=pairs(low_h, high_h)),
        n_boot=int(n_boot), confidence=float(confidence),
        method="percentile bootstrap over rows with the neighbour term",
        estimand=ESTIMAND,
        maxima=("none: a bootstrap of a maximum cannot exceed the largest value seen, so it "
                "is not an interval of the population's maximum"),
    )


def hfm_row_intervals(X, labels, codes, report, *, n_boot, confidence, random_state,
                      minmax=None, sample=None, sample_exact=None):
    """:func:`row_bootstrap` of an HFM report, the neighbour term estimated on a sample.

    ``X`` (converted as the engine's entry converts it), ``minmax`` (the
    min-max scaling the report measured with, or None), ``labels`` (true,
    predicted, as coded) and ``codes`` are the report's inputs; ``sample`` and
    ``sample_exact`` (2, K, s) the certified approximation's sample when it
    ran. The neighbour term is a mean over rows: it is estimated on at most
    ``NEIGHBOUR_ROWS`` rows drawn at random (all rows when there are fewer),
    at a cost of ``O(NEIGHBOUR_ROWS x n x d)``.
    """
    rng = check_random_state(random_state)
    X = apply_min_max(np.array(X, dtype=np.float64), minmax)  # a copy: X is the caller's
    n = X.shape[0]
    rows = np.arange(n) if n <= NEIGHBOUR_ROWS else np.sort(
        rng.choice(n, size=NEIGHBOUR_ROWS, replace=False))
    first, second, nearest = two_nearest(X, labels, codes, rows)
    k = len(codes)
    C = neighbour_covariance(first.reshape(2 * k, -1), second.reshape(2 * k, -1),
                             nearest.reshape(2 * k, -1))
    extra = {}
    if sample is not None:
        extra = dict(sample=sample, sample_true=sample_exact[0].T,
                     sample_pred=sample_exact[1].T)
    return row_bootstrap(report.row_distances_true, report.row_distances_pred,
                         n_boot=n_boot, confidence=confidence, random_state=rng,
                         neighbours=C, **extra)
