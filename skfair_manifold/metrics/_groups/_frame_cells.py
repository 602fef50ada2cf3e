"""The cell table of a frame by one GROUP BY in its own engine, labels checked in the same pass."""

import numpy as np

from ...utils._column_kind import column_kind
from ...utils._narwhals import collect, missing_mask, to_narwhals, to_numpy
from ...utils._validation import check_pair, encode_column
from .._common import positive_masks
from .._frames import (
    _COUNT,
    _MIN,
    _NONNULL,
    _PRED,
    _TRUE,
    _W,
    _W2,
    _YP,
    _YT,
    MSG_LABEL_MISSING,
    MSG_NO_ROWS,
    MSG_NOT_COMPARABLE,
    MSG_SENSITIVE_MISSING_FRAME,
    MSG_WEIGHT_BAD,
    MSG_WEIGHT_MISSING,
    _checked_names,
)
from ._cells import CellTable, _row_keys


def _label_classes(frame, true_col, pred_col):
    """The distinct (y_true, y_pred) pairs as two numpy arrays, one small query."""
    import narwhals as nw

    pairs = collect(frame.group_by(true_col, pred_col).agg(nw.len().alias(_COUNT)))
    if pairs.shape[0] == 0:
        raise ValueError(MSG_NO_ROWS)
    columns = []
    for name, column in (("y_true", true_col), ("y_pred", pred_col)):
        values = to_numpy(pairs[column])
        if missing_mask(values).any():
            raise ValueError(MSG_LABEL_MISSING.format(name=name, column=column))
        columns.append(values)
    return columns


def frame_cell_table(data, *, y_true, y_pred, sensitive_features, sample_weight=None,
                     pos_label=None, metric="fairness_report"):
    """The :class:`~._cells.CellTable` of a frame, computed in the frame's engine.

    Parameters
    ----------
    data : DataFrame, LazyFrame or relation
        Any frame narwhals supports (pandas, polars, pyarrow, DuckDB, Dask,
        PySpark).
    y_true, y_pred : str
        The label and prediction columns.
    sensitive_features : str or list of str
        The sensitive columns, one attribute each.
    sample_weight : str or None, default=None
        A column of non-negative weights.
    pos_label : int, float, bool, str or None, default=None
        The favourable class, with the rule of :func:`demographic_parity`.
    metric : str, default="fairness_report"
        The caller's name, for the messages.

    Returns
    -------
    table : CellTable
        The same table, in the same cell order, as the in-memory path gives.
    favourable : object
        The favourable class as resolved (``pos_label``, or 1 / True).
    classes_kind : str
        The numpy dtype kind of the label values (``"b"`` for booleans).

    Examples
    --------
    >>> import polars as pl
    >>> from skfair_manifold.metrics._groups._frame_cells import frame_cell_table
    >>> lf = pl.LazyFrame({"y": [1, 0, 1, 1], "p": [1, 0, 0, 1], "s": ["a", "a", "b", "b"]})
    >>> table, favourable, _ = frame_cell_table(lf, y_true="y", y_pred="p",
    ...                                         sensitive_features=["s"])
    >>> table.to_frame()
       s  y_true  y_pred  count  weight  weight_sq
    0  a       0       0      1     1.0        1.0
    1  a       1       1      1     1.0        1.0
    2  b       1       0      1     1.0        1.0
    3  b       1       1      1     1.0        1.0
    """
    import narwhals as nw

    frame = to_narwhals(data)
    true_col, pred_col, sensitive, weight_col = _checked_names(
        frame, y_true, y_pred, sensitive_features, sample_weight)

    def classes_rule():
        """The in-memory rule on the distinct label values: raises as it does there."""
        classes_true, classes_pred = _label_classes(frame, true_col, pred_col)
        classes_true, classes_pred = check_pair(classes_true, classes_pred)
        positive_masks(classes_true, classes_pred, pos_label, metric)

    # the favourable class, from the labels' types (the schema; nothing is read)
    schema = frame.collect_schema()
    kinds = {_kind_of(schema[true_col]), _kind_of(schema[pred_col])}
    boolean = kinds == {"bool"}
    favourable = pos_label if pos_label is not None else (True if boolean else 1)
    wanted_kind = "text" if isinstance(favourable, str) else "number"
    if len(kinds) != 1 or (not boolean and kinds != {wanted_kind}):
        classes_rule()  # mixed or unexpected label types: the in-memory error
        raise ValueError(MSG_NOT_COMPARABLE.format(value=favourable, true=schema[true_col],
                                                   pred=schema[pred_col]))

    if kinds <= {"bool", "number"} and all(column_kind(schema[c]) in ("int", "bool")
                                           for c in (true_col, pred_col)):
        # integer and boolean labels: the group-by keys on the labels themselves (the
        # engine's plain GROUP BY), and their distinct values come back with the table
        return _by_labels(frame, true_col, pred_col, sensitive, weight_col, pos_label,
                          metric, encode_column, check_pair)

    # other labels: indicators, then a group-by over every sensitive column; the
    # smallest and largest label of each cell check the pos_label rule in the same pass
    indicators = [(nw.col(true_col) == favourable).cast(nw.Int8()).alias(_TRUE),
                  (nw.col(pred_col) == favourable).cast(nw.Int8()).alias(_PRED)]
    aggregations = [nw.len().alias(_COUNT)]
    numeric_rule = pos_label is None and not boolean
    if numeric_rule:
        indicators += [nw.col(true_col).alias(_YT), nw.col(pred_col).alias(_YP)]
        aggregations += [nw.col(_YT).min().alias(_YT + "_min"),
                         nw.col(_YT).max().alias(_YT + "_max"),
                         nw.col(_YP).min().alias(_YP + "_min"),
                         nw.col(_YP).max().alias(_YP + "_max")]
    if weight_col is not None:
        w = nw.col(weight_col).cast(nw.Float64())
        indicators += [w.alias(_W), (w * w).alias(_W2)]
        aggregations += [nw.col(_W).sum(), nw.col(_W2).sum(),
                         nw.col(_W).count().alias(_NONNULL), nw.col(_W).min().alias(_MIN)]
    grouped = (frame.select(*sensitive, *indicators)
               .group_by(*sensitive, _TRUE, _PRED).agg(*aggregations))
    cells = collect(grouped)
    if cells.shape[0] == 0:
        raise ValueError(MSG_NO_ROWS)
    if not _labels_pass(cells, numeric_rule):
        classes_rule()  # raises the in-memory message
    return (_table_of(cells, sensitive, weight_col, encode_column),
            favourable, "b" if boolean else ("O" if wanted_kind == "text" else "f"))


