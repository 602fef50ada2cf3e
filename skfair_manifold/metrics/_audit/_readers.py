"""The bias audit's inputs read into tables of counts: rows in memory, a frame, a counts table.

Rows in memory are counted with numpy (:func:`._cells.entries_from_rows`); a
frame by one GROUP BY of the sensitive columns and the selected indicator in
its own engine (a score's median first, by the engine's exact median); a
counts table is read characteristic by characteristic. Each gives the
:class:`._cells.Entries` the bounds read.
"""

import numpy as np

from ...utils._narwhals import collect, schema_names, to_narwhals, to_numpy
from ...utils._validation import did_you_mean, sensitive_columns
from ._cells import (
    INTERSECTIONAL,
    NOT_SELECTED,
    SELECTED,
    UNDECIDED,
    Entries,
    characteristic,
    entries_from_rows,
)

MSG_DECISION_NOT_BINARY = (
    "y_pred holds {values}: a decision is 0/1 (or True/False); for labels such as 'top', "
    "'middle', 'low' pass tiers, the labels that count as selected, e.g. tiers=[['top'], "
    "['top', 'middle']]."
)
MSG_DECISION_MISSING = (
    "y_pred has {count} missing value(s): every assessed person needs a decision (drop "
    "those rows, or count them as not selected)."
)
MSG_SCORE_BAD = (
    "y_score must hold finite numbers for every row; {problem}."
)
MSG_TIER_LABEL = "tiers names {label!r}, which y_pred never holds; its labels are {labels}."
MSG_COUNTS_COLUMNS = (
    "counts needs the columns 'n' and 'n_selected' beside one column per attribute; "
    "missing {missing}. Its columns are {columns}."
)
MSG_COUNTS_ROW = (
    "counts row {row}: {problem}."
)
MSG_LENGTH = "{name} has {got} rows but y_pred/y_score has {expected}."
MSG_DATA_NAMES = (
    "with data= given, {name} must be a column name of data (a str); got {type}."
)
MSG_DATA_COLUMN = "{name} column {column!r} is not a column of data.{hint} Its columns are {columns}."

#: the helper columns of the frame's GROUP BY (chosen not to clash with the user's)
_SEL, _COUNT, _TIES = "__skfm_selected", "__skfm_count", "__skfm_ties"


def unknown_mask(values, unknown):
    """Where a column (object array) is unknown: missing, or the unknown label."""
    missing = np.fromiter(
        (v is None or (isinstance(v, float) and v != v)
         or type(v).__name__ in ("NAType", "NaTType") for v in values.tolist()),
        dtype=bool, count=values.shape[0])
    if unknown is not None:
        missing |= np.array([v == unknown if not m else False
                             for v, m in zip(values.tolist(), missing)], dtype=bool)
    return missing


def _as_objects(column):
    """A column (numpy, pandas Series) as an object array of Python values."""
    if hasattr(column, "to_numpy") and not isinstance(column, np.ndarray):
        column = column.to_numpy(dtype=object)
    values = np.asarray(column, dtype=object)
    return np.array([v.item() if isinstance(v, np.generic) else v for v in values.tolist()],
                    dtype=object)


def _selected_rows(y_pred, y_score, tiers, n=None):
    """The selected indicator(s) of rows: ``[(tier, bool array)]`` and the options."""
    if y_score is not None:
        score = np.asarray(y_score, dtype=object)
        try:
            values = score.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(MSG_SCORE_BAD.format(problem="it holds values that are not "
                                                          "numbers")) from None
        if values.ndim != 1:
            raise ValueError(MSG_SCORE_BAD.format(problem=f"it has shape {values.shape}"))
        if not np.isfinite(values).all():
            raise ValueError(MSG_SCORE_BAD.format(
                problem=f"{int((~np.isfinite(values)).sum())} value(s) are missing or "
                        f"infinite"))
        median = float(np.median(values))
        return [(None, values > median)], {
            "source": "scores", "what": "scoring rate", "rate_name": "scoring rate",
            "median": median, "median_method": "exact",
            "ties_at_median": int((values == median).sum())}
    labels = _as_objects(y_pred)
    missing = unknown_mask(labels, None)
    if missing.any():
        raise ValueError(MSG_DECISION_MISSING.format(count=int(missing.sum())))
    extra = {"source": "decisions", "what": "selection rate", "rate_name": "selection rate",
             "median": None, "ties_at_median": None}
    if tiers is None:
        distinct = set(labels.tolist())
        if not distinct <= {0, 1, True, False}:
            shown = sorted(map(repr, distinct))[:8]
            raise ValueError(MSG_DECISION_NOT_BINARY.format(values=", ".join(shown)))
        return [(None, np.array([bool(v) for v in labels.tolist()]))], extra
    present = set(labels.tolist())
    out = []
    for tier in tiers:
        for label in tier:
            if label not in present:
                raise ValueError(MSG_TIER_LABEL.format(label=label,
                                                       labels=sorted(map(str, present))))
        chosen = set(tier)
        out.append((" | ".join(map(str, tier)),
                    np.array([v in chosen for v in labels.tolist()])))
    return out, extra


