"""How testers are chosen: the selector protocol and the registry of methods.

A *method* is a class registered under a name (the auditor's ``method``
parameter looks it up in :data:`METHODS`); ``fit`` builds one instance from
the fitted records. The instance answers the auditor through one interface:

``q``
    Positions of the compared columns (the decision's parents for CBN-DD,
    every non-identifier column but the protected one for KNN-DD).
``graph``, ``structure_info``, ``protected_arc``
    The causal graph (child -> parents, or None), what a structure search
    recorded (a dict), and whether the graph has the arc protected ->
    decision (None when the method has no graph).
``query(Z)``
    The encoded rows as the method compares them, restricted to ``q``.
``rates(Q, self_unit, k, *, n_jobs, cells)``
    Per row and side: expected positives, expected testers, sum of squared
    weights (``(m, 2)`` arrays), and with ``cells`` the long table of the
    testers' cells (``query``, ``side``, ``distance``, ``weight``,
    ``n_records``, ``n_positive``, ``cell``).
``pair_distances(Qx, Qy)`` and ``bytes_per_pair``
    The method's distance between people, and its memory per pair.
``near_distance`` (optional)
    The distance within which a verdict asks for enough testers a side
    (``_verdict``); a method without it has no such check.
``within(Q, self_unit, radius, cap, *, n_jobs)`` and ``caliper(tau)`` (optional)
    The testers of each side within ``radius`` of each row, at most ``cap``
    (``(m, 2)``), and the radius: what ``k="auto"`` chooses K from
    (``_auto_k``); a method without them takes an integer ``k`` only.
``cell_rows()``, ``cell_values(cells)``
    The fitted rows of each cell (a :class:`CellRows`), and the
    attribute values of the given cells (column -> array), for the evidence.

KNN-DD and CBN-DD are registered here; :func:`register_method` adds another.
"""

import numpy as np

from .._constants import NEAR_DISTANCE
from .._records import IDENTIFIER_SHARE
from ._auto_k import auto_caliper
from ._cardinality import check_knn_index, check_search_levels
from ._cbn import CBNSelector
from ._knn import KNNSelector
from ._parent_search import local_parent_search, pc_parents, search_inputs
from ._structure import graph_to_parents
from ._weak_parents import rule_k

#: name -> method class; the auditor's ``method`` is one of its keys
METHODS = {}
#: the registered names, the set the ``method`` parameter is checked against (kept in step)
METHOD_NAMES = set()

MSG_TOO_MANY_LEVELS = (
    "column {column!r} is {kind} but nearly every row has its own value ({distinct} distinct "
    "values in {n} rows): CBN-DD matches testers on the values of nominal and ordinal "
    "columns, so no row would find testers. Declare it interval (it is then cut into at "
    "most n_bins bins), or leave it out of the graph."
)


class CellRows:
    """The fitted rows of each cell: ``rows[bounds[s]:bounds[s + 1]]`` for segment ``s``.

    A cell's segment is ``cell`` (KNN-DD: a unit of identical records,
    ``sides=1``) or ``2 * cell + side`` (CBN-DD: one side of a subgroup,
    ``sides=2``).
    """

    def __init__(self, rows, bounds, *, sides):
        self.rows, self.bounds, self.sides = rows, bounds, sides

    def __call__(self, cell, side):
        seg = int(cell) * self.sides + (int(side) if self.sides == 2 else 0)
        return self.rows[self.bounds[seg]:self.bounds[seg + 1]]


class FitData:
    """What a method is built from at ``fit``.

    Attributes
    ----------
    records : Records
        Column kinds, encoding and bins of the fitted data.
    units : Units
        Identical fitted records (the same values and decision).
    group : ndarray of shape (n,), dtype bool
        The protected group of each fitted row.
    positive : ndarray of shape (n,)
        The positive decision of each fitted row (bool), or the decision
        itself (float) when it is continuous: the selectors' sums are linear
        in it.
    decision_unit : float
        1 for a yes/no decision; for an amount, the power of two its
        shifted values are divided by in ``scaled`` (CBN-DD's sums are of
        those, its distances given back in the decision's units).
    scaled : ndarray of shape (n,) or None
        An amount's values shifted and divided by ``decision_unit``
        (``_stats._continuous.scaled_decisions``); None for a yes/no
        decision.
    decision_codes : ndarray of shape (n,), dtype intp
        The decision as classes, for the structure search (a continuous
        one above its median or not).
    columns : list
        The column names (positions for arrays).
    protected_index : int
    decision_name : str
    params : dict
        The auditor's parameters (``get_params(deep=False)``).
    """

    def __init__(self, *, records, units, group, positive, columns, protected_index,
                 decision_name, params, decision_codes=None, scaled=None,
                 decision_unit=1.0):
        self.records, self.units = records, units
        self.group, self.positive = group, positive
        self.scaled, self.decision_unit = scaled, float(decision_unit)
        self.decision_codes = positive.astype(np.intp) if decision_codes is None \
            else decision_codes
        self.columns, self.protected_index = columns, protected_index
        self.decision_name, self.params = decision_name, params


