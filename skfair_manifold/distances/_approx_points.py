"""The approximation's points: rows of ``X`` scaled as they are needed, never copied.

Split from :mod:`._approx` (the projections' search), which reads them
through :class:`_Points`: the scaled rows, their squared norms in single
precision, the projections computed in chunks, the group codes and the
band's sizes; :func:`_take32` casts rows into a worker's work space and
:func:`_true_distances` recomputes the kept distances in double precision.

Row order: with ``content`` (the rows in an order of their content,
:func:`._row_order.content_order`) the projections are computed on the rows
taken in that order, so that each row's value does not depend on its
position in the input (a BLAS product's last bits may depend on a row's
place in its chunk), and :mod:`._approx` breaks ties of the projections in
that order too.
"""

import numpy as np

from skfair_manifold.distances._numerics import (
    apply_min_max,
    column_midpoints,
    robust_norms,
    scale_of_top,
)

#: Rows cast to float32 at a time (a small float64 gather, not a copy of Z).
CAST_ROWS = 1 << 14

#: Rows projected at a time: a multiple of the rows OpenBLAS's kernels take at
#: once, so that the chunks' products are one product's bit for bit (tested).
PROJECT_ROWS = 1 << 14


class _Points:
    """The points ``(y, x)`` and the group codes shared by every projection (read-only).

    No copy of the points is kept: :meth:`rows` scales rows of the caller's
    ``X`` and ``y`` as they are needed (min-max, centred on each column's
    midpoint, divided by a power of two), by the same elementwise operations
    a scaled copy would have taken, so every value is that copy's bit for
    bit; the projections are computed in chunks of ``PROJECT_ROWS`` rows.
    At 1,000,000 x 20 the copy was 1.05 x X of the peak.
    """

    def __init__(self, X, y, minmax, codes, m2, working_memory, candidates="positions",
                 content=None):
        self.X, self.y, self.minmax = X, y, minmax
        self.content = content
        n = X.shape[0]
        self.n, self.d = n, X.shape[1] + 1
        lo, hi = np.full(self.d, np.inf), np.full(self.d, -np.inf)
        for s in range(0, n, CAST_ROWS):
            part = self._stacked(slice(s, s + CAST_ROWS))
            np.minimum(lo, part.min(axis=0), out=lo)
            np.maximum(hi, part.max(axis=0), out=hi)
        self.mid = column_midpoints(lo, hi, name="X", first_name="the label")
        # x - mid is monotone: the extremes of the centred columns are lo - mid, hi - mid
        top = max(0.0, float(np.max(self.mid - lo)), float(np.max(hi - self.mid))) if n \
            else 0.0
        self.scale = scale_of_top(top)
        # Candidates are ranked in single precision (half the memory traffic);
        # the distance of the chosen candidate is recomputed in double. No
        # float32 copy of the points is kept either: each projection casts its
        # sorted rows into its work space.
        self.sq32 = np.empty(n, dtype=np.float32)
        for s in range(0, n, CAST_ROWS):
            part = self.rows(slice(s, s + CAST_ROWS)).astype(np.float32)
            self.sq32[s:s + CAST_ROWS] = np.einsum("ij,ij->i", part, part)
        self.codes = [np.asarray(c).astype(np.min_scalar_type(max(int(np.max(c)), 1)))
                      for c in codes]
        self.n = n
        self.m2 = int(m2)
        self.candidates = candidates
        self.group_values = [np.unique(c) for c in self.codes]
        # Rows per chunk of the "others" candidates: (rows, 2 m2, d) float32.
        self.others_chunk = max(256, int(working_memory * 2**20 //
                                         (2 * m2 * self.d * 4 * 3)))
        self.width = int(min(m2, n - 1))
        width = self.width
        self.tile = int(max(16, min(256, width)))
        self.n_tiles = -(-n // self.tile)
        # Per tile: the products, tile x (tile + 2 width) float32 (three
        # arrays at once), and the band's rows, tile x 2 width values of
        # about 24 bytes (ranking values, positions, candidates, masks).
        per_tile = self.tile * ((self.tile + 2 * width) * 4 * 3 + 2 * width * 24)
        self.tiles_per_chunk = max(1, int(working_memory * 2**20 // per_tile))
        self.offsets = np.r_[-width:0, 1:width + 1]

    def _stacked(self, rows):
        """Rows of ``(y, x)``, ``x`` min-max scaled: a new float64 array."""
        X = self.X[rows]
        part = np.empty((X.shape[0], self.d))
        part[:, 0] = self.y[rows]
        part[:, 1:] = X
        apply_min_max(part[:, 1:], self.minmax)
        return part

    def rows(self, rows):
        """The scaled points of ``rows`` (an index array or a slice), float64."""
        part = self._stacked(rows)
        part -= self.mid
        part /= self.scale  # exact: a power of two; the algebra runs on O(1) values
        return part

    def project(self, w):
        """``points @ w`` for every row, a chunk of rows at a time, in content order.

        The rows in the order of ``content`` (their positions where it is
        None): the value at ``i`` is the projection of row ``content[i]``.
        """
        out = np.empty(self.n)
        for s in range(0, self.n, PROJECT_ROWS):
            rows = (slice(s, s + PROJECT_ROWS) if self.content is None
                    else self.content[s:s + PROJECT_ROWS])
            out[s:s + PROJECT_ROWS] = self.rows(rows) @ w
        return out

    def buffer(self):
        """Zero-padded work space for one worker (the padding stays zero)."""
        if self.candidates == "others":
            return None  # no band: the candidates are slices of the complement
        return np.zeros((self.n_tiles * self.tile + 2 * self.width, self.d),
                        dtype=np.float32)


def _take32(points, rows, out):
    """``out[:] = points[rows]`` cast to float32, in chunks (no full float64 gather)."""
    for s in range(0, rows.size, CAST_ROWS):
        out[s:s + CAST_ROWS] = points.rows(rows[s:s + CAST_ROWS])



def _true_distances(points, i, j):
    """Distances between rows ``i`` and ``j`` in the data's units, from the coordinates.

    In chunks of rows (each pair's value depends on that pair alone).
    """
    out = np.empty(len(i))
    for s in range(0, len(i), CAST_ROWS):
        part = slice(s, s + CAST_ROWS)
        out[part] = points.scale * robust_norms(points.rows(i[part]) - points.rows(j[part]))
    return out