def row_entries(y_pred, y_score, sensitive_features, data, unknown, tiers):
    """The joint table(s) of rows in memory, one per tier."""
    source = y_score if y_score is not None else y_pred
    n = len(source)
    A = sensitive_features
    if isinstance(A, dict):
        names, columns = list(A), [A[k] for k in A]
        for name, col in zip(names, columns):
            if len(col) != n:
                raise ValueError(MSG_LENGTH.format(name=f"sensitive feature {name!r}",
                                                   got=len(col), expected=n))
    else:
        names, columns = sensitive_columns(A, n)
    names = [str(a) if not isinstance(a, str) else a for a in names]
    values = [_as_objects(c) for c in columns]
    masks = [unknown_mask(v, unknown) for v in values]
    selections, extra = _selected_rows(y_pred, y_score, tiers)
    return [(tier, entries_from_rows(values, masks, sel, attributes=names))
            for tier, sel in selections], extra


def frame_entries(y_pred, y_score, sensitive_features, data, unknown, tiers):
    """The joint table(s) of a frame, by one GROUP BY in its engine (per tier)."""
    import narwhals as nw

    frame = to_narwhals(data)
    present = schema_names(frame)
    sens = [sensitive_features] if isinstance(sensitive_features, str) \
        else list(sensitive_features)
    target = y_score if y_score is not None else y_pred
    wanted = [("sensitive_features", s) for s in sens] + [
        ("y_score" if y_score is not None else "y_pred", target)]
    for name, col in wanted:
        if not isinstance(col, str):
            raise TypeError(MSG_DATA_NAMES.format(name=name, type=type(col).__name__))
        if col not in present:
            shown = ", ".join(repr(c) for c in present[:20])
            raise ValueError(MSG_DATA_COLUMN.format(name=name, column=col,
                                                    hint=did_you_mean(col, present),
                                                    columns=shown))
    extra = {"source": "decisions", "what": "selection rate", "rate_name": "selection rate",
             "median": None, "ties_at_median": None}
    if y_score is not None:
        return _frame_scores(frame, sens, target, unknown, extra)
    # one GROUP BY of the sensitive columns and the decision itself: every tier, and the
    # check of the decisions, read from that small table
    cells = collect(frame.select(*[nw.col(c) for c in sens], nw.col(target))
                    .group_by(*sens, target).agg(nw.len().alias(_COUNT)))
    count = np.asarray(to_numpy(cells[_COUNT]), dtype=np.float64)
    labels = _as_objects(to_numpy(cells[target]))
    missing = unknown_mask(labels, None)
    if missing.any():
        raise ValueError(MSG_DECISION_MISSING.format(count=int(count[missing].sum())))
    selections, _ = _selected_rows(labels, None, tiers)
    values = _unknowns(cells, sens, unknown)
    out = [(tier, Entries(attributes=list(sens), values=[v.copy() for v in values],
                          decision=np.where(sel, SELECTED, NOT_SELECTED).astype(np.int8),
                          count=count)) for tier, sel in selections]
    return [(tier, e.project(list(range(len(sens))))) for tier, e in out], extra


def _unknowns(cells, sens, unknown):
    """The sensitive columns of a collected table, None where unknown."""
    values = [_as_objects(to_numpy(cells[c])) for c in sens]
    for v in values:
        v[unknown_mask(v, unknown)] = None
    return values


def score_median(frame, column):
    """The score column as a float expression and its exact median in the engine (Dask's
    own quantile there); a missing score or a median that is not a number refused."""
    import narwhals as nw

    score = nw.col(column).cast(nw.Float64())
    stats = collect(frame.select(score.median().alias("m"), score.null_count().alias("nulls")))
    median = float(to_numpy(stats["m"])[0])
    nulls = int(to_numpy(stats["nulls"])[0])
    if nulls or not np.isfinite(median):
        raise ValueError(MSG_SCORE_BAD.format(
            problem=f"{nulls} value(s) are missing" if nulls else "its median is not a number"))
    return score, median


