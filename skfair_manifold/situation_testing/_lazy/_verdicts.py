"""CBN-DD's verdicts on a lazy frame: per cell of Q, from the fitted GROUP BY; the flagged rows."""

import numpy as np

from ...utils._narwhals import schema_names, to_narwhals
from .._assembly import detectable_gaps_of
from .._checks import check_decisions
from .._evidence import python_value
from .._flags import COLUMNS, decide_candidates, rate_table
from .._selection._auto_k import auto_caliper, auto_k, rates_at
from ._fit import (
    MSG_LAZY_COLUMN,
    MSG_LAZY_NOT_FITTED_ON_FRAME,
    MSG_LAZY_Y,
    _as_pandas,
    _frame_cells,
    _shown,
)


def frame_audit(auditor):
    """The fitted audit of an auditor fitted on a lazy frame, and the call's settings
    (the parameters checked as at every use); an error when it was not fitted on one."""
    fitted = getattr(auditor, "_fitted", None)
    if fitted is None or fitted.frame is None:
        raise ValueError(MSG_LAZY_NOT_FITTED_ON_FRAME)
    return fitted, auditor._call_settings()


def _verdicts(fitted, settings, X, y, *, gaps=True):
    """The candidate cells of ``X`` with their rates and flags (pandas), and the values;
    ``gaps``: with each cell's smallest detectable gap (``flag`` does not ask for it)."""
    import pandas as pd

    frame_fit = fitted.frame
    if not isinstance(y, str):
        raise TypeError(MSG_LAZY_Y.format(type=type(y).__name__))
    frame = to_narwhals(X)
    names = schema_names(frame)
    for c in [*frame_fit.columns, y]:
        if c not in names:
            raise ValueError(MSG_LAZY_COLUMN.format(what="column", column=c,
                                                    columns=_shown(names)))
    values, counts = _frame_cells(frame_fit, X, frame, y)
    check_decisions(fitted, values[y])
    Z = fitted.encode(_as_pandas(values, frame_fit.columns).to_numpy(dtype=object))
    candidate = fitted.candidates(Z, values[y])
    idx = np.flatnonzero(candidate)
    qpos = [frame_fit.columns.index(c) for c in frame_fit.q]
    Qv = np.ascontiguousarray(Z[idx][:, qpos])
    self_unit = np.array([frame_fit.unit_of_key.get((Qv[i].tobytes(), True, False), -1)
                          for i in range(idx.shape[0])], dtype=np.intp)
    k = settings.k
    if isinstance(k, str):  # "auto": each cell's K from the testers within the caliper
        k = auto_k(frame_fit.selector, Qv, self_unit, auto_caliper("cbn", settings.tau),
                   n_jobs=settings.n_jobs)
    pos, n, w2 = rates_at(frame_fit.selector, Qv, self_unit, k, n_jobs=settings.n_jobs)
    out, n_eff = rate_table(pos, n, w2, alpha=settings.alpha_level, bound=settings.bound)
    mask, q_value, cutoff = decide_candidates(
        settings, out, np.ones(idx.shape[0], dtype=bool), n_eff, counts=counts[idx])

    table = pd.DataFrame({c: values[c][idx] for c in [*frame_fit.columns, y]})
    table["n_people"] = counts[idx]
    for j, name in enumerate(COLUMNS):
        table[name] = out[:, j]
    table["q_value"] = q_value
    table["flagged"] = mask
    if gaps:
        table["detectable_gap"] = detectable_gaps_of(
            settings, out, n_eff, n_candidates=int(counts[idx].sum()),
            n_flagged=int(counts[idx][mask].sum()), cutoff=cutoff)
    # the engine's GROUP BY returns its cells in any order (DuckDB's is parallel):
    # the table is sorted by the cell's values, the same on every engine and run
    return table.sort_values([*frame_fit.columns, y], kind="stable").reset_index(drop=True)


def cell_verdicts(auditor, X, y):
    """The audit of a lazy frame cell by cell: one row per cell of candidates.

    A candidate is a person of the protected group with the negative
    decision; the people of one cell (the same values of Q, of the
    protected column and of the decision) have the same testers, rates and
    flag. The table is small (at most one row per profile of Q and negative
    decision).

    Parameters
    ----------
    auditor : SituationTestingAuditor
        Fitted on a lazy frame (``method="cbn"``).
    X : lazy frame
        The rows to audit (for the flags of the in-memory audit: the fitted
        frame, or rows of it).
    y : str
        Its decision column.

    Returns
    -------
    table : pandas.DataFrame
        The cell's values, ``n_people``, ``p1``, ``p2``, ``diff``,
        ``diff_lower``, ``diff_upper``, ``p_value``, ``q_value``,
        ``flagged`` and ``detectable_gap`` (the smallest ``p1 - p2`` the
        cell's testers would have flagged with probability 0.8, see
        ``_power``), one row per candidate cell, sorted by its values.

    Examples
    --------
    >>> import duckdb
    >>> from skfair_manifold.datasets import make_planted_bias
    >>> from skfair_manifold.situation_testing import SituationTestingAuditor, cell_verdicts
    >>> X, y, _, _ = make_planted_bias(3000, random_state=0)
    >>> X = X[["sex", "region", "edu"]].assign(approved=y)
    >>> relation = duckdb.from_df(X)
    >>> auditor = SituationTestingAuditor(protected="sex", protected_value="female",
    ...                                   graph=["sex", "region", "edu"], k=30)
    >>> cells = cell_verdicts(auditor.fit(relation, "approved"), relation, "approved")
    >>> int(cells["n_people"].sum()) == int(((X.sex == "female") & (y == 0)).sum())
    True
    >>> sorted(set(cells.loc[cells.flagged, "region"]))
    ['east']
    """
    fitted, settings = frame_audit(auditor)
    return _verdicts(fitted, settings, X, y)


def flag_frame(fitted, settings, X, y):
    """``flag`` on a lazy frame: ``X`` in its engine with a boolean column ``flagged``."""
    import narwhals as nw

    table = _verdicts(fitted, settings, X, y, gaps=False)  # the flags only
    keys = [*fitted.frame.columns, y]
    flagged = table.loc[table["flagged"], keys]
    terms = [nw.all_horizontal(*[nw.col(c) == python_value(v) for c, v in zip(keys, row)],
                               ignore_nulls=False)
             for row in flagged.itertuples(index=False, name=None)]
    expr = nw.any_horizontal(*terms, ignore_nulls=False) if terms else nw.lit(False)
    return to_narwhals(X).with_columns(expr.alias("flagged")).to_native()
