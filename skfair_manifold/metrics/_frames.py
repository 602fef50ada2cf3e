"""The cell table computed where the data lives: lazy, distributed and eager frames.

With ``data=`` given, :func:`fairness_report` and the group metrics take
column names for ``y_true``, ``y_pred``, ``sensitive_features`` and
``sample_weight``, and ``data`` may be any frame that narwhals handles: a
polars ``LazyFrame`` or ``DataFrame``, a DuckDB relation, a Dask DataFrame, a
PySpark DataFrame, a pandas DataFrame or a pyarrow Table. One aggregation runs
in the frame's own engine, and only its small result comes back: one group-by
over every sensitive column and the labels with the row count, the sum of the
weights and the sum of their squares (with weights, also their smallest value
and non-missing count, to refuse invalid weights).

- Integer and boolean labels are keys as they are (the engine's plain
  ``GROUP BY``); their distinct values come back with the table and the
  ``pos_label`` rule of the in-memory metrics (binary 0/1, -1/1 or boolean
  labels without ``pos_label``; anything else needs it) is applied to them,
  with the same messages; the indicators are then applied to the cells.
- Other labels (floats, text) are keyed as the indicator columns
  ``y_true == pos`` and ``y_pred == pos``, and each cell's smallest and
  largest label check the rule in the same pass; where the check fails, a
  small second query reads the distinct labels to word the same error.

The result is the :class:`~._cells.CellTable` that the in-memory path builds
from numpy arrays, cell for cell and in the same order, so every number of
the report (and the bootstrap, which draws from the cell counts) is the same
on either path. Intersections are the same table read with
:meth:`~._cells.CellTable.intersect`; single attributes sum it.

A lazy frame has no row order and is not held in memory, so what needs the
rows (HFM's distances with ``X``, the discriminative risk with
``estimator``) is refused with a message saying so; an eager frame
(pandas, polars, pyarrow) hands its columns to the in-memory path instead.
"""

import warnings

import numpy as np

from ..utils._sklearn_compat import HasMethods
from ..utils._validation import did_you_mean
from ._cells import CellTable, _row_keys
from ._common import positive_masks

__all__ = ["FrameConstraint", "frame_cell_table", "frame_columns", "is_lazy", "to_narwhals"]

MSG_NOT_A_FRAME = (
    "data must be a DataFrame, LazyFrame or relation that narwhals supports (pandas, "
    "polars, pyarrow, DuckDB, Dask, PySpark); got {type}."
)
MSG_NOT_A_NAME = (
    "with data= given, {name} must be a column name of data (a str); got {type}."
)
MSG_NEED_DATA = (
    "{name}={value!r} is a column name, which needs data= (the frame that holds the "
    "column); pass data=frame, or pass the values themselves."
)
MSG_MISSING_COLUMN = (
    "{name} column {column!r} is not a column of data.{hint} Its columns are: {columns}."
)
MSG_NEEDS_ROWS = (
    "{what} needs the rows in memory and in order, which a lazy or distributed frame "
    "({type}) does not give: the group report is computed in the frame's engine without "
    "them. Leave {argument} out, or collect the rows (or a sample of them) into pandas or "
    "numpy and pass arrays."
)
MSG_LABEL_MISSING = (
    "{name} column {column!r} contains missing values (null or NaN); a label must be "
    "given for every row: drop or fill those rows first."
)
MSG_SENSITIVE_MISSING_FRAME = (
    "sensitive attribute {attr!r} contains missing values (null or NaN) in {count} row(s). "
    "A missing value is not a group: drop those rows, or fill them with an explicit value "
    "such as 'unknown'."
)
MSG_WEIGHT_MISSING = (
    "sample_weight column {column!r} has {count} missing value(s); give every row a "
    "weight (fill or drop those rows)."
)
MSG_WEIGHT_BAD = (
    "sample_weight column {column!r} must be finite and non-negative; it holds {value!r} "
    "(or sums to a value that is not finite)."
)
MSG_BACKEND = (
    "the installed libraries cannot compute on a {type} here: {detail}. Upgrade narwhals "
    "and the frame's library (and pyarrow, whose recent versions need NumPy 2) together."
)
MSG_NOT_COMPARABLE = (
    "the favourable class {value!r} cannot be compared with the label columns (types "
    "{true} and {pred}); pass pos_label of the labels' type."
)
MSG_NO_ROWS = "data has no rows: at least 2 rows are needed."

#: names of the helper columns of the aggregation (chosen not to clash with the user's)
_TRUE, _PRED, _W, _W2 = "__skfm_true", "__skfm_pred", "__skfm_w", "__skfm_w2"
_COUNT, _NONNULL, _MIN = "__skfm_count", "__skfm_nonnull", "__skfm_min"
_YT, _YP = "__skfm_y_true", "__skfm_y_pred"