def _frame_scores(frame, sens, target, unknown, extra):
    """A score's table: the exact median in the engine, then one GROUP BY of the sensitive
    columns and whether each score is above it (with the ties at it)."""
    import narwhals as nw

    score, median = score_median(frame, target)
    cells = collect(frame.select(*[nw.col(c) for c in sens], (score > median).alias(_SEL),
                                 (score == median).cast(nw.Int64()).alias(_TIES))
                    .group_by(*sens, _SEL).agg(nw.len().alias(_COUNT),
                                               nw.col(_TIES).sum().alias(_TIES)))
    selected = np.asarray(to_numpy(cells[_SEL]), dtype=bool)
    native = type(frame.to_native()).__module__.split(".")[0]
    extra = dict(extra, source="scores", what="scoring rate", rate_name="scoring rate",
                 median=median, median_method=("approximate (Dask's own quantile)"
                                               if native.startswith("dask") else "exact"),
                 ties_at_median=int(np.sum(np.asarray(to_numpy(cells[_TIES]), dtype=float))))
    entries = Entries(attributes=list(sens), values=_unknowns(cells, sens, unknown),
                      decision=np.where(selected, SELECTED, NOT_SELECTED).astype(np.int8),
                      count=np.asarray(to_numpy(cells[_COUNT]), dtype=np.float64))
    return [(None, entries.project(list(range(len(sens)))))], extra


def counts_characteristics(counts, sensitive_features, unknown, intersect):
    """The characteristics of a table of counts (see ``counts``)."""
    frame = collect(to_narwhals(counts))
    present = list(frame.columns)
    if sensitive_features is None:
        attributes = [c for c in present if c not in ("n", "n_selected")]
    else:
        attributes = [sensitive_features] if isinstance(sensitive_features, str) \
            else list(sensitive_features)
    missing = [c for c in ["n", "n_selected", *attributes] if c not in present]
    if missing or not attributes:
        raise ValueError(MSG_COUNTS_COLUMNS.format(missing=missing or "an attribute column",
                                                   columns=present))
    values = [_as_objects(to_numpy(frame[a])) for a in attributes]
    split = [~unknown_mask(v, None) for v in values]   # None: not split by it
    is_unknown = [np.array([x == unknown if unknown is not None else False
                            for x in v.tolist()], dtype=bool) for v in values]
    n = np.asarray(to_numpy(frame["n"]), dtype=np.float64)
    sel_raw = _as_objects(to_numpy(frame["n_selected"]))
    sel_missing = unknown_mask(sel_raw, None)
    sel = np.array([np.nan if m else float(v) for v, m in zip(sel_raw.tolist(),
                                                               sel_missing)])
    for row in range(n.shape[0]):
        problem = None
        if not np.isfinite(n[row]) or n[row] < 0:
            problem = f"n must be a finite count, got {n[row]!r}"
        elif sel_missing[row] and not any(u[row] for u in is_unknown):
            problem = ("n_selected is missing on a row of a known category; only rows of "
                       "unknown people may leave it out")
        elif not sel_missing[row] and not 0 <= sel[row] <= n[row] + 1e-9:
            problem = f"n_selected {sel[row]!r} is not between 0 and n ({n[row]!r})"
        if problem is not None:
            raise ValueError(MSG_COUNTS_ROW.format(row=row, problem=problem))
    k = len(attributes)
    chars = []
    groups = [([j], attributes[j]) for j in range(k)]
    if intersect and k > 1:
        groups.append((list(range(k)), INTERSECTIONAL))
    for positions, name in groups:
        rows = [r for r in range(n.shape[0])
                if all(split[j][r] for j in positions)
                and not any(split[j][r] for j in range(k) if j not in positions)]
        vals, dec, cnt = [[] for _ in positions], [], []
        for r in rows:
            pattern = [None if is_unknown[j][r] else values[j][r] for j in positions]
            if sel_missing[r]:
                parts = [(UNDECIDED, n[r])]
            else:
                parts = [(SELECTED, sel[r]), (NOT_SELECTED, n[r] - sel[r])]
            for d, c in parts:
                for i, v in enumerate(pattern):
                    vals[i].append(v)
                dec.append(d)
                cnt.append(c)
        entries = Entries(attributes=[attributes[j] for j in positions],
                          values=[np.array(v, dtype=object) for v in vals],
                          decision=np.array(dec, dtype=np.int8),
                          count=np.array(cnt, dtype=np.float64))
        if len(rows):
            chars.append(characteristic(entries, name))
    return chars
