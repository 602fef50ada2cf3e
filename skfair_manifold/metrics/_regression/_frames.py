"""The continuous report where the data lives: one GROUP BY in the frame's own engine.

With ``data=`` a lazy or distributed frame (DuckDB, polars ``LazyFrame``,
Dask, PySpark), the rows never come to memory. One ``GROUP BY`` over the
sensitive columns gives per combination of groups the row count, the
non-missing counts that check the columns, the sums of the weights and of
their squares, and for each quantity ``q`` the weighted sums of ``q - c``
and ``(q - c)^2``, ``c`` its value on one row (read with ``head``): shifted
so that a column of large values with a small spread keeps its digits, and of
the values scaled as in memory (``_engine.Scale``, from the first row; a
second pass with the scale of the first pass's extremes when that row was far
off), so that no square overflows or underflows at any magnitude. Each
attribute's group moments are sums of the combinations' (a table of a few
rows), and the report is tabulated by the same code as in memory
(:func:`._regression_report.tabulate`).

The Kolmogorov-Smirnov distance of each group's predictions to everyone's
is found exactly by a few more passes that count the predictions in bins,
finer where the distance may lie (:mod:`._frame_distances`). The
Wasserstein distance needs every value in order: it is left undefined on a
lazy frame and the report says so in its warnings.
"""

import numpy as np

from ...utils._narwhals import collect, missing_mask, to_narwhals, to_numpy
from ...utils._validation import encode_column
from .._frames import _W, _YP, _YT, _checked_names
from .._groups._cells import combine_groups
from ._engine import QUANTITIES, Scale, row_quantities
from ._frame_ks import frame_ks

MSG_FRAME_NOT_NUMERIC = (
    "{name} column {column!r} must hold numbers for a continuous target; its type is "
    "{dtype}."
)
MSG_FRAME_MISSING = (
    "{name} column {column!r} holds {count} missing value(s); remove or impute them first."
)
MSG_FRAME_NOT_FINITE = (
    "{name} column {column!r} holds NaN or infinite values; remove or impute them first."
)
MSG_FRAME_WEIGHTS = (
    "sample_weight column {column!r} must hold finite, non-negative numbers with a positive "
    "sum, without missing values."
)
MSG_FRAME_SENSITIVE_MISSING = (
    "sensitive column {column!r} holds missing values; drop those rows or give them a "
    "group of their own."
)
MSG_NO_DISTANCES = (
    "the Wasserstein distance of the predictions needs the rows in order, which a lazy "
    "frame does not bring to memory: it is left undefined (collect the prediction and "
    "sensitive columns to have it); the KS distance is exact, from counts in bins."
)
MSG_KS_UNRESOLVED = (
    "the KS distance could not be resolved from counts in bins (too many bins tie with the "
    "largest distance): it is left undefined (collect the prediction and sensitive columns "
    "to have it)."
)

_N, _NT, _NP, _NW = "__skfm_n", "__skfm_n_true", "__skfm_n_pred", "__skfm_n_w"
_RT, _RP = "__skfm_raw_true", "__skfm_raw_pred"
#: the sums' helper columns (prefixed, so that no sensitive column shares their name)
_PMIN, _PMAX, _SW, _SW2, _WMIN = ("__skfm_p_min", "__skfm_p_max", "__skfm_w", "__skfm_w2",
                                  "__skfm_w_min")
_RAW = ("__skfm_raw_p_min", "__skfm_raw_p_max", "__skfm_raw_t_min", "__skfm_raw_t_max")


def _d(k):
    """The helper column of quantity ``k``'s shifted sum."""
    return f"__skfm_d{k}"


def _e(k):
    """The helper column of quantity ``k``'s shifted sum of squares."""
    return f"__skfm_e{k}"


def _quantities(nw):
    """The narwhals expressions of the row quantities, in :data:`QUANTITIES`' order
    (:func:`._regression_engine.row_quantities` on columns; a narwhals expression
    has ``.abs()`` where numpy has ``np.abs``)."""
    yt, yp = nw.col(_YT), nw.col(_YP)
    residual = yp - yt
    return (yp, yt, residual.abs(), residual * residual, residual)