def register_method(name, method):
    """Register ``method`` (a class built as ``method(data)`` from a :class:`FitData`).

    The auditor then accepts ``method=name``. A name registered twice is an
    error unless it is the same class.
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"a method's name must be a non-empty string; got {name!r}.")
    if name in METHODS and METHODS[name] is not method:
        raise ValueError(f"a method named {name!r} is already registered ({METHODS[name]!r}).")
    METHODS[name] = method
    METHOD_NAMES.add(name)
    return method


def unregister_method(name):
    """Remove a registered method (the two built-in ones cannot be removed)."""
    if name in ("knn", "cbn"):
        raise ValueError(f"the built-in method {name!r} cannot be unregistered.")
    METHODS.pop(name, None)
    METHOD_NAMES.discard(name)


def build_method(name, data):
    """The method registered as ``name``, built from ``data``."""
    try:
        method = METHODS[name]
    except KeyError:
        raise ValueError(f"method={name!r} is not registered; the methods are "
                         f"{sorted(METHODS)}.") from None
    return method(data)


class SelectorMethod:
    """A method whose ``rates`` and ``pair_distances`` are its ``selector``'s."""

    def rates(self, Q, self_unit, k, *, n_jobs=None, cells=False):
        return self.selector.rates(Q, self_unit, k, n_jobs=n_jobs, cells=cells)

    def within(self, Q, self_unit, radius, cap, *, n_jobs=None):
        return self.selector.within(Q, self_unit, radius, cap, n_jobs=n_jobs)

    def pair_distances(self, Qx, Qy):
        return self.selector.pair_distances(Qx, Qy)


class KNNMethod(SelectorMethod):
    """KNN-DD (Luong, Ruggieri and Turini): the k nearest records under a mean distance."""

    title = "KNN-DD"
    near_distance = NEAR_DISTANCE["knn"]

    def caliper(self, tau):
        """``k="auto"``'s caliper: the near distance, 0.2 (``_auto_k``)."""
        return auto_caliper("knn", tau)

    def __init__(self, data):
        records, units = data.records, data.units
        Z = records.Z
        self.records, self.units, self.columns = records, units, data.columns
        self.decision_name = data.decision_name
        p = Z.shape[1]
        self.q = [j for j in range(p)
                  if j != data.protected_index and j not in records.identifiers]
        q, first = self.q, units.first_row
        self.selector = KNNSelector(Z[first][:, q], units.count, data.group[first],
                                    data.positive[first], records.nominal[q],
                                    records.ranges[q], units.rows,
                                    algorithm=data.params.get("algorithm", "auto"))
        check_knn_index(self.selector, [data.columns[j] for j in q], Z.shape[0])
        self.graph, self.structure_info, self.protected_arc = None, {}, None
        self.bytes_per_pair = 16

    def query(self, Z):
        return Z[:, self.q]

    def cell_rows(self):
        """A cell is a unit of identical records."""
        return CellRows(self.units._rows_sorted, self.units._bounds, sides=1)

    def cell_values(self, cells, y_fit):
        """Every column and the decision of each unit's record."""
        records = self.records
        first = self.units.first_row[cells]
        values = {str(name): records.decode(j, records.Z[first, j])
                  for j, name in enumerate(self.columns)}
        values[self.decision_name] = y_fit[first]
        return values


