"""The fitted records: attribute kinds, encoding, bins, units and look-ups.

Everything the two selectors need to know about the data, computed once at
``fit`` and applied to every query:

* the kind of each column (nominal, ordinal or interval), declared or
  inferred, and the checks that make a bad column a clear error;
* the encoding: numbers stay numbers, strings become the index of their
  sorted fitted category (an unseen category gets -1);
* the bins of the interval columns (``_discretize``: supervised MDL cuts or
  quantiles), used by CBN-DD and the structure search (KNN-DD keeps interval
  columns continuous);
* the identifier-like columns, left out of the attributes compared;
* the *units*: records identical in every column and in the decision; and
  the look-up of a query row among them (a query equal to a fitted record is
  taken to be that person, see the auditor's Notes).
"""

import hashlib
import warnings

import numpy as np

from ..utils._column_kind import column_kind, value_kind
from ..utils._validation import did_you_mean, locate_column
from ._discretize import bin_edges

MSG_KIND_COLUMN = "{param} names {column!r}, which is not a column of X.{hint}"
MSG_KIND_TWICE = "column {column!r} is declared both {first} and {second}; give it one kind."
MSG_STRING_ORDINAL = (
    "column {column!r} holds strings, so it can only be nominal; remove it from {param}."
)
MSG_MIXED_TYPES = (
    "column {column!r} mixes strings and numbers (for instance {a!r} and {b!r}); make it one "
    "type: all strings (a nominal attribute) or all numbers."
)
MSG_DATETIME = (
    "column {column!r} holds dates or times, which situation testing cannot compare; convert "
    "it to a number (for instance days since a reference date) and declare it interval."
)
MSG_NOT_FINITE = (
    "column {column!r} holds an infinite value; situation testing needs finite numbers."
)
MSG_RANGE_OVERFLOW = (
    "column {column!r} spans a range that overflows float64 (from {low:g} to {high:g}); "
    "rescale it (for instance divide it by a power of ten)."
)
MSG_IDENTIFIER = (
    "column(s) {columns} look like identifiers (nearly every value distinct) and are left out "
    "of the attributes compared; declare a column interval if it is a measurement."
)

KINDS = ("nominal", "ordinal", "interval")
MAX_ORDINAL_LEVELS = 32  # an undeclared integer column with more levels is interval
IDENTIFIER_SHARE = 0.95  # an undeclared column with this share of distinct values is an id


#: the numpy stand-in of a dtype without a numpy ``kind`` (polars), by its column kind
_STAND_INS = {"datetime": np.dtype("datetime64[ns]"), "int": np.dtype(np.float64),
              "float": np.dtype(np.float64)}


def _column_dtypes(X):
    """The dtype of each DataFrame column (None for arrays).

    Dtypes without a numpy ``kind`` (polars, for instance) are described by
    a stand-in with one, from their :func:`~..utils._column_kind.column_kind`:
    ``"M"`` for dates and times, ``"f"`` for numbers, ``"O"`` otherwise.
    """
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(X, "columns"):
        return None
    return [dt if hasattr(dt, "kind") else _STAND_INS.get(column_kind(dt), np.dtype(object))
            for dt in dtypes]


def _is_datetime(dtype):
    return column_kind(dtype) == "datetime"


def check_no_datetime(X):
    """A clear error for a datetime column of a DataFrame, before any conversion."""
    dtypes = _column_dtypes(X)
    if dtypes is None:
        dt = getattr(X, "dtype", None)
        if dt is not None and _is_datetime(dt):
            raise TypeError(MSG_DATETIME.format(column="(all)"))
        return
    for name, dt in zip(list(X.columns), dtypes):
        if _is_datetime(dt):
            raise TypeError(MSG_DATETIME.format(column=name))


def _resolve(columns, items, param):
    """Positions of the columns named in ``items`` (names or positions)."""
    out = []
    for c in items:
        pos = locate_column(c, columns)
        if pos is None:
            hint = did_you_mean(c, columns) or f" Its columns are {columns}."
            raise ValueError(MSG_KIND_COLUMN.format(param=param, column=c, hint=hint))
        out.append(pos)
    return out


