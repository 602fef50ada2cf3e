"""The audit's counts: who was assessed and selected, per category and per unknown pattern.

Every input reaches the bounds through the same small table. Rows in memory and
lazy frames give one *joint* table: per combination of every attribute's
category (None where unknown) and the decision (1 selected, 0 not), a count;
each characteristic is that table summed over the other attributes. A counts
table (a published audit) gives one table per characteristic directly, and
may leave the decisions of unknown rows unreported (decision -1, undecided).

:class:`Characteristic` is one characteristic's problem: the categories
(``cells``, tuples over its attributes), their known assessed ``n`` and
selected ``s``, and its unknown *types* (a pattern of known values and None,
with the selected, not selected and undecided people of that pattern) with the
categories each type is compatible with.
"""

from dataclasses import dataclass

import numpy as np

#: the decision codes of the tables
SELECTED, NOT_SELECTED, UNDECIDED = 1, 0, -1

#: the name of the characteristic split by every attribute
INTERSECTIONAL = "intersectional"


@dataclass
class Entries:
    """A table of counts: per row, a category (or None) of each attribute, a decision, a count."""

    attributes: list
    values: list          # one object array per attribute: the category, None if unknown
    decision: np.ndarray  # SELECTED, NOT_SELECTED or UNDECIDED
    count: np.ndarray     # float64 (a counts table may hold fractions)

    def project(self, positions):
        """The table summed over every attribute but those at ``positions``."""
        keys = [self.values[p] for p in positions]
        groups = {}
        for row in range(self.count.shape[0]):
            key = (*(k[row] for k in keys), int(self.decision[row]))
            groups[key] = groups.get(key, 0.0) + float(self.count[row])
        items = sorted(groups.items(), key=lambda kv: tuple(_sort_key(v) for v in kv[0]))
        return Entries(
            attributes=[self.attributes[p] for p in positions],
            values=[np.array([key[i] for key, _ in items], dtype=object)
                    for i in range(len(positions))],
            decision=np.array([key[-1] for key, _ in items], dtype=np.int8),
            count=np.array([v for _, v in items], dtype=np.float64))


def _sort_key(value):
    """Sort categories of any type together: None last, numbers before text."""
    if value is None:
        return (2, "")
    if isinstance(value, (bool, np.bool_, int, float, np.integer, np.floating)):
        return (0, float(value), "")
    return (1, str(value))


@dataclass
class Characteristic:
    """One characteristic's counts: its categories and its unknown people (see the module)."""

    name: str
    attributes: list
    cells: list           # tuples of categories, one per attribute
    n: np.ndarray         # (K,) known assessed
    s: np.ndarray         # (K,) known selected
    patterns: list        # (U,) tuples with None where unknown
    selected: np.ndarray  # (U,)
    not_selected: np.ndarray
    undecided: np.ndarray
    compatible: np.ndarray  # (U, K) bool

    @property
    def n_unknown(self):
        return float(self.selected.sum() + self.not_selected.sum() + self.undecided.sum())

    @property
    def all_compatible(self):
        """Every unknown may belong to every category (a single characteristic, or
        unknown in every attribute)."""
        return bool(self.compatible.all()) if self.compatible.size else True

    @property
    def integer(self):
        """Whether every count is a whole number (whole people)."""
        parts = (self.n, self.s, self.selected, self.not_selected, self.undecided)
        return all(np.all(np.floor(p) == p) for p in parts)

    def pools(self):
        """The unknowns compatible with each category: ``(S_c, F_c, D_c)``, each (K,)."""
        C = self.compatible.astype(np.float64)
        return self.selected @ C, self.not_selected @ C, self.undecided @ C


