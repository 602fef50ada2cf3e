"""A nominal column of many values: refused by name, with the fix, where its cost is unbounded.

A nominal column (a zip code, an occupation code) of ``L`` values costs on
three paths more than its rows:

* the structure search (a learned graph, in memory and on a lazy frame's
  sample): the Cochran-Mantel-Haenszel test of a column holds an ``L x L``
  covariance matrix and its pseudo-inverse (four such matrices at once, a
  time that grows as ``L ** 3``, :mod:`._citests`); 100,000 codes would
  allocate 74.5 GiB for the matrix alone. A column of more values than
  :func:`cmh_limit` (the smaller of :data:`MAX_CMH_LEVELS` and what the
  working memory holds) is refused before the search;
* KNN-DD's exact index (``_knn_index``) embeds a nominal column in ``L + 1``
  one-hot columns: with ``algorithm="kd_tree"`` an embedding larger than the
  working memory is refused (82 GiB at 100,000 codes in 200,000 rows); with
  ``algorithm="auto"`` such a column turns the index off (more than
  ``MAX_DIM`` columns), and every person is compared with every record: above
  :data:`BRUTE_PAIRS` comparisons (25 minutes at 200,000 rows) the column is
  refused, and ``algorithm="brute"`` runs them when asked;
* CBN-DD's subgroups: the table of causal effects is bounded in ``_cbn``
  (``MSG_TOO_MANY_PROFILES``, which names the column of most values).

Each message names the column, its values and rows, the cost, and the fix:
leave the column out, group its values, give the graph, or ask for the cost.
The working memory is scikit-learn's (``sklearn.set_config(working_memory=)``,
MiB, 1024 by default).
"""

import numpy as np

from ...utils._parallel import working_memory_bytes
from ._knn_index import MAX_DIM, MIN_UNITS

#: the most values of a column the structure search's CMH test takes (about 0.3 s a test)
MAX_CMH_LEVELS = 500
#: ``L x L`` float64 matrices the CMH test holds at once (V, its eigenvectors, pinv, a copy)
CMH_MATRICES = 4
#: person-record comparisons KNN-DD makes without its index before a column is refused
BRUTE_PAIRS = 1e10
#: copies of a side's embedding the index holds (the embedding and the tree's own)
TREE_COPIES = 2
#: the most columns of a forced index (a KD-tree in more dimensions visits every record)
MAX_TREE_WIDTH = 1024

MSG_SEARCH_LEVELS = (
    "column {column!r} has {levels:,} values in {rows:,} rows: the structure search's "
    "Cochran-Mantel-Haenszel test of a column inverts a matrix of its values by its values "
    "({gib:.3g} GiB at {levels:,} values, in a time that grows as their cube), and takes at "
    "most {limit:,} values (by the working memory, sklearn.set_config(working_memory=...), "
    "and the time). Pass graph= with the decision's parents, leave the column out of X, or "
    "group its values into at most {limit:,} (for instance the first digits of a code)."
)

MSG_KD_TREE_WIDTH = (
    "column {column!r} is nominal with {levels:,} values in {rows:,} rows: "
    "algorithm='kd_tree' embeds it in {levels_plus:,} one-hot columns, an index of "
    "{gib:.3g} GiB over the {units:,} distinct records of a side{why}. Leave the column out of "
    "X, group its values into fewer, declare it ordinal or interval if its codes are "
    "ordered, or pass algorithm='brute' (every person compared with every record)."
)

MSG_KNN_BRUTE = (
    "{columns} {verb} nominal with {levels} values in {rows:,} rows: KNN-DD's exact index "
    "takes at most {max_dim} columns of one-hot values, so with {them} every person is "
    "compared with every record (about {pairs:.2g} comparisons, far more than the "
    "{limit:.2g} the audit makes without asking; minutes to hours). Leave {them} out of "
    "X, group {its} values into fewer (then the index is used), declare {them} ordinal or "
    "interval if the codes are ordered, or pass algorithm='brute' to compare every pair "
    "anyway."
)


def cmh_limit():
    """The most values of a column the structure search tests (see the module)."""
    fits = np.sqrt(working_memory_bytes() / (8.0 * CMH_MATRICES))
    return int(min(MAX_CMH_LEVELS, fits))


def check_search_levels(codes, candidates, columns):
    """Refuse a candidate column of the structure search with more values than
    :func:`cmh_limit` (``codes``: every column coded ``0 .. levels - 1``)."""
    n = codes.shape[0]
    if not n:
        return
    levels = codes.max(axis=0) + 1
    limit = cmh_limit()
    over = [j for j in candidates if levels[j] > limit]
    if over:
        j = max(over, key=lambda j: levels[j])
        L = int(levels[j])
        raise ValueError(MSG_SEARCH_LEVELS.format(
            column=columns[j], levels=L, rows=n, gib=8.0 * L * L / 2 ** 30, limit=limit))


def check_knn_index(selector, names, n_rows):
    """Refuse a nominal column that makes KNN-DD's index larger than the working memory
    (``algorithm="kd_tree"``) or turns it off above :data:`BRUTE_PAIRS` comparisons
    (``"auto"``). ``names``: the compared columns' names, in the selector's order."""
    sizes = np.array([d.shape[0] for d in selector.domains], dtype=np.int64)
    nominal = np.flatnonzero(selector.nominal)
    if not nominal.size:
        return
    order = nominal[np.argsort(-sizes[nominal], kind="stable")]
    units = [side["units"].shape[0] for side in selector.sides]
    width = selector.width
    if selector.algorithm == "kd_tree":
        need = 8.0 * TREE_COPIES * max(units) * width  # the queries' blocks are bounded
        budget = working_memory_bytes()
        j = order[0]
        if need > budget:
            why = (f", more than the working memory ({budget / 2 ** 30:.3g} GiB, "
                   f"sklearn.set_config(working_memory=...))")
        elif width > MAX_TREE_WIDTH and width - int(sizes[j]) <= MAX_TREE_WIDTH:
            why = (f"; in more than {MAX_TREE_WIDTH:,} dimensions a KD-tree visits nearly "
                   f"every record for each person, slower than comparing every pair")
        else:
            return
        raise ValueError(MSG_KD_TREE_WIDTH.format(
            column=names[j], levels=int(sizes[j]), levels_plus=int(sizes[j]) + 1,
            rows=n_rows, gib=need / 2 ** 30, units=max(units), why=why))
    if selector.algorithm != "auto" or width <= MAX_DIM:
        return
    pairs = float(sum(units)) * sum(u for u in units if u >= MIN_UNITS)
    if pairs <= BRUTE_PAIRS:
        return
    named, left = [], width
    for j in order:  # the columns whose one-hot values keep the index off, most first
        if left <= MAX_DIM:
            break
        named.append(j)
        left -= int(sizes[j])  # one column left of it
    if left > MAX_DIM:
        return  # the other columns are too many for the index anyway: not a nominal matter
    one = len(named) == 1
    raise ValueError(MSG_KNN_BRUTE.format(
        columns=("column " if one else "columns ") + ", ".join(repr(names[j]) for j in named),
        verb="is" if one else "are", levels=" and ".join(f"{int(sizes[j]):,}" for j in named),
        rows=n_rows, max_dim=MAX_DIM, them="it" if one else "them",
        its="its" if one else "their", pairs=pairs, limit=BRUTE_PAIRS))