def _weights(weight_col):
    """The weight columns and aggregations of the group-by (none without weights)."""
    import narwhals as nw

    if weight_col is None:
        return [], []
    w = nw.col(weight_col).cast(nw.Float64())
    return ([w.alias(_W), (w * w).alias(_W2)],
            [nw.col(_W).sum(), nw.col(_W2).sum(), nw.col(_W).count().alias(_NONNULL),
             nw.col(_W).min().alias(_MIN)])


def _by_labels(frame, true_col, pred_col, sensitive, weight_col, pos_label, metric,
               encode_column, check_pair):
    """The cell table keyed on the raw labels; the indicators applied to the small result."""
    import narwhals as nw

    columns, aggregations = _weights(weight_col)
    keys = [*sensitive, _YT, _YP]
    grouped = (frame.select(*sensitive, nw.col(true_col).alias(_YT),
                            nw.col(pred_col).alias(_YP), *columns)
               .group_by(*keys).agg(nw.len().alias(_COUNT), *aggregations))
    cells = collect(grouped)
    if cells.shape[0] == 0:
        raise ValueError(MSG_NO_ROWS)
    labels = []
    for name, column, key in (("y_true", true_col, _YT), ("y_pred", pred_col, _YP)):
        values = to_numpy(cells[key])
        if missing_mask(values).any():  # NaN among integers, None among booleans
            raise ValueError(MSG_LABEL_MISSING.format(name=name, column=column))
        labels.append(values)
    values_true, values_pred = check_pair(labels[0], labels[1])  # one per cell: small
    positive_masks(values_true, values_pred, pos_label, metric)
    favourable = pos_label if pos_label is not None else (
        True if values_true.dtype.kind == "b" else 1)
    table = _table_of(cells, sensitive, weight_col, encode_column,
                      indicators=(labels[0] == favourable, labels[1] == favourable))
    return table, favourable, values_true.dtype.kind


