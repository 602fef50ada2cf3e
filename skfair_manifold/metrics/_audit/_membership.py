"""Membership probabilities read and checked, and the one GROUP BY an estimated audit needs.

``membership={"race": P}`` gives each person's probability of every category
of an attribute that was estimated, not observed (BISG's surname-and-address
probabilities, or any other proxy's). Rows in memory become a pandas frame,
so that they and a lazy frame (DuckDB, polars, Dask, PySpark) take the same
path: one GROUP BY of the proxy (or, without one, of the probability columns
themselves: each distinct row a stratum), the observed attributes, each
estimated attribute's label where its row is one-hot (a person whose category
is known), its most likely category (for the shortcut) and the decision; per
group the count and the sum of every probability (and of their products, for
the intersection of several estimated attributes). The bounds need nothing
else (:mod:`._strata`).
"""

from dataclasses import dataclass

import numpy as np

from ...utils._narwhals import collect, schema_names, to_narwhals, to_numpy
from ...utils._validation import did_you_mean

#: a row's probabilities must sum to 1 within this
TOLERANCE = 1e-6

#: a probability at least this is a known category (a labelled row)
ONE = 1.0 - 1e-9

_PREFIX = "__skfm_"
_COUNT = _PREFIX + "count"

MSG_MEMBERSHIP_TYPE = (
    "membership must be a dict: attribute name -> {what}; got {got}."
)
MSG_MEMBERSHIP_SHAPE = (
    "membership[{name!r}] has shape {shape}; it must be (n_samples, n_categories) = "
    "({n}, K) with K >= 2: one row per person, one column per category."
)
MSG_MEMBERSHIP_VALUES = (
    "membership[{name!r}] {where}: {problem}. Each row holds one person's probability of "
    "every category: numbers in [0, 1] summing to 1 (within 1e-6). {fix}"
)
FIX_SUM = ("Normalise the rows (P.div(P.sum(axis=1), axis=0)) or add the category that is "
           "missing.")
FIX_VALUE = "Fill or drop the rows whose probabilities are missing."
MSG_PROXY_LENGTH = "proxy has {got} rows but y_pred/y_score has {expected}."
MSG_PROXY_MISSING = (
    "proxy has {count} missing value(s): every row needs its stratum (the cell its "
    "probabilities come from); fill them, e.g. with an 'unknown area' stratum."
)
MSG_NAME_CLASH = (
    "membership names {name!r}, which is also a sensitive feature; an attribute is either "
    "observed (sensitive_features) or estimated (membership)."
)
MSG_DATA_COLUMN = (
    "{what} column {column!r} is not a column of data.{hint} Its columns are {columns}."
)


@dataclass
class Estimated:
    """An estimated attribute: its name, categories and the columns of their probabilities."""

    name: str
    categories: list
    columns: list


def read_membership(membership, *, n=None, data_columns=None):
    """The estimated attributes and, for rows in memory, their probability matrices.

    Returns ``(estimated, matrices)``: a list of :class:`Estimated` and, without
    ``data``, one float array (n, K) per attribute (checked); with ``data``,
    ``matrices`` is None (the frame is checked by :func:`check_frame`).
    """
    if not isinstance(membership, dict) or not membership:
        what = ("the names of data's probability columns, one per category (a list, or "
                "a dict category -> column)" if data_columns is not None
                else "an (n_samples, n_categories) DataFrame or array of probabilities")
        raise TypeError(MSG_MEMBERSHIP_TYPE.format(what=what, got=type(membership).__name__))
    estimated, matrices = [], []
    for position, (name, value) in enumerate(membership.items()):
        name = str(name)
        if data_columns is not None:
            estimated.append(_named_columns(name, value, data_columns))
            continue
        matrix, categories = _matrix(name, value, n)
        estimated.append(Estimated(name, categories,
                                   [f"{_PREFIX}m{position}_{k}" for k in range(len(categories))]))
        matrices.append(matrix)
    return estimated, (None if data_columns is not None else matrices)


