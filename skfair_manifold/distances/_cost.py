"""The cost model of ``method="auto"``: predicted seconds of each engine on the rows at hand.

The exact engine (:mod:`._exact`) works on *unique* rows (identical feature
vectors in the same cell of labels and attributes are computed once) and
compares each with the unique rows outside its own joint group of the
attributes: about ``pairs * (a + b * (p + 1))`` for ``p`` features, after
its layout (``n * (a + b * p)``). The neighbour lists (:mod:`._reuse`) do
not deduplicate: per attribute and group, every row against every row of the
other groups. The certified approximation costs, per label, attribute and
projection, a per-row term (the sort, the band of ``2 m2`` candidates; and
per group), an
engine's layout, and its exact checks: the pilot, the sample and the rows
checked for the maxima, each against the unique rows of the other groups
(:func:`checked_rows`).

Where the features are few the exact engine may instead find each row's
nearest rows through k-d trees (:mod:`._exact_index`, the same values): per
distinct point and label vector, the shared tree's query
(``INDEX_QUERY_NS``, a law geometric in the dimension), the rest of the
work per point (``INDEX_POINT_NS``), a fixed part per label vector
(``INDEX_FIXED_S``) and the rows the shared query leaves open
(:func:`index_seconds`); :func:`engine_path_seconds` takes the cheaper of
the trees and the pair blocks.

The constants are measured on this package's engines (one worker):
``python benchmarks/bench_hfm_auto.py --cost`` measures them on the machine
at hand beside the stated ones, and ``bench_hfm_auto.py`` times the choice
against both engines on a grid of shapes. What matters is the *ratio* of
the two predictions, which moves far less between machines than either time.

The rule (:func:`choose`): exact where its predicted time is not above the
approximation's. With duplicated rows (a table of a few discrete columns)
the engine's pairs shrink with the square of the unique rows, so exact is
chosen far beyond the crossover of continuous data. Once the approximation's
pilot has fixed its sample size, :func:`switch_after_pilot` turns to exact
when the rows left to check would cost more than exact.
"""

import numpy as np
from sklearn.utils import Bunch

from skfair_manifold.distances._exact_index import NEIGHBOURS

#: Nanoseconds per pair of unique rows in the exact engine: ``a + b * (p + 1)``.
ENGINE_NS = (3.5, 0.032)
#: Nanoseconds per pair (row, row of another group) and attribute in the neighbour
#: lists, their building and the answer of two labellings: ``a + b * (p + 1)``.
LISTS_NS = (3.4, 0.024)
#: Microseconds per row, label, projection and attribute of the approximation:
#: ``a + b * p * band(m2)``.
PROJECTION_US = (0.3, 0.0025)
#: Nanoseconds per row of the exact engine's layout (hashing, sorting, the copy of X):
#: ``a + b * p``.
LAYOUT_NS = (420.0, 11.5)
#: Microseconds per row, label, projection and group (summed over the attributes)
#: of the approximation, its work per group: ``a + b * p`` (fitted to the grid of
#: ``benchmarks/bench_hfm_auto.py``, 2 against 20 groups).
GROUP_US = (0.05, 0.001)
#: Seconds per joint group of the attributes in one pass of the exact engine (its
#: blocks are cut per joint group; fitted to the same grid).
JOINT_S = 1e-3
#: The exact engine's index path (:mod:`._exact_index`), per point (distinct
#: features and label) and label vector: nanoseconds of the query of the shared
#: tree of ``n`` points, ``a * b ** p * (n / 1e5) ** (c * p ** 2)`` (a k-d
#: tree's search grows geometrically with the dimension, and with the points
#: the more so the higher the dimension).
INDEX_QUERY_NS = (410.0, 1.64, 0.003)
#: ... and of the rest, per point and label vector: the points, the trees, the
#: answers read per attribute, ``a + b * p + c * n_attributes``.
INDEX_POINT_NS = (300.0, 50.0, 400.0)
#: ... and seconds per label vector whatever the points, ``a + b * n_attributes``
#: (the trees' and blocks' set-up, each attribute's trees of the other groups).
INDEX_FIXED_S = (1e-3, 1e-3)
#: Features beyond which the law of ``INDEX_QUERY_NS`` (fitted on 1 to 10) is not
#: used: a query is then counted as a visit of every point.
INDEX_MAX_FEATURES = 16
#: ... and per point of a tree of the other groups (built where the shared tree
#: leaves rows open).
INDEX_TREE_NS = 90.0
#: Rows the certified approximation checks exactly at least, with the adaptive
#: sample size: its pilot and the rows checked for the maxima
#: (``_sample_size.PILOT_SIZE + MIN_CHECKS``).
CHECKED_ROWS = 5000
#: Rows the maxima's check takes beyond the sample, as :func:`switch_after_pilot`
#: counts them (measured at the default sample: 2 to 704 on the credit-like
#: table, COMPAS, Adult and the Dutch census, against budgets of 5,251 to 58,370).
EXPECTED_MAX_CHECKS = 1000


