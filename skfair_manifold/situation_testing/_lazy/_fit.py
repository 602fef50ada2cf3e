"""CBN-DD where the data lives: fit and flag on lazy and distributed frames by one GROUP BY.

CBN-DD's testers are counts over the cells of ``Q = Par(E) \\ {C}``: every
number of Algorithm 1 (the subgroups' sizes and positives, the smoothed
rates of Lemma 3, the distances of Eq. 5, the one-to-one pairing) is read
from the table of counts per (profile of Q, protected value, decision). On a
lazy frame (DuckDB relation, polars ``LazyFrame``, Dask or PySpark
DataFrame, anything narwhals takes lazily) the auditor therefore runs one
``GROUP BY`` over those columns in the frame's engine, collects the small
table and hands it, with a count per row, to the in-memory selector
(:class:`~._cbn.CBNSelector` with ``count``) and flag rule
(``_decide_candidates`` with ``counts``: Benjamini-Hochberg, -Yekutieli and
the discrete step-up on the expanded tests).

Why the flags are the in-memory ones. A fitted row auditing itself leaves
one copy of its record out of its own subgroup side (the auditor's Notes);
for a candidate (protected, negative decision) that copy is a record of its
own cell, so its rates depend only on its cell. Every candidate of a cell
has the same rates and p-value, and the q-values of the expanded tests are
computed from the cells with their counts, bit for bit. ``flag`` on a lazy
frame takes each row to be a fitted record (the audit of the fitted
decisions, which the frame path is for); flags are then equal to the
in-memory ``flag(X_fit, y_fit)``.

One scan for an audit. ``fit`` keeps the cells it counted with a weak
reference to the frame object it was given; ``flag`` and
:func:`._lazy_verdicts.cell_verdicts` on that very object (and the same
decision column) read those cells instead of counting again, so that fitting
and flagging a frame scans it once. Another object, even over the same data,
is counted again; a frame whose data changed since ``fit`` (a DuckDB table
updated under the same relation) needs a new ``fit`` anyway, since the
testers' pool is the fitted data.

What a user gets back. ``flag`` returns the frame, in its own engine and still
lazy, with a boolean column ``flagged`` (a row is flagged exactly when its
cell is): nothing is read until the user filters, counts or writes it.
:func:`._lazy_verdicts.cell_verdicts` returns the per-cell table (one row per
candidate cell: its values, its number of people, the rates, p- and q-value
and the flag), small and in pandas.

Limits. Only ``method="cbn"``. The graph is given (``graph=``), or the
decision's parents are learned by the in-memory structure search on a
sample of ``structure_sample`` rows (:data:`STRUCTURE_SAMPLE`, see
:func:`fit_frame`). Q's columns must be nominal or ordinal (values
matched as they are): a continuous (interval) column is refused, since its
supervised bins need every value; bin it in the engine and declare it
ordinal. ``transform``, ``report`` and ``pairwise`` need the rows and refuse
an auditor fitted on a frame.
"""

import warnings
import weakref

import numpy as np

from ...utils._narwhals import collect, schema_names, to_narwhals, to_numpy
from .._checks import check_k, fit_params_of, learn_decisions, protected_code
from .._constants import MSG_LAZY_ROWS, MSG_NO_ARC, MSG_SINGLE_GROUP  # noqa: F401
from .._fitted import FittedAudit
from .._flags import rule_text
from .._records import IDENTIFIER_SHARE, KINDS, Records
from .._selection._cbn import CBNSelector
from .._selection._methods import MSG_TOO_MANY_LEVELS
from .._selection._structure import graph_to_parents

__all__ = ["STRUCTURE_SAMPLE", "fit_frame"]

#: rows of the sample the structure search runs on when no graph is given (see fit_frame)
STRUCTURE_SAMPLE = 200_000

MSG_LAZY_Y = (
    "with a lazy frame X, y must be the name of its decision column (a str); got {type}."
)

