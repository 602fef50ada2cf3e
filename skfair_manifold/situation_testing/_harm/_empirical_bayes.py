"""Empirical Bayes over situations: each person's harm shrunk toward what similar situations show.

Yes/no decision. Each candidate's situation has true rates ``pi1``
(unprotected) and ``pi2`` (protected); her recalibrated testers give
``a1`` of ``n1`` and ``a2`` of ``n2`` (effective counts,
:mod:`._recalibration`), binomial about them. Monotonicity (nobody is
favoured for being protected) puts ``pi1 >= pi2``. The prior over the
situations is estimated from every candidate at once, without a shape: the
nonparametric maximum-likelihood mixing distribution (Kiefer and Wolfowitz
1956; Koenker and Mizera 2014) on a grid of the triangle ``pi1 >= pi2``
(30 values a side, 465 points; an observation of so many testers that its
likelihood is narrower than the grid's step adds its own point), fitted by
the EM algorithm. A person's
posterior over the grid then gives

- ``pn``: the posterior mean of the probability of necessity ``(pi1 -
  pi2) / (1 - pi2)`` (Tian and Pearl 2000, under monotonicity and
  exogeneity): the probability that she would have been accepted had she not
  been protected, given that she was refused, *calibrated*: among people
  given 0.3, about 30% were flipped when the model holds;
- ``pn_low``: its posterior ``(1 - confidence) / 2`` quantile;
- ``pn_high``: the posterior ``(1 + confidence) / 2`` quantile of the
  upper bound under exogeneity alone, ``min(1, pi1 / (1 - pi2))``: without
  monotonicity ``pn`` may be as high as that.

An amount. Each candidate's recalibrated testers' gap ``d`` is normal about
her situation's gap ``delta >= 0`` (monotonicity) with her standard error;
the prior over ``delta`` is the NPMLE on 200 points from 0 to the largest
``d + 4 se``; ``shortfall`` is the posterior mean, ``shortfall_low`` and
``shortfall_high`` the posterior quantiles.

Candidates with the same counts share a posterior: observations are rounded
to a fine lattice (rates to 1/400, effective counts to 2%) so that a large
audit's EM runs over its distinct situations, not its rows.
"""

import numpy as np

#: grid values of each rate
RATE_GRID = 30
#: distinct observations whose likelihood is narrower than the grid's step (many
#: testers: a large cell) add their own point to the support, at most this many (the
#: most shared first): on the grid alone one situation of 2,000 testers a side at 0.5
#: and 0.3 got pn 0.244 for 0.286
SHARP_POINTS = 200
#: grid points of a gap in the decision's units
GAP_GRID = 200
#: EM steps at most (SQUAREM cycles of three), and the relative gain of the log-likelihood
#: that stops it (the flat directions of an NPMLE converge slowly; at 1e-6 the candidates'
#: summed posterior means are within 0.3% of their value at 1e-10)
EM_ITERATIONS = 3000
EM_TOLERANCE = 1e-6


def _triangle(m=RATE_GRID):
    """The grid of ``(pi1, pi2)`` with ``pi1 >= pi2``."""
    values = (np.arange(m) + 0.5) / m
    p2, p1 = np.meshgrid(values, values, indexing="ij")
    keep = p1 >= p2 - 1e-12
    return p1[keep], p2[keep]


