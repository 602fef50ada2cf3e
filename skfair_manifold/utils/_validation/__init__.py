"""The one home of the package's input checks, and their messages.

Every public function validates its inputs here, once, at the boundary; the
layers below (the distance engine, the group-metric engine, the auditor's
selectors) receive plain numpy arrays and integer group codes and trust them.

What is accepted
----------------
* numpy arrays, lists, and eager DataFrames and Series of pandas and polars
  (through narwhals, which fairlearn uses for the same purpose);
* pandas' nullable dtypes (``Int64``, ``Float64``, ``boolean``, ``string``)
  as their numeric or string values;
* ``pd.NA``, ``None``, ``NaN`` and polars' ``null`` are *missing values*: they
  are reported with the column named, never taken as a value or a group.

The modules, one job each:

``_messages``
    the messages, as constants that the tests assert on the text a user sees;
``_frames``
    DataFrames and Series of any library as numpy columns (narwhals);
``_features``
    ``X``: numeric, finite, complete;
``_labels``
    labels, predictions and sample weights;
``_encoding``
    sensitive columns as integer group codes;
``_columns``
    column names and positions: resolution, suggestions, the split of ``X``;
``_sensitive``
    the sensitive features of one call, resolved and encoded once
    (``SensitiveFeatures``).
"""

from ._messages import (  # noqa: F401
    MSG_COLUMN_LIST_STRING,
    MSG_COLUMN_MISSING,
    MSG_COLUMN_NAMES_CLASH,
    MSG_COLUMN_TWICE,
    MSG_COMPLEX,
    MSG_EMPTY,
    MSG_LABEL_KINDS,
    MSG_LABEL_NON_NUMERIC,
    MSG_LENGTH,
    MSG_MISSING,
    MSG_MIXED,
    MSG_NON_FINITE,
    MSG_NON_NUMERIC,
    MSG_NON_NUMERIC_COLUMNS,
    MSG_NOT_1D,
    MSG_NOT_2D,
    MSG_NO_COLUMNS,
    MSG_NO_ROWS,
    MSG_NO_SENSITIVE,
    MSG_SENSITIVE_MISSING,
    MSG_SINGLE_GROUP,
    MSG_TOO_FEW_ROWS,
    MSG_WEIGHT_INVALID,
    MSG_WEIGHT_NON_NUMERIC,
)
from .._narwhals import (  # noqa: F401
    is_dataframe,
    is_series,
)
from ._frames import (  # noqa: F401
    as_pandas_frame,
    caller_index,
    frame_columns,
    pandas_columns,
)
from ._features import (  # noqa: F401
    check_complete,
    check_features,
)
from ._labels import (  # noqa: F401
    WEIGHT_TINY,
    check_label,
    check_pair,
    check_sample_weight,
    column_1d,
    label_coordinates,
)
from ._encoding import (  # noqa: F401
    encode_column,
    encode_sensitive,
    fast_unique,
    sensitive_columns,
    small_int_bounds,
    small_int_counts,
)
from ._columns import (  # noqa: F401
    as_column_list,
    did_you_mean,
    is_int,
    locate_column,
    resolve_columns,
    split_columns,
)
from ._sensitive import (  # noqa: F401
    SensitiveFeatures,
    as_sensitive,
    names_in_X,
)

__all__ = [
    "SensitiveFeatures",
    "as_column_list",
    "as_pandas_frame",
    "as_sensitive",
    "check_features",
    "check_label",
    "check_pair",
    "check_complete",
    "check_sample_weight",
    "column_1d",
    "did_you_mean",
    "encode_column",
    "encode_sensitive",
    "frame_columns",
    "is_dataframe",
    "is_int",
    "is_series",
    "label_coordinates",
    "locate_column",
    "names_in_X",
    "resolve_columns",
    "sensitive_columns",
    "split_columns",
]