MSG_LAZY_EMPTY = (
    "X (a lazy frame) has no rows: the audit's testers are drawn from the fitted records, "
    "and there are none. Check the frame's filter or source (a query that selects nothing, "
    "an empty file)."
)

MSG_LAZY_METHOD = (
    "method={method!r} needs the rows in memory; on a lazy frame ({type}) only method='cbn' "
    "runs (its testers are counts per cell of Q, one GROUP BY in the frame's engine). "
    "Collect the rows (or a sample) into pandas, or use method='cbn'."
)

MSG_LAZY_PROTECTED = (
    "with a lazy frame X, protected must be the name of one of its columns; got {value!r}. "
    "Its columns are: {columns}."
)

MSG_LAZY_COLUMN = "{what} {column!r} is not a column of X. Its columns are: {columns}."

MSG_LAZY_INTERVAL = (
    "column {column!r} of Q is continuous (interval): CBN-DD bins it with cuts that need "
    "every value, which a lazy frame does not give. Bin it in the engine (for instance "
    "floor(income / 10000) or a CASE expression) and declare the binned column ordinal."
)

MSG_LAZY_MISSING = (
    "column {column!r} has missing values (null or NaN) in {count} row(s); situation testing "
    "needs every value: drop or fill those rows in the engine first."
)


MSG_LAZY_NOT_FITTED_ON_FRAME = (
    "this auditor was fitted on rows in memory; flag a lazy frame with an auditor fitted on "
    "the frame itself (fit(frame, decision_column))."
)

#: the count column of the cell query (chosen not to clash with the user's)
_COUNT = "__skfm_st_count"


class FrameFit:
    """What ``fit`` on a frame keeps besides the records: the columns, the selector, and
    the fitted frame's cells with a weak reference to that frame (see
    :func:`_frame_cells`). It is the fitted audit's ``frame``."""

    def __init__(self, *, columns, q, selector, unit_of_key, source, decision, cells):
        self.columns, self.q = columns, q
        self.selector, self.unit_of_key = selector, unit_of_key
        self.source, self.decision, self.cells = source, decision, cells

    def __getstate__(self):  # a weak reference does not pickle: a copy counts again
        return {**self.__dict__, "source": None}


def _weak(X):
    try:
        return weakref.ref(X)
    except TypeError:
        return None


def _frame_cells(fitted, X, frame, y):
    """The cells of ``X``: those of ``fit`` when ``X`` is the very frame object fitted
    (one GROUP BY for the whole audit), else counted again."""
    if fitted.source is not None and fitted.source() is X and y == fitted.decision:
        return fitted.cells
    return _cells(frame, fitted.columns, y)


def _cells(frame, columns, decision):
    """The GROUP BY (columns, decision) with a count, collected; values as numpy arrays."""
    import narwhals as nw

    keys = [*columns, decision]
    table = collect(frame.select(*keys).group_by(*keys).agg(nw.len().alias(_COUNT)))
    values = {}
    for name in keys:
        v = to_numpy(table[name])
        missing = np.array([x is None or (isinstance(x, float) and x != x)
                            for x in v.tolist()], dtype=bool) if v.dtype.kind in "Of" \
            else np.zeros(v.shape[0], dtype=bool)
        count = np.asarray(table[_COUNT].to_numpy(), dtype=np.int64)
        if missing.any():
            raise ValueError(MSG_LAZY_MISSING.format(column=name,
                                                     count=int(count[missing].sum())))
        values[name] = v
    return values, np.asarray(table[_COUNT].to_numpy(), dtype=np.int64)


def _as_pandas(values, columns):
    import pandas as pd

    return pd.DataFrame({c: values[c] for c in columns})


def _shown(columns):
    return ", ".join(repr(c) for c in columns[:20]) + (", ..." if len(columns) > 20 else "")