def band(m2):
    """Relative width of the approximation's band of candidates (1 at ``m2 = 8``)."""
    return (16 + 2 * m2) / 32.0


def engine_pairs(joint_sizes):
    """Pairs the exact engine compares: unique rows against those outside their joint group.

    ``joint_sizes``: unique rows per joint group of the attributes.
    """
    sizes = np.asarray(joint_sizes, dtype=np.float64)
    return float(np.sum(sizes * (sizes.sum() - sizes)))


def lists_pairs(group_sizes):
    """Pairs the neighbour lists compare: ``sum_k sum_g n_g (n - n_g)`` over attributes."""
    total = 0.0
    for sizes in group_sizes:
        sizes = np.asarray(sizes, dtype=np.float64)
        total += float(np.sum(sizes * (sizes.sum() - sizes)))
    return total


def layout_seconds(n_samples, n_features):
    """The exact engine's preparation (:class:`._exact.ExactEngine`), one per engine."""
    a, b = LAYOUT_NS
    return n_samples * (a + b * n_features) * 1e-9


def engine_seconds(pairs, n_features):
    """The exact engine's comparisons (``pairs``, see :func:`engine_pairs`)."""
    a, b = ENGINE_NS
    return pairs * (a + b * (n_features + 1)) * 1e-9


def lists_seconds(pairs, n_features):
    """The neighbour lists' building and answers (``pairs``, see :func:`lists_pairs`)."""
    a, b = LISTS_NS
    return pairs * (a + b * (n_features + 1)) * 1e-9


def index_query_ns(n_points, n_features):
    """Nanoseconds of one point's query of a tree of ``n_points`` (see ``INDEX_QUERY_NS``).

    At most a visit of every point (a k-d tree's worst case, ``n_points (p + 1)``
    ns), which it is taken to be beyond ``INDEX_MAX_FEATURES`` features, where
    the fitted law is not trusted.
    """
    scan = max(n_points, 1) * (n_features + 1.0)
    if n_features > INDEX_MAX_FEATURES:
        return scan
    a, b, c = INDEX_QUERY_NS
    log_ns = (np.log(a) + n_features * np.log(b)
              + c * n_features ** 2 * np.log(max(n_points, 1) / 1e5))
    return float(min(np.exp(min(log_ns, 700.0)), scan))


def index_seconds(n_unique, n_features, group_sizes, n_labels):
    """The exact engine's index path on ``n_unique`` points per label vector.

    The shared tree answers each point from its nearest ``NEIGHBOURS`` points;
    a point of a group that holds a share ``s`` of the rows finds none of
    another group among them with probability about ``s ** (NEIGHBOURS - 1)``
    (groups mixed at random), and is asked again of the other groups' tree
    (a query of half the cost, and that tree's building).
    """
    query = index_query_ns(n_unique, n_features)
    a, b, c = INDEX_POINT_NS
    per_point = query + a + b * n_features + c * len(group_sizes)
    fixed_a, fixed_b = INDEX_FIXED_S
    for sizes in group_sizes:
        share = np.asarray(sizes, dtype=np.float64) / max(float(np.sum(sizes)), 1.0)
        open_ = share ** NEIGHBOURS  # rows of the group left open, per point
        per_point += float(np.sum(open_)) * 0.5 * query
        per_point += float(np.sum((open_ * n_unique >= 1) * (1 - share))) * INDEX_TREE_NS
    return n_labels * (n_unique * per_point * 1e-9 + fixed_a + fixed_b * len(group_sizes))


def checked_rows(sample_size, n_unique):
    """Rows the certified approximation computes exactly, as far as known beforehand.

    A fixed ``sample_size`` ``s``: the sample and at most ``s`` rows for the
    maxima; ``"auto"``: at least ``CHECKED_ROWS`` (the pilot tells more, see
    :func:`switch_after_pilot`). At most the unique rows.
    """
    if isinstance(sample_size, (int, np.integer)):
        return min(2 * int(sample_size), n_unique)
    return min(CHECKED_ROWS, n_unique)


