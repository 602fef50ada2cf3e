"""Shared machinery of the package: input checks, scikit-learn compatibility,
docstring fragments and block dispatch.

Everything here is private to the package (the modules start with an
underscore). The public functions of every layer validate their inputs with
:mod:`._validation`, once, and hand trusted arrays to the layers below.

``_validation``
    One check for features, one for labels, one encoder of sensitive columns,
    one resolution of column names, the sensitive features of a call
    (``SensitiveFeatures``); the messages as module constants.
``_narwhals``
    The one door to narwhals: frames of any library read, collected and
    converted, with one rule for missing values (``to_numpy``).
``_column_kind``
    The one reader of a column's kind (``column_kind``), the datetime rule once.
``_interval``
    ``ConfidenceInterval(low, high)``, the one interval type.
``_sklearn_compat``
    The only module that imports private scikit-learn names.
``_docstring``
    Docstring substitution that is safe under ``python -OO``, shared fragments.
``_memory``
    ``check_allocation``: a clear error, with the size it would need, before an
    allocation that grows with the data or a parameter exceeds ``MEMORY_LIMIT``.
``_parallel``
    ``run_blocks``: serial or joblib dispatch of independent blocks, with the
    BLAS thread limit; the working memory from scikit-learn's configuration.
"""
