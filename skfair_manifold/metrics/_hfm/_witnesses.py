"""The people behind HFM's maxima, as plain values a page or a JSON file can show.

:func:`~skfair_manifold.metrics.hfm_report` names the rows behind each maximum
(``witnesses.maxima``) and the rows the model moved most
(``witnesses.changed``) by their positions. :func:`witness_records` adds what a
reader needs to look at them: each person's values of the features HFM
measured, their label, their group and, per feature, its share of the squared
distance between the two (in the coordinates HFM measures: min-max scaled
features when ``scale=True``, the label as the first coordinate).
"""

from __future__ import annotations

import numpy as np

from ...distances._rows import min_max
from ...utils._validation import caller_index, check_features, is_dataframe, label_coordinates


def _plain(value):
    """A cell value as a Python scalar (numpy scalars unwrapped)."""
    value = value.item() if isinstance(value, np.generic) else value
    return value


def _feature_names(X, names, n_features):
    if names is not None and len(names) == n_features:
        return [str(n) for n in names]
    if is_dataframe(X):
        return [str(c) for c in X.columns]
    return [f"x{j}" for j in range(n_features)]


def _raw_rows(X, rows):
    """The rows of ``X`` as given (before scaling), one list of Python values each."""
    if is_dataframe(X) and hasattr(X, "iloc"):
        return [[_plain(v) for v in X.iloc[int(i)].tolist()] for i in rows]
    if is_dataframe(X):  # a polars frame
        return [[_plain(v) for v in X.row(int(i))] for i in rows]
    arr = np.asarray(X)
    return [[_plain(v) for v in arr[int(i)].tolist()] for i in rows]


def _index_labels(rows, index, *given):
    """The caller's ``index`` labels of ``rows`` (None: :func:`caller_index` of the labels,
    then of ``X``), or None each when the rows are named by their positions."""
    index = caller_index(*given) if index is None else np.asarray(index)
    if index is None or len(index) <= max(rows, default=0):
        return [None] * len(rows)
    return [_plain(index[int(i)]) for i in rows]


def witness_records(witnesses, X, y_true, y_pred, *, feature_names=None, scale=True,
                    index=None):
    """The witnesses of an HFM report with the two people's features, as plain values.

    Parameters
    ----------
    witnesses : Bunch
        ``hfm_report(...).witnesses`` (``maxima`` and ``changed``).
    X : array-like or DataFrame of shape (n_samples, n_features)
        The features the report measured, as given to it (unscaled).
    y_true, y_pred : array-like of shape (n_samples,)
        The labels the report measured, as given to it.
    feature_names : list of str, default=None
        Names of the columns of ``X``; by default the frame's columns, or
        ``x0``, ``x1``, ...
    scale : bool, default=True
        The report's ``scale``: the shares of the distance are computed in
        the min-max scaled coordinates when True, as HFM measures.
    index : array-like of shape (n_samples,), default=None
        The caller's names of the rows (a DataFrame's index); None: the
        index of ``y_true``, else of ``X``, when it is not the positions.

    Returns
    -------
    records : dict
        ``features`` (the names); ``maxima``, one entry per label vector and
        attribute: ``labels`` (``"y_true"`` or ``"y_pred"``), ``attribute``,
        ``overall`` (the attribute of Eq. 6's maximum), ``distance``, and
        ``people``, the row realising the maximum then the nearest row of
        another group, each with ``row`` (position in the rows scored),
        ``index`` (the label of the caller's index, ``y_true``'s, else
        ``X``'s, when it is not the positions; else None),
        ``group``, ``label`` (the label vector's value) and ``values`` (in
        the order of ``features``); ``label_share`` and ``shares``, the share
        of the squared distance between the two from the label and from each
        feature (they add up to 1; all 0 when the distance is 0).
        ``changed``: the rows the model moved most, each with ``row``,
        ``index``, ``d``, ``d_f``, ``change``, ``y_true`` and ``y_pred``.

    Examples
    --------
    >>> from skfair_manifold.metrics import hfm_report
    >>> from skfair_manifold.metrics._hfm._witnesses import witness_records
    >>> X = [[0.0, 5.0], [0.1, 5.0], [0.3, 1.0], [0.6, 1.0]]
    >>> sex, y = [0, 1, 0, 1], [0, 0, 1, 1]
    >>> r = hfm_report(y, y, X=X, sensitive_features=sex, method="exact")
    >>> top = witness_records(r.witnesses, X, y, y)["maxima"][0]
    >>> [p["row"] for p in top["people"]], [p["values"] for p in top["people"]]
    ([2, 3], [[0.3, 1.0], [0.6, 1.0]])
    >>> [round(s, 3) for s in top["shares"]], top["label_share"]
    ([1.0, 0.0], 0.0)
    """
    Z = check_features(X)
    n, p = Z.shape
    span = min_max(Z)[1] if scale else np.ones(p)
    coded = dict(zip(("y_true", "y_pred"), label_coordinates(y_true, y_pred)))
    given = {"y_true": np.asarray(y_true), "y_pred": np.asarray(y_pred)}
    names = _feature_names(X, feature_names, p)
    maxima = []
    def labels_of(rows):
        return _index_labels(rows, index, y_true, X)

    for w in witnesses.maxima:
        rows = [int(w.row), int(w.nearest_row)]
        diff = (Z[rows[0]] - Z[rows[1]]) / span
        label_diff = float(coded[w.labels][rows[0]] - coded[w.labels][rows[1]])
        squares = np.concatenate([[label_diff ** 2], diff ** 2])
        total = squares.sum()
        shares = squares / total if total > 0 else np.zeros_like(squares)
        people = []
        for row, group, values, name in zip(rows, (w.group, w.nearest_group),
                                            _raw_rows(X, rows), labels_of(rows)):
            people.append({"row": row, "index": name, "group": _plain(group),
                           "label": _plain(given[w.labels][row]), "values": values})
        maxima.append({"labels": w.labels, "attribute": _plain(w.attribute),
                       "overall": bool(w.overall), "distance": float(w.distance),
                       "people": people, "label_share": float(shares[0]),
                       "shares": [float(s) for s in shares[1:]]})
    changed_rows = [int(c.row) for c in witnesses.changed]
    changed = [{"row": c.row, "index": name, "d": c.d, "d_f": c.d_f, "change": c.change,
                "y_true": _plain(given["y_true"][c.row]),
                "y_pred": _plain(given["y_pred"][c.row])}
               for c, name in zip(witnesses.changed, labels_of(changed_rows))]
    return {"features": names, "maxima": maxima, "changed": changed}