def approx_seconds(n_samples, n_features, *, m1, n_vectors, m2, n_labels, n_attributes,
                   check_pairs, n_groups=0):
    """Projections of every label, attribute and group, the checks' engine and ``check_pairs``."""
    a, b = PROJECTION_US
    per_unit = (a + b * n_features * band(m2)) * 1e-6
    a, b = GROUP_US
    per_unit = (n_attributes * per_unit
                + n_groups * (a + b * n_features) * 1e-6)
    projections = n_labels * m1 * n_vectors * n_samples * per_unit
    return (projections + layout_seconds(n_samples, n_features)
            + engine_seconds(check_pairs, n_features))


def choose(*, n_samples, n_features, n_unique, joint_sizes, group_sizes, m1, n_vectors, m2,
           n_labels=2, sample_size="auto", cache_state="new", index=True):
    """Predicted seconds of both engines and the faster one.

    Parameters
    ----------
    n_samples, n_features : int
        Rows and features.
    n_unique : int
        Unique rows of the exact engine (feature vector and cell).
    joint_sizes : array-like
        Unique rows per joint group of the attributes.
    group_sizes : list of array-like
        Rows per group, per attribute (the neighbour lists' work).
    m1, n_vectors, m2 : int
        The approximation's settings.
    n_labels : int, default=2
        Label vectors (the true labels and the predictions).
    sample_size : int or "auto"
        The approximation's sample (see :func:`checked_rows`).
    cache_state : {"new", "engine", "seen", "lists"}
        What the reuse cache holds for these rows (:func:`._reuse.fold_state`):
        ``"lists"``, exact costs the lists' answers only, ``O(n)``;
        ``"seen"``, exact builds the lists; ``"new"``, exact runs the cheaper
        of the engine and the lists; ``"engine"``, the lists cannot be kept
        (the cache is off or too small): exact runs the engine.
    index : bool, default=True
        Whether the engine's index path may run (:func:`._exact_index.index_usable`).

    Returns
    -------
    choice : Bunch
        ``method`` (``"exact"`` where its prediction is not above the
        approximation's, else ``"approx"``), ``exact_s``, ``approx_s``
        (predicted seconds), ``exact_path`` (``"engine"``, the pair blocks;
        ``"index"``, the engine's k-d trees; ``"lists"`` or ``"cached
        lists"``), ``pairs`` (the engine's, :func:`engine_pairs`).

    Examples
    --------
    >>> c = choose(n_samples=100_000, n_features=20, n_unique=100_000,
    ...            joint_sizes=[10_000] * 10, group_sizes=[[50_000] * 2, [20_000] * 5],
    ...            m1=5, n_vectors=2, m2=10)
    >>> c.method, bool(c.exact_s > 5 * c.approx_s)
    ('approx', True)
    >>> c = choose(n_samples=21_791, n_features=3, n_unique=1_000,
    ...            joint_sizes=[100] * 10, group_sizes=[[11_000, 10_791]],
    ...            m1=5, n_vectors=2, m2=9)
    >>> c.method, c.exact_path in ("engine", "index")
    ('exact', True)
    >>> c = choose(n_samples=1_000_000, n_features=3, n_unique=1_000_000,
    ...            joint_sizes=[62_500] * 16, group_sizes=[[125_000] * 8, [500_000] * 2],
    ...            m1=5, n_vectors=2, m2=12)
    >>> c.method, c.exact_path
    ('exact', 'index')
    """
    pairs = engine_pairs(joint_sizes)
    engine_s, engine_path = engine_path_seconds(
        pairs=pairs, n_joint=len(joint_sizes), n_unique=n_unique, n_features=n_features,
        group_sizes=group_sizes, n_labels=n_labels, index=index)
    engine_s += layout_seconds(n_samples, n_features)
    lists_s = lists_seconds(lists_pairs(group_sizes), n_features)
    if cache_state == "lists":
        exact_s, path = n_labels * len(group_sizes) * n_samples * 0.1e-6, "cached lists"
    elif cache_state == "seen":
        exact_s, path = lists_s, "lists"
    elif cache_state == "engine" or engine_s <= lists_s:
        exact_s, path = engine_s, engine_path
    else:
        exact_s, path = lists_s, "lists"
    check_pairs = pairs * checked_rows(sample_size, n_unique) / max(n_unique, 1)
    approx_s = approx_seconds(n_samples, n_features, m1=m1, n_vectors=n_vectors, m2=m2,
                              n_labels=n_labels, n_attributes=len(group_sizes),
                              check_pairs=check_pairs,
                              n_groups=sum(len(g) for g in group_sizes))
    method = "exact" if exact_s <= approx_s else "approx"
    return Bunch(method=method, exact_s=float(exact_s), approx_s=float(approx_s),
                 exact_path=path, pairs=pairs)