def _from_native(data, **options):
    import narwhals as nw

    with warnings.catch_warnings():
        # narwhals announces that its Dask support moves to another package: a notice
        # about narwhals' own packaging, not about the caller's data
        warnings.filterwarnings("ignore", message="Dask support is moving",
                                category=FutureWarning)
        return nw.from_native(data, **options)


class FrameConstraint(HasMethods):
    """The ``validate_params`` constraint of ``data=``: a frame narwhals supports.

    A :class:`HasMethods` only because scikit-learn's ``validate_params``
    accepts no other constraint object; the test is narwhals' own.
    """

    def __init__(self):
        super().__init__([])

    def is_satisfied_by(self, val):
        import narwhals as nw

        converted = _from_native(val, pass_through=True)
        return isinstance(converted, (nw.DataFrame, nw.LazyFrame))

    def __str__(self):
        return ("a DataFrame, LazyFrame or relation that narwhals supports (pandas, polars, "
                "pyarrow, DuckDB, Dask, PySpark)")


def to_narwhals(data):
    """``data`` as a narwhals DataFrame or LazyFrame, or a TypeError."""
    import narwhals as nw

    try:
        frame = _from_native(data)
    except TypeError:
        raise TypeError(MSG_NOT_A_FRAME.format(type=type(data).__name__)) from None
    except ImportError as exc:  # e.g. a narwhals older than the frame library
        raise ImportError(MSG_BACKEND.format(type=type(data).__name__, detail=exc)) from exc
    if not isinstance(frame, (nw.DataFrame, nw.LazyFrame)):
        raise TypeError(MSG_NOT_A_FRAME.format(type=type(data).__name__))
    return frame


def is_lazy(data):
    """True when ``data`` is a lazy or distributed frame (no rows in memory)."""
    import narwhals as nw

    return isinstance(to_narwhals(data), nw.LazyFrame)


def refuse_rows(data, *, what, argument):
    """Raise :data:`MSG_NEEDS_ROWS` for a lazy ``data``."""
    raise ValueError(MSG_NEEDS_ROWS.format(what=what, type=type(data).__name__,
                                           argument=argument))


def _names(value, name, *, many=False):
    """Column name(s) given to ``name``, checked to be strings."""
    values = list(value) if many and isinstance(value, (list, tuple)) else [value]
    if not values or not all(isinstance(v, str) for v in values):
        raise TypeError(MSG_NOT_A_NAME.format(name=name, type=type(value).__name__))
    return values


def _schema_names(frame):
    import narwhals as nw

    if isinstance(frame, nw.LazyFrame):
        return list(frame.collect_schema().names())
    return list(frame.columns)


def _check_columns(frame, wanted):
    present = _schema_names(frame)
    for name, column in wanted:
        if column not in present:
            shown = ", ".join(repr(c) for c in present[:20]) + (", ..." if len(present) > 20
                                                                 else "")
            raise ValueError(MSG_MISSING_COLUMN.format(
                name=name, column=column, hint=did_you_mean(column, present), columns=shown))


def _column_names(y_true, y_pred, sensitive_features, sample_weight):
    true_col = _names(y_true, "y_true")[0]
    pred_col = _names(y_pred, "y_pred")[0]
    sensitive = _names(sensitive_features, "sensitive_features", many=True)
    weight_col = None if sample_weight is None else _names(sample_weight, "sample_weight")[0]
    return true_col, pred_col, sensitive, weight_col


def _collect(frame):
    import narwhals as nw

    if not isinstance(frame, nw.LazyFrame):
        return frame
    # DuckDB's result as pandas (its own conversion): narwhals' default, pyarrow, is
    # not needed for a table of a few hundred rows
    backend = "pandas" if type(frame.to_native()).__module__.startswith("duckdb") else None
    try:
        return frame.collect(backend=backend)
    except ImportError as exc:  # the result's library (pyarrow for DuckDB) cannot load
        raise ImportError(MSG_BACKEND.format(type=type(frame.to_native()).__name__,
                                             detail=exc)) from exc


def _numpy(series):
    """A narwhals Series as numpy; missing values as None (objects) or NaN (floats)."""
    values = series.to_numpy()
    if values.dtype.kind == "U":  # text as Python strings, as pandas gives them
        values = values.astype(object)
    if values.dtype == object or series.null_count():
        missing = np.asarray(series.is_null().to_numpy(), dtype=bool)
        if missing.any():
            values = values.astype(object)
            values[missing] = None
    return values


