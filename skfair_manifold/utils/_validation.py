"""The one home of the package's input checks, and their messages.

Every public function validates its inputs here, once, at the boundary; the
layers below (the distance engine, the group-metric engine, the auditor's
selectors) receive plain numpy arrays and integer group codes and trust them.

What is accepted
----------------
* numpy arrays, lists, and eager DataFrames and Series of pandas and polars
  (through narwhals, which fairlearn uses for the same purpose);
* pandas' nullable dtypes (``Int64``, ``Float64``, ``boolean``, ``string``)
  as their numeric or string values;
* ``pd.NA``, ``None``, ``NaN`` and polars' ``null`` are *missing values*: they
  are reported with the column named, never taken as a value or a group.

The messages are module constants so that the tests assert on the text a user
sees.
"""

import difflib
import numbers

import numpy as np

__all__ = [
    "as_column_list",
    "as_pandas_frame",
    "check_features",
    "check_label",
    "check_pair",
    "check_complete",
    "check_sample_weight",
    "column_1d",
    "did_you_mean",
    "encode_column",
    "encode_sensitive",
    "frame_columns",
    "is_dataframe",
    "is_int",
    "is_series",
    "label_coordinates",
    "locate_column",
    "resolve_columns",
    "sensitive_columns",
    "split_columns",
]

MSG_EMPTY = "{name} is empty: at least 2 rows are needed."
MSG_TOO_FEW_ROWS = "{name} has a single row: at least 2 rows are needed."
MSG_NOT_2D = "{name} must be 2-dimensional (n_samples, n_features); got shape {shape}."
MSG_NOT_1D = "{name} must be 1-dimensional (n_samples,); got shape {shape}."
MSG_NON_NUMERIC = (
    "{name} must be numeric; got dtype {dtype}. Encode categorical columns first "
    "(for example with sklearn.preprocessing.OneHotEncoder)."
)
MSG_NON_NUMERIC_COLUMNS = (
    "{name} must be numeric, but column(s) {columns} hold non-numeric values "
    "(for example {example!r}). Encode categorical columns first (for example with "
    "sklearn.preprocessing.OneHotEncoder), or leave them out."
)
MSG_NON_FINITE = "{name} contains NaN or infinity ({count} values); remove or impute them first."
MSG_MISSING = (
    "{name} contains missing values (NaN, None or NA){where}: {count} row(s), first at row "
    "{row}; remove or impute them first."
)
MSG_LENGTH = "{name} has {got} rows but {other} has {expected}; they must describe the same rows."
MSG_SINGLE_GROUP = (
    "sensitive attribute {attr!r} has a single group ({value!r}): the distance to the "
    "nearest row of another group is undefined. Drop this attribute or pass data in which "
    "it takes at least 2 values."
)
MSG_SENSITIVE_MISSING = (
    "sensitive attribute {attr!r} contains missing values (NaN, None or NA): {count} row(s), "
    "first at row {row}. A missing value is not a group: drop those rows, or fill them with "
    "an explicit value such as 'unknown'."
)
MSG_MIXED = (
    "{name} mixes values of types that cannot be compared ({types}); use one type per "
    "column (for example convert it with .astype(str))."
)
MSG_NO_SENSITIVE = "{name}: no sensitive column given; pass at least one."
MSG_LABEL_KINDS = (
    "y_true holds {true_kind} values and y_pred {pred_kind} values, so they cannot describe "
    "the same classes; give both with the same type (for example both as integers or both "
    "as strings)."
)
MSG_LABEL_NON_NUMERIC = (
    "{name} must be numeric here; got {dtype} values such as {example!r}."
)
MSG_WEIGHT_NON_NUMERIC = (
    "sample_weight must hold numbers, one non-negative weight per row; got values such as "
    "{example!r}."
)
MSG_WEIGHT_INVALID = (
    "sample_weight must be finite and non-negative; {count} weight(s) are not, first at "
    "row {row} ({value!r})."
)
MSG_COLUMN_MISSING = (
    "{name} column {col!r} is not in X ({where}).{hint} Give DataFrame column names or "
    "integer positions."
)
MSG_COLUMN_TWICE = "{name} names column {col!r} twice; name each column once."
MSG_NO_COLUMNS = "{name} is empty: name at least one column of X."
MSG_COLUMN_LIST_STRING = (
    "{name} must be a list of column names; got the string {value!r}, which would be read "
    "as a list of its characters. Write [{value!r}] for one column."
)
MSG_COMPLEX = "{name} holds complex numbers (dtype {dtype}); pass real values."


