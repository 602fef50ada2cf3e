"""Each candidate's harm: the probability of necessity of a refusal, or the shortfall of an amount.

:func:`person_harm` reads the rates ``flag`` computed (candidates) and, for
the recalibration (:mod:`._recalibration`), those of up to 20,000 rows of
each group (computed once and kept, as every rate is), then asks
:mod:`._empirical_bayes` for each candidate's posterior.
"""

import numpy as np

from .._flags import rates
from ._empirical_bayes import amount_harm, binary_harm
from ._recalibration import (
    calibration_rows,
    linear_calibration,
    logistic_calibration,
    recalibrated_rates,
)

#: what a yes/no audit's harm holds per row, and an amount's
BINARY_COLUMNS = ("pn", "pn_low", "pn_high")
AMOUNT_COLUMNS = ("shortfall", "shortfall_low", "shortfall_high")

#: what the estimates assume, said on every page that shows them
ASSUMPTIONS = (
    "These estimates assume that no unmeasured factor moves both the protected attribute "
    "and the decision once the matched attributes are equal (exogeneity); matching on "
    "attributes the protected one affects (mediators) makes them a direct effect. The "
    "probability pn is the point under monotonicity (nobody is favoured for being "
    "protected); pn_high is the upper end without it."
)


def harm_confidence(settings):
    """The coverage of the harm's intervals: the audit's, ``1 - alpha_test`` (each end a
    one-sided bound at ``alpha_test / 2``)."""
    return 1.0 - settings.alpha_level


def person_harm(fitted, settings, Z, y, candidate, out, n_eff, self_unit):
    """Per row (NaN outside the candidates) the harm columns, ``unshrunk`` (the testers'
    own estimate of the person's harm, not clipped at 0) and ``sampling_var`` (its sampling
    variance): the totals' intervals read both; with the calibration's parameters:
    ``(columns, info)``. An amount's columns are in units of ``info["unit"]`` (a power of
    two near the largest amount, so that their squares stay inside float64)."""
    protected = np.asarray(fitted.group(Z), dtype=bool)
    # the calibration reads an even spread of each group's rows, whatever their decision
    # (adding the candidates to it would over-represent the refused)
    fit_u, fit_p = calibration_rows(~protected), calibration_rows(protected)
    rows = np.union1d(np.union1d(fit_u, fit_p), np.flatnonzero(candidate))
    all_out, _, all_n = rates(fitted, settings, Z, self_unit=self_unit, rows=rows)
    y = np.asarray(y, dtype=np.float64) if settings.continuous else \
        np.asarray(fitted.positive(y), dtype=np.float64)
    fit_u = fit_u[np.isfinite(all_out[fit_u, 0]) & (all_n[fit_u, 0] > 0)]
    fit_p = fit_p[np.isfinite(all_out[fit_p, 1]) & (all_n[fit_p, 1] > 0)]
    cand = np.flatnonzero(candidate)
    n = Z.shape[0]
    # the calibration reads each row's own side with her counted in (see _with_self)
    own_u = _with_self(all_out[fit_u, 0], all_n[fit_u, 0], y[fit_u])
    own_p = _with_self(all_out[fit_p, 1], all_n[fit_p, 1], y[fit_p])
    if settings.continuous:
        # one line for both sides: two lines fitted apart would add the difference of their
        # intercepts and slopes to every person's gap (measured: a null wage audit of 8,000
        # rows owed 2.3 million), while the neighbourhoods' pull to the centre is the same
        params = (linear_calibration(np.concatenate([own_u, own_p]),
                                     np.concatenate([y[fit_u], y[fit_p]])),)
        slope = params[0][1]
        unit = _unit(y)
        gap = slope * (out[cand, 0] / unit - out[cand, 1] / unit)
        se = abs(slope) * (out[cand, 6] / unit)
        found = amount_harm(gap, se, confidence=harm_confidence(settings))
        found["sampling_var"] = se ** 2
        found["unshrunk"] = gap
        names = AMOUNT_COLUMNS + ("sampling_var", "unshrunk")
    else:
        params = (logistic_calibration(own_u, all_n[fit_u, 0] + 1.0, y[fit_u]),
                  logistic_calibration(own_p, all_n[fit_p, 1] + 1.0, y[fit_p]))
        r1, m1 = recalibrated_rates(out[cand, 0], n_eff[cand, 0], params[0])
        r2, m2 = recalibrated_rates(out[cand, 1], n_eff[cand, 1], params[1])
        found = binary_harm(r1 * m1, m1, r2 * m2, m2, confidence=harm_confidence(settings))
        # the sampling variance of the testers' own estimate (p1 - p2) / (1 - p2)
        found["sampling_var"] = (r1 * (1 - r1) / m1 + r2 * (1 - r2) / m2) / (1 - r2) ** 2
        found["unshrunk"] = (r1 - r2) / (1 - r2)
        # the interval holds her own testers' sampling uncertainty too: its lower end is at
        # most their one-sided bound of (p1 - p2) / (1 - p2) at the audit's level (the prior,
        # fitted on the same audit, may put an atom on a few extreme situations)
        with np.errstate(divide="ignore", invalid="ignore"):
            own_low = np.maximum(out[cand, 3], 0.0) / (1.0 - out[cand, 1])
        own_low = np.where(np.isfinite(own_low), own_low, 0.0)
        found["pn_low"] = np.fmin(found["pn_low"], own_low)
        names = BINARY_COLUMNS + ("sampling_var", "unshrunk")
    columns = {}
    for name in names:
        column = np.full(n, np.nan)
        column[cand] = found[name]
        columns[name] = column
    info = {"calibration": [tuple(float(f"{v:.6g}") for v in p) for p in params],
            "calibration_rows": [int(fit_u.shape[0]), int(fit_p.shape[0])],
            "unit": unit if settings.continuous else 1.0}
    return columns, info


def _with_self(rate, n, own):
    """The rate (or mean) of a row's own side with her own decision counted as one more
    tester: the rate of her whole situation.

    Her testers leave her out, so read against her own decision a rate that leaves her
    out is lower exactly when she was accepted (by about ``1 / n``). Where many rows
    share one situation (a graph without parents: one cell) that alone separates the
    accepted from the refused and the fitted map decreases (on random decisions a slope
    of -17,786, and about half of the refused 'harmed'). Counted in, the rows of one
    exchangeable situation share one rate, and the chance that one of them was accepted
    given it is that rate: the identity.
    """
    return (rate * n + own) / (n + 1.0)


def _unit(y):
    """A power of two near the largest finite amount (1 when there is none)."""
    finite = np.abs(y[np.isfinite(y)])
    top = float(finite.max()) if finite.shape[0] else 0.0
    return 2.0 ** np.frexp(top)[1] if top > 0 else 1.0
