"""The sensitive features of one call, resolved and encoded once, read by every part of it.

A call names its sensitive features once: columns of ``X`` (names or
positions, or a named Series or DataFrame whose columns are columns of ``X``),
or the columns themselves. :func:`as_sensitive` resolves them into a
:class:`SensitiveFeatures` (the part fairlearn's ``_GroupFeature`` plays), and
every part of the call reads that object: ``fairness_report``'s cell table,
its HFM section, its discriminative risk and its scores. An attribute is
encoded (:func:`~._encoding.encode_column`) at most once, when a part first
asks for its codes.
"""

from .._narwhals import is_dataframe, is_series
from ._columns import resolve_columns, split_columns
from ._encoding import encode_column, sensitive_columns
from ._messages import MSG_LENGTH


class SensitiveFeatures:
    """The sensitive features of one call, normalised once.

    Parameters
    ----------
    names : list
        The attributes' names: column names, or positions among the columns
        given.
    columns : list
        Each attribute's column, as :func:`~._encoding.sensitive_columns`
        gives it (a numpy array, or a pandas Series).
    n_samples : int
        The rows of every column.
    positions : list of int or None, default=None
        Where the columns are in ``X``, when they were taken from ``X``.
    x_names : list or None, default=None
        Their names in ``X`` (positions for an array).
    rest : array-like or None, default=None
        ``X`` without them, when they were taken from ``X``.

    Notes
    -----
    :meth:`encoded` gives an attribute's ``(codes, groups)``, encoded on the
    first request and kept; :attr:`codes` and :attr:`groups` give every
    attribute's, in order. ``len()`` is the number of rows, as for the
    columns themselves.
    """

    def __init__(self, names, columns, n_samples, *, positions=None, x_names=None, rest=None):
        self.names = list(names)
        self.columns = list(columns)
        self.n_samples = int(n_samples)
        self.positions = None if positions is None else list(positions)
        self.x_names = None if x_names is None else list(x_names)
        self.rest = rest
        self._encoded = [None] * len(self.names)

    def __len__(self):
        return self.n_samples

    def encoded(self, k):
        """``(codes, groups)`` of attribute ``k``: codes ``0..g-1`` of its sorted values."""
        if self._encoded[k] is None:
            self._encoded[k] = encode_column(self.columns[k], self.names[k])
        return self._encoded[k]

    @property
    def codes(self):
        """Every attribute's codes (each an intp array of ``n_samples``)."""
        return [self.encoded(k)[0] for k in range(len(self.names))]

    @property
    def groups(self):
        """Every attribute's sorted distinct values."""
        return [self.encoded(k)[1] for k in range(len(self.names))]


def as_sensitive(sensitive_features, n_samples, *, X=None, name="sensitive_features"):
    """The :class:`SensitiveFeatures` of a call, built once.

    Parameters
    ----------
    sensitive_features : array-like, column names or positions, or SensitiveFeatures
        With ``X``, the names or positions of the sensitive columns of ``X``
        (:func:`~._columns.resolve_columns`), taken out of it
        (:func:`~._columns.split_columns`); without, the columns themselves
        (what :func:`~._encoding.encode_sensitive` takes). An object already
        built is returned as it is, its rows checked.
    n_samples : int
        The rows the columns must have.
    X : array-like or DataFrame, default=None
        The features that hold the sensitive columns.
    name : str, default="sensitive_features"
        The argument's name, for the messages.

    Returns
    -------
    sensitive : SensitiveFeatures
    """
    if isinstance(sensitive_features, SensitiveFeatures):
        if sensitive_features.n_samples != n_samples:
            raise ValueError(MSG_LENGTH.format(
                name=f"{name} {sensitive_features.names[0]!r}",
                got=sensitive_features.n_samples, other="X", expected=n_samples))
        return sensitive_features
    positions = x_names = rest = None
    columns = sensitive_features
    if X is not None:
        positions, x_names = resolve_columns(X, sensitive_features)
        columns, rest = split_columns(X, positions, drop=True)
    names, columns = sensitive_columns(columns, n_samples, name=name)
    return SensitiveFeatures(names, columns, n_samples, positions=positions, x_names=x_names,
                             rest=rest)


def names_in_X(A, X):
    """``(found, every)``: the names of ``A``'s columns that are columns of ``X``.

    ``A`` is a DataFrame or a named Series, ``X`` a DataFrame; ``found``
    lists the names in ``A``'s order, ``every`` says whether all of ``A``'s
    are in ``X``. Anything else (no names, ``X`` not a DataFrame) gives
    ``([], False)``.
    """
    if is_dataframe(A):
        names = list(A.columns)
    elif is_series(A) and getattr(A, "name", None) is not None:
        names = [A.name]
    else:
        return [], False
    columns = list(X.columns) if X is not None and is_dataframe(X) else []
    found = [n for n in names if n in columns]
    return found, bool(names) and len(found) == len(names)
