"""The testers' rates and means recalibrated on the people's own decisions.

A person's testers are the K records nearest to her (KNN-DD) or her cell's
(CBN-DD): their rate estimates hers with two errors. Sampling noise, and the
neighbourhood's own bias: the K nearest records of a person at the edge of
the data (the highest incomes) lie towards its centre, so the rate of her
testers is drawn towards the average (for KNN-DD on ``make_planted_bias`` at
8,000 rows the testers' mean rate is 0.259 where the people's own is 0.279).
Every row of the audit has the rate of its own group's testers and its own
decision, so the relation between the two can be read off the data: among
the men whose male testers have rate ``s``, the share accepted is ``g(s)``.
This module fits ``g`` per side by logistic calibration (Platt scaling:
``logit g(s) = a + b logit s``, ``s`` the testers' rate with half a tester
of each kind added), the unprotected side on the unprotected rows and the
protected side on the protected rows, each person left out of her own
testers as ever; and for an amount, the least-squares line of the person's
own amount on her own group's testers' mean, one line for both groups (the
gap is its slope times the testers' gap: lines fitted apart would add their
difference to every gap). A recalibrated rate keeps the binomial
noise of the testers, scaled by the map's slope (the delta method): its
*effective* number of testers is ``s (1 - s) n / (g (1 - g) b^2)``.
"""

import numpy as np

#: rows of each side the calibration reads at most (spread evenly over the rows)
CALIBRATION_ROWS = 20000

#: the logistic fit's penalty toward the identity map (in observations' weight)
RIDGE = 1.0

#: Newton steps of the logistic fit
NEWTON_STEPS = 50


def smoothed(rate, n):
    """The rate with half a tester of each kind added: inside (0, 1) for a logit."""
    return (rate * n + 0.5) / (n + 1.0)


def logistic_calibration(rate, n, outcome):
    """``(a, b)`` of ``logit P(outcome) = a + b logit(smoothed rate)`` by Newton's method;
    ``(0, 1)`` (no change) when the rows are too few or do not vary; ``b`` at least 0 (a
    higher rate never means a lower chance: where the fit decreases, the flat map)."""
    x = np.log(smoothed(rate, n) / (1.0 - smoothed(rate, n)))
    y = np.asarray(outcome, dtype=np.float64)
    if x.shape[0] < 20 or y.min() == y.max() or np.ptp(x) < 1e-9:
        return 0.0, 1.0
    X = np.column_stack([np.ones_like(x), x])
    identity = np.array([0.0, 1.0])
    theta = identity.copy()
    for _ in range(NEWTON_STEPS):
        z = np.clip(X @ theta, -35.0, 35.0)
        p = 1.0 / (1.0 + np.exp(-z))
        W = p * (1.0 - p)
        # a penalty of one observation's weight toward the identity keeps the fit finite
        # where the rows separate (a small audit whose accepted all have higher rates)
        hessian = X.T @ (X * W[:, None]) + RIDGE * np.eye(2)
        step = np.linalg.solve(hessian, X.T @ (y - p) - RIDGE * (theta - identity))
        theta = theta + step
        if np.abs(step).max() < 1e-10:
            break
    if theta[1] < 0:  # a map that decreases: the best increasing one is flat
        mean = float(np.clip(y.mean(), 1e-9, 1 - 1e-9))
        return float(np.log(mean / (1.0 - mean))), 0.0
    return float(theta[0]), float(theta[1])


def recalibrated_rates(rate, n, params):
    """The recalibrated rate and its effective number of testers (see the module)."""
    a, b = params
    s = smoothed(rate, n)
    g = 1.0 / (1.0 + np.exp(-(a + b * np.log(s / (1.0 - s)))))
    g = np.clip(g, 1e-9, 1.0 - 1e-9)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = s * (1.0 - s) * n / (g * (1.0 - g) * b * b)
    return g, np.where(np.isfinite(n_eff) & (n_eff > 0), n_eff, n)


def linear_calibration(mean, outcome):
    """``(a, b)`` of the least-squares line of the own amount on the testers' mean;
    ``(0, 1)`` when the rows are too few or the means do not vary; ``b`` at least 0.
    The sums are of the amounts divided by the largest (a power of two), so that amounts
    of any magnitude (1e-300 to 1e300) give the line of the amounts of scale 1, ``a`` in
    their units."""
    x = np.asarray(mean, dtype=np.float64)
    y = np.asarray(outcome, dtype=np.float64)
    if x.shape[0] < 20 or np.ptp(x) <= 1e-12 * np.abs(x).max():
        return 0.0, 1.0
    top = max(float(np.abs(x).max()), float(np.abs(y).max()))
    unit = 2.0 ** np.frexp(top)[1]  # exact: a power of two
    x, y = x / unit, y / unit
    xc = x - x.mean()
    b = max(float(np.dot(xc, y - y.mean()) / np.dot(xc, xc)), 0.0)  # never decreasing
    return float(y.mean() - b * x.mean()) * unit, b


def calibration_rows(mask):
    """At most :data:`CALIBRATION_ROWS` of the rows where ``mask`` holds, evenly spread
    (deterministic: the same rows give the same audit)."""
    rows = np.flatnonzero(mask)
    if rows.shape[0] <= CALIBRATION_ROWS:
        return rows
    take = np.linspace(0, rows.shape[0] - 1, CALIBRATION_ROWS).round().astype(np.intp)
    return rows[np.unique(take)]
