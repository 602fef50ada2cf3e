"""Neighbour lists: per row and attribute the nearest rows of other groups, for any labelling."""

import numpy as np
from threadpoolctl import ThreadpoolController, threadpool_limits

from skfair_manifold.distances._exact import BLAS_THREADS, ExactEngine
from skfair_manifold.distances._exact_kernel import (
    _nonzero_2d,
    gram_error,
    pair_feature_distances,
)
from skfair_manifold.distances._numerics import scaled_features
from skfair_manifold.utils._parallel import working_memory_bytes

#: Rows of other groups kept per row and attribute in the neighbour lists.
LIST_LENGTH = 32

_BOUND_SLACK = 2.0 ** -40

#: Relative slack of the squared comparisons of :meth:`NeighbourLists.answer`.
_SQUARE_SLACK = 1.0 + 2.0 ** -40

_SQUARE_FLOOR = float(np.finfo(np.float64).tiny)

#: Pairs whose direct distances are computed at once.
_PAIR_CHUNK = 1 << 14


def _smallest(values, take):
    """Column indices and values of the ``take`` smallest of each row, in order.

    The columns are dealt into ``groups`` interleaved groups (column ``c``
    in group ``c % groups``; the last ``n_cols % groups`` columns each a
    group of its own), whose minima are an elementwise minimum of contiguous
    slabs (one pass at memory speed). The ``take``-th smallest minimum is a
    threshold that at least ``take`` values reach; only the values under it
    (about ``take`` more) are sorted. Ties are broken by column, so the result is
    deterministic and does not depend on the grouping. A partial sort of
    every value costs about five times as much.
    """
    n_rows, n_cols = values.shape
    if n_cols <= 4 * take:
        part = (np.argpartition(values, take - 1, axis=1)[:, :take] if take < n_cols
                else np.tile(np.arange(n_cols), (n_rows, 1)))
        vals = np.take_along_axis(values, part, axis=1)
        order = np.lexsort((part, vals), axis=1)
        return np.take_along_axis(part, order, axis=1), np.take_along_axis(vals, order, axis=1)
    size = min(64, max(4, n_cols // (6 * take)))  # columns per group
    groups = n_cols // size
    body = groups * size
    slab = values[:, :body].reshape(n_rows, size, groups)
    minima = np.empty((n_rows, groups + n_cols - body), dtype=values.dtype)
    np.min(slab, axis=1, out=minima[:, :groups])
    minima[:, groups:] = values[:, body:]
    threshold = np.partition(minima, take - 1, axis=1)[:, take - 1]
    flat = np.flatnonzero(values <= threshold[:, None])
    v = values.reshape(-1)[flat]
    q, c = np.divmod(flat, n_cols)
    order = _row_value_order(q, v)  # by row, then value, then column
    q, c, v = q[order], c[order], v[order]
    first = np.searchsorted(q, np.arange(n_rows))
    rank = np.arange(q.size) - first[q]
    keep = rank < take
    part = np.empty((n_rows, take), dtype=np.intp)
    vals = np.empty((n_rows, take))
    part[q[keep], rank[keep]] = c[keep]
    vals[q[keep], rank[keep]] = v[keep]
    return part, vals


def _row_value_order(q, v):
    """``np.lexsort((c, v, q))`` for ``q, c`` in row-major order (``np.flatnonzero``).

    One stable sort of a 64-bit key, the row above the bits of ``v``
    (float32) mapped to integers in their order (``-0.0`` made ``+0.0``
    first, as the comparison of floats has them equal): a tie keeps the
    positions' order, which is the columns'. About five times faster than
    the sort of three keys; the same order. NaN (never from finite rows)
    falls back to it.
    """
    if v.dtype != np.float32 or np.isnan(v).any():
        return np.lexsort((v, q))  # stable: ties keep the columns' order
    bits = (v + np.float32(0.0)).view(np.uint32).astype(np.uint64)
    key = np.where(bits >> np.uint64(31), bits ^ np.uint64(0xFFFFFFFF),
                   bits | np.uint64(0x80000000))
    key |= q.astype(np.uint64) << np.uint64(32)
    return np.argsort(key, kind="stable")


_UNIT_ROUNDOFF_32 = 2.0 ** -24


def ranking_error(sq_norms, max_norm, n_features):
    """Bound of the error of the single-precision form of a squared distance.

    The lists rank with ``P = fl32([-2 q, 1] . [r, |r|^2])`` (coordinates and
    norms rounded to float32) plus the float64 ``|q|^2``. With
    ``R = |q| + max |r|`` and ``u = 2**-24``: the dot product of ``d + 1``
    terms errs by at most ``gamma_(d+1) R^2``; rounding the coordinates moves
    ``|q - r|^2`` by at most ``(2u + u^2) R^2`` and the norms by at most
    ``3u R^2`` and ``(2u + u^2) R^2``; the float64 addition is negligible
    beside them. The sum is below ``(d + 8) u R^2``; the bound returned is
    twice that.
    """
    reach = (np.sqrt(sq_norms) + max_norm) ** 2
    return 2.0 * (n_features + 8) * _UNIT_ROUNDOFF_32 * reach


class NeighbourLists:
    """For every row and attribute, the nearest rows of other groups on the features.

    Per attribute ``k``: ``index[k]`` (n, L), the listed rows, nearest first
    by the Gram form; ``low2[k]`` and ``high2[k]`` (n, L), bounds of the
    squares of their feature distances from the Gram form's error bound
    (``inf`` past the rows of other groups); ``direct[k]`` (n, L), their
    direct distances (the
    engine's values), computed when a labelling first needs them (``nan``
    until then); ``bound[k]`` (n,), a lower bound of the feature distance of
    every row of another group left out (``inf`` when none is left out). All
    distances in the data's units.
    """

    def __init__(self, X, codes, *, length=LIST_LENGTH, working_memory=None, minmax=None):
        with threadpool_limits(limits=BLAS_THREADS, user_api="blas"):
            self._build(X, codes, length, working_memory, minmax)

    def _build(self, X, codes, length, working_memory, minmax):
        Z, scale = scaled_features(X, minmax)  # as in the engine: the same scaled coordinates
        n, d = Z.shape
        sq = np.einsum("ij,ij->i", Z, Z)
        max_norm = float(np.sqrt(sq.max())) if n else 0.0
        codes = [np.asarray(c) for c in codes]
        take = min(length, n)
        self.Z, self.scale = Z, scale
        # float64 squared norms and the error of the float64 Gram form, for the
        # undecided rows' filter (see _filtered_rows)
        self.sq, self.gram_error = sq, gram_error(sq, max_norm, d)
        self.index = [np.zeros((n, take), dtype=np.intp) for _ in codes]
        self.low2 = [np.full((n, take), np.inf) for _ in codes]
        self.high2 = [np.full((n, take), np.inf) for _ in codes]
        self.direct = [np.full((n, take), np.nan) for _ in codes]
        self.bound = [np.empty(n) for _ in codes]
        budget = working_memory_bytes(working_memory)
        error = ranking_error(sq, max_norm, d)
        up, down = scale * (1.0 + _BOUND_SLACK), scale * (1.0 - _BOUND_SLACK)
        # The products only rank (in single precision: half the time), and
        # their error bound covers the rounding of the coordinates too.
        Z32, sq32 = Z.astype(np.float32), sq.astype(np.float32)
        # Per attribute and group, the query rows of the group against the rows
        # of the other groups only: no mask, and the products of rows of the
        # same group (never candidates) are not computed.
        for k, code in enumerate(codes):
            for g in np.unique(code):
                mine = code == g
                queries, others = np.flatnonzero(mine), np.flatnonzero(~mine)
                ref = np.hstack([Z32[others], sq32[others, None]])
                t = min(take, others.size)
                # Blocks of a few MiB stay in cache between the passes over them.
                block = max(8, min(256, int(budget // (4 * 4 * max(others.size, 1)))))
                for s in range(0, queries.size, block):
                    rows = queries[s:s + block]
                    q_aug = np.hstack([-2.0 * Z32[rows], np.ones((rows.size, 1), np.float32)])
                    part, vals = _smallest(q_aug @ ref.T, t)
                    gram = vals.astype(np.float64) + sq[rows, None]
                    err = error[rows, None]
                    self.index[k][rows, :t] = others[part]
                    with np.errstate(over="ignore"):  # inf: past 1e154, never decides
                        self.low2[k][rows, :t] = np.square(
                            np.sqrt(np.maximum(gram - err, 0.0)) * down)
                        self.high2[k][rows, :t] = np.square(
                            np.sqrt(np.maximum(gram + err, 0.0)) * up)
                    # Every unlisted row has a product at least the last listed
                    # one; its direct distance is above that value less twice
                    # the error.
                    last = gram[:, -1]
                    low_out = np.sqrt(np.maximum(last - 2.0 * err[:, 0], 0.0)) * down
                    self.bound[k][rows] = low_out if others.size > t else np.inf
        # per row, the least low2 past the first pass's columns (inf if none)
        self.tail = [low2[:, _HEAD:].min(axis=1) if low2.shape[1] > _HEAD
                     else np.full(n, np.inf) for low2 in self.low2]
        self.full = [{} for _ in codes]
        self.nbytes = sum(a.nbytes for group in (self.index, self.low2, self.high2,
                                                 self.direct, self.bound, self.tail)
                          for a in group)
        # room for all_pairs
        self.nbytes += Z.nbytes + 2 * sq.nbytes + len(codes) * _KEPT_ROWS * n * 8

    def all_pairs(self, k, code, i):
        """Row ``i``'s rows of other groups (attribute ``k``) and its direct distances to them.

        The distances are kept for the rows the lists leave undecided (about
        the same few rows for most labellings of a search), at most
        ``_KEPT_ROWS`` rows per attribute; the rows of other groups are found
        again from ``code`` (one comparison), not kept.
        """
        others = np.flatnonzero(code != code[i])
        feature = self.full[k].get(i)
        if feature is None:
            feature = pair_feature_distances(self.Z[i][None, :], self.Z[others]) * self.scale
            if len(self.full[k]) < _KEPT_ROWS:  # counted in nbytes from the start
                self.full[k].setdefault(i, feature)
        return others, feature

    def answer(self, y):
        """Row distances for the label ``y`` (K, n) and the rows left undecided (K, n).

        On squares: a listed row can be the nearest only if the square of its
        total's lower bound, ``low2 + label^2``, is not above the smallest
        ``high2 + label^2`` of the row (with a relative slack of
        ``_SQUARE_SLACK`` for the rounding of the squares and sums: more rows
        kept, never one missed; plus the smallest normal number, for squares
        rounded to subnormals; a square past the largest float is ``inf``,
        which keeps every pair when it is the bound). Those few pairs (about
        one per row) get their direct distance and the engine's ``hypot``, so
        the answer is the engine's bit for bit. The lists are sorted by the
        Gram form, so a first pass reads the first ``_HEAD`` columns: a row
        whose threshold is below ``tail`` (the least ``low2`` of its other
        columns) keeps no other column and has the same smallest
        ``high2 + label^2`` (``high2 >= low2``); the other rows (a few per
        cent on a search's labellings) are read in full. The same pairs kept.
        """
        y = np.asarray(y, dtype=np.float64)
        n_attr, n = len(self.index), y.shape[0]
        out = np.empty((n_attr, n))
        undecided = np.zeros((n_attr, n), dtype=bool)
        for k in range(n_attr):
            index, direct = self.index[k], self.direct[k]
            width = index.shape[1]
            head = min(_HEAD, width)
            # The first columns for every row; a row whose threshold reaches the
            # lower bound of its other columns (``tail``) is read in full.
            mask, threshold = _pass(y, slice(None), index[:, :head], self.high2[k][:, :head],
                                    self.low2[k][:, :head])
            wide = np.flatnonzero(~(threshold < self.tail[k]))
            mask[wide] = False
            q, col = np.divmod(np.flatnonzero(mask), head)
            pos = q * width + col
            if wide.size:
                mask, _ = _pass(y, wide, index[wide], self.high2[k][wide], self.low2[k][wide])
                q_w, col_w = np.divmod(np.flatnonzero(mask), width)
                q = np.concatenate([q, wide[q_w]])
                pos = np.concatenate([pos, wide[q_w] * width + col_w])
                order = np.argsort(q, kind="stable")
                q, pos = q[order], pos[order]
            other = index.reshape(-1)[pos]
            flat_direct = direct.reshape(-1)
            feature = flat_direct[pos]
            need = np.flatnonzero(np.isnan(feature))
            for s in range(0, need.size, _PAIR_CHUNK):  # bounded memory
                at = need[s:s + _PAIR_CHUNK]
                feature[at] = flat_direct[pos[at]] = pair_feature_distances(
                    self.Z[q[at]], self.Z[other[at]]) * self.scale
            total = np.hypot(feature, y[q] - y[other])
            # Every row keeps at least its pair of smallest high2 + label^2
            # (low2 <= high2), so each row has a run in q, in order.
            best = np.minimum.reduceat(total, np.searchsorted(q, np.arange(n)))
            out[k] = best
            undecided[k] = ~(best <= self.bound[k])
        return out, undecided


#: Columns of the lists' first pass (see NeighbourLists.answer).
_HEAD = 4


def _pass(y, rows, index, high2, low2):
    """The listed pairs of ``rows`` that may be nearest (a mask) and each row's threshold."""
    with np.errstate(over="ignore"):
        label2 = y[index]  # in place; (y_j - y_i)^2 is (y_i - y_j)^2 exactly
        label2 -= y[rows, None]
        label2 *= label2
        best_high2 = np.add(high2, label2).min(axis=1)
        label2 += low2
        threshold = best_high2 * _SQUARE_SLACK + _SQUARE_FLOOR
    return label2 <= threshold[:, None], threshold


def lists_nbytes(shape, n_attributes, length=None):
    """Bytes of the neighbour lists of ``shape`` rows x features (see NeighbourLists)."""
    n, d = shape
    take = min(LIST_LENGTH if length is None else length, n)
    return n_attributes * n * (4 * take * 8 + 16 + _KEPT_ROWS * 8) + n * d * 8 + 2 * n * 8


#: Undecided rows answered by a plain search (below) rather than the engine.
_PLAIN_ROWS = 64

#: Undecided rows per attribute whose distances to all rows the lists keep (a
#: search on 6,000 rows of the credit-like table left 54-67 distinct ones per
#: attribute over nine candidates, the true labels' included).
_KEPT_ROWS = 64


def _answer(lists, X, y, codes, n_jobs, minmax):
    rows, undecided = lists.answer(y)
    todo = np.flatnonzero(undecided.any(axis=0))
    if todo.size > _PLAIN_ROWS:
        engine = ExactEngine(X, [y], codes, minmax=minmax)
        rows[:, todo] = engine.rows(todo, n_jobs=n_jobs)[0]
    else:
        # A few rows (about the same ones for many labellings): those whose
        # distances to every row of another group the lists keep read them;
        # the others are filtered by the Gram form (see _filtered_rows).
        y = np.asarray(y, dtype=np.float64)
        for k, code in enumerate(codes):
            fresh = []
            for i in np.flatnonzero(undecided[k]):  # the rows decided here are answered
                if i in lists.full[k]:
                    others, feature = lists.all_pairs(k, code, i)
                    rows[k, i] = np.hypot(feature, y[i] - y[others]).min()
                else:
                    fresh.append(i)
            if fresh:
                fresh = np.asarray(fresh, dtype=np.intp)
                # small products: BLAS threads would cost more than they bring
                with _blas_controller().limit(limits=BLAS_THREADS, user_api="blas"):
                    rows[k, fresh] = _filtered_rows(lists, k, code, fresh, y, rows[k, fresh])
    return rows


_CONTROLLER = []


def _blas_controller():
    """One ThreadpoolController of the process (``threadpool_limits`` scans the
    loaded libraries on every call, about 2 ms; a kept controller sets the limit
    in microseconds)."""
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


#: Cells (rows x all rows) of one chunk of the undecided rows' Gram filter.
_FILTER_CELLS = 1 << 20


def _filtered_rows(lists, k, code, todo, y, best):
    """The exact answers of the undecided rows ``todo`` (attribute ``k``).

    ``best`` is each row's best listed total, an upper bound of its answer.
    A row of another group can be the nearest only if the square of the lower
    bound of its total, ``low^2 + label^2`` with ``low`` the float64 Gram
    form's lower bound of the feature distance (its error bound as in the
    engine, widened by ``_BOUND_SLACK``), is not above ``best^2`` (with the
    slack and the floor of :meth:`NeighbourLists.answer`): the nearest row
    always passes. Only those pairs get their direct
    distance (:func:`pair_feature_distances`, the engine's value pair by
    pair), so the smallest total is the one over every row of another
    group, bit for bit. A row none of whose pairs passes (never expected)
    is answered over every row of another group.
    """
    Z, scale, n = lists.Z, lists.scale, lists.Z.shape[0]
    down = scale * (1.0 - _BOUND_SLACK)
    out = np.empty(todo.size)
    step = max(1, _FILTER_CELLS // max(n, 1))
    for s in range(0, todo.size, step):
        rows = todo[s:s + step]
        with np.errstate(over="ignore", invalid="ignore"):
            # on squares, in place: low^2 + label^2 <= best^2 (as in answer)
            low2 = Z[rows] @ Z.T
            low2 *= -2.0
            low2 += lists.sq[None, :]
            low2 += lists.sq[rows, None]
            low2 -= lists.gram_error[rows, None]
            np.maximum(low2, 0.0, out=low2)
            low2 *= down * down
            label2 = y[rows, None] - y[None, :]
            label2 *= label2
            low2 += label2
            threshold = np.square(best[s:s + step]) * _SQUARE_SLACK + _SQUARE_FLOOR
            may = low2 <= threshold[:, None]
        may &= code[None, :] != code[rows, None]
        q, j = _nonzero_2d(may)
        feature = np.empty(q.size)
        for c in range(0, q.size, _PAIR_CHUNK):  # bounded memory
            qs, js = rows[q[c:c + _PAIR_CHUNK]], j[c:c + _PAIR_CHUNK]
            feature[c:c + _PAIR_CHUNK] = pair_feature_distances(Z[qs], Z[js]) * scale
        total = np.hypot(feature, y[rows[q]] - y[j])
        counts = np.bincount(q, minlength=rows.size)
        found = counts > 0
        starts = np.searchsorted(q, np.arange(rows.size))
        part = out[s:s + rows.size]
        if found.all():
            part[:] = np.minimum.reduceat(total, starts)
        else:
            for r, i in enumerate(rows):
                if found[r]:
                    part[r] = total[starts[r]:starts[r] + counts[r]].min()
                else:
                    others, feat = lists.all_pairs(k, code, i)
                    part[r] = np.hypot(feat, y[i] - y[others]).min()
    return out
