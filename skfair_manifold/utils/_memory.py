"""Guards on allocations that grow with the data or with a parameter.

A request that would need more than :data:`MEMORY_LIMIT` bytes at once (an
n x n matrix, an array of ``n_bins`` edges) is refused before it is made,
with a ``ValueError`` that gives the size it would need and what to do,
instead of a ``MemoryError`` minutes later or the machine swapping.
"""

#: the largest single allocation a guarded function makes, in bytes (change it to allow more)
MEMORY_LIMIT = 4 * 2**30

MSG_TOO_LARGE = (
    "{what} would need {size} of memory at once (the limit is {limit}); {fix}"
)


def format_bytes(n_bytes):
    """``n_bytes`` for people: ``26.8 GiB``, ``512.0 MiB``, ``3.0 KiB``, ``12 bytes``."""
    n_bytes = float(n_bytes)
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n_bytes >= size:
            return f"{n_bytes / size:.1f} {unit}"
    return f"{int(n_bytes)} bytes"


def check_allocation(n_bytes, *, what, fix, limit=None):
    """Raise a ValueError when ``n_bytes`` exceeds ``limit`` (:data:`MEMORY_LIMIT`).

    Parameters
    ----------
    n_bytes : int or float
        The bytes the allocation would need (an estimate from the shapes).
    what : str
        What would be allocated, for the message (``"pairwise on 60000 x 60000 rows"``).
    fix : str
        What the user can do, a sentence.
    limit : int or None, default=None
        None: the module's :data:`MEMORY_LIMIT`, read at the call.

    Examples
    --------
    >>> from skfair_manifold.utils._memory import check_allocation
    >>> check_allocation(2**20, what="a small array", fix="nothing.")
    >>> check_allocation(2**40, what="a huge array", fix="ask for less.")
    Traceback (most recent call last):
    ...
    ValueError: a huge array would need 1.0 TiB of memory at once (the limit is 4.0 GiB); ask for less.
    """
    limit = MEMORY_LIMIT if limit is None else limit
    if n_bytes > limit:
        raise ValueError(MSG_TOO_LARGE.format(what=what, size=format_bytes(n_bytes),
                                              limit=format_bytes(limit), fix=fix))
