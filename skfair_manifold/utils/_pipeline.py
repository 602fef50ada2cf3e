"""Pipelines as the scorers and the group report see them: the steps' output, computed once.

A fairness scorer or report given a fitted :class:`~sklearn.pipeline.Pipeline`
measures HFM on the features its final estimator sees: the output of the
steps before the last (``transformed_features``), without the outputs that
come from the sensitive columns. ``_TRANSFORMED`` keeps the transform of
identical fitted steps and rows, so that a search's candidates and the
scorers of one call transform them once. Both ``scorers`` and
``metrics/_report.py`` import it from here (below both of them).
"""

import hashlib
import os
import pickle
import threading
from collections import OrderedDict

__all__ = ["MSG_NAMES_OUT", "transformed_features"]

MSG_NAMES_OUT = (
    "{scorer} measures HFM on the features the final estimator sees, so it must tell which "
    "outputs of the pipeline's steps come from the sensitive columns {columns!r}, and "
    "{steps} has no get_feature_names_out ({error}). Give the pipeline steps that have it "
    "(every scikit-learn transformer does), or build the scorer with features='input' to "
    "measure on the pipeline's input X (which must then be numeric)."
)


def _is_pipeline(estimator):
    from sklearn.pipeline import Pipeline

    return isinstance(estimator, Pipeline) and len(estimator.steps) > 1


def _derived_from(name, column):
    """True when the output feature ``name`` comes from input column ``column``.

    scikit-learn names outputs ``<transformer>__<input>`` (ColumnTransformer) and
    ``<input>_<category>`` (OneHotEncoder); a pass-through output keeps the name.
    """
    column = str(column)
    tail = name.split("__", 1)[1] if "__" in name else name
    return tail == column or tail.startswith(column + "_") or name == column


class _TransformMemo:
    """The steps' output for the same fitted steps and the same ``X``, computed once.

    In a search, every candidate whose preprocessing does not change fits the
    same steps on the same training rows, and the HFM scorers of one call
    transform the same test rows: the transform (a one-hot encoding of a
    DataFrame costs more than the distances) is done once. The key is the
    pickled state of the fitted steps and of ``X``; the bytes are compared
    on every hit, so an entry is only reused for an identical state and
    input. At most ``budget`` bytes are kept (least recently used first out),
    under a lock.
    """

    def __init__(self, budget=256 * 2 ** 20):
        self.budget = budget
        self._items = OrderedDict()
        self._lock = threading.Lock()
        self.nbytes = 0

    @staticmethod
    def _compute(head, X):
        import numpy as np

        Xt = head.transform(X)
        if hasattr(Xt, "toarray"):  # sparse one-hot output
            Xt = Xt.toarray()
        if hasattr(Xt, "to_numpy"):
            Xt = Xt.to_numpy()
        return np.asarray(Xt, dtype=np.float64)

    def transform(self, head, X):
        if self.budget <= 0:
            return self._compute(head, X)
        try:
            state = pickle.dumps((head, X), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # an unpicklable step: no reuse
            return self._compute(head, X)
        key = hashlib.blake2b(state, digest_size=20).digest()
        with self._lock:
            entry = self._items.get(key)
            if entry is not None and entry[0] == state:
                self._items.move_to_end(key)
                return entry[1].copy()
        Xt = self._compute(head, X)
        size = len(state) + Xt.nbytes
        if size <= self.budget:
            with self._lock:
                old = self._items.pop(key, None)
                if old is not None:
                    self.nbytes -= old[2]
                self._items[key] = (state, Xt.copy(), size)
                self.nbytes += size
                while self.nbytes > self.budget:
                    self.nbytes -= self._items.popitem(last=False)[1][2]
        return Xt


_TRANSFORMED = _TransformMemo()


def _after_fork_in_child():
    # A lock held by another thread at fork time would never be released.
    _TRANSFORMED._lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def transformed_features(estimator, X, drop_columns, scorer="scorer"):
    """The output of ``estimator``'s steps before the last, without the outputs of
    ``drop_columns`` (input column names); ``X`` itself for a bare estimator."""
    import numpy as np

    if not _is_pipeline(estimator):
        return X, None
    head = estimator[:-1]
    Xt = _TRANSFORMED.transform(head, X)
    if not drop_columns:
        return Xt, None
    try:
        names = [str(n) for n in head.get_feature_names_out()]
    except (AttributeError, ValueError, TypeError) as exc:
        raise ValueError(MSG_NAMES_OUT.format(
            scorer=scorer, columns=list(drop_columns), steps=type(head[-1]).__name__,
            error=" ".join(str(exc).split())[:200])) from None
    keep = [j for j, name in enumerate(names)
            if not any(_derived_from(name, c) for c in drop_columns)]
    return Xt[:, keep], [names[j] for j in keep]