def characteristic(entries, name):
    """The :class:`Characteristic` of a table of counts over its attributes.

    Categories are the fully known patterns that occur (sorted); a partly or
    wholly unknown pattern is an unknown type, compatible with the categories
    that agree with its known values. A type compatible with one category only
    is that category's (its people are counted there).
    """
    k = len(entries.attributes)
    patterns = list(zip(*entries.values)) if k else []
    known = [all(v is not None for v in p) for p in patterns]
    cells = sorted({p for p, ok in zip(patterns, known) if ok},
                   key=lambda p: tuple(_sort_key(v) for v in p))
    index = {p: i for i, p in enumerate(cells)}
    K = len(cells)
    n = np.zeros(K)
    s = np.zeros(K)
    types = {}
    for p, ok, d, c in zip(patterns, known, entries.decision, entries.count):
        if ok:
            n[index[p]] += c
            if d == SELECTED:
                s[index[p]] += c
            elif d == UNDECIDED:  # a known category without its decisions
                raise ValueError(MSG_KNOWN_UNDECIDED.format(
                    category=_shown(p, entries.attributes)))
            continue
        row = types.setdefault(p, [0.0, 0.0, 0.0])
        row[{SELECTED: 0, NOT_SELECTED: 1, UNDECIDED: 2}[int(d)]] += c
    compat_rows, kept = [], []
    for p, counts in types.items():
        match = np.array([all(v is None or v == cv for v, cv in zip(p, cell))
                          for cell in cells], dtype=bool)
        if match.sum() == 1 and counts[2] == 0:  # only one category it can be
            j = int(np.flatnonzero(match)[0])
            n[j] += counts[0] + counts[1]
            s[j] += counts[0]
            continue
        kept.append((p, counts))
        compat_rows.append(match)
    U = len(kept)
    counts = np.array([c for _, c in kept], dtype=np.float64).reshape(U, 3)
    return Characteristic(
        name=name, attributes=list(entries.attributes), cells=cells, n=n, s=s,
        patterns=[p for p, _ in kept], selected=counts[:, 0], not_selected=counts[:, 1],
        undecided=counts[:, 2],
        compatible=np.array(compat_rows, dtype=bool).reshape(U, K))


MSG_KNOWN_UNDECIDED = (
    "counts: the row of {category} has no n_selected; only a row of unknown people may leave "
    "its selections out (they are then bounded both ways)."
)


def _shown(pattern, attributes):
    return ", ".join(f"{a}={v!r}" for a, v in zip(attributes, pattern))


def characteristics(entries, *, intersect=True):
    """Each attribute's characteristic and, with two attributes or more and ``intersect``,
    the intersectional one, from a joint table of counts."""
    out = [characteristic(entries.project([j]), str(a))
           for j, a in enumerate(entries.attributes)]
    if intersect and len(entries.attributes) > 1:
        out.append(characteristic(entries, INTERSECTIONAL))
    return out


def entries_from_rows(columns, unknown_masks, selected, *, attributes):
    """The joint table of rows in memory.

    ``columns``: one object array per attribute; ``unknown_masks``: where each
    is unknown; ``selected``: bool (n,). Counts of whole rows.
    """
    n = selected.shape[0]
    codes, uniques = [], []
    for col, unknown in zip(columns, unknown_masks):
        values = col[~unknown]
        cats = sorted(set(values.tolist()), key=_sort_key)
        lookup = {v: i for i, v in enumerate(cats)}
        code = np.full(n, len(cats), dtype=np.int64)  # the last code: unknown
        if values.size:
            code[~unknown] = np.fromiter((lookup[v] for v in values.tolist()), dtype=np.int64,
                                         count=values.shape[0])
        codes.append(code)
        uniques.append(cats + [None])
    key = np.zeros(n, dtype=np.int64)
    for code, cats in zip(codes, uniques):
        key = key * len(cats) + code
    key = key * 2 + selected.astype(np.int64)
    found, counts = np.unique(key, return_counts=True)
    decision = (found % 2).astype(np.int8)
    rest = found // 2
    values = []
    for cats in reversed(uniques):
        values.append(np.array(cats, dtype=object)[rest % len(cats)])
        rest = rest // len(cats)
    values.reverse()
    return Entries(attributes=list(attributes), values=values, decision=decision,
                   count=counts.astype(np.float64))