def engine_path_seconds(*, pairs, n_joint, n_unique, n_features, group_sizes, n_labels,
                        index=True):
    """The exact engine's faster path and its seconds, its layout aside.

    ``(s, "engine")`` for the pair blocks (``pairs``, :func:`engine_pairs`, and a
    term per joint group), ``(s, "index")`` for the k-d trees
    (:func:`index_seconds`) where ``index`` allows them and they cost less.
    """
    pairs_s = engine_seconds(pairs, n_features) + JOINT_S * n_joint
    index_s = (index_seconds(n_unique, n_features, group_sizes, n_labels) if index
               else np.inf)
    return (index_s, "index") if index_s < pairs_s else (pairs_s, "engine")


def switch_after_pilot(*, n_unique, sample_size, pilot_size, max_checks):
    """``True`` when, the pilot done, exact costs less than the rest of the approximation.

    The projections are done and the engine is built: exact costs the
    engine's comparisons for every unique row; the approximation still has
    to check ``sample_size - pilot_size`` rows of its sample and the rows
    its maxima need, each row the same comparisons. The maxima's check stops
    once they are certain, far below its budget ``max_checks`` (at least
    the sample): it is counted at ``min(max_checks, EXPECTED_MAX_CHECKS)``
    (counted in full, a sample of 13,894 rows on Adult turned to exact at
    2.83 s where the approximation took 1.78 s). A large sample (a widely
    spread excess, as with few features) can make the approximation the
    dearer.

    Examples
    --------
    >>> switch_after_pilot(n_unique=20_000, sample_size=20_000,
    ...                    pilot_size=1000, max_checks=20_000)
    True
    >>> switch_after_pilot(n_unique=40_000, sample_size=2000,
    ...                    pilot_size=1000, max_checks=4000)
    False
    """
    rest = sample_size - pilot_size + min(max_checks, EXPECTED_MAX_CHECKS)
    return rest >= n_unique


def layout_sizes(layout):
    """``(n_unique, joint_sizes)`` of an exact engine's layout (``ExactEngine.layout``)."""
    starts = layout.cell_starts[layout.joint_cell_range[:, 0]]
    return int(layout.n_unique), np.diff(np.r_[starts, layout.n_unique])


def group_sizes(codes):
    """Rows per group of each attribute."""
    return [np.bincount(np.asarray(c)) for c in codes]


def layout_group_sizes(layout):
    """Unique rows per group of each attribute of an exact engine's layout."""
    cell_rows = np.diff(np.r_[layout.cell_starts, layout.n_unique])
    return [np.bincount(layout.cell_attr[:, k], weights=cell_rows)
            for k in range(layout.n_attr)]


def engine_path(layout, *, index=True):
    """``(seconds, path)`` of the exact engine's faster path on its layout (see
    :func:`engine_path_seconds`)."""
    n_unique, joint = layout_sizes(layout)
    return engine_path_seconds(
        pairs=engine_pairs(joint), n_joint=len(joint), n_unique=n_unique,
        n_features=layout.X.shape[1], group_sizes=layout_group_sizes(layout),
        n_labels=layout.n_labels, index=index)


def engine_cheaper_than_lists(layout, codes, n_features, *, index=True):
    """``True`` when one pass of the engine costs less than building the neighbour lists.

    The pair blocks counted by their pairs alone (as the lists are), the
    trees where ``index`` allows them and they cost less.
    """
    n_unique, joint = layout_sizes(layout)
    engine_s = engine_seconds(engine_pairs(joint), n_features)
    if index:
        engine_s = min(engine_s, index_seconds(n_unique, n_features, layout_group_sizes(layout),
                                               layout.n_labels))
    return engine_s <= lists_seconds(lists_pairs(group_sizes(codes)), n_features)
