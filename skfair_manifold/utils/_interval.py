"""The package's one interval type: ``ConfidenceInterval(low, high)``.

Every function that returns or passes an interval hands this pair (as
``scipy.stats``' ``_common.py`` does), so that a reader takes ``.low`` and
``.high`` by name and never guesses the layout. It is a tuple: ``low, high =
interval`` and ``interval == (low, high)`` keep working, and JSON writes it as
a list of two numbers.
"""

from typing import Any, NamedTuple

__all__ = ["ConfidenceInterval"]


class ConfidenceInterval(NamedTuple):
    """An interval: its lower and upper bound.

    The bounds are floats, or arrays of the same shape holding one interval
    per element (per group, per attribute, per person). ``nan`` bounds mean
    the interval is undefined.

    Examples
    --------
    >>> from skfair_manifold.utils._interval import ConfidenceInterval
    >>> ci = ConfidenceInterval(0.1, 0.4)
    >>> ci.low, ci.high
    (0.1, 0.4)
    >>> low, high = ci
    >>> ci == (0.1, 0.4)
    True
    """

    low: Any
    high: Any