# --------------------------------------------------------------------------- frames

_FRAME_MODULES = ("pandas", "polars", "pyarrow", "modin", "cudf")


def _frame_library(obj):
    return type(obj).__module__.split(".")[0] in _FRAME_MODULES


def _narwhals(obj):
    """A narwhals DataFrame or Series for a frame library's object, else None."""
    if isinstance(obj, np.ndarray) or not _frame_library(obj):
        return None
    import narwhals as nw

    converted = nw.from_native(obj, eager_only=True, allow_series=True, pass_through=True)
    return None if converted is obj else converted


def is_dataframe(obj):
    """True for an eager DataFrame of pandas, polars or another narwhals library."""
    if isinstance(obj, np.ndarray) or not _frame_library(obj):
        return False
    import narwhals as nw

    return isinstance(_narwhals(obj), nw.DataFrame)


def is_series(obj):
    """True for an eager Series of pandas, polars or another narwhals library."""
    if isinstance(obj, np.ndarray) or not _frame_library(obj):
        return False
    import narwhals as nw

    return isinstance(_narwhals(obj), nw.Series)


def _series_to_numpy(series):
    """A narwhals Series as a numpy column: numbers stay numbers, missing is NaN/None.

    Numeric columns with missing values come back as float64 with NaN; other
    columns with missing values as object arrays holding None there.
    """
    values = series.to_numpy()
    if series.dtype.is_numeric() or values.dtype.kind in "biufcmM":
        if values.dtype == object:  # e.g. a nullable integer column read as objects
            missing = _object_missing(values)
            out = np.full(values.shape, np.nan)
            out[~missing] = values[~missing].astype(np.float64)
            return out
        return values
    if values.dtype == object:
        missing = series.is_null().to_numpy()
        missing = np.asarray(missing, dtype=bool) | _object_missing(values)
        if missing.any():
            values = values.copy()
            values[missing] = None
    return values


MSG_COLUMN_NAMES_CLASH = (
    "{name} has {count} columns named {label!r} ({names}); column names must be distinct "
    "as text, because results are labelled by them. Rename the columns, for example "
    "with frame.columns = [str(c) for c in frame.columns] after making them unique."
)


def _is_pandas_frame(obj):
    return type(obj).__module__.startswith("pandas") and hasattr(obj, "iloc") \
        and getattr(obj, "ndim", 0) == 2


def pandas_columns(frame, name="X", *, flatten=False):
    """``(names, series)`` of a pandas DataFrame, its columns taken by position.

    narwhals needs unique string-like column names; pandas allows
    MultiIndex columns (tuple names) and names of several types. With
    ``flatten``, a tuple name becomes its parts joined by ``" / "``
    (``("a", "s")`` -> ``"a / s"``), so that results are labelled by text.
    Names that read the same as text (``1`` and ``"1"``, or a name given
    twice) would label two results alike and are refused.
    """
    names = list(frame.columns)
    if flatten:
        names = [" / ".join(map(str, c)) if isinstance(c, tuple) else c for c in names]
    seen = {}
    for label in names:
        seen.setdefault(str(label), []).append(label)
    for label, same in seen.items():
        if len(same) > 1:
            raise ValueError(MSG_COLUMN_NAMES_CLASH.format(
                name=name, count=len(same), label=label,
                names=", ".join(repr(v) for v in same)))
    return names, [frame.iloc[:, k] for k in range(len(names))]


def _needs_positional(frame):
    """True for a pandas DataFrame whose column names narwhals cannot take."""
    import pandas as pd

    columns = frame.columns
    return isinstance(columns, pd.MultiIndex) or not all(isinstance(c, str) for c in columns) \
        or columns.has_duplicates