def fit_frame(settings, X, y, *, fit_sample):
    """``fit`` on a lazy frame ``X`` with decision column ``y`` (see the module): the
    :class:`~.._fitted.FittedAudit`, whose ``attributes`` are the estimator's fitted
    attributes (``n_features_in_`` and ``feature_names_in_`` among them).

    With ``graph=None`` the decision's parents are learned by the in-memory
    structure search (``fit_sample(X, y)``: an estimator with the same
    parameters fitted on rows in memory) on a random sample of at most
    :data:`STRUCTURE_SAMPLE` rows drawn by the engine (the whole frame when
    smaller; ``structure_info_["sample_rows"]``); the counts of the selector
    are then those of the whole frame. The size: the search must find a
    parent whose effect on the decision rate is at the weak-parent threshold,
    0.05; a test of a 0.05 difference of rates near 0.5 at level 0.01 with
    power 0.9 needs about ``2 x 0.25 x (2.58 + 1.28)**2 / 0.05**2``, some
    3,000 rows per level, 15,000 for an attribute of five levels, and the
    conditioning sets (up to ``max_depth = 3`` other parents) split them
    further, with Cochran's rule asking five expected rows per cell of each
    stratum. 200,000 rows cover that for a few attributes of about five
    levels, and the search on them takes about a second. Measured
    (``benchmarks/bench_audit_lazy.py``, banded planted-bias records): Q
    learned on 10 of 10 samples of 50,000 rows and on 8 of 10 of 200,000
    rows equals the search's on all 1e6 rows; the other two added the
    irrelevant ``colour`` (a false inclusion at the tests' level), none
    missed a parent.
    """
    if not isinstance(y, str):
        raise TypeError(MSG_LAZY_Y.format(type=type(y).__name__))
    if settings.method != "cbn":
        raise ValueError(MSG_LAZY_METHOD.format(method=settings.method,
                                                type=type(X).__name__))
    frame = to_narwhals(X)
    names = schema_names(frame)
    if y not in names:
        raise ValueError(MSG_LAZY_COLUMN.format(what="the decision column", column=y,
                                                columns=_shown(names)))
    features = [c for c in names if c != y]
    protected = settings.protected
    if not isinstance(protected, str) or protected not in features:
        raise ValueError(MSG_LAZY_PROTECTED.format(value=protected, columns=_shown(features)))
    structure_info = {}
    graph = settings.graph
    if graph is None:
        graph, structure_info = _learned_graph(settings, frame, y, fit_sample)
    parents = graph_to_parents(graph, features, y, protected)
    par = parents[y]
    q = [c for c in features if c in par and c != protected]
    columns = [c for c in features if c in q or c == protected]
    values, counts = _cells(frame, columns, y)
    n_rows = int(counts.sum())
    if n_rows == 0:
        raise ValueError(MSG_LAZY_EMPTY)

    # the cells' columns as a small pandas frame, encoded as the in-memory auditor encodes
    cells = _as_pandas(values, columns)
    declared = {kind: [c for c in (getattr(settings, kind) or ()) if c in columns]
                for kind in KINDS}
    ps = columns.index(protected)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # identifier-like: judged on the rows below
        records = Records(cells, cells.to_numpy(dtype=object), columns, ps, declared)
    for j, c in enumerate(columns):
        if j == ps:
            continue
        if records.interval[j]:
            raise ValueError(MSG_LAZY_INTERVAL.format(column=c))
        distinct = np.unique(records.Z[:, j]).shape[0]
        if n_rows >= 20 and distinct >= IDENTIFIER_SHARE * n_rows:
            raise ValueError(MSG_TOO_MANY_LEVELS.format(
                column=c, kind=records.kinds[j], distinct=distinct, n=n_rows))
    Z = records.Z
    code = protected_code(settings, records, Z, ps)
    classes, positive_label = learn_decisions(settings, values[y])
    positive = np.asarray(values[y]) == positive_label
    group = Z[:, ps] == code
    sizes = (int(counts[~group].sum()), int(counts[group].sum()))
    if sizes[1] == 0 or sizes[0] == 0:
        raise ValueError(MSG_SINGLE_GROUP.format(
            which="outside the protected group" if sizes[1] == 0 else "in the protected group"))
    check_k(settings, sizes)
    qpos = [columns.index(c) for c in q]
    Qv = Z[:, qpos]
    ranges = Qv.max(axis=0) - Qv.min(axis=0) if Qv.shape[0] else np.zeros(len(q))
    selector = CBNSelector(Qv, np.arange(Z.shape[0]), group, positive, records.nominal[qpos],
                           ranges, settings.smoothing, q,
                           causal_effect=settings.causal_effect, count=counts)
    unit_of_key = {}
    for i in range(Z.shape[0]):
        unit_of_key.setdefault((Qv[i].tobytes(), bool(group[i]), bool(positive[i])), i)
    structure_info = dict(structure_info)
    structure_info["protected_arc"] = protected in par
    attributes = {
        "n_features_in_": len(features),
        "feature_names_in_": np.asarray(features, dtype=object),
        "decision_name_": y, "protected_index_": features.index(protected),
        "positive_label_": positive_label, "classes_": classes, "group_sizes_": sizes,
        "attribute_kinds_": {c: records.kinds[j] for j, c in enumerate(columns)},
        "bin_edges_": {}, "identifier_columns_": [], "graph_": parents, "q_": list(q),
        "structure_info_": structure_info, "flag_rule_": rule_text(settings),
    }
    fitted = FittedAudit(
        records=records, columns=columns, protected_column=ps, protected_code=code,
        continuous=False, positive_label=positive_label, classes=classes,
        group_sizes=sizes, fit_params=fit_params_of(settings), attributes=attributes,
        frame=FrameFit(columns=columns, q=q, selector=selector, unit_of_key=unit_of_key,
                       source=_weak(X), decision=y, cells=(values, counts)))
    if protected not in par:
        warnings.warn(MSG_NO_ARC.format(protected=protected, decision=y), UserWarning,
                      stacklevel=4)
    return fitted


