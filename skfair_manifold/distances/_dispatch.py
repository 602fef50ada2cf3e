"""Serial or threaded dispatch of independent blocks of work, and the memory budget.

Same contract as the package's shared block dispatcher: ``run_blocks(func,
tasks, *, n_jobs, blas_threads)`` returns ``[func(t) for t in tasks]`` in task
order; it runs serially when joblib's effective number of workers is 1 and
through ``joblib.Parallel(prefer="threads")`` otherwise, so that
``joblib.parallel_config(backend="dask")`` sends the tasks to a dask cluster.
BLAS is limited to ``blas_threads`` threads meanwhile (the workers already
fill the cores).
"""

from joblib import Parallel, delayed, effective_n_jobs
from sklearn import get_config
from threadpoolctl import threadpool_limits


def run_blocks(func, tasks, *, n_jobs=None, blas_threads=1):
    tasks = list(tasks)
    if effective_n_jobs(n_jobs) == 1 or len(tasks) <= 1:
        with threadpool_limits(limits=blas_threads, user_api="blas"):
            return [func(task) for task in tasks]
    with threadpool_limits(limits=blas_threads, user_api="blas"):
        return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(func)(t) for t in tasks)


def working_memory_bytes():
    """``sklearn.get_config()["working_memory"]`` (MiB) in bytes."""
    return int(get_config()["working_memory"] * 2 ** 20)
