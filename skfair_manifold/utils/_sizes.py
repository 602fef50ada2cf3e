"""One check of a size parameter (n_bins, n_boot, k, ...) against the data, before any allocation.

:func:`check_size` refuses a value outside its allowed range with a
``ValueError`` that names the parameter, gives the range and the memory the
value would need, so that an absurd value fails at once instead of with a
``MemoryError`` after allocating.
"""

import numbers

from ._memory import check_allocation, format_bytes

#: bootstrap replicates at most: more change no percentile interval a reader could see
MAX_BOOT = 1_000_000
#: repetitions of the random projections (``m1``) at most: the error falls as 1/m1, so
#: beyond this the exact engine is the cheaper route
MAX_PROJECTIONS = 100_000

#: replicates of the structure bootstrap at most (each learns the graph again)
MAX_STRUCTURE_BOOT = 10_000

MSG_SIZE_RANGE = (
    "{name}={value} is out of range: it must be an integer in [{low}, {high}]{why}"
    "{memory}; pass a smaller {name}."
)


def check_size(value, *, name, low=1, high=None, bytes_per_unit=None, why=""):
    """Check the size parameter ``name`` = ``value`` against ``[low, high]`` and the memory limit.

    Parameters
    ----------
    value : int
        The parameter's value.
    name : str
        The parameter's name, as the user spells it.
    low, high : int or None
        The allowed range (``high`` None: no upper bound from the data).
    bytes_per_unit : int or None
        Bytes one unit of ``value`` needs; the message gives the total, and a
        total over :data:`~._memory.MEMORY_LIMIT` is refused too.
    why : str
        Why the bound holds, a clause (``"a bin cannot hold less than one row"``).

    Returns
    -------
    value : int

    Examples
    --------
    >>> from skfair_manifold.utils._sizes import check_size
    >>> check_size(5, name="n_bins", low=2, high=200)
    5
    >>> check_size(10**8, name="n_bins", low=2, high=200, bytes_per_unit=24,
    ...            why="a bin cannot hold less than one row")
    Traceback (most recent call last):
    ...
    ValueError: n_bins=100000000 is out of range: it must be an integer in [2, 200] (a bin cannot hold less than one row; it would need 2.2 GiB of memory); pass a smaller n_bins.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__}).")
    value = int(value)
    memory = "" if bytes_per_unit is None else \
        f"it would need {format_bytes(bytes_per_unit * max(value, 0))} of memory"
    if value < low or (high is not None and value > high):
        parts = [p for p in (why, memory) if p]
        why_text = f" ({'; '.join(parts)})" if parts else ""
        raise ValueError(MSG_SIZE_RANGE.format(name=name, value=value, low=low,
                                               high="no bound" if high is None else high,
                                               why=why_text, memory=""))
    if bytes_per_unit is not None:
        check_allocation(bytes_per_unit * value, what=f"{name}={value}",
                         fix=f"pass a smaller {name}.")
    return value
