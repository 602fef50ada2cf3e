"""The only module that imports private scikit-learn names.

scikit-learn does not promise to keep its private names. Every module of this
package that needs one imports it from here, so that a scikit-learn release
that moves or renames one is mended in this file alone (the way
imbalanced-learn's ``sklearn_compat`` does).
"""

from sklearn.base import _fit_context
from sklearn.metrics._scorer import _BaseScorer
from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    InvalidParameterError,
    Options,
    StrOptions,
    validate_params,
)
from sklearn.utils.validation import _check_feature_names_in

__all__ = [
    "HasMethods",
    "Hidden",
    "Interval",
    "InvalidParameterError",
    "Options",
    "StrOptions",
    "_BaseScorer",
    "_check_feature_names_in",
    "_fit_context",
    "validate_params",
]
