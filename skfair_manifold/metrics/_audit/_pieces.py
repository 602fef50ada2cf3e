"""Quantities of the strata that are piecewise linear in their counts, with their gradients.

A stratum ``z`` of an audit from estimated demographics holds ``n0_z`` people
not selected and ``n1_z`` selected, with the membership of each category
summed over each of the two (the *cells* ``(z, 0)`` and ``(z, 1)``). Every
bound of :mod:`._frechet` is a ratio of sums over the strata of per-stratum
terms that are maxima and minima of linear functions of ``(n0_z, n1_z)`` (the
membership of a cell moves with its count, at the cell's mean membership).
:class:`Piece` carries such a term per stratum with its derivatives in the
two counts (the linear piece that is active), :class:`Stat` a sum over the
strata or a ratio of them with its gradient in every cell, and
:func:`standard_error` the delta method's standard error: the cells' counts
are multinomial, and every statistic here is a ratio of two sums of the same
degree in the counts (it does not change when every count is doubled), so its
variance is ``sum over cells of count x (d stat / d count) ** 2``.
"""

import numpy as np

__all__ = ["Piece", "Stat", "pmax", "pmin", "ratio", "standard_error", "total"]


class Piece:
    """Per stratum: ``value`` and its derivatives ``d0``, ``d1`` in the counts not selected
    and selected (arrays of shape (Z,))."""

    __slots__ = ("d0", "d1", "value")

    def __init__(self, value, d0, d1):
        self.value = np.asarray(value, dtype=np.float64)
        self.d0 = np.broadcast_to(np.asarray(d0, dtype=np.float64), self.value.shape)
        self.d1 = np.broadcast_to(np.asarray(d1, dtype=np.float64), self.value.shape)

    def __add__(self, other):
        other = _piece(other, self.value.shape)
        return Piece(self.value + other.value, self.d0 + other.d0, self.d1 + other.d1)

    __radd__ = __add__

    def __sub__(self, other):
        other = _piece(other, self.value.shape)
        return Piece(self.value - other.value, self.d0 - other.d0, self.d1 - other.d1)

    def __rsub__(self, other):
        return _piece(other, self.value.shape) - self

    def __neg__(self):
        return Piece(-self.value, -self.d0, -self.d1)


def _piece(x, shape):
    if isinstance(x, Piece):
        return x
    return Piece(np.broadcast_to(np.asarray(x, dtype=np.float64), shape), 0.0, 0.0)


def pmax(a, b):
    """The larger of two pieces per stratum, with the active piece's derivatives."""
    shape = a.value.shape if isinstance(a, Piece) else b.value.shape
    a, b = _piece(a, shape), _piece(b, shape)
    first = a.value >= b.value
    return Piece(np.where(first, a.value, b.value), np.where(first, a.d0, b.d0),
                 np.where(first, a.d1, b.d1))


def pmin(a, b):
    """The smaller of two pieces per stratum, with the active piece's derivatives."""
    return -pmax(-_piece(a, _shape(a, b)), -_piece(b, _shape(a, b)))


def _shape(a, b):
    return a.value.shape if isinstance(a, Piece) else b.value.shape


class Stat:
    """A statistic of the strata: ``value`` (float) and its gradient ``g0``, ``g1`` (Z,) in
    the counts of the cells not selected and selected."""

    __slots__ = ("g0", "g1", "value")

    def __init__(self, value, g0, g1):
        self.value = float(value)
        self.g0 = np.asarray(g0, dtype=np.float64)
        self.g1 = np.asarray(g1, dtype=np.float64)


def total(piece):
    """The sum of a piece over the strata (each stratum's term depends on its own cells)."""
    return Stat(piece.value.sum(), piece.d0, piece.d1)


def ratio(top, bottom):
    """``top / bottom`` with its gradient; NaN where ``bottom`` is 0 and ``top`` is too,
    infinite where only ``bottom`` is."""
    if bottom.value == 0.0:
        value = np.nan if top.value == 0.0 else np.inf
        return Stat(value, np.zeros_like(top.g0), np.zeros_like(top.g1))
    value = top.value / bottom.value
    return Stat(value, (top.g0 - value * bottom.g0) / bottom.value,
                (top.g1 - value * bottom.g1) / bottom.value)


def standard_error(stat, n0, n1):
    """The delta method's standard error of a ratio statistic of multinomial cell counts."""
    if not np.isfinite(stat.value):
        return np.nan
    return float(np.sqrt(np.sum(n0 * stat.g0 ** 2) + np.sum(n1 * stat.g1 ** 2)))