def npmle(likelihood, weights, *, iterations=EM_ITERATIONS, tol=EM_TOLERANCE):
    """The mixing weights on the grid maximising ``sum_i w_i log sum_s L_is g_s``.

    ``likelihood`` (U, S): each distinct observation's likelihood at each grid
    point, scaled per row (the scale does not change the maximiser);
    ``weights`` (U,): how many candidates share it. The EM algorithm,
    accelerated by SQUAREM (Varadhan and Roland 2008: two EM steps give a
    direction, a step along it, then one EM step to stabilise; a step that
    lowers the likelihood falls back to plain EM), until the log-likelihood
    gains less than ``tol`` (relative).
    """
    S = likelihood.shape[1]
    w = weights / weights.sum()

    def em(g):
        mix = np.maximum(likelihood @ g, 1e-300)
        new = g * (likelihood.T @ (w / mix))
        return new / new.sum()

    def loglik(g):
        return float(w @ np.log(np.maximum(likelihood @ g, 1e-300)))

    g = np.full(S, 1.0 / S)
    value = loglik(g)
    for _ in range(max(1, iterations // 3)):
        g1 = em(g)
        g2 = em(g1)
        r, v = g1 - g, g2 - 2.0 * g1 + g
        norm_v = float(np.sqrt(v @ v))
        step = -float(np.sqrt(r @ r)) / norm_v if norm_v > 0 else -1.0
        step = min(step, -1.0)
        proposal = np.maximum(g - 2.0 * step * r + step * step * v, 0.0)
        total = proposal.sum()
        candidate = em(proposal / total) if total > 0 else g2
        new_value = loglik(candidate)
        if not np.isfinite(new_value) or new_value < loglik(g2):
            candidate, new_value = g2, loglik(g2)
        done = new_value - value < tol * max(1.0, abs(value))
        g, value = candidate, new_value
        if done:
            break
    return g


def _posterior(likelihood, g):
    post = likelihood * g
    return post / np.maximum(post.sum(axis=1, keepdims=True), 1e-300)


def _quantile(post, values, q):
    """Each row's posterior quantile ``q`` of ``values`` (over the grid)."""
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(post[:, order], axis=1)
    index = np.argmax(cum >= q - 1e-12, axis=1)
    return values[order][index]


def _distinct(*columns):
    """The distinct rows of the rounded observations: (values, inverse, counts)."""
    key = np.column_stack(columns)
    values, inverse, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    return values, inverse.ravel(), counts.astype(np.float64)


def _spread(rate, n):
    """The binomial standard deviation of a rate of ``n`` testers; at a rate of 0 or 1
    that of a variance of ``1 / (4 n)`` (the rate is not exact there either)."""
    return np.sqrt(np.maximum(rate * (1 - rate), 0.25 / n) / n)


def _support(u1, un1, u2, un2, counts):
    """The grid of the triangle, and the points of the observations whose likelihood is
    narrower than its step (see :data:`SHARP_POINTS`), put on the triangle (``u1 < u2``:
    both at their pooled rate) and inside ``(0, 1)``."""
    p1, p2 = _triangle()
    sharp = np.flatnonzero(np.minimum(_spread(u1, un1), _spread(u2, un2)) < 1.0 / RATE_GRID)
    if sharp.shape[0] == 0:
        return p1, p2
    sharp = sharp[np.argsort(-counts[sharp], kind="stable")[:SHARP_POINTS]]
    x1, x2, m1, m2 = u1[sharp], u2[sharp], un1[sharp], un2[sharp]
    pooled = (x1 * m1 + x2 * m2) / (m1 + m2)
    x1, x2 = np.where(x1 >= x2, x1, pooled), np.where(x1 >= x2, x2, pooled)
    edge = 0.1 / (RATE_GRID * 400)
    extra = np.unique(np.clip(np.column_stack([x1, x2]), edge, 1 - edge), axis=0)
    return np.concatenate([p1, extra[:, 0]]), np.concatenate([p2, extra[:, 1]])


def binary_likelihood(a1, n1, a2, n2):
    """The distinct observations on the lattice and their likelihood on the grid:
    ``(inverse, counts, likelihood (U, S), pi1 (S,), pi2 (S,))``."""
    r1, r2 = np.clip(a1 / n1, 0, 1), np.clip(a2 / n2, 0, 1)
    values, inverse, counts = _distinct(np.round(r1 * 400) / 400, np.round(np.log(n1) * 50),
                                        np.round(r2 * 400) / 400, np.round(np.log(n2) * 50))
    u1, un1 = values[:, 0], np.exp(values[:, 1] / 50)
    u2, un2 = values[:, 2], np.exp(values[:, 3] / 50)
    p1, p2 = _support(u1, un1, u2, un2, counts)
    log_l = (np.outer(u1 * un1, np.log(p1)) + np.outer((1 - u1) * un1, np.log1p(-p1))
             + np.outer(u2 * un2, np.log(p2)) + np.outer((1 - u2) * un2, np.log1p(-p2)))
    return inverse, counts, np.exp(log_l - log_l.max(axis=1, keepdims=True)), p1, p2


def binary_harm(a1, n1, a2, n2, *, confidence):
    """Per candidate ``pn``, ``pn_low``, ``pn_high`` and the posterior variance of ``pn``
    (a dict of arrays), from the recalibrated testers' counts (see the module)."""
    m = a1.shape[0]
    out = {key: np.full(m, np.nan) for key in ("pn", "pn_low", "pn_high", "pn_var")}
    ok = np.isfinite(a1) & np.isfinite(a2) & (n1 > 0) & (n2 > 0)
    if not ok.any():
        return out
    inverse, counts, likelihood, p1, p2 = binary_likelihood(a1[ok], n1[ok], a2[ok], n2[ok])
    post = _posterior(likelihood, npmle(likelihood, counts))
    pn = (p1 - p2) / (1 - p2)
    upper = np.minimum(1.0, p1 / (1 - p2))
    mean = post @ pn
    a = 1.0 - confidence
    rows = np.flatnonzero(ok)
    out["pn"][rows] = mean[inverse]
    out["pn_var"][rows] = np.maximum(post @ pn ** 2 - mean ** 2, 0.0)[inverse]
    # an interval holds its point (a posterior with an atom may put a quantile past it)
    out["pn_low"][rows] = np.minimum(_quantile(post, pn, a / 2), mean)[inverse]
    out["pn_high"][rows] = np.maximum(_quantile(post, upper, 1 - a / 2), mean)[inverse]
    return out


def amount_harm(gap, se, *, confidence):
    """Per candidate ``shortfall``, ``shortfall_low``, ``shortfall_high`` and the posterior
    variance (a dict of arrays), from the recalibrated testers' gaps and their standard
    errors (see the module)."""
    m = gap.shape[0]
    out = {key: np.full(m, np.nan) for key in ("shortfall", "shortfall_low",
                                               "shortfall_high", "shortfall_var")}
    ok = np.isfinite(gap) & np.isfinite(se) & (se > 0)
    if not ok.any():
        return out
    # in units of the median standard error: the same posterior at any magnitude
    scale = float(np.median(se[ok]))
    d, s = gap[ok] / scale, se[ok] / scale
    values, inverse, counts = _distinct(np.round(d * 100), np.round(np.log(s) * 50))
    ud, us = values[:, 0] / 100, np.exp(values[:, 1] / 50)
    top = max(float(np.max(ud + 4 * us)), 4.0)
    grid = np.linspace(0.0, top, GAP_GRID)
    z = (ud[:, None] - grid[None, :]) / us[:, None]
    log_l = -0.5 * z * z
    likelihood = np.exp(log_l - log_l.max(axis=1, keepdims=True))
    post = _posterior(likelihood, npmle(likelihood, counts))
    mean = post @ grid
    a = 1.0 - confidence
    rows = np.flatnonzero(ok)
    with np.errstate(over="ignore", under="ignore"):  # the variance in squared units
        out["shortfall"][rows] = mean[inverse] * scale
        out["shortfall_var"][rows] = np.maximum(post @ grid ** 2 - mean ** 2, 0.0)[inverse] \
            * scale * scale
        out["shortfall_low"][rows] = np.minimum(_quantile(post, grid, a / 2),
                                                mean)[inverse] * scale
        out["shortfall_high"][rows] = np.maximum(_quantile(post, grid, 1 - a / 2),
                                                 mean)[inverse] * scale
    return out