class CBNMethod(SelectorMethod):
    """CBN-DD (Zhang, Wu and Wu, Algorithm 1): testers close in the decision's causes."""

    title = "CBN-DD"
    near_distance = NEAR_DISTANCE["cbn"]

    def caliper(self, tau):
        """``k="auto"``'s caliper: ``tau / 2`` in the decision's rate (``_auto_k``)."""
        return auto_caliper("cbn", tau)

    def __init__(self, data):
        records = data.records
        self.records, self.columns = records, data.columns
        self.units, self.group = data.units, data.group
        # an amount's values shifted and scaled (distances given back in its units)
        self.positive = data.positive if data.scaled is None else data.scaled
        self.decision_unit = data.decision_unit
        self.smoothing = data.params["smoothing"]
        self.causal_effect = data.params["causal_effect"]
        B = records.binned(records.Z)
        self.q = self._find_parents(B, data)
        _check_matchable(records, self.q, data.columns)
        self.selector = self.selector_for(self.q, B)
        self.bytes_per_pair = 8 * (len(self.q) + 4)

    def selector_for(self, q, binned):
        """A :class:`~._cbn.CBNSelector` matching the fitted records on the columns ``q``.

        Parameters
        ----------
        q : list of int
            Positions of the compared columns.
        binned : ndarray of shape (n, p)
            The fitted records with interval columns as bins
            (``records.binned(records.Z)``).

        Returns
        -------
        CBNSelector
            Over ``binned[:, q]``, with the columns' ranges and kinds and the
            auditor's ``smoothing`` and ``causal_effect``.
        """
        Qv = binned[:, q]
        ranges = Qv.max(axis=0) - Qv.min(axis=0) if Qv.shape[0] else np.zeros(len(q))
        return CBNSelector(Qv, self.units.unit_of_row, self.group, self.positive,
                           self.records.nominal[q], ranges, self.smoothing,
                           [self.columns[j] for j in q], causal_effect=self.causal_effect,
                           unit=self.decision_unit)

    def _find_parents(self, B, data):
        """Q from the given graph, or from a structure search; sets graph and its arc."""
        params, columns, c = data.params, data.columns, data.protected_index
        decision = data.decision_name
        if params["graph"] is not None:
            parents = graph_to_parents(params["graph"], columns, decision, columns[c])
            self.graph, self.structure_info = parents, {}
            par = parents[decision]
            self.protected_arc = columns[c] in par
            return [j for j, v in enumerate(columns) if v in par and j != c]
        records = data.records
        codes, candidates = search_inputs(B, records.identifiers)
        check_search_levels(codes, candidates, columns)
        e = data.decision_codes
        if params["structure"] == "pc":
            keep = candidates
            par = pc_parents(codes[:, keep], e, alpha=params["alpha"],
                             protected_idx=keep.index(c))
            par = [keep[j] for j in par]
            info = {"algorithm": "pc (causal-learn)"}
        else:
            par, info = local_parent_search(codes, e, alpha=params["alpha"], protected_idx=c,
                                            candidates=candidates,
                                            max_depth=params["max_depth"],
                                            test=params["structure_test"],
                                            group=data.group, k=rule_k(params["k"]))
            info = {"algorithm": "local conditional-test search (PC-simple)",
                    "test": params["structure_test"], "max_depth": params["max_depth"],
                    **info}
        info["identifier_columns"] = [columns[j] for j in records.identifiers]
        self.structure_info = info
        self.graph = {decision: tuple(columns[j] for j in par)}
        for j in par:
            self.graph.setdefault(columns[j], ())
        self.protected_arc = c in par
        weak = info.get("weak_parents", ())  # in the graph, not matched on (weak, small subgroups)
        return [j for j in par if j != c and j not in weak]

    def query(self, Z):
        return self.records.binned(Z)[:, self.q]

    def cell_rows(self, selector=None):
        """A cell is one side of a subgroup (the records of one profile over Q);
        ``selector``: one on another Q (the structure bootstrap's), else the method's."""
        selector = self.selector if selector is None else selector
        return CellRows(selector.seg_rows, selector.seg_bounds, sides=2)

    def cell_values(self, cells, y_fit):
        """The subgroup's profile over Q, interval columns as their bins."""
        records, sel = self.records, self.selector
        prof = sel.profiles[np.minimum(cells, sel.profiles.shape[0] - 1)]
        values = {}
        for k, j in enumerate(self.q):
            if j in records.bin_edges:
                labels = np.asarray(records.bin_labels(j), dtype=object)
                values[str(self.columns[j])] = labels[prof[:, k].astype(np.intp)]
            else:
                values[str(self.columns[j])] = records.decode(j, prof[:, k])
        return values


def _check_matchable(records, q, columns):
    """CBN-DD matches on the values of nominal and ordinal columns of Q: refuse a column
    whose every row (nearly) has its own value, for which no row would find testers
    (identifier-like columns are warned about by Records already)."""
    n = records.Z.shape[0]
    for j in q:
        if records.interval[j] or n < 20 or j in records.identifiers:
            continue
        distinct = np.unique(records.Z[:, j]).shape[0]
        if distinct >= IDENTIFIER_SHARE * n:
            raise ValueError(MSG_TOO_MANY_LEVELS.format(
                column=columns[j], kind=records.kinds[j], distinct=distinct, n=n))


register_method("cbn", CBNMethod)
register_method("knn", KNNMethod)
