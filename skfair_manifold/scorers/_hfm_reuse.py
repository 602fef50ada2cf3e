"""An HFM scorer's value, shared by the max and avg scorers of one call and followed by a search."""

from ..metrics._hfm import scorer_report, warn_kind
from ..utils._pipeline import _is_pipeline, transformed_features
from ..utils._validation import names_in_X, resolve_columns


def _call_cache(method_caller):
    """The cache of one multi-metric call of scikit-learn (a dict), or None.

    ``method_caller`` is ``functools.partial(_cached_call, cache)`` there
    (``cache`` a dict, or None when one scorer runs); anything else gives
    None, and nothing is shared.
    """
    args = getattr(method_caller, "args", None)
    if args and isinstance(args[0], dict):
        return args[0]
    return None


def hfm_value(scorer, method_caller, estimator, X, X_metric, y_true, A, kwargs):
    """HFM of one call; the max and avg scorers of one multi-metric call share it.

    scikit-learn hands every scorer of one multi-metric call the same
    ``method_caller``, whose cache of predictions lives for that call
    only (one estimator, one ``X``, one ``y``). The exact engine's report
    holds both values, so it is kept there, keyed by the scorer's
    settings and the routed attributes: the second HFM scorer of the call
    reads it (its value is the same bit for bit) instead of transforming
    and checking the inputs again. The approximation's report depends on
    the kind (the maximum's check moves the mean's estimate), so it is not
    shared; nor is anything when an option is not a plain value.
    """
    kind = scorer._name[4:]
    options = {**scorer._kwargs, **kwargs}
    shared = _call_cache(method_caller)
    key = None
    if shared is not None and all(isinstance(v, (bool, int, float, str, type(None)))
                                  for v in options.values()):
        key = ("skfair_manifold.hfm", repr(scorer._sensitive), scorer._drop_sensitive,
               scorer._features, scorer._response_method, scorer._threshold,
               tuple(sorted(options.items())),
               # routed attributes: the same object for every scorer of the call
               id(A) if scorer._sensitive is None else None)
        report = shared.get(key)
        if report is not None:
            warn_kind(kind, report)
            return report[scorer._name]
    y_pred = scorer._predictions(method_caller, estimator, X)
    if scorer._features == "transformed" and _is_pipeline(estimator):
        drop = []
        if scorer._sensitive is not None and scorer._drop_sensitive:
            _, drop = resolve_columns(X, scorer._sensitive)
        elif scorer._sensitive is None:
            drop, _ = names_in_X(A, X)  # routed columns that are columns of X
        X_metric, _ = transformed_features(estimator, X, drop, scorer=repr(scorer))
    # a search scores other candidates on these rows
    report = scorer_report(kind, y_true, y_pred, X=X_metric, sensitive_features=A,
                           search=True, **options)
    if key is not None and report.method == "exact":
        shared[key] = report
    return report[scorer._name]