def frame_columns(obj):
    """``(names, columns)`` of a DataFrame or a Series, each column a numpy array.

    Columns are converted one by one, so that every column keeps its own
    type (a DataFrame's ``to_numpy()`` would turn a frame of integers and
    strings into one object array). pandas columns with MultiIndex, non-text
    or repeated names are taken by position (see :func:`pandas_columns`).
    """
    if _is_pandas_frame(obj) and _needs_positional(obj):
        names, series = pandas_columns(obj)
        return names, [_series_to_numpy(_narwhals(s.rename(None))) for s in series]
    frame = _narwhals(obj)
    if frame is None:
        raise TypeError(f"expected a DataFrame or a Series; got {type(obj).__name__}.")
    import narwhals as nw

    if isinstance(frame, nw.Series):
        name = frame.name
        return [name if name is not None else 0], [_series_to_numpy(frame)]
    names = list(frame.columns)
    return names, [_series_to_numpy(frame[c]) for c in names]


def as_pandas_frame(X):
    """A DataFrame of another library (polars, ...) as a pandas DataFrame, column by column.

    pandas DataFrames and anything that is not a DataFrame are returned as
    they are. Each column keeps its own type (numbers, strings, booleans) and
    missing values become NaN or None, with no pyarrow needed.
    """
    if not is_dataframe(X) or type(X).__module__.startswith("pandas"):
        return X
    import pandas as pd

    names, columns = frame_columns(X)
    return pd.DataFrame(dict(zip(names, columns)), columns=names)


def _object_missing(values):
    """Boolean mask of None, NaN, NaT and pd.NA in an object array."""
    return np.fromiter(
        (v is None or (isinstance(v, float) and v != v)
         or type(v).__name__ in ("NAType", "NaTType") for v in values),
        dtype=bool, count=values.shape[0])


def _missing_mask(col):
    if col.dtype.kind == "f":
        return np.isnan(col)
    if col.dtype.kind == "c":
        return np.isnan(col.real) | np.isnan(col.imag)
    if col.dtype.kind in "mM":
        return np.isnat(col)
    if col.dtype == object:
        return _object_missing(col)
    return np.zeros(col.shape[0], dtype=bool)


def _raise_missing(mask, name, where=""):
    count = int(mask.sum())
    row = int(np.flatnonzero(mask)[0])
    raise ValueError(MSG_MISSING.format(name=name, count=count, where=where, row=row))


def _example(values):
    values = np.asarray(values).reshape(-1)
    return values[0].item() if values.size and hasattr(values[0], "item") else (
        values[0] if values.size else None)