def frame_moments(data, *, y_true, y_pred, sensitive_features, sample_weight, intersect,
                  min_group_size=1):
    """``(attributes, overall, weighted, names_given, warnings, scale)`` for :func:`tabulate`
    (the moments are of the values scaled by ``scale``, ``_engine.Scale``)."""
    import narwhals as nw

    frame = to_narwhals(data)
    true_col, pred_col, sensitive, weight_col = _checked_names(
        frame, y_true, y_pred, sensitive_features, sample_weight)
    schema = frame.collect_schema()
    checked = [("y_true", true_col), ("y_pred", pred_col)]
    if weight_col is not None:
        checked.append(("sample_weight", weight_col))
    for name, column in checked:
        if not schema[column].is_numeric():
            raise ValueError(MSG_FRAME_NOT_NUMERIC.format(name=name, column=column,
                                                          dtype=schema[column]))
    columns = [nw.col(c) for c in sensitive]
    columns += [nw.col(true_col).cast(nw.Float64()).alias(_YT),
                nw.col(pred_col).cast(nw.Float64()).alias(_YP)]
    if weight_col is not None:
        columns.append(nw.col(weight_col).cast(nw.Float64()).alias(_W))
    raw = frame.select(*columns)
    weight = nw.col(_W) if weight_col is not None else None
    scale = _head_scale(raw)
    for attempt in range(2):  # a second pass only when the first row's scale was far off
        base, shift, cells, table = _sums(nw, raw, scale, sensitive, weight)
        needed = _extremes_scale(table, scale.ref)
        if needed is None or attempt or abs(np.log2(needed.first * needed.second)
                                            - np.log2(scale.first * scale.second)) < 200:
            break
        scale = needed
    n = int(table[_N].sum())
    for name, column, count in (("y_true", true_col, table[_NT].sum()),
                                ("y_pred", pred_col, table[_NP].sum())):
        if int(count) < n:
            raise ValueError(MSG_FRAME_MISSING.format(name=name, column=column,
                                                      count=n - int(count)))
    if n < 2:
        raise ValueError("data has fewer than 2 rows: at least 2 are needed.")
    if weight is not None:
        total = table[_SW].sum()
        if int(table[_NW].sum()) < n or not np.isfinite(total) or total <= 0 \
                or np.nanmin(table[_WMIN]) < 0:
            raise ValueError(MSG_FRAME_WEIGHTS.format(column=weight_col))
    for k, (name, column) in enumerate((("y_pred", pred_col), ("y_true", true_col),
                                        ("y_pred", pred_col), ("y_pred", pred_col),
                                        ("y_pred", pred_col))):
        if not (np.isfinite(table[_d(k)]).all() and np.isfinite(table[_e(k)]).all()):
            raise ValueError(MSG_FRAME_NOT_FINITE.format(name=name, column=column))
    keys = {}
    for column in sensitive:
        values = to_numpy(cells[column])
        if missing_mask(values).any():
            raise ValueError(MSG_FRAME_SENSITIVE_MISSING.format(column=column))
        keys[column] = values
    if weight is None:
        table[_SW] = table[_SW2] = table[_N]
    encoded = [(column, *encode_column(keys[column], column)) for column in sensitive]
    if intersect and len(encoded) > 1:  # the combinations, ordered as in memory
        code, labels, name = combine_groups(np.column_stack([c for _, c, _ in encoded]),
                                            [g for _, _, g in encoded], sensitive)
        encoded = [(name, code, labels)]
    moments = [_moments(table, codes, labels.shape[0], shift) for _, codes, labels in encoded]
    combos = {key: i for i, key in enumerate(zip(*(keys[c].tolist() for c in sensitive)))}
    ks, passes = frame_ks(base, sensitive, weight, combos,
                            [(codes, m["count"] >= min_group_size)
                             for (_, codes, _), m in zip(encoded, moments)],
                            (float(np.min(table[_PMIN])), float(np.max(table[_PMAX]))))
    attributes = []
    for (column, codes, labels), m, distance in zip(encoded, moments, ks):
        attributes.append((column, labels, m, (distance, np.full(labels.shape[0], np.nan))))
    overall = _moments(table, np.zeros(table[_N].shape[0], dtype=np.intp), 1, shift)
    names_given = {"label": true_col, "prediction": pred_col}
    notes = [MSG_NO_DISTANCES]
    if passes < 0:
        notes.append(MSG_KS_UNRESOLVED)
    return attributes, overall, weight is not None, names_given, notes, scale


