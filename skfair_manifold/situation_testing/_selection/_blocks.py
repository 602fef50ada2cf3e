"""Blocks of targets: the package's dispatcher and the spreading of shared cells.

``run_blocks`` (``skfair_manifold.utils._parallel``) runs ``func(task)`` for
every block, serially for one job, else through joblib, so that
``joblib.parallel_config(backend="dask")`` spreads an audit over a cluster.
"""

import numpy as np

from ...utils._parallel import run_blocks

__all__ = ["expand_to_queries", "run_blocks"]


def expand_to_queries(inv, key_of_cell):
    """Every (query, cell) pair where the query holds the cell's key.

    Queries that share a key (equal profile and self-exclusion) share their
    cells; this spreads them back. ``inv[i]`` is the key of query ``i``;
    ``key_of_cell[c]`` the key of cell ``c``. Returns ``(query, cell)``
    index arrays, ordered by key, then query, then cell.
    """
    inv = np.asarray(inv, dtype=np.intp)
    key_of_cell = np.asarray(key_of_cell, dtype=np.intp)
    n_keys = int(max(inv.max(initial=-1), key_of_cell.max(initial=-1))) + 1
    q_order = np.argsort(inv, kind="stable")
    q_start = np.searchsorted(inv[q_order], np.arange(n_keys + 1))
    q_per_key = np.diff(q_start)
    c_order = np.argsort(key_of_cell, kind="stable")
    c_per_key = np.bincount(key_of_cell, minlength=n_keys)
    c_start = np.concatenate([[0], np.cumsum(c_per_key)])
    reps = q_per_key * c_per_key
    key_of = np.repeat(np.arange(n_keys), reps)
    offset = np.arange(key_of.shape[0]) - np.repeat(np.cumsum(reps) - reps, reps)
    cpk = np.maximum(c_per_key[key_of], 1)
    query = q_order[q_start[key_of] + offset // cpk]
    cell = c_order[c_start[key_of] + offset % cpk]
    return query, cell
