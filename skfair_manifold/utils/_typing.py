"""Type aliases of the public signatures, so that IDEs and ``help()`` show them.

Array-likes are as loose as the checks in :mod:`._validation` accept: numpy
arrays, lists, pandas and polars Series and DataFrames.
"""

import os
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["ArrayLike", "Label", "MatrixLike", "PathLike", "RandomStateLike",
           "SensitiveLike"]

#: A 2-D table: an array, a list of rows, a pandas or polars DataFrame.
MatrixLike: TypeAlias = ArrayLike | Any

#: One or several sensitive columns: 1-D or 2-D array, Series or DataFrame.
SensitiveLike: TypeAlias = ArrayLike | Any

#: A class label: a number, a bool or a string.
Label: TypeAlias = int | float | bool | str

#: What :func:`sklearn.utils.check_random_state` accepts.
RandomStateLike: TypeAlias = int | np.random.RandomState | None

#: A file system path.
PathLike: TypeAlias = str | os.PathLike
