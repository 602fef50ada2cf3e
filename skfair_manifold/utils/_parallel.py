"""Block dispatch: independent blocks of work, serially or through joblib.

One helper for every engine of the package (exact distances, projections,
tester selection), so that they share the same rules:

* a serial fast path when only one worker is effective or there is one task;
* joblib threads otherwise (numpy releases the GIL in its kernels), so that
  ``joblib.parallel_config(backend="dask")`` sends the blocks to a cluster;
* the BLAS libraries limited to ``blas_threads`` threads inside the workers,
  since the workers themselves already fill the cores;
* results returned in task order, so that a reduction over them gives the
  same value for any ``n_jobs``.
"""

from joblib import Parallel, delayed, effective_n_jobs
from sklearn import get_config
from threadpoolctl import threadpool_limits

__all__ = ["run_blocks", "working_memory_bytes", "n_workers"]


def n_workers(n_jobs):
    """The number of workers ``n_jobs`` means here (joblib's rule)."""
    return effective_n_jobs(n_jobs)


def run_blocks(func, tasks, *, n_jobs=None, blas_threads=1):
    """``[func(task) for task in tasks]``, serially or on joblib workers.

    Parameters
    ----------
    func : callable
        Takes one task, returns its result; must not depend on global state.
    tasks : sequence
        The tasks, each handed to ``func`` as it is.
    n_jobs : int, default=None
        Workers, as in joblib. With one effective worker or one task the
        tasks run in this thread with no BLAS limit.
    blas_threads : int or None, default=1
        BLAS threads inside the workers; ``None`` leaves the BLAS alone.

    Returns
    -------
    results : list
        ``func(task)`` for each task, in the order of ``tasks``.

    Examples
    --------
    >>> from skfair_manifold.utils._parallel import run_blocks
    >>> run_blocks(lambda t: t * t, [1, 2, 3], n_jobs=2)
    [1, 4, 9]
    """
    tasks = list(tasks)
    if n_workers(n_jobs) == 1 or len(tasks) <= 1:
        return [func(task) for task in tasks]
    if blas_threads is None:
        return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(func)(t) for t in tasks)
    with threadpool_limits(limits=blas_threads, user_api="blas"):
        return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(func)(t) for t in tasks)


def working_memory_bytes(working_memory=None):
    """Bytes of working memory per worker.

    ``working_memory`` in MiB; ``None`` takes scikit-learn's
    ``get_config()["working_memory"]`` (1024 MiB unless set with
    :func:`sklearn.set_config` or :func:`sklearn.config_context`), as
    :func:`sklearn.metrics.pairwise_distances_chunked` does.
    """
    if working_memory is None:
        working_memory = get_config()["working_memory"]
    return int(working_memory * 2**20)