def _checked_names(frame, y_true, y_pred, sensitive_features, sample_weight):
    """The column names of the four arguments, each checked to be a column of ``frame``."""
    true_col, pred_col, sensitive, weight_col = _column_names(
        y_true, y_pred, sensitive_features, sample_weight)
    wanted = [("y_true", true_col), ("y_pred", pred_col)]
    wanted += [("sensitive_features", c) for c in sensitive]
    wanted += [] if weight_col is None else [("sample_weight", weight_col)]
    _check_columns(frame, wanted)
    return true_col, pred_col, sensitive, weight_col


def frame_columns(data, *, y_true, y_pred, sensitive_features, sample_weight=None):
    """The named columns of an eager frame as in-memory inputs of the metrics.

    Returns ``(y_true, y_pred, sensitive_features, sample_weight)``: native
    Series for the labels and weights and a native DataFrame of the
    sensitive columns, as a caller would pass them without ``data``.
    """
    frame = to_narwhals(data)
    true_col, pred_col, sensitive, weight_col = _checked_names(
        frame, y_true, y_pred, sensitive_features, sample_weight)
    frame = _collect(frame)
    weights = None if weight_col is None else frame[weight_col].to_native()
    return (frame[true_col].to_native(), frame[pred_col].to_native(),
            frame.select(sensitive).to_native(), weights)


def _label_classes(frame, true_col, pred_col):
    """The distinct (y_true, y_pred) pairs as two numpy arrays, one small query."""
    import narwhals as nw

    pairs = _collect(frame.group_by(true_col, pred_col).agg(nw.len().alias(_COUNT)))
    if pairs.shape[0] == 0:
        raise ValueError(MSG_NO_ROWS)
    columns = []
    for name, column in (("y_true", true_col), ("y_pred", pred_col)):
        values = _numpy(pairs[column])
        missing = np.array([v is None or (isinstance(v, float) and v != v) for v in
                            values.tolist()])
        if missing.any():
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
    >>> from skfair_manifold.metrics._frames import frame_cell_table
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

    from ..utils._validation import check_pair, encode_column

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

    if kinds <= {"bool", "number"} and all(schema[c].is_integer() or schema[c] == nw.Boolean
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
    cells = _collect(grouped)
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
    cells = _collect(grouped)
    if cells.shape[0] == 0:
        raise ValueError(MSG_NO_ROWS)
    labels = []
    for name, column, key in (("y_true", true_col, _YT), ("y_pred", pred_col, _YP)):
        values = _numpy(cells[key])
        if values.dtype == object:  # a missing label
            raise ValueError(MSG_LABEL_MISSING.format(name=name, column=column))
        labels.append(values)
    values_true, values_pred = check_pair(labels[0], labels[1])  # one per cell: small
    positive_masks(values_true, values_pred, pos_label, metric)
    favourable = pos_label if pos_label is not None else (
        True if values_true.dtype.kind == "b" else 1)
    table = _table_of(cells, sensitive, weight_col, encode_column,
                      indicators=(labels[0] == favourable, labels[1] == favourable))
    return table, favourable, values_true.dtype.kind


def _kind_of(dtype):
    """``"bool"``, ``"number"``, ``"text"`` or ``"other"`` for a narwhals dtype."""
    import narwhals as nw

    if dtype == nw.Boolean:
        return "bool"
    if dtype.is_numeric():
        return "number"
    if dtype in (nw.String, nw.Categorical, nw.Enum) or dtype == nw.String:
        return "text"
    return "other"


def _labels_pass(cells, numeric_rule):
    """Whether the aggregated cells show labels that pass the in-memory rule.

    No label may be missing (an indicator would be null); without ``pos_label``
    every cell must hold one value of each label and together they must be 0/1 or
    -1/1; with it, the favourable class must occur. False sends the caller to the
    distinct labels, which give the in-memory message.
    """
    indicators = [_numpy(cells[_TRUE]), _numpy(cells[_PRED])]
    if any(v.dtype == object or (v.dtype.kind == "f" and np.isnan(v).any())
           for v in indicators):
        return False  # a missing label somewhere
    if not numeric_rule:
        return bool(any(np.asarray(v, dtype=np.int64).max() == 1 for v in indicators))
    values = set()
    for name in (_YT, _YP):
        low = np.asarray(_numpy(cells[name + "_min"]), dtype=np.float64)
        high = np.asarray(_numpy(cells[name + "_max"]), dtype=np.float64)
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
        smallest = np.asarray(_numpy(cells[_MIN]), dtype=np.float64)
        weight = np.asarray(_numpy(cells[_W]), dtype=np.float64)
        weight_sq = np.asarray(_numpy(cells[_W2]), dtype=np.float64)
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
        values = _numpy(cells[column])
        missing = np.array([v is None or (isinstance(v, float) and v != v)
                            for v in values.tolist()]) if values.dtype.kind in "Of" else \
            np.zeros(values.shape[0], dtype=bool)
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
