"""Conditional independence tests of a column and the decision given a stratum.

The local parent search (``_parent_search``) asks, again and again, whether
a column ``x`` and the decision ``e`` are independent given the joint value
``s`` of a few other columns. Each test is one ``np.bincount`` over the rows
(``_stratified_counts``) and a statistic on the counts: the G-test where its
chi-squared approximation holds (Cochran's rule), the generalized
Cochran-Mantel-Haenszel test, or both. :func:`level_shift` reads an effect size
off the same counts: the largest shift of the decision's rate that one
level of ``x`` makes within the strata.
"""

import numpy as np
from scipy import stats


def g_test(x, e, s, n_levels):
    """Conditional G-test of independence ``x _||_ e | s`` on integer codes.

    Parameters
    ----------
    x, e : ndarray of shape (n,), dtype intp
        Codes ``0 .. n_levels[.] - 1``.
    s : ndarray of shape (n,) or None
        One integer code per stratum of the conditioning set (None: none).
    n_levels : tuple of int
        Numbers of levels of ``x`` and ``e``.

    Returns
    -------
    p_value : float
    statistic : float
    dof : int
        Degrees of freedom, counted per stratum over the levels actually
        seen: ``sum_s (|x seen in s| - 1) * (|e seen in s| - 1)`` (empty
        rows and columns carry no information).
    """
    return _g_test(_stratified_counts(x, e, s, *n_levels))


def _margins(counts):
    """Row and column margins per stratum and the counts expected under independence."""
    n_sx = counts.sum(axis=2, keepdims=True)
    n_se = counts.sum(axis=1, keepdims=True)
    n_s = counts.sum(axis=(1, 2), keepdims=True)
    return n_sx, n_se, n_sx * n_se / np.where(n_s > 0, n_s, 1.0)


def _g_test(counts):
    """:func:`g_test` on the stratified counts."""
    n_sx, n_se, expected = _margins(counts)
    nz = counts > 0
    stat = 2.0 * float(np.sum(counts[nz] * np.log(counts[nz] / expected[nz])))
    dof = int(np.sum(np.maximum((n_sx[:, :, 0] > 0).sum(axis=1) - 1, 0)
                     * np.maximum((n_se[:, 0, :] > 0).sum(axis=1) - 1, 0)))
    if dof <= 0:
        return 1.0, stat, 0
    return float(stats.chi2.sf(stat, dof)), stat, dof


def cmh_test(x, e, s, n_levels):
    """Generalized Cochran-Mantel-Haenszel test of ``x _||_ e | s``, ``e`` binary.

    The statistic compares, summed over the strata, the count of ``e = 1`` at
    each level of ``x`` with its expectation under independence within the
    stratum, scaled by the hypergeometric covariance (margins of each stratum
    fixed):

    ``Q = d' V^+ d``, ``d = sum_k (n_k1 - r_k m_k1 / m_k)``,
    ``V = sum_k m_k1 m_k0 / (m_k^2 (m_k - 1)) (m_k diag(r_k) - r_k r_k')``

    where ``r_k`` holds the level counts of ``x`` in stratum ``k``, ``m_k``
    its rows and ``m_k1``, ``m_k0`` its decisions. Under conditional
    independence ``Q`` is asymptotically chi-squared with ``rank(V)``
    (at most ``levels - 1``) degrees of freedom whatever the number of
    strata, so it keeps its level and its power with many sparse strata; it
    detects an association of the same direction in every stratum, not one
    that changes sign across strata.

    Parameters
    ----------
    x, e : ndarray of shape (n,), dtype intp
        Codes; ``e`` is 0/1.
    s : ndarray of shape (n,) or None
        One integer code per stratum (None: one stratum).
    n_levels : tuple of int
        Numbers of levels of ``x`` and ``e`` (``e`` must have 2).

    Returns
    -------
    p_value : float
    statistic : float
    dof : int
        The rank of ``V`` (0 when no stratum holds both decisions and two
        levels of ``x``; the p-value is then 1).

    References
    ----------
    Landis, Heyman and Koch (1978), "Average partial association in
    three-way contingency tables", International Statistical Review 46.
    """
    return _cmh_test(_stratified_counts(x, e, s, n_levels[0], 2))


def _cmh_test(counts):
    """:func:`cmh_test` on the stratified counts (decision levels last, 2 of them)."""
    m = counts.sum(axis=(1, 2))
    keep = m > 1
    counts, m = counts[keep], m[keep]
    r = counts.sum(axis=2)  # (ns, nx)
    m1 = counts[:, :, 1].sum(axis=1)
    m0 = m - m1
    d = (counts[:, :, 1] - r * (m1 / m)[:, None]).sum(axis=0)
    w = m1 * m0 / (m * m * (m - 1.0))
    V = np.diag((w * m) @ r) - np.einsum("k,ki,kj->ij", w, r, r)
    dof = int(np.linalg.matrix_rank(V, tol=1e-9 * max(float(np.abs(V).max()), 1e-300)))
    if dof == 0:
        return 1.0, 0.0, 0
    stat = float(d @ np.linalg.pinv(V, rcond=1e-9, hermitian=True) @ d)
    return float(stats.chi2.sf(stat, dof)), stat, dof


def _n_strata(s):
    """The number of distinct stratum codes (``bincount`` when the codes are dense)."""
    n = s.shape[0]
    if not n:
        return 0
    top = int(s.max()) + 1
    if top <= 4 * n + 1024:
        return int(np.count_nonzero(np.bincount(s)))
    return len(np.unique(s))