def is_int(value):
    """True for an integer that is not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


# --------------------------------------------------------------------------- features

def _numeric_object_column(col):
    """An object column of numbers (and bools) as float64, or None if it holds others."""
    try:
        kinds = {type(v) for v in col.tolist()}
    except AttributeError:
        return None
    if all(issubclass(k, (numbers.Real, np.bool_)) and not issubclass(k, (str, bytes))
           for k in kinds):
        return col.astype(np.float64)
    return None


def check_features(X, *, name="X"):
    """Return ``X`` as a C-contiguous float64 2-D array, finite and numeric.

    Accepts numpy arrays, lists, and pandas or polars DataFrames (pandas'
    nullable numeric and boolean dtypes included). Missing values, text and
    complex numbers raise with the offending columns named. The caller's
    object is never modified: a copy is made whenever the dtype or layout
    changes, and the engine only reads the result.
    """
    if is_dataframe(X):
        names, columns = frame_columns(X)
        if not columns:
            raise ValueError(MSG_NOT_2D.format(name=name, shape=(len(X), 0)))
        converted, non_numeric = [], []
        for col_name, col in zip(names, columns):
            missing = _missing_mask(col)
            if missing.any():
                _raise_missing(missing, name, where=f" in column {col_name!r}")
            if col.dtype.kind in "biuf":
                converted.append(col.astype(np.float64, copy=False))
                continue
            numeric = _numeric_object_column(col) if col.dtype == object else None
            if numeric is None:
                non_numeric.append((col_name, col))
            else:
                converted.append(numeric)
        if non_numeric:
            raise TypeError(MSG_NON_NUMERIC_COLUMNS.format(
                name=name, columns=[c for c, _ in non_numeric][:10],
                example=_example(non_numeric[0][1])))
        X = np.column_stack(converted)
    else:
        X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(MSG_NOT_2D.format(name=name, shape=X.shape))
    if X.shape[0] == 0:
        raise ValueError(MSG_EMPTY.format(name=name))
    if X.dtype.kind == "c":
        raise TypeError(MSG_COMPLEX.format(name=name, dtype=X.dtype))
    if X.dtype == object:
        for j in range(X.shape[1]):
            missing = _object_missing(X[:, j])
            if missing.any():
                _raise_missing(missing, name, where=f" in column {j}")
        numeric = [_numeric_object_column(X[:, j]) for j in range(X.shape[1])]
        bad = [j for j, col in enumerate(numeric) if col is None]
        if bad:
            raise TypeError(MSG_NON_NUMERIC_COLUMNS.format(
                name=name, columns=bad[:10], example=_example(X[:, bad[0]])))
        X = np.column_stack(numeric) if numeric else X.astype(np.float64)
    elif not (np.issubdtype(X.dtype, np.number) or np.issubdtype(X.dtype, np.bool_)):
        raise TypeError(MSG_NON_NUMERIC.format(name=name, dtype=X.dtype))
    X = np.ascontiguousarray(X, dtype=np.float64)
    _check_finite(X, name)
    return X


def check_complete(X, *, name="X"):
    """Raise, naming the column, when a DataFrame or an array holds a missing value.

    Missing: ``None``, ``NaN``, ``NaT`` and ``pd.NA`` (in object, string,
    nullable and float columns alike), so that ``None`` among strings is not
    taken for a number and ``pd.NA`` never reaches a comparison. Other
    inputs (lists, ...) are checked as numpy arrays; 1-D and 2-D only.
    """
    if _is_pandas_frame(X):  # pandas' isna is vectorised, object columns included
        missing = X.isna().to_numpy()
        if missing.any():
            j = int(np.flatnonzero(missing.any(axis=0))[0])
            _raise_missing(missing[:, j], name, where=f" in column {X.columns[j]!r}")
        return
    if is_dataframe(X):
        names, columns = frame_columns(X)
    else:
        arr = X if isinstance(X, np.ndarray) else np.asarray(X, dtype=object)
        if arr.ndim != 2 or arr.dtype.kind not in "fcmMO":
            return
        names = list(range(arr.shape[1]))
        columns = [arr[:, j] for j in names]
    for column, col in zip(names, columns):
        missing = _missing_mask(col)
        if missing.any():
            _raise_missing(missing, name, where=f" in column {column!r}")


def _check_finite(arr, name):
    if arr.dtype.kind in "biu":  # always finite: no boolean copy of the column
        return
    finite = np.isfinite(arr)
    if not finite.all():
        count = int(arr.size - finite.sum())
        raise ValueError(MSG_NON_FINITE.format(name=name, count=count))


# --------------------------------------------------------------------------- labels

def column_1d(y, name):
    """Return ``y`` as a 1-D ndarray; a column vector or a one-column frame is accepted.

    pandas and polars Series and one-column DataFrames are converted column
    by column (nullable dtypes to their values, missing values to NaN or None).
    """
    if is_dataframe(y):
        names, columns = frame_columns(y)
        if len(columns) != 1:
            raise ValueError(MSG_NOT_1D.format(name=name, shape=(len(y), len(columns))))
        y = columns[0]
    elif is_series(y):
        y = frame_columns(y)[1][0]
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(MSG_NOT_1D.format(name=name, shape=y.shape))
    return y


def _kind(y):
    if y.dtype.kind in "biuf":
        return "numeric"
    if y.dtype.kind in "US":
        return "string"
    if y.dtype == object:
        kinds = {type(v) for v in y.tolist()}
        if all(issubclass(k, (numbers.Real, np.bool_)) for k in kinds):
            return "numeric"
        if all(issubclass(k, (str, np.str_)) for k in kinds):
            return "string"
        return "mixed"
    return y.dtype.name


def check_pair(y_true, y_pred):
    """Two label vectors of equal length as 1-D arrays, with no missing value.

    Both must hold the same kind of values (numbers, or strings): ``"1"`` and
    ``1`` are different classes, and numpy would silently turn the integers
    into strings. Numeric labels come back as numeric arrays.
    """
    y_true = column_1d(y_true, "y_true")
    y_pred = column_1d(y_pred, "y_pred")
    if y_pred.shape[0] != y_true.shape[0]:
        raise ValueError(MSG_LENGTH.format(name="y_pred", got=y_pred.shape[0],
                                           other="y_true", expected=y_true.shape[0]))
    if y_true.shape[0] == 0:
        raise ValueError(MSG_EMPTY.format(name="y_true"))
    pair = []
    for name, y in (("y_true", y_true), ("y_pred", y_pred)):
        if y.dtype.kind == "c":
            raise TypeError(MSG_COMPLEX.format(name=name, dtype=y.dtype))
        if y.dtype == object:  # NaN in a float column is reported with infinity below
            missing = _missing_mask(y)
            if missing.any():
                _raise_missing(missing, name)
        kind = _kind(y)
        if kind == "mixed":
            raise TypeError(MSG_MIXED.format(name=name, types=_type_names(y)))
        if kind == "numeric" and y.dtype == object:
            y = y.astype(np.float64)
        pair.append((y, kind))
    (y_true, true_kind), (y_pred, pred_kind) = pair
    if true_kind != pred_kind:
        raise TypeError(MSG_LABEL_KINDS.format(true_kind=true_kind, pred_kind=pred_kind))
    if true_kind == "numeric":
        _check_finite(y_true, "y_true")
        _check_finite(y_pred, "y_pred")
    return y_true, y_pred


def label_coordinates(y_true, y_pred):
    """Both labels as float64 coordinates (HFM paper, Eq. 9), after :func:`check_pair`.

    Numeric labels are used as they are; string labels are coded jointly
    ``0 .. k-1`` in sorted order, so that equal classes get equal codes.
    """
    y_true, y_pred = check_pair(y_true, y_pred)
    if y_true.dtype.kind not in "biuf":
        classes = np.union1d(y_true, y_pred)
        y_true = np.searchsorted(classes, y_true)
        y_pred = np.searchsorted(classes, y_pred)
    return y_true.astype(np.float64), y_pred.astype(np.float64)


def check_label(y, n_samples, *, name="y"):
    """Return a numeric label vector as float64 of length ``n_samples``.

    The label is a coordinate of the points (HFM paper, Eq. 9), so it must be
    numeric: booleans and integers are accepted, strings are not.
    """
    y = column_1d(y, name)
    if y.shape[0] != n_samples:
        raise ValueError(MSG_LENGTH.format(name=name, got=y.shape[0], other="X",
                                           expected=n_samples))
    if y.dtype == object:  # NaN in a float column is reported with infinity below
        missing = _missing_mask(y)
        if missing.any():
            _raise_missing(missing, name)
    if _kind(y) != "numeric":
        raise TypeError(MSG_LABEL_NON_NUMERIC.format(name=name, dtype=y.dtype,
                                                     example=_example(y)))
    y = np.asarray(y, dtype=np.float64)
    _check_finite(y, name)
    return y


def check_sample_weight(sample_weight, n_samples, *, other="y_true"):
    """``None``, or the weights as float64 of length ``n_samples``, finite and >= 0.

    Weights whose sums could overflow (or that are all subnormal) come back
    divided by their largest value, which changes no rate.
    """
    if sample_weight is None:
        return None
    w = column_1d(sample_weight, "sample_weight")
    if w.shape[0] != n_samples:
        raise ValueError(MSG_LENGTH.format(name="sample_weight", got=w.shape[0],
                                           other=other, expected=n_samples))
    if _kind(w) != "numeric":
        raise TypeError(MSG_WEIGHT_NON_NUMERIC.format(example=_example(w)))
    w = np.asarray(w, dtype=np.float64)
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(MSG_WEIGHT_INVALID.format(count=int(bad.sum()), row=row,
                                                   value=float(w[row])))
    return _normalised_weights(w)


#: weights whose largest is outside [WEIGHT_TINY, finfo.max / n] are divided by it
WEIGHT_TINY = 1e-200


def _normalised_weights(w):
    """``w`` divided by its largest value when sums of ``w`` could leave float64's range.

    Every rate is a ratio of weighted sums, so a common factor changes none
    of them; but weights of 1e308 overflow to ``inf`` when summed (and make
    every rate ``inf / inf``), and subnormal weights lose their precision.
    A sum over ``n`` rows (or ``n`` resampled rows) is at most ``n`` times
    the largest weight, so weights are rescaled to a largest of 1 whenever
    that bound overflows or the largest weight is below :data:`WEIGHT_TINY`.
    The caller's array is never modified.
    """
    top = float(w.max()) if w.size else 0.0
    if top == 0.0:
        return w
    with np.errstate(over="ignore"):
        overflows = not np.isfinite(np.float64(top) * max(w.shape[0], 1))
    if overflows or top < WEIGHT_TINY:
        return w / top
    return w


# --------------------------------------------------------------------------- sensitive

def _type_names(col):
    return ", ".join(sorted({type(v).__name__ for v in col.tolist()}))


def small_int_bounds(y):
    """``(lowest, highest)`` of an integer (or bool) array whose range is small enough for
    bincount (at most about 4 per row), else None."""
    if y.dtype.kind not in "biu" or y.size == 0:
        return None
    lo, hi = int(y.min()), int(y.max())
    if hi - lo <= 4 * y.size + 1024 and hi <= np.iinfo(np.intp).max:
        return lo, hi
    return None


#: rows converted to intp at a time when small integers are counted
_COUNT_BLOCK = 1 << 20


def small_int_counts(y, lo, size):
    """``np.bincount(y - lo, minlength=size)`` block by block.

    The subtraction is made in intp, so an int8 column from -128 to 127 does
    not wrap, and no intp copy of the whole column is made (8 bytes a row).
    """
    counts = np.zeros(size, dtype=np.int64)
    if y.dtype.kind == "b":
        y = y.view(np.uint8)
    for start in range(0, y.shape[0], _COUNT_BLOCK):
        block = y[start:start + _COUNT_BLOCK].astype(np.intp)
        block -= lo
        counts += np.bincount(block, minlength=size)
    return counts


def fast_unique(y):
    """``np.unique(y)`` in O(n) for small-range integers (sorting 1e6 rows costs ~50 ms)."""
    bounds = small_int_bounds(y)
    if bounds is not None:
        lo, hi = bounds
        if hi - lo <= 1:  # the lowest and the highest occur: nothing else to count
            return np.array(sorted({lo, hi}), dtype=y.dtype)
        present = np.flatnonzero(small_int_counts(y, lo, hi - lo + 1))
        return (present + lo).astype(y.dtype, copy=False)
    return np.unique(y)


def encode_column(col, attr, *, min_groups=2):
    """``(codes, values)`` of one sensitive column: codes ``0..g-1`` of the sorted values.

    ``col`` is a numpy array or a pandas Series. Missing values and values
    of types that cannot be ordered together raise, naming ``attr``; fewer
    than ``min_groups`` distinct values raise :data:`MSG_SINGLE_GROUP`.
    """
    bounds = small_int_bounds(col) if isinstance(col, np.ndarray) else None
    if bounds is not None:
        lo = bounds[0]
        shifted = col.astype(np.intp)
        shifted -= lo  # in intp: an int8 column from -128 to 127 does not wrap
        counts = np.bincount(shifted)
        present = np.flatnonzero(counts)
        lookup = np.zeros(counts.shape[0], dtype=np.intp)
        lookup[present] = np.arange(present.shape[0])
        codes, values = lookup[shifted], (present + lo).astype(col.dtype, copy=False)
    elif not isinstance(col, np.ndarray):  # a pandas Series: hashing beats sorting strings
        import pandas as pd

        codes = None
        if col.dtype == object and pd.api.types.infer_dtype(col, skipna=True) in (
                "mixed", "mixed-integer"):  # pandas would order "a" and 1 silently
            return encode_column(_series_to_numpy(_narwhals(col)), attr, min_groups=min_groups)
        try:
            codes, values = pd.factorize(col, sort=True)
        except TypeError:
            pass
        if codes is None or (codes.size and codes.min() < 0):
            return encode_column(_series_to_numpy(_narwhals(col)), attr, min_groups=min_groups)
        values = np.asarray(values)
        codes = codes.astype(np.intp, copy=False)
    else:
        if col.dtype.kind == "c":
            raise TypeError(MSG_COMPLEX.format(name=f"sensitive attribute {attr!r}",
                                               dtype=col.dtype))
        missing = _missing_mask(col)
        if missing.any():
            raise ValueError(MSG_SENSITIVE_MISSING.format(
                attr=attr, count=int(missing.sum()), row=int(np.flatnonzero(missing)[0])))
        if col.dtype == object and _kind(col) == "mixed":
            raise TypeError(MSG_MIXED.format(name=f"sensitive attribute {attr!r}",
                                             types=_type_names(col)))
        try:
            values, codes = np.unique(col, return_inverse=True)
        except TypeError:  # e.g. a mix of numeric types numpy cannot order
            raise TypeError(MSG_MIXED.format(name=f"sensitive attribute {attr!r}",
                                             types=_type_names(col))) from None
        codes = codes.reshape(-1).astype(np.intp, copy=False)
    if values.shape[0] < min_groups:
        raise ValueError(MSG_SINGLE_GROUP.format(
            attr=attr, value=values[0] if values.shape[0] else None))
    return codes, values


def encode_sensitive(sensitive_features, n_samples, *, name="sensitive_features"):
    """Encode one or several sensitive columns as integer group codes.

    Parameters
    ----------
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
        A 1-D array, list or Series (one attribute), or a 2-D array, list of
        rows or DataFrame (one attribute per column) of pandas or polars.
        Any values that can be ordered within a column (strings, integers,
        categories, booleans).
    n_samples : int
        The number of rows the columns must have.
    name : str, default="sensitive_features"
        The argument's name, for the messages.

    Returns
    -------
    codes : list of ndarray of shape (n_samples,), dtype intp
        Codes ``0 .. n_groups - 1`` per attribute.
    names : list
        Column names (DataFrame, named Series) or positions.
    groups : list of ndarray
        The sorted distinct values per attribute (``groups[k][codes[k]]`` gives
        the original values back).
    """
    names, columns = sensitive_columns(sensitive_features, n_samples, name=name)
    codes, groups = [], []
    for attr, col in zip(names, columns):
        code, values = encode_column(col, attr)
        codes.append(code)
        groups.append(values)
    return codes, names, groups


def sensitive_columns(sensitive_features, n_samples, *, name="sensitive_features"):
    """The names and the columns of :func:`encode_sensitive`'s input, not yet encoded.

    Each column is a numpy array (integer and boolean columns as they are, no
    copy) or a pandas Series, of length ``n_samples``; what
    :func:`encode_column` takes.
    """
    A = sensitive_features
    frame = _narwhals(A) if not (_is_pandas_frame(A) and _needs_positional(A)) else None
    if frame is None and _is_pandas_frame(A):  # MultiIndex or non-text column names
        names, native = pandas_columns(A, name, flatten=True)
        columns = [s.to_numpy() if s.dtype.kind in "biu" else s.rename(None)
                   for s in native]
    elif frame is not None:
        import narwhals as nw

        if isinstance(frame, nw.Series):
            names = [frame.name if frame.name is not None else 0]
            series = [frame]
        else:
            names = list(frame.columns)
            series = [frame[c] for c in names]
        if type(A).__module__.startswith("pandas"):
            native = [s.to_native() for s in series]
            columns = [s.to_numpy() if s.dtype.kind in "biu" else s for s in native]
        else:
            columns = [_series_to_numpy(s) for s in series]
    else:
        arr = np.asarray(A) if not isinstance(A, np.ndarray) else A
        if arr.ndim == 1:
            names, columns = [0], [arr]
        elif arr.ndim == 2:
            names = list(range(arr.shape[1]))
            columns = [arr[:, k] for k in range(arr.shape[1])]
        else:
            raise ValueError(MSG_NOT_2D.format(name=name, shape=arr.shape))
    if not columns:
        raise ValueError(MSG_NO_SENSITIVE.format(name=name))
    for attr, col in zip(names, columns):
        if len(col) != n_samples:
            raise ValueError(MSG_LENGTH.format(name=f"{name} {attr!r}", got=len(col),
                                               other="X", expected=n_samples))
    return names, columns


# --------------------------------------------------------------------------- columns

def as_column_list(value, name):
    """A list of column names or positions; a bare string is refused, not split."""
    if isinstance(value, (str, bytes)):
        raise TypeError(MSG_COLUMN_LIST_STRING.format(name=name, value=value))
    return list(value)


def locate_column(column, names, *, has_names=True):
    """The position of ``column`` among ``names``, or None: the one rule of the package.

    A name that is in ``names`` is that column; otherwise an integer (not a
    bool) in ``-len(names) .. len(names) - 1`` is a position. Without names
    (``has_names=False``, a plain array) only positions count.
    """
    if has_names and column in names:
        return list(names).index(column)
    if is_int(column) and -len(names) <= column < len(names):
        return int(column) % len(names)
    return None


def did_you_mean(column, names, *, limit=3):
    """`` Did you mean 'x'?`` for the names closest to ``column`` (case ignored), or ''."""
    by_lower = {}
    for n in names:
        by_lower.setdefault(str(n).lower(), n)
    close = difflib.get_close_matches(str(column).lower(), list(by_lower), n=limit)
    return f" Did you mean {', '.join(repr(by_lower[c]) for c in close)}?" if close else ""


def resolve_columns(X, columns, *, name="sensitive"):
    """Positions and names of some columns of ``X``.

    ``columns`` is one column or a list: DataFrame column names, or integer
    positions (for a DataFrame, an integer that is not a column name is a
    position). An unknown name raises with the closest names offered.
    """
    cols = list(columns) if isinstance(columns, (list, tuple, np.ndarray)) else [columns]
    if not cols:
        raise ValueError(MSG_NO_COLUMNS.format(name=name))
    has_names = is_dataframe(X)
    names_in = list(_narwhals(X).columns) if has_names else \
        list(range(np.shape(X)[1] if np.ndim(X) == 2 else 0))
    positions = []
    for col in cols:
        pos = locate_column(col, names_in, has_names=has_names)
        if pos is None:
            where = (f"columns {names_in[:10]!r}{'...' if len(names_in) > 10 else ''}"
                     if has_names else f"an array with {len(names_in)} columns")
            hint = did_you_mean(col, names_in) if has_names else ""
            raise ValueError(MSG_COLUMN_MISSING.format(name=name, col=col, where=where,
                                                       hint=hint))
        positions.append(pos)
    names = [names_in[p] for p in positions]
    if len(set(positions)) != len(positions):
        twice = next(n for k, n in enumerate(names) if n in names[:k])
        raise ValueError(MSG_COLUMN_TWICE.format(name=name, col=twice))
    return positions, names


def split_columns(X, positions, *, drop):
    """``(A, X_rest)``: the columns at ``positions``, and ``X`` without them when ``drop``.

    DataFrames stay DataFrames of their own library.
    """
    if is_dataframe(X):
        frame = _narwhals(X)
        names = list(frame.columns)
        chosen = [names[p] for p in positions]
        A = frame.select(chosen).to_native()
        rest = frame.drop(chosen).to_native() if drop else X
        return A, rest
    X = np.asarray(X)
    A = X[:, positions]
    rest = np.delete(X, positions, axis=1) if drop else X
    return A, rest