def _learned_graph(settings, frame, y, fit_sample):
    """The decision's parents learned in memory on a sample of the frame (see fit_frame),
    and the structure search's record."""
    sample = _sample(frame, STRUCTURE_SAMPLE, settings.random_state)
    if not len(sample):
        raise ValueError(MSG_LAZY_EMPTY)
    X = sample.drop(columns=[y])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fit on the frame warns itself
        inner = fit_sample(X, sample[y].rename(y))
    info = {**inner.structure_info_, "sample_rows": len(sample)}
    protected = (settings.protected,) if inner.structure_info_.get("protected_arc") else ()
    # Q as matched in memory: the weak parents left out
    return {y: (*protected, *inner.q_)}, info


def _sample(frame, n, random_state):
    """At most ``n`` rows of the frame in random order, as pandas (the engine draws them)."""
    import narwhals as nw
    from sklearn.utils import check_random_state

    seed = int(check_random_state(random_state).randint(0, 2 ** 31 - 1))
    total = int(collect(frame.select(nw.len().alias(_COUNT)))[_COUNT].to_numpy()[0])
    native = frame.to_native()
    module = type(native).__module__
    fraction = min(1.0, 1.2 * n / max(total, 1))
    if module.startswith("duckdb"):
        picked = native.order("random()").limit(n) if fraction >= 1.0 else \
            native.query("t", f"select * from t using sample {100 * fraction:.6f} percent "
                              f"(bernoulli, {seed})")
        out = picked.df()
    elif module.startswith("polars"):
        out = native.collect().sample(min(n, total), seed=seed).to_pandas()
    elif module.startswith("dask"):
        out = native.sample(frac=fraction, random_state=seed).compute()
    elif module.startswith("pyspark"):
        out = native.sample(fraction=fraction, seed=seed).toPandas()
    else:
        out = frame.head(n).collect().to_pandas()
    return out.head(n).reset_index(drop=True)