def _strata_code(codes, subset, levels):
    """One int64 code per row for the joint value of the columns in ``subset``
    (relabelled densely whenever the next product could leave int64)."""
    code = np.zeros(codes.shape[0], dtype=np.int64)
    size = 1
    for i in subset:
        lev = int(levels[i])
        if size * lev >= 2 ** 62:
            uniq, code = np.unique(code, return_inverse=True)
            code = code.reshape(-1).astype(np.int64)
            size = uniq.shape[0]
        code = code * lev + codes[:, i]
        size *= lev
    return code


def _stratified_counts(x, e, s, nx, ne):
    """Counts of shape (strata seen, nx, ne) as float64."""
    if s is None:
        s = np.zeros_like(x)
        ns = 1
    else:
        ns = int(s.max()) + 1 if s.shape[0] else 1
        if ns * nx * ne > 4 * s.shape[0] + 1024:  # sparse strata: relabel densely
            _, s = np.unique(s, return_inverse=True)
            s = s.reshape(-1)
            ns = int(s.max()) + 1 if s.shape[0] else 1
    counts = np.bincount((s * nx + x) * ne + e, minlength=ns * nx * ne).reshape(ns, nx, ne)
    return counts.astype(np.float64)


TESTS = ("g", "cmh", "g+cmh")


MIN_ROWS_PER_CELL = 5
MIN_EXPECTED = 5.0  # Cochran's rule: at most 20% of the cells expect fewer rows
MAX_SMALL_SHARE = 0.2


def g_is_reliable(x, e, s, n_levels):
    """Cochran's rule for the G-test's chi-squared approximation.

    True when at most ``MAX_SMALL_SHARE`` of the cells (levels seen in each
    stratum seen) expect fewer than ``MIN_EXPECTED`` rows under
    independence. Beyond it the G-test is liberal, badly so with many small
    strata: with 480 strata of 20,000 rows it rejects a column drawn
    independently of everything in 95% of the draws at level 0.005 (the
    CMH test in none).
    """
    return _cochran_holds(_stratified_counts(x, e, s, *n_levels))


def _cochran_holds(counts):
    """:func:`g_is_reliable` on the stratified counts."""
    n_sx, n_se, expected = _margins(counts)
    seen = (n_sx > 0) & (n_se > 0)
    cells = int(seen.sum())
    return cells == 0 or float(np.mean(expected[seen] < MIN_EXPECTED)) <= MAX_SMALL_SHARE


def ci_test(x, e, s, n_levels, test):
    """One conditional independence test; returns ``(p_value, dof)``.

    ``"g"``: the G-test where its chi-squared approximation holds
    (Cochran's rule, :func:`g_is_reliable`), else the CMH test, which keeps
    its level in sparse tables; ``"cmh"``: the generalized
    Cochran-Mantel-Haenszel test; ``"g+cmh"``: both, with the Bonferroni
    p-value ``min(1, 2 min(p_g, p_cmh))`` (dependence when either rejects at
    ``alpha / 2``): the CMH test's power against an association of one
    direction across many strata, the G-test's against one that changes
    direction; the CMH test alone where the G-test is not reliable.
    ``dof`` is that of the test (the larger of the two when both).
    """
    counts = _stratified_counts(x, e, s, *n_levels)  # one pass over the rows for every test
    return ci_test_counts(counts, test)


def ci_test_counts(counts, test):
    """:func:`ci_test` on the stratified counts (strata, levels of x, 2)."""
    n_x = counts.shape[1]
    if test == "g":
        pv, _, dof = _g_test(counts) if _cochran_holds(counts) else _cmh_test(counts)
        return pv, dof
    pc, _, dc = _cmh_test(counts)
    n_strata = int(np.count_nonzero(counts.sum(axis=(1, 2))))
    if test == "cmh" or counts.sum() < MIN_ROWS_PER_CELL * 2 * n_x * n_strata \
            or not _cochran_holds(counts):
        return pc, dc
    pg, _, dg = _g_test(counts)
    if dg == 0 and dc == 0:
        return 1.0, 0
    return min(1.0, 2.0 * min(pg, pc)), max(dg, dc)


#: The m-estimate's weight pulling a cell's rate towards its stratum's (``level_shift``).
SHIFT_SMOOTHING = 5.0
#: The least share of the rows a level needs to count in ``level_shift``.
SHIFT_MIN_SHARE = 0.05


def level_shift(counts):
    """The largest shift of the decision's rate that one level of ``x`` makes, given ``s``.

    For each level ``v`` of ``x`` holding at least ``SHIFT_MIN_SHARE`` of the
    rows: the mean over the strata ``s`` (weighted by the rows of ``v`` in
    each) of ``|P~(e+ | v, s) - P(e+ | s)|``, where ``P~`` is the m-estimate
    ``(n+(v, s) + m P(e+ | s)) / (n(v, s) + m)``, ``m = SHIFT_SMOOTHING``,
    so that a sparse cell (the many strata of several parents) is not taken
    at its noisy face value. Returns the largest over the levels (0 when
    none counts), on the scale of the decision's rate, the scale of ``tau``.
    """
    n_vs = counts.sum(axis=2)
    n = float(n_vs.sum())
    if n <= 0:
        return 0.0
    n_s = n_vs.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_s = np.where(n_s > 0, counts[:, :, 1].sum(axis=1) / n_s, 0.0)
        p_vs = (counts[:, :, 1] + SHIFT_SMOOTHING * p_s[:, None]) / (n_vs + SHIFT_SMOOTHING)
        rows_v = n_vs.sum(axis=0)
        shift = (n_vs * np.abs(p_vs - p_s[:, None])).sum(axis=0) / np.maximum(rows_v, 1.0)
    counted = rows_v >= SHIFT_MIN_SHARE * n
    return float(shift[counted].max()) if counted.any() else 0.0
