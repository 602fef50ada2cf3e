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

This module reads frames (names, checks, collection, through the one door
``utils/_narwhals.py``); the aggregation itself is
:func:`._groups._frame_cells.frame_cell_table`.
"""



from ..utils._narwhals import collect, is_frame, schema_names, to_narwhals
from ..utils._sklearn_compat import HasMethods
from ..utils._validation import did_you_mean

__all__ = ["FrameConstraint", "eager_inputs"]

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

MSG_RESERVED_NAME = (
    "{name} column {column!r}: names that begin with '__skfm_' are the aggregation's own "
    "helper columns; rename the column (data.rename(...)) before passing it."
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

MSG_NOT_COMPARABLE = (
    "the favourable class {value!r} cannot be compared with the label columns (types "
    "{true} and {pred}); pass pos_label of the labels' type."
)

MSG_NO_ROWS = "data has no rows: at least 2 rows are needed."

#: names of the helper columns of the aggregation (chosen not to clash with the user's)
_TRUE, _PRED, _W, _W2 = "__skfm_true", "__skfm_pred", "__skfm_w", "__skfm_w2"

_COUNT, _NONNULL, _MIN = "__skfm_count", "__skfm_nonnull", "__skfm_min"

_YT, _YP = "__skfm_y_true", "__skfm_y_pred"

#: the prefix of every helper column: refused in a caller's column names
_RESERVED = "__skfm_"


class FrameConstraint(HasMethods):
    """The ``validate_params`` constraint of ``data=``: a frame narwhals supports.

    A :class:`HasMethods` only because scikit-learn's ``validate_params``
    accepts no other constraint object; the test is narwhals' own.
    """

    def __init__(self):
        super().__init__([])

    def is_satisfied_by(self, val):
        return is_frame(val)

    def __str__(self):
        return ("a DataFrame, LazyFrame or relation that narwhals supports (pandas, polars, "
                "pyarrow, DuckDB, Dask, PySpark)")


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


def _check_columns(frame, wanted):
    present = schema_names(frame)
    for name, column in wanted:
        if column.startswith(_RESERVED):
            raise ValueError(MSG_RESERVED_NAME.format(name=name, column=column))
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


def _checked_names(frame, y_true, y_pred, sensitive_features, sample_weight):
    """The column names of the four arguments, each checked to be a column of ``frame``."""
    true_col, pred_col, sensitive, weight_col = _column_names(
        y_true, y_pred, sensitive_features, sample_weight)
    wanted = [("y_true", true_col), ("y_pred", pred_col)]
    wanted += [("sensitive_features", c) for c in sensitive]
    wanted += [] if weight_col is None else [("sample_weight", weight_col)]
    _check_columns(frame, wanted)
    return true_col, pred_col, sensitive, weight_col


def eager_inputs(data, *, y_true, y_pred, sensitive_features, sample_weight=None):
    """The named columns of an eager frame as in-memory inputs of the metrics.

    Returns ``(y_true, y_pred, sensitive_features, sample_weight)``: native
    Series for the labels and weights and a native DataFrame of the
    sensitive columns, as a caller would pass them without ``data``.
    """
    frame = to_narwhals(data)
    true_col, pred_col, sensitive, weight_col = _checked_names(
        frame, y_true, y_pred, sensitive_features, sample_weight)
    frame = collect(frame)
    weights = None if weight_col is None else frame[weight_col].to_native()
    return (frame[true_col].to_native(), frame[pred_col].to_native(),
            frame.select(sensitive).to_native(), weights)
