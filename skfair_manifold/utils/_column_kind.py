"""The kind of a column: number, text or category, boolean or date, read in one place.

Every part of the package that must know what a column holds (the features'
check, the labels' check, the distance engine's conversion, the auditor's
records, the group-by of a frame) asks :func:`column_kind` and maps its
answer to what it needs. The reader takes a numpy array (its dtype; for an
object array, the types of its values), a numpy or pandas dtype, or a polars
or narwhals dtype, and answers in a small fixed vocabulary, :data:`KINDS`:

``"bool"``
    booleans (``bool``, ``np.bool_``, pandas' ``boolean``, polars' ``Boolean``);
``"int"``
    integers that are not booleans (signed or unsigned, any size);
``"float"``
    other real numbers: floats, a decimal dtype, or an object array of
    numbers of several kinds (integers and floats, booleans and integers);
``"complex"``
    complex numbers;
``"datetime"``
    dates, times and durations (see below);
``"text"``
    strings and categories (``str`` and ``bytes`` dtypes, pandas' ``string``,
    ``str`` and ``category`` dtypes, polars' ``String``, ``Categorical`` and
    ``Enum``; an object array of ``str``);
``"mixed"``
    an object array whose values are of several of these kinds (strings and
    numbers, numbers and ``None``, ...);
``"empty"``
    an object array with no value to read;
``"other"``
    anything else (structs, lists, binary, an object dtype without values,
    an object array of ``None`` or of ``Decimal`` values, which are not
    ``numbers.Real``).

The datetime rule, the one of the package: a numpy or pandas dtype of kind
``"M"`` or ``"m"``, or whose name says ``datetime`` or ``timedelta`` (pandas'
time-zone-aware dtypes); a polars or narwhals ``Date``, ``Datetime``, ``Time``
or ``Duration``; a value with a ``year`` and a ``month`` (``datetime.date``,
``datetime.datetime``, ``pd.Timestamp``).
"""

import numbers
import re

import numpy as np

__all__ = ["KINDS", "NUMBER_KINDS", "column_kind", "value_kind"]

#: the reader's vocabulary
KINDS = ("bool", "int", "float", "complex", "datetime", "text", "mixed", "empty", "other")

#: the kinds whose values are real numbers (float64 holds them)
NUMBER_KINDS = ("bool", "int", "float")

#: numpy dtype kinds (pandas' dtypes carry one too)
_NUMPY_KINDS = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex",
                "M": "datetime", "m": "datetime", "U": "text", "S": "text"}

#: pandas' dtypes of kind "O" that hold text or categories, by name
_PANDAS_TEXT = ("category", "str", "string")

#: polars and narwhals dtypes by their class's name
_CLASS_KINDS = {"boolean": "bool", "decimal": "float", "string": "text", "utf8": "text",
                "categorical": "text", "enum": "text", "date": "datetime",
                "datetime": "datetime", "time": "datetime", "duration": "datetime"}


def column_kind(values_or_dtype):
    """The kind of a column's values, one of :data:`KINDS`.

    Parameters
    ----------
    values_or_dtype : ndarray, Series, or dtype
        A numpy array (an object array is read value by value), a pandas or
        polars Series (read by its dtype; a pandas Series of dtype object by
        its values), or a numpy, pandas, polars or narwhals dtype (a class or
        an instance).

    Returns
    -------
    kind : str
        ``"bool"``, ``"int"``, ``"float"``, ``"complex"``, ``"datetime"``,
        ``"text"``, ``"mixed"``, ``"empty"`` or ``"other"`` (see the module).

    Examples
    --------
    >>> import numpy as np
    >>> from skfair_manifold.utils._column_kind import column_kind
    >>> column_kind(np.array([1, 2])), column_kind(np.array(["a", "b"]))
    ('int', 'text')
    >>> column_kind(np.array([1, 2.5], dtype=object)), column_kind(np.array([1, "a"], dtype=object))
    ('float', 'mixed')
    >>> column_kind(np.dtype("datetime64[ns]"))
    'datetime'
    """
    if isinstance(values_or_dtype, np.ndarray):
        if values_or_dtype.dtype == object:
            return _values_kind(values_or_dtype.reshape(-1).tolist())
        return _dtype_kind(values_or_dtype.dtype)
    dtype = getattr(values_or_dtype, "dtype", None)
    if dtype is not None and not isinstance(values_or_dtype, type):  # a Series
        if isinstance(dtype, np.dtype) and dtype == object:
            return _values_kind(list(values_or_dtype))
        return _dtype_kind(dtype)
    return _dtype_kind(values_or_dtype)


def value_kind(value):
    """The kind of one value: ``"bool"``, ``"int"``, ``"float"``, ``"complex"``,
    ``"datetime"``, ``"text"`` or ``"other"`` (``None`` is ``"other"``)."""
    return _type_kind(type(value))


def _type_kind(kind):
    if issubclass(kind, (bool, np.bool_)):
        return "bool"
    if issubclass(kind, numbers.Integral):
        return "int"
    if issubclass(kind, numbers.Real):
        return "float"
    if issubclass(kind, numbers.Complex):
        return "complex"
    if issubclass(kind, str):
        return "text"
    if hasattr(kind, "year") and hasattr(kind, "month"):  # the datetime rule of values
        return "datetime"
    return "other"


def _values_kind(values):
    """The kind of a list of values: theirs when they share one, else ``"mixed"``."""
    kinds = {_type_kind(t) for t in {type(v) for v in values}}
    if not kinds:
        return "empty"
    if len(kinds) == 1:
        return kinds.pop()
    if kinds <= set(NUMBER_KINDS):  # numbers of several kinds: real numbers all
        return "float"
    return "mixed"


def _dtype_kind(dtype):
    kind = getattr(dtype, "kind", None)
    if isinstance(kind, str) and len(kind) == 1:  # a numpy or pandas dtype
        name = str(dtype).lower()
        if kind in "Mm" or "datetime" in name or "timedelta" in name:  # the datetime rule
            return "datetime"
        if kind in _NUMPY_KINDS:
            return _NUMPY_KINDS[kind]
        return "text" if name in _PANDAS_TEXT or name.startswith("string") else "other"
    # a polars or narwhals dtype (a class or an instance): by its class's name
    name = (dtype if isinstance(dtype, type) else type(dtype)).__name__.lower()
    if name in _CLASS_KINDS:
        return _CLASS_KINDS[name]
    if re.fullmatch(r"u?int\d+", name):
        return "int"
    if re.fullmatch(r"float\d+", name):
        return "float"
    return "other"