#: the labels' kinds the favourable class is compared with, by :func:`column_kind`
_LABEL_KINDS = {"bool": "bool", "int": "number", "float": "number", "text": "text"}


def _kind_of(dtype):
    """``"bool"``, ``"number"``, ``"text"`` or ``"other"`` for a narwhals dtype."""
    return _LABEL_KINDS.get(column_kind(dtype), "other")


def _labels_pass(cells, numeric_rule):
    """Whether the aggregated cells show labels that pass the in-memory rule.

    No label may be missing (an indicator would be null); without ``pos_label``
    every cell must hold one value of each label and together they must be 0/1 or
    -1/1; with it, the favourable class must occur. False sends the caller to the
    distinct labels, which give the in-memory message.
    """
    indicators = [to_numpy(cells[_TRUE]), to_numpy(cells[_PRED])]
    if any(v.dtype == object or (v.dtype.kind == "f" and np.isnan(v).any())
           for v in indicators):
        return False  # a missing label somewhere
    if not numeric_rule:
        return bool(any(np.asarray(v, dtype=np.int64).max() == 1 for v in indicators))
    values = set()
    for name in (_YT, _YP):
        low = np.asarray(to_numpy(cells[name + "_min"]), dtype=np.float64)
        high = np.asarray(to_numpy(cells[name + "_max"]), dtype=np.float64)
        if not (np.isfinite(low).all() and np.array_equal(low, high)):
            return False
        values.update(low.tolist())
    return values <= {0.0, 1.0} or values <= {-1.0, 1.0}


def _table_of(cells, sensitive, weight_col, encode_column, indicators=None):
    """The CellTable of the aggregated rows, ordered as :func:`~._cells.cell_table` orders."""
    weighted = weight_col is not None
    count = np.asarray(cells[_COUNT].to_numpy(), dtype=np.int64)
    if weighted:
        nonnull = np.asarray(cells[_NONNULL].to_numpy(), dtype=np.int64)
        smallest = np.asarray(to_numpy(cells[_MIN]), dtype=np.float64)
        weight = np.asarray(to_numpy(cells[_W]), dtype=np.float64)
        weight_sq = np.asarray(to_numpy(cells[_W2]), dtype=np.float64)
        n_missing = int((count - nonnull).sum())
        if n_missing:
            raise ValueError(MSG_WEIGHT_MISSING.format(column=weight_col, count=n_missing))
        bad = ~np.isfinite(smallest) | (smallest < 0) | ~np.isfinite(weight) \
            | ~np.isfinite(weight_sq)
        if bad.any():
            raise ValueError(MSG_WEIGHT_BAD.format(column=weight_col,
                                                   value=float(smallest[bad][0])))
    codes, groups = [], []
    for column in sensitive:
        values = to_numpy(cells[column])
        missing = missing_mask(values)
        if missing.any():
            rows = int(count[missing].sum())
            raise ValueError(MSG_SENSITIVE_MISSING_FRAME.format(attr=column, count=rows))
        code, uniques = encode_column(values, column)
        codes.append(code)
        groups.append(uniques)
    if indicators is None:
        indicators = (cells[_TRUE].to_numpy(), cells[_PRED].to_numpy())
    label_cell = (2 * np.asarray(indicators[0], dtype=np.int8)
                  + np.asarray(indicators[1], dtype=np.int8))
    sizes = [int(g.shape[0]) for g in groups]
    inverse, cell_codes, cell_labels = _row_keys(codes, sizes, label_cell)
    m = cell_codes.shape[0]
    ordered = np.bincount(inverse, weights=count, minlength=m).astype(np.int64)
    if weighted:
        weight = np.bincount(inverse, weights=weight, minlength=m)
        weight_sq = np.bincount(inverse, weights=weight_sq, minlength=m)
    else:
        weight = ordered.astype(np.float64)
        weight_sq = weight
    return CellTable(attributes=list(sensitive), groups=groups, codes=cell_codes,
                     y_true=(cell_labels >> 1).astype(np.int8),
                     y_pred=(cell_labels & 1).astype(np.int8), count=ordered,
                     weight=weight, weight_sq=weight_sq, weighted=weighted)
