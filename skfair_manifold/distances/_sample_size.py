"""The certified approximation's sample size, chosen from the data (a pilot sample).

The corrected mean (:mod:`._certified`) is ``mean(r) - mean_S(r - e)``; its
half-width at level ``confidence`` is ``z * sqrt((1 - s / n) * var(r - e) / s)``.
A fixed ``s`` gives an interval as wide as the excess ``r - e`` of the data
is spread: 4,000 rows were enough on COMPAS, not on a 30,000-row credit table
(median error 1.24% against a 1% target). Here the spread is measured first:

1. the rows are put in a random order; the first ``PILOT_SIZE`` are the
   pilot, whose exact distances are computed;
2. from the pilot's excess (of ``d_avg``, the mean over the attributes, for
   the true labels and for the predictions) and its corrected mean, the
   sample size that gives a relative half-width of ``TARGET_ERROR`` at level
   ``SIZE_CONFIDENCE`` is ``z^2 var / (target^2 mean^2 + z^2 var / n)``, the
   larger of the two labels, at least the pilot and at most every row;
3. the sample is the first ``s`` rows of the random order (the pilot
   included, its exact distances not computed again).

The size aims at the error, not at the interval: the 99% interval's
half-width at 1% means that the relative error passes 1% with a
probability of about 1% (the interval reported is at the caller's
``confidence``; at 95% its half-width is then about 0.76%). The former rule,
a 95% half-width of 2%, put the median error near 0.7% but the largest of
ten seeds at 1.6-2.2% on the credit-like table, COMPAS, Adult and the Dutch
census. The sample size is a function of the pilot, so the sample is a
sequential draw rather than a fixed-size simple random one; with a pilot of
1,000 rows the stopping rule moves the estimate by far less than its
interval.
"""

import math
from statistics import NormalDist

import numpy as np

#: Relative error of ``d_avg`` the sample size aims at ...
TARGET_ERROR = 0.01
#: ... not passed with this probability (the level of the interval the size is set by).
SIZE_CONFIDENCE = 0.99
#: Rows of the pilot sample (all rows when there are fewer).
PILOT_SIZE = 1000
#: Rows checked for the maxima at least with the adaptive size (the fixed sample it replaced).
MIN_CHECKS = 4000


def required_size(excess, mean, n_samples, *, target=TARGET_ERROR,
                  confidence=SIZE_CONFIDENCE):
    """Rows of the sample that give the relative half-width ``target`` at ``confidence``.

    Parameters
    ----------
    excess : ndarray of shape (m, s)
        Approximate minus exact distance on a pilot sample, per series.
    mean : ndarray of shape (m,)
        The estimated mean of each series (the half-width is relative to it).
    n_samples : int
        Rows in all.

    Returns
    -------
    size : int
        The largest size over the series, between 2 and ``n_samples``
        (``n_samples`` when a mean is not positive: no relative target).

    Examples
    --------
    >>> import numpy as np
    >>> excess = np.random.default_rng(0).exponential(0.1, size=(1, 1000))
    >>> required_size(excess, np.array([1.0]), 10**9)  # (2.576 * 0.1 / 0.01)^2, about 663
    667
    """
    excess = np.atleast_2d(np.asarray(excess, dtype=np.float64))
    mean = np.atleast_1d(np.asarray(mean, dtype=np.float64))
    if excess.shape[1] < 2:
        return int(n_samples)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    var = excess.var(axis=1, ddof=1)
    if np.any(mean <= 0):
        return int(n_samples)
    need = z ** 2 * var / (target ** 2 * mean ** 2 + z ** 2 * var / n_samples)
    return int(min(max(2, math.ceil(float(need.max()))), n_samples))


class KnownRows:
    """An exact engine whose answers for some rows are already known (the pilot's)."""

    def __init__(self, engine, rows, exact):
        self.engine = engine
        self.known = np.asarray(rows, dtype=np.intp)  # sorted, distinct
        self.exact = exact

    def rows(self, rows, *, n_jobs=None):
        rows = np.asarray(rows, dtype=np.intp)
        where = np.minimum(np.searchsorted(self.known, rows), max(self.known.size - 1, 0))
        out = np.empty(self.exact.shape[:2] + (rows.size,))
        have = (self.known[where] == rows) if self.known.size else np.zeros(rows.size, bool)
        out[:, :, have] = self.exact[:, :, where[have]]
        if not have.all():
            out[:, :, ~have] = self.engine.rows(rows[~have], n_jobs=n_jobs)
        return out


def adaptive_sample(approx, engine, rng, *, target=TARGET_ERROR, confidence=SIZE_CONFIDENCE,
                    pilot=PILOT_SIZE, n_jobs=None, content=None):
    """The sample of the certified approximation, its size chosen from a pilot.

    Parameters
    ----------
    approx : ndarray of shape (n_labels, n_attributes, n_samples)
        Approximate row distances.
    engine : ExactEngine
        The exact engine on the same rows, labels and attributes.
    rng : RandomState
        Draws the random order of the rows.
    content : ndarray of int, optional
        The rows in an order of their content (:func:`._row_order.content_order`):
        the random order is drawn over it, so that a seed picks the same rows
        for the same rows in any order. None: over the positions.

    Returns
    -------
    sample : ndarray of int
        Sorted rows of the sample.
    engine : KnownRows
        ``engine`` with the pilot's exact distances kept (pass it to
        :func:`~._certified.certify`, which then computes only the rest).
    pilot_size : int
        Rows of the pilot.
    """
    n = approx.shape[-1]
    order = rng.permutation(n)
    if content is not None:
        order = content[order]
    p0 = min(pilot, n)
    pilot_rows = np.sort(order[:p0])
    exact = engine.rows(pilot_rows, n_jobs=n_jobs)
    excess = (approx[:, :, pilot_rows] - exact).mean(axis=1)  # d_avg's excess, per label
    mean = approx.mean(axis=(1, 2)) - excess.mean(axis=1)
    size = max(p0, required_size(excess, mean, n, target=target, confidence=confidence))
    return np.sort(order[:size]), KnownRows(engine, pilot_rows, exact), p0
