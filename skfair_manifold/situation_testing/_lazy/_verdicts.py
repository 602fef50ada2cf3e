"""CBN-DD's verdicts on a lazy frame: per cell of Q, from the fitted GROUP BY; the flagged rows."""

import numpy as np

from ...utils._narwhals import schema_names, to_narwhals
from .._evidence import python_value
from .._flags import COLUMNS, rate_table
from .._selection._auto_k import auto_caliper, auto_k, rates_at
from ._fit import (
    MSG_LAZY_COLUMN,
    MSG_LAZY_NOT_FITTED_ON_FRAME,
    MSG_LAZY_Y,
    _as_pandas,
    _frame_cells,
    _shown,
)


def _verdicts(auditor, X, y):
    """The candidate cells of ``X`` with their rates and flags (pandas), and the values."""
    import pandas as pd

    fitted = getattr(auditor, "_frame_fit", None)
    if fitted is None:
        raise ValueError(MSG_LAZY_NOT_FITTED_ON_FRAME)
    if not isinstance(y, str):
        raise TypeError(MSG_LAZY_Y.format(type=type(y).__name__))
    auditor._check_params_at_use()
    frame = to_narwhals(X)
    names = schema_names(frame)
    for c in [*fitted.columns, y]:
        if c not in names:
            raise ValueError(MSG_LAZY_COLUMN.format(what="column", column=c,
                                                    columns=_shown(names)))
    values, counts = _frame_cells(fitted, X, frame, y)
    auditor._check_decisions(values[y])
    records = fitted.records
    Z = records.encode(_as_pandas(values, fitted.columns).to_numpy(dtype=object))
    ps = fitted.columns.index(auditor.protected)
    group = Z[:, ps] == auditor._protected_value_code
    positive = auditor._positive(values[y])
    candidate = group & ~positive
    idx = np.flatnonzero(candidate)
    qpos = [fitted.columns.index(c) for c in fitted.q]
    Qv = np.ascontiguousarray(Z[idx][:, qpos])
    self_unit = np.array([fitted.unit_of_key.get((Qv[i].tobytes(), True, False), -1)
                          for i in range(idx.shape[0])], dtype=np.intp)
    k = auditor.k
    if isinstance(k, str):  # "auto": each cell's K from the testers within the caliper
        k = auto_k(fitted.selector, Qv, self_unit, auto_caliper("cbn", auditor.tau),
                   n_jobs=auditor.n_jobs)
    pos, n, w2 = rates_at(fitted.selector, Qv, self_unit, k, n_jobs=auditor.n_jobs)
    out, n_eff = rate_table(pos, n, w2, alpha=auditor._alpha_test(), bound=auditor.bound)
    mask, q_value, cutoff = auditor._decide_candidates(
        out, np.ones(idx.shape[0], dtype=bool), n_eff, counts=counts[idx])

    table = pd.DataFrame({c: values[c][idx] for c in [*fitted.columns, y]})
    table["n_people"] = counts[idx]
    for j, name in enumerate(COLUMNS):
        table[name] = out[:, j]
    table["q_value"] = q_value
    table["flagged"] = mask
    table["detectable_gap"] = auditor._detectable_gaps(
        out, n_eff, n_candidates=int(counts[idx].sum()), n_flagged=int(counts[idx][mask].sum()),
        cutoff=cutoff)
    # the engine's GROUP BY returns its cells in any order (DuckDB's is parallel):
    # the table is sorted by the cell's values, the same on every engine and run
    return table.sort_values([*fitted.columns, y], kind="stable").reset_index(drop=True)


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
    return _verdicts(auditor, X, y)


def flag_frame(auditor, X, y):
    """``flag`` on a lazy frame: ``X`` in its engine with a boolean column ``flagged``."""
    import narwhals as nw

    table = _verdicts(auditor, X, y)
    keys = [*auditor._frame_fit.columns, y]
    flagged = table.loc[table["flagged"], keys]
    terms = [nw.all_horizontal(*[nw.col(c) == python_value(v) for c, v in zip(keys, row)],
                               ignore_nulls=False)
             for row in flagged.itertuples(index=False, name=None)]
    expr = nw.any_horizontal(*terms, ignore_nulls=False) if terms else nw.lit(False)
    return to_narwhals(X).with_columns(expr.alias("flagged")).to_native()