class Records:
    """Kinds, encoding and bins of the fitted columns.

    Parameters
    ----------
    X_raw : the user's X (for its dtypes)
    X : ndarray of shape (n, p)
        ``validate_data``'s output (object or numeric).
    columns : list
        Column names (positions for arrays).
    protected_index : int
    declared : dict
        ``kind -> list of columns`` from the auditor's ``nominal``,
        ``ordinal`` and ``interval`` parameters.
    """

    def __init__(self, X_raw, X, columns, protected_index, declared):
        n, p = X.shape
        self.columns = columns
        self.protected_index = protected_index
        dtypes = _column_dtypes(X_raw)
        kind_of = {}
        for kind in KINDS:
            for j in _resolve(columns, declared.get(kind) or (), kind):
                if j in kind_of and kind_of[j] != kind:
                    raise ValueError(MSG_KIND_TWICE.format(column=columns[j], first=kind_of[j],
                                                           second=kind))
                kind_of[j] = kind
        self.categories = {}
        Z = np.empty((n, p), dtype=np.float64)
        nominal_dtype = set()
        for j in range(p):
            col = X[:, j]
            dt = dtypes[j] if dtypes is not None else col.dtype
            if _is_datetime(dt) or _is_datetime(col.dtype):
                raise TypeError(MSG_DATETIME.format(column=columns[j]))
            if col.dtype == object:
                self._read_objects(j, col)
            if dtypes is not None and column_kind(dt) not in ("int", "float") and \
                    j not in self.categories:
                nominal_dtype.add(j)  # bool, categorical of numbers, ...
            if column_kind(col.dtype) == "bool":
                nominal_dtype.add(j)
            Z[:, j] = self._encode_column(j, col)
        self.Z = Z
        self._check_finite(Z)
        self.kinds = {}
        self.identifiers = []
        for j in range(p):
            declared_kind = kind_of.get(j)
            if j in self.categories and declared_kind not in (None, "nominal"):
                raise ValueError(MSG_STRING_ORDINAL.format(column=columns[j],
                                                           param=declared_kind))
            if declared_kind is not None:
                kind = declared_kind
            elif j in self.categories or j in nominal_dtype:
                kind = "nominal"
            else:
                values = np.unique(Z[:, j])
                integral = bool(np.all(values == np.round(values)))
                kind = "ordinal" if integral and values.shape[0] <= MAX_ORDINAL_LEVELS \
                    else "interval"
            self.kinds[j] = "nominal" if j == protected_index else kind
            if j != protected_index and declared_kind != "interval" and \
                    self._identifier_like(j):
                self.identifiers.append(j)
        if self.identifiers:
            warnings.warn(MSG_IDENTIFIER.format(
                columns=", ".join(repr(columns[j]) for j in self.identifiers)), UserWarning,
                stacklevel=4)
        self.nominal = np.array([self.kinds[j] == "nominal" for j in range(p)])
        self.interval = np.array([self.kinds[j] == "interval" for j in range(p)])
        self.low = Z.min(axis=0) if n else np.zeros(p)
        self.high = Z.max(axis=0) if n else np.zeros(p)
        with np.errstate(over="ignore", invalid="ignore"):
            ranges = self.high - self.low
        for j in range(p):
            if not np.isfinite(ranges[j]):
                raise ValueError(MSG_RANGE_OVERFLOW.format(column=columns[j], low=self.low[j],
                                                           high=self.high[j]))
        self.ranges = ranges
        self.bin_edges = {}  # made by fit_bins once the decision is known

    def fit_bins(self, positive, *, n_bins, binning):
        """Edges of at most ``n_bins`` bins of every interval column (``_discretize``).

        ``positive`` is the decision, which the supervised ``"mdlp"`` rule needs.
        """
        self.bin_edges = {int(j): bin_edges(self.Z[:, j], positive, n_bins=n_bins,
                                            binning=binning)
                          for j in np.flatnonzero(self.interval)}
        return self

    def _read_objects(self, j, col):
        """An object column: its sorted categories when it holds strings, else a clear
        error for strings among other values or for dates (a number column passes)."""
        kind = column_kind(col)
        if kind == "mixed":
            strings = np.fromiter((value_kind(v) == "text" for v in col), bool, col.shape[0])
            if strings.any():
                a, b = col[np.argmax(strings)], col[np.argmin(strings)]
                if value_kind(b) == "datetime":
                    raise TypeError(MSG_DATETIME.format(column=self.columns[j]))
                raise TypeError(MSG_MIXED_TYPES.format(column=self.columns[j], a=a, b=b))
        if kind in ("text", "empty"):  # an empty column holds nothing but strings
            self.categories[j] = np.unique(col.astype(str))
        elif col.shape[0] and value_kind(col[0]) == "datetime":
            raise TypeError(MSG_DATETIME.format(column=self.columns[j]))

    # --- encoding ---------------------------------------------------------------------
    def _encode_column(self, j, col):
        if j in self.categories:
            cats = self.categories[j]
            s = col.astype(str)
            pos = np.minimum(np.searchsorted(cats, s), cats.shape[0] - 1)
            return np.where(cats[pos] == s, pos, -1).astype(np.float64)
        if col.dtype == object:
            bad = [v for v in col[:1000] if value_kind(v) == "text"]
            if bad:
                raise TypeError(MSG_MIXED_TYPES.format(column=self.columns[j], a=bad[0],
                                                       b=next((v for v in col if value_kind(v)
                                                               != "text"), bad[0])))
            if col.shape[0] and value_kind(col[0]) == "datetime":
                raise TypeError(MSG_DATETIME.format(column=self.columns[j]))
        if _is_datetime(col.dtype):
            raise TypeError(MSG_DATETIME.format(column=self.columns[j]))
        return col.astype(np.float64)

    def encode(self, X):
        """Numeric matrix of a validated query X: fitted categories, numbers as floats."""
        Z = np.empty(X.shape, dtype=np.float64)
        for j in range(X.shape[1]):
            Z[:, j] = self._encode_column(j, X[:, j])
        self._check_finite(Z)
        return Z

    def _check_finite(self, Z):
        bad = ~np.isfinite(Z).all(axis=0)
        if bad.any():
            raise ValueError(MSG_NOT_FINITE.format(column=self.columns[int(np.argmax(bad))]))

    def _identifier_like(self, j):
        n = self.Z.shape[0]
        if n < 20 or j not in self.categories and not \
                np.all(self.Z[:, j] == np.round(self.Z[:, j])):
            return False  # fractional numbers are measurements
        return np.unique(self.Z[:, j]).shape[0] >= IDENTIFIER_SHARE * n

    def binned(self, Z):
        """Interval columns replaced by their bin index (0 .. bins-1)."""
        B = Z.copy()
        for j, edges in self.bin_edges.items():
            B[:, j] = np.searchsorted(edges, Z[:, j], side="right")
        return B

    def bin_labels(self, j):
        """Readable label of each bin of interval column ``j``."""
        edges = self.bin_edges[j]
        lo = np.concatenate([[self.low[j]], edges])
        hi = np.concatenate([edges, [self.high[j]]])
        return [f"[{a:.6g}, {b:.6g}{']' if i == len(edges) else ')'}"
                for i, (a, b) in enumerate(zip(lo, hi))]

    def decode(self, j, values):
        """Original values of encoded column ``j`` (categories back to strings)."""
        if j in self.categories:
            # an object array of the categories themselves: a million decoded
            # values hold a million references, not a million new strings
            # (the categories promoted as np.where would promote them beside "<unseen>")
            cats = np.append(np.asarray(self.categories[j]), "<unseen>").astype(object)
            v = np.asarray(values).astype(np.intp)
            return cats[np.where(v >= 0, v, cats.shape[0] - 1)]
        return np.asarray(values)


