"""A search's per-process cache: entries keyed by the arrays' content, checked on a hit, LRU."""

import hashlib
import os
import threading
from collections import OrderedDict

import numpy as np


#: Bytes the cache may hold in each process (arrays kept for the check included).
DEFAULT_BUDGET = 512 * 2 ** 20

#: Bytes of an array hashed for its key (evenly spaced rows beyond).
_HASHED_BYTES = 1 << 18


def content_key(tag, *arrays, sample=False):
    """A digest of ``tag`` and the arrays' dtypes, shapes and bytes.

    With ``sample``, of an array larger than ``_HASHED_BYTES`` only evenly
    spaced rows within that size are hashed (a fold's features differ from
    another fold's in every row; labellings, whose few changed entries may
    be anywhere, are hashed whole). The key only finds an entry: the arrays are
    compared in full on every hit, so two arrays with the same key can never
    share an answer.
    """
    h = hashlib.blake2b(tag.encode(), digest_size=20)
    for a in arrays:
        a = np.asarray(a)
        h.update(f"|{a.dtype.str}{a.shape}|".encode())
        if sample and a.nbytes > _HASHED_BYTES and a.ndim:
            step = -(-a.nbytes // _HASHED_BYTES)
            a = a[::step]
        a = np.ascontiguousarray(a)
        h.update(a.view(np.uint8).reshape(-1) if a.size else b"")
    return h.digest()


class _Fold:
    """What is kept for one ``(X, codes)``: the arrays (for the check on hit),
    the neighbour lists once built, and the row distances of each labelling."""

    def __init__(self, arrays):
        self.arrays = tuple(np.array(a, copy=True) for a in arrays)
        self.lists = None
        self.seen = False  # a labelling was answered once (the lists wait for a second)
        self.labels = OrderedDict()  # digest -> (y, rows)
        self.nbytes = sum(a.nbytes for a in self.arrays)

    def matches(self, arrays):
        return len(arrays) == len(self.arrays) and all(
            a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)
            for a, b in zip(self.arrays, arrays))


class ContentCache:
    """Folds keyed by the contents of ``(X, codes)``, least recently used first out.

    ``budget`` bounds the bytes held: the arrays kept for the check, the
    neighbour lists and the row distances of every labelling.
    """

    def __init__(self, budget=DEFAULT_BUDGET):
        self.budget = int(budget)
        self._folds = OrderedDict()
        self._lock = threading.Lock()
        self.nbytes = 0
        self.hits = 0
        self.misses = 0

    def fold(self, arrays):
        """The fold of these arrays (created if new, checked on hit), or None if too big."""
        key = content_key("fold", *arrays, sample=True)
        with self._lock:
            fold = self._folds.get(key)
            if fold is not None and fold.matches(arrays):
                self._folds.move_to_end(key)
                return key, fold
        fold = _Fold(arrays)
        if fold.nbytes > self.budget:
            return key, None
        with self._lock:
            old = self._folds.pop(key, None)
            if old is not None:
                self.nbytes -= old.nbytes
            self._folds[key] = fold
            self.nbytes += fold.nbytes
            self._evict(keep=key)
        return key, fold

    def rows(self, fold, y):
        """Row distances of labelling ``y`` on ``fold``, or None (checked on hit)."""
        digest = content_key("label", y)
        with self._lock:
            entry = fold.labels.get(digest)
            if entry is not None and entry[0].shape == y.shape and np.array_equal(entry[0], y):
                fold.labels.move_to_end(digest)
                self.hits += 1
                return entry[1]
            self.misses += 1
            return None

    def add_rows(self, key, fold, y, rows):
        digest = content_key("label", y)
        entry = (np.array(y, copy=True), np.array(rows, copy=True))
        self._grow(key, fold, lambda: digest not in fold.labels,
                   lambda: fold.labels.__setitem__(digest, entry),
                   entry[0].nbytes + entry[1].nbytes)

    def add_lists(self, key, fold, lists):
        def attach():
            fold.lists = lists

        self._grow(key, fold, lambda: fold.lists is None, attach, lists.nbytes)

    def _grow(self, key, fold, wanted, attach, size):
        """Attach to ``fold`` (unless another thread did) within the budget."""
        with self._lock:
            if not wanted() or fold.nbytes + size > self.budget:
                return
            attach()
            fold.nbytes += size
            if self._folds.get(key) is fold:
                self.nbytes += size
            self._evict(keep=key)

    def _evict(self, keep):
        """Drop least recently used folds, then the oldest labellings of ``keep``."""
        while self.nbytes > self.budget and len(self._folds) > 1:
            oldest = next(iter(self._folds))
            if oldest == keep:
                self._folds.move_to_end(keep)
                continue
            self.nbytes -= self._folds.pop(oldest).nbytes
        fold = self._folds.get(keep)
        while fold is not None and self.nbytes > self.budget and fold.labels:
            _, (y, rows) = fold.labels.popitem(last=False)
            fold.nbytes -= y.nbytes + rows.nbytes
            self.nbytes -= y.nbytes + rows.nbytes

    def clear(self):
        with self._lock:
            self._folds.clear()
            self.nbytes = self.hits = self.misses = 0

    def __len__(self):
        return len(self._folds)


_CACHE = ContentCache()


def _after_fork_in_child():
    # A lock held by another thread at fork time would never be released.
    _CACHE._lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def cache():
    """The process's cache (its ``budget`` may be changed; 0 turns reuse off)."""
    return _CACHE
