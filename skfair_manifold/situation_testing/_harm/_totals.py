"""How many were harmed and how much is owed: per situation and in total, with intervals.

The number harmed among the candidates is ``H = sum_i F_i``, ``F_i`` whether
candidate ``i`` was refused because she is protected. Given the data, ``F_i``
is a coin of probability ``pn_i`` (its posterior mean), so ``E[H] = sum_i
pn_i`` and

    ``Var[H] = sum_i pn_i (1 - pn_i) + sum_{i != j} Cov(pn_i, pn_j)``.

The second term is the uncertainty of the estimates themselves, which move
with the testers' decisions. It is taken as the sampling variance of the
testers' own estimates ``(p1 - p2) / (1 - p2)`` (``v_i``, by the delta
method on the recalibrated rates, :mod:`._people`), not the posterior's:
the empirical Bayes posterior is conditional on an estimated prior and
understates it (measured: a null audit's total of 44 with a posterior
interval [30, 58]). The candidates' estimates are correlated through the
testers they share: under CBN-DD the candidates of one situation (a cell of
``q_``) have the same testers, so a situation of ``n`` candidates has
variance ``n^2 v``; under KNN-DD neighbourhoods overlap: the sum of the
candidates' estimates is, to first order, a weighted sum of their testers'
decisions in which a tester used by ``c_j`` candidates counts ``c_j`` times,
so its variance is the independent candidates' ``sum_i v_i`` times the
*design effect* ``D = sum_j c_j^2 / sum_j c_j`` (Kish). So ``Var[H] = sum_i
pn_i (1 - pn_i) + D sum_i v_i``. ``D`` is read from the testers of up to 2,000
candidates spread over the audit, corrected for the thinning of a sample
(``c`` of a sampled share ``f``: ``D = 1 + (sum c^2 - sum c) / (f sum
c)``). The interval runs from ``min(E[H], U) - z sqrt(Var[H])`` to ``E[H] +
z sqrt(Var[H])`` at the audit's confidence, within ``[0, candidates]``,
``U`` the testers' own total ``sum_i (p1_i - p2_i) / (1 - p2_i)`` without
clipping: in a null audit the posterior means, never negative, add up small
positive amounts (measured: 44 over 2,800 candidates), while the testers'
own estimates cancel about 0; the lower end takes the lesser.

An amount: the total shortfall ``sum_i shortfall_i`` with the variance of
the estimates ``D sum_i se_i^2`` (each candidate's own amount is not part of
her situation's gap).
"""

import numpy as np
from scipy import stats

from .._flags import k_of_rows, transform_rows

#: candidates whose testers give the design effect at most
DESIGN_SAMPLE = 2000

#: the name of the last row of ``report.harm``
TOTAL = "total"


def design_effect(fitted, settings, Z, candidate, self_unit):
    """``D`` of the candidates' shared testers (see the module); 1 without candidates."""
    rows = np.flatnonzero(candidate)
    if rows.shape[0] < 2:
        return 1.0
    if rows.shape[0] > DESIGN_SAMPLE:
        take = np.linspace(0, rows.shape[0] - 1, DESIGN_SAMPLE).round().astype(np.intp)
        rows = rows[np.unique(take)]
    f = rows.shape[0] / float(candidate.sum())
    k = k_of_rows(fitted, settings, Z[rows], self_unit[rows]) if settings.auto_k else None
    cells = transform_rows(fitted, settings, Z[rows], cells=True, self_unit=self_unit[rows],
                           k=k)[4]
    key = cells["cell"].astype(np.int64) * 2 + cells["side"].astype(np.int64)
    used = cells["weight"]  # each record of the cell is this candidate's tester with it
    uniq, inverse = np.unique(key, return_inverse=True)
    per_record = np.bincount(inverse, weights=used, minlength=uniq.shape[0])
    records = np.zeros(uniq.shape[0])
    records[inverse] = cells["n_records"]
    total = float(np.sum(records * per_record))
    if total <= 0:
        return 1.0
    square = float(np.sum(records * per_record ** 2))
    return max(1.0, 1.0 + (square - total) / (f * total))


def situations(fitted, Z, candidate):
    """Each candidate's situation under CBN-DD (its profile over ``q_``: an id and the
    profile's values), or None under KNN-DD (no situations: each has her own testers)."""
    method = fitted.method
    if not hasattr(method, "selector_for"):  # KNN-DD
        return None
    rows = np.flatnonzero(candidate)
    Q = method.query(Z[rows])
    profiles, inverse = np.unique(Q, axis=0, return_inverse=True)
    names = [str(fitted.columns[j]) for j in method.q]
    records = fitted.records
    values = {}
    for k, j in enumerate(method.q):
        if j in records.bin_edges:
            labels = np.asarray(records.bin_labels(j), dtype=object)
            values[names[k]] = labels[profiles[:, k].astype(np.intp)]
        else:
            values[names[k]] = records.decode(j, profiles[:, k])
    return inverse.ravel(), values


def harm_table(columns, candidate, *, continuous, design, groups, confidence):
    """``report.harm``: one row per situation (CBN-DD) and the total (a DataFrame)."""
    import pandas as pd

    rows = np.flatnonzero(candidate)
    z = stats.norm.ppf(0.5 + confidence / 2.0)
    point = columns["shortfall" if continuous else "pn"][rows]
    var = columns["sampling_var"][rows]
    own = columns["unshrunk"][rows]
    ok = np.isfinite(point) & np.isfinite(var) & np.isfinite(own)
    point, var, own = (np.where(ok, v, 0.0) for v in (point, var, own))
    parts = []
    if groups is not None:
        inverse, values = groups
        for s in range(len(next(iter(values.values()))) if values else 0):
            inside = inverse == s
            parts.append((s, inside, point[inside].sum(), own[inside].sum(),
                          _variance(point[inside], var[inside], inside.sum(), continuous)))
    total_var = _variance(point, var, design, continuous)
    if groups is not None:  # the situations are independent: their variances add
        # (no attribute to match on: one situation, every candidate's testers the same)
        total_var = sum(v for *_, v in parts) if parts else \
            _variance(point, var, point.shape[0], continuous)
    out = []
    for s, inside, value, unshrunk, v in parts + [
            (TOTAL, np.ones_like(point, bool), point.sum(), own.sum(), total_var)]:
        n = int(inside.sum())
        half = z * np.sqrt(max(v, 0.0))
        low = min(value, unshrunk) - half  # the lesser of the shrunk and the testers' own
        row = {"situation": s, "candidates": n}
        if continuous:
            row.update(total_shortfall=value, shortfall_low=max(0.0, low),
                       shortfall_high=value + half)
        else:
            row.update(expected_harmed=value, harmed_low=max(0.0, low),
                       harmed_high=min(float(n), value + half))
        out.append(row)
    table = pd.DataFrame(out)
    if groups is not None:
        _, values = groups
        for name, vals in reversed(list(values.items())):
            table.insert(1, name, list(vals) + [None])
    return table.set_index("situation")


def _variance(point, var, shared, continuous):
    """``Var[H]`` of candidates whose estimates share testers: ``shared`` is the design
    effect (KNN-DD) or the situation's size (CBN-DD: one posterior)."""
    if continuous:
        return float(shared * var.sum())
    return float(np.sum(point * (1.0 - point)) + shared * var.sum())