class Units:
    """Records identical in every column and in the decision, and their look-up.

    Parameters
    ----------
    Z : ndarray of shape (n, p)
        Encoded fitted records.
    positive : ndarray of shape (n,), dtype bool
    """

    def __init__(self, Z, positive):
        n = Z.shape[0]
        records = np.column_stack([Z, positive.astype(np.float64)]) + 0.0
        uniq, first, unit = np.unique(records, axis=0, return_index=True, return_inverse=True)
        self.unit_of_row = unit.reshape(-1)
        self.first_row = first
        self.n_units = uniq.shape[0]
        self.count = np.bincount(self.unit_of_row, minlength=self.n_units)
        order = np.argsort(self.unit_of_row, kind="stable")
        bounds = np.searchsorted(self.unit_of_row[order], np.arange(self.n_units + 1))
        self._rows_sorted, self._bounds = order, bounds
        last = np.zeros(self.n_units, dtype=np.intp)
        last[self.unit_of_row] = np.arange(n)
        self.last_row = last
        # the look-up: each column's values, and the units' codes column after column
        self._domains, self._combined = [], []
        code = np.zeros(self.n_units, dtype=np.int64)
        for j in range(uniq.shape[1]):
            dom = np.unique(uniq[:, j])
            combined, code = np.unique(code * dom.shape[0] + np.searchsorted(dom, uniq[:, j]),
                                       return_inverse=True)
            code = code.reshape(-1)
            self._domains.append(dom)
            self._combined.append(combined)
        self._unit_of_code = np.empty(self.n_units, dtype=np.intp)
        self._unit_of_code[code] = np.arange(self.n_units)
        self._last = None  # the last look-up: (key of the rows, units)

    def rows(self, u):
        """Fitted rows of unit ``u``, lowest first."""
        return self._rows_sorted[self._bounds[u]:self._bounds[u + 1]]

    def __getstate__(self):  # the last look-up is a cache: not pickled
        return {**self.__dict__, "_last": None}

    def lookup(self, Z, decisions=None):
        """The fitted unit each query row is a copy of (negative decision first), or -1.

        Each column's value is found among the fitted ones, and the codes
        combined column after column (``searchsorted`` on sorted integers):
        a row matches a unit when every value is found, as byte-equal rows.
        ``decisions`` (a continuous decision, one per row): the unit with that
        decision too; ``"any"``: the unit of least decision among the copies.
        """
        Zc = np.ascontiguousarray(Z + 0.0)
        key = (hashlib.blake2b(Zc.tobytes(), digest_size=16).digest(), Zc.shape)
        if decisions is not None:
            extra = np.asarray([-1.0]) if isinstance(decisions, str) else \
                np.ascontiguousarray(np.asarray(decisions, dtype=np.float64))
            key += (hashlib.blake2b(extra.tobytes(), digest_size=16).digest(),)
        if self._last is not None and self._last[0] == key:  # flag, then report
            return self._last[1].copy()
        out = self._lookup(Zc, decisions)
        self._last = (key, out.copy())
        return out

    def _lookup(self, Zc, decisions=None):
        m = Zc.shape[0]
        if self.n_units == 0:
            return np.full(m, -1, dtype=np.intp)
        found = np.ones(m, dtype=bool)
        code = np.zeros(m, dtype=np.int64)
        for j in range(Zc.shape[1]):
            code = self._step(j, Zc[:, j], code, found)
        if isinstance(decisions, str):  # any decision: the first code of the record's
            j = Zc.shape[1]
            first = np.minimum(np.searchsorted(self._combined[j],
                                                code * self._domains[j].shape[0]),
                               self._combined[j].shape[0] - 1)
            found &= self._combined[j][first] // self._domains[j].shape[0] == code
            return np.where(found, self._unit_of_code[first], -1).astype(np.intp)
        if decisions is not None:
            last = self._step(Zc.shape[1], np.asarray(decisions, dtype=np.float64), code,
                              found)
            return np.where(found, self._unit_of_code[np.where(found, last, 0)],
                            -1).astype(np.intp)
        out = []
        for decision in (0.0, 1.0):
            hit = found.copy()
            last = self._step(Zc.shape[1], np.full(m, decision), code, hit)
            out.append(np.where(hit, self._unit_of_code[np.where(hit, last, 0)], -1))
        return np.where(out[0] >= 0, out[0], out[1]).astype(np.intp)

    def _step(self, j, values, code, found):
        """Combine the codes so far with column ``j``'s; rows not found are cleared in place."""
        dom, combined = self._domains[j], self._combined[j]
        at = np.minimum(np.searchsorted(dom, values), dom.shape[0] - 1)
        found &= dom[at] == values
        key = code * dom.shape[0] + at
        where = np.minimum(np.searchsorted(combined, key), combined.shape[0] - 1)
        found &= combined[where] == key
        return where