def _head_scale(raw):
    """The values' :class:`._engine.Scale` from the first row (no pass over the data)."""
    row = collect(raw.head(1))
    if row.shape[0] == 0:
        return Scale()
    first = [np.asarray(to_numpy(row[c]), dtype=np.float64) for c in (_YP, _YT)]
    values = [v for v in first if np.isfinite(v).all()]
    return Scale.of(*values) if values else Scale()


def _extremes_scale(table, ref):
    """The scale the pass's least and largest raw values ask for (None: not finite)."""
    values = np.array([table[c] for c in _RAW], dtype=np.float64).ravel()
    if not np.isfinite(values).all() or not np.isfinite(ref):
        return None
    return Scale.of(values, ref=ref)


def _sums(nw, raw, scale, sensitive, weight):
    """One GROUP BY over the sensitive columns of the values scaled by ``scale``: per
    combination the counts that check the columns, the raw values' extremes and the
    shifted sums (the terms are columns first, so that every aggregation is elementary,
    as Dask asks). Returns ``(base, shift, cells, table)``."""
    def scaled(column):  # Scale.down in the engine
        return ((nw.col(column) / scale.first - scale.ref / scale.first) / scale.second)
    base = raw.with_columns(nw.col(_YT).alias(_RT), nw.col(_YP).alias(_RP)).with_columns(
        scaled(_RT).alias(_YT), scaled(_RP).alias(_YP))
    shift = _shift(base)
    terms, sums = [], [nw.len().alias(_N), nw.col(_YT).count().alias(_NT),
                       nw.col(_YP).count().alias(_NP), nw.col(_YP).min().alias(_PMIN),
                       nw.col(_YP).max().alias(_PMAX), nw.col(_RP).min().alias(_RAW[0]),
                       nw.col(_RP).max().alias(_RAW[1]),
                       nw.col(_RT).min().alias(_RAW[2]),
                       nw.col(_RT).max().alias(_RAW[3])]
    if weight is not None:
        terms += [(weight * weight).alias(_SW2)]
        sums += [weight.sum().alias(_SW), nw.col(_SW2).sum(), weight.count().alias(_NW),
                 weight.min().alias(_WMIN)]
    for k, q in enumerate(_quantities(nw)):
        dev = q - shift[k]
        terms += [(dev if weight is None else dev * weight).alias(_d(k)),
                  (dev * dev if weight is None else dev * dev * weight).alias(_e(k))]
        sums += [nw.col(_d(k)).sum(), nw.col(_e(k)).sum()]
    cells = collect(base.with_columns(*terms).group_by(*sensitive).agg(*sums))
    table = {c: np.asarray(to_numpy(cells[c]), dtype=np.float64)
             for c in cells.columns if c not in sensitive}
    return base, shift, cells, table


def _shift(base):
    """Each quantity's value on one row, subtracted before squaring (0 where undefined).

    Any value near the data keeps the sums' digits; one row, read with the
    frame's ``head``, costs no pass over the data.
    """
    row = collect(base.head(1))
    if row.shape[0] == 0:
        return [0.0] * len(QUANTITIES)
    y_true = np.asarray(to_numpy(row[_YT]), dtype=np.float64)
    y_pred = np.asarray(to_numpy(row[_YP]), dtype=np.float64)
    return [float(v[0]) if np.isfinite(v[0]) else 0.0 for v in row_quantities(y_true, y_pred)]


def _moments(table, codes, n_groups, shift):
    """The moments of :func:`group_moments` from the combinations' shifted sums."""
    def add(column):
        return np.bincount(codes, weights=table[column], minlength=n_groups)

    count, weight, weight_sq = add(_N), add(_SW), add(_SW2)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where(weight_sq > 0, weight * weight / weight_sq, 0.0)
        mean = np.empty((len(QUANTITIES), n_groups))
        var = np.empty((len(QUANTITIES), n_groups))
        for k in range(len(QUANTITIES)):
            first, second = add(_d(k)) / weight, add(_e(k)) / weight
            mean[k] = shift[k] + first
            central = np.clip(second - first * first, 0.0, None)
            var[k] = np.where(n_eff > 1, central * n_eff / (n_eff - 1), np.nan)
    return {"count": count.astype(np.int64), "weight": weight, "n_eff": n_eff,
            "mean": mean, "var": var}