def _named_columns(name, value, present):
    if isinstance(value, dict):
        categories, columns = list(value), [value[k] for k in value]
    elif isinstance(value, (list, tuple)):
        categories, columns = list(value), list(value)
    else:
        raise TypeError(MSG_MEMBERSHIP_TYPE.format(
            what="the names of data's probability columns (a list, or a dict category -> "
                 "column)", got=f"{type(value).__name__} for {name!r}"))
    if len(columns) < 2:
        raise ValueError(f"membership[{name!r}] names {len(columns)} column(s); an estimated "
                         f"attribute needs one probability column per category (at least 2).")
    for col in columns:
        if col not in present:
            raise ValueError(MSG_DATA_COLUMN.format(
                what=f"membership[{name!r}]", column=col, hint=did_you_mean(str(col), present),
                columns=", ".join(map(repr, present[:20]))))
    return Estimated(name, categories, columns)


def _matrix(name, value, n):
    categories = list(value.columns) if hasattr(value, "columns") else None
    try:
        matrix = np.array(value.to_numpy() if hasattr(value, "to_numpy") else value,
                          dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"membership[{name!r}] must hold numbers (probabilities); got values "
                        f"that are not.") from None
    if matrix.ndim != 2 or matrix.shape[1] < 2 or (n is not None and matrix.shape[0] != n):
        raise ValueError(MSG_MEMBERSHIP_SHAPE.format(name=name, shape=matrix.shape, n=n))
    if categories is None:
        categories = list(range(matrix.shape[1]))
    index = list(value.index) if hasattr(value, "index") else None

    def where(row):
        label = f"row {row}" if index is None or index[row] == row else \
            f"row {row} (index {index[row]!r})"
        return label

    bad = ~np.isfinite(matrix).all(axis=1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(MSG_MEMBERSHIP_VALUES.format(
            name=name, where=where(row), problem=f"it holds a missing or infinite value "
            f"({int(bad.sum())} such rows)", fix=FIX_VALUE))
    outside = ((matrix < -1e-9) | (matrix > 1 + 1e-9)).any(axis=1)
    if outside.any():
        row = int(np.flatnonzero(outside)[0])
        raise ValueError(MSG_MEMBERSHIP_VALUES.format(
            name=name, where=where(row), problem=f"{matrix[row].tolist()} is not in [0, 1]",
            fix=FIX_SUM))
    sums = matrix.sum(axis=1)
    off = np.abs(sums - 1.0) > TOLERANCE
    if off.any():
        row = int(np.flatnonzero(off)[0])
        raise ValueError(MSG_MEMBERSHIP_VALUES.format(
            name=name, where=where(row), problem=f"it sums to {sums[row]:.6g} "
            f"({int(off.sum())} rows are off by more than 1e-6)", fix=FIX_SUM))
    return np.clip(matrix, 0.0, 1.0), categories


def check_frame(frame, estimated):
    """Refuse a frame whose probability columns are not probabilities (computed in its
    engine: one filter, the first offending row shown)."""
    import narwhals as nw

    for attr in estimated:
        cols = [nw.col(c).cast(nw.Float64()) for c in attr.columns]
        total = nw.sum_horizontal(*cols)
        wrong = (total - 1.0).abs() > TOLERANCE
        for c in cols:
            wrong = wrong | c.is_null() | (c < -1e-9) | (c > 1 + 1e-9)
        found = collect(frame.filter(wrong).select(*[nw.col(c) for c in attr.columns])
                        .head(1))
        if len(found):
            values = {c: to_numpy(found[c])[0] for c in attr.columns}
            shown = ", ".join(f"{c}={v!r}" for c, v in values.items())
            raise ValueError(MSG_MEMBERSHIP_VALUES.format(
                name=attr.name, where=f"a row of data ({shown})",
                problem="it is not a row of probabilities (a value missing or outside "
                        "[0, 1], or a sum off 1 by more than 1e-6)", fix=FIX_SUM))


def check_proxy_column(proxy, present):
    """A proxy given as a column name of data."""
    if not isinstance(proxy, str):
        raise TypeError(f"with data= given, proxy must be a column name of data (a str); got "
                        f"{type(proxy).__name__}.")
    if proxy not in present:
        raise ValueError(MSG_DATA_COLUMN.format(what="proxy", column=proxy,
                                                hint=did_you_mean(proxy, present),
                                                columns=", ".join(map(repr, present[:20]))))


@dataclass
class Grouped:
    """The GROUP BY's result: per group its keys, count and probability sums.

    ``observed``: one object array per observed attribute (its value, None
    where unknown); ``proxy``: object array or None; ``rows``: per estimated
    attribute its probability row (G, K) when there is no proxy (the strata),
    else None; ``labels``: per estimated attribute the position of its known
    category (-1 where the row is not one-hot); ``likely``: per estimated
    attribute the shortcut's category (-1: none) or None; ``decision``: the
    decision's value; ``sums``: per estimated attribute (G, K); ``joint``: the
    sums of the products over every estimated attribute's categories (G, prod K)
    when there are two or more, else None.
    """

    observed: list
    proxy: object
    rows: list
    labels: list
    likely: object
    decision: np.ndarray
    count: np.ndarray
    sums: list
    joint: object


def group_frame(frame, *, observed, estimated, proxy, decision, estimate, joint):
    """One GROUP BY of a narwhals frame (see :class:`Grouped`).

    ``decision``: a narwhals expression of the decision (a label, or whether a
    score is above the median); ``estimate``: ``"weighted"``, ``"most_likely"``
    or a threshold; ``joint``: also the sums of the products of the estimated
    attributes' probabilities (their intersection).
    """
    import narwhals as nw

    keys, aggs = [], [nw.len().alias(_COUNT)]
    exprs = [decision.alias(_PREFIX + "y")]
    for i, name in enumerate(observed):
        exprs.append(nw.col(name).alias(f"{_PREFIX}o{i}"))
        keys.append(f"{_PREFIX}o{i}")
    if proxy is not None:
        exprs.append(nw.col(proxy).alias(_PREFIX + "proxy"))
        keys.append(_PREFIX + "proxy")
    for a, attr in enumerate(estimated):
        cols = [nw.col(c).cast(nw.Float64()) for c in attr.columns]
        for k, c in enumerate(cols):
            exprs.append(c.alias(f"{_PREFIX}v{a}_{k}"))
            aggs.append(nw.col(f"{_PREFIX}v{a}_{k}").sum().alias(f"{_PREFIX}s{a}_{k}"))
            if proxy is None:  # each distinct row a stratum: the row is a key
                exprs.append(c.alias(f"{_PREFIX}p{a}_{k}"))
                keys.append(f"{_PREFIX}p{a}_{k}")
        exprs.append(_first_where([c >= ONE for c in cols]).alias(f"{_PREFIX}l{a}"))
        keys.append(f"{_PREFIX}l{a}")
        if estimate != "weighted":
            if estimate == "most_likely":
                top = nw.max_horizontal(*cols)
                conditions = [c >= top for c in cols]
            else:
                conditions = [c >= float(estimate) for c in cols]
            exprs.append(_first_where(conditions).alias(f"{_PREFIX}k{a}"))
            keys.append(f"{_PREFIX}k{a}")
    products = []
    if joint:
        shapes = [len(attr.categories) for attr in estimated]
        for flat in range(int(np.prod(shapes))):
            parts = np.unravel_index(flat, shapes)
            expr = None
            for a, k in enumerate(parts):
                term = nw.col(estimated[a].columns[k]).cast(nw.Float64())
                expr = term if expr is None else expr * term
            name = f"{_PREFIX}j{flat}"
            exprs.append(expr.alias(name))
            aggs.append(nw.col(name).sum().alias(name + "s"))
            products.append(name + "s")
    keys.append(_PREFIX + "y")
    table = collect(frame.select(*exprs).group_by(*keys).agg(*aggs))
    col = lambda c: to_numpy(table[c])  # noqa: E731
    return Grouped(
        observed=[_objects(col(f"{_PREFIX}o{i}")) for i in range(len(observed))],
        proxy=None if proxy is None else _objects(col(_PREFIX + "proxy")),
        rows=[None if proxy is not None else np.stack(
            [np.asarray(col(f"{_PREFIX}p{a}_{k}"), dtype=np.float64)
             for k in range(len(attr.categories))], axis=1)
            for a, attr in enumerate(estimated)],
        labels=[np.asarray(col(f"{_PREFIX}l{a}"), dtype=np.int64)
                for a in range(len(estimated))],
        likely=None if estimate == "weighted" else [
            np.asarray(col(f"{_PREFIX}k{a}"), dtype=np.int64) for a in range(len(estimated))],
        decision=_objects(col(_PREFIX + "y")),
        count=np.asarray(col(_COUNT), dtype=np.float64),
        sums=[np.stack([np.asarray(col(f"{_PREFIX}s{a}_{k}"), dtype=np.float64)
                        for k in range(len(attr.categories))], axis=1)
              for a, attr in enumerate(estimated)],
        joint=np.stack([np.asarray(col(p), dtype=np.float64) for p in products], axis=1)
        if products else None)


def _first_where(conditions):
    """The position of the first true condition, -1 if none (an integer expression)."""
    import narwhals as nw

    expr = nw.lit(-1)
    for k in reversed(range(len(conditions))):
        expr = nw.when(conditions[k]).then(nw.lit(k)).otherwise(expr)
    return expr.cast(nw.Int64())


def _objects(values):
    values = np.asarray(values, dtype=object)
    return np.array([v.item() if isinstance(v, np.generic) else v for v in values.tolist()],
                    dtype=object)


def rows_frame(*, observed, matrices, estimated, proxy, decision, n):
    """Rows in memory as a narwhals frame of the columns :func:`group_frame` reads.

    ``observed``: dict name -> object array; ``decision``: the decision's
    values (labels, or the selected indicator); ``proxy``: array or None.
    """
    import pandas as pd

    columns = {}
    for i, (name, values) in enumerate(observed.items()):
        columns[f"{_PREFIX}obs{i}"] = pd.Series(values, dtype=object)
    for attr, matrix in zip(estimated, matrices):
        for k, c in enumerate(attr.columns):
            columns[c] = matrix[:, k]
    if proxy is not None:
        proxy = np.asarray(proxy.to_numpy() if hasattr(proxy, "to_numpy") else proxy,
                           dtype=object)
        if proxy.ndim != 1 or proxy.shape[0] != n:
            raise ValueError(MSG_PROXY_LENGTH.format(got=len(proxy), expected=n))
        missing = np.array([v is None or (isinstance(v, float) and v != v)
                            for v in proxy.tolist()], dtype=bool)
        if missing.any():
            raise ValueError(MSG_PROXY_MISSING.format(count=int(missing.sum())))
        columns[_PREFIX + "proxycol"] = pd.Series(proxy, dtype=object)
    columns[_PREFIX + "decision"] = pd.Series(decision, dtype=object)
    frame = to_narwhals(pd.DataFrame(columns))
    names = {"observed": [f"{_PREFIX}obs{i}" for i in range(len(observed))],
             "proxy": None if proxy is None else _PREFIX + "proxycol",
             "decision": _PREFIX + "decision"}
    return frame, names


def frame_names(frame):
    """The column names of a frame (lazy or eager)."""
    return schema_names(frame)
