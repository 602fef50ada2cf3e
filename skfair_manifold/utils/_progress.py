"""Progress of an audit's blocks of queries, and an estimate of its length after the first one.

A selector that runs its queries in blocks (KNN-DD's ``rates``) announces
them with :meth:`BlockProgress.begin` and counts each one done with
:meth:`BlockProgress.advance`, through the reporter in :data:`REPORTER` (a
context variable: None, the default, reports nothing). The auditor sets one
with ``verbose``, the command line a bar when standard error is a terminal.
Blocks are of equal size but the last, so the time of the blocks done gives
the time left; the estimate is written once the first block is done.
"""

import sys
import time
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["BlockProgress", "REPORTER", "reporting"]

#: The reporter of the running audit, or None.
REPORTER = ContextVar("skfair_manifold_audit_reporter", default=None)


class BlockProgress:
    """Lines on a stream (``bar=False``) or a one-line bar (``bar=True``) for blocks done.

    Parameters
    ----------
    label : str
        What is running, at the head of each line.
    stream : file-like, default=None
        Standard error when None.
    bar : bool, default=False
        Rewrite one line (a terminal) instead of writing a line at every
        tenth of the blocks.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> progress = BlockProgress("KNN-DD", stream=out)
    >>> progress.begin(4, "2,000 queries")
    >>> for _ in range(4):
    ...     progress.advance()
    >>> progress.close()
    >>> print(out.getvalue().splitlines()[0][:41])
    KNN-DD: 2,000 queries in 4 blocks; about
    """

    def __init__(self, label, *, stream=None, bar=False):
        self.label, self.bar = label, bar
        self.stream = sys.stderr if stream is None else stream
        self.total = self.done = 0
        self.start = None
        self.what = ""
        self._next = 0.1

    def begin(self, n_blocks, what):
        """A pass of ``n_blocks`` blocks over ``what`` (words) starts."""
        self.total, self.done, self.what = int(n_blocks), 0, what
        self.start, self._next = time.perf_counter(), 0.1

    def advance(self, n=1):
        """``n`` more blocks done (called from the workers)."""
        self.done += n
        if self.total <= 0:
            return
        elapsed = time.perf_counter() - self.start
        left = elapsed / self.done * (self.total - self.done)
        if self.done == 1:
            self._write(f"{self.label}: {self.what} in {self.total} blocks; about "
                        f"{_seconds(elapsed + left)} in all (from the first block)", line=True)
        share = self.done / self.total
        if self.bar or share >= self._next or self.done == self.total:
            self._next = (int(share * 10) + 1) / 10
            filled = int(round(share * 30))
            text = (f"{self.label} [{'#' * filled}{'.' * (30 - filled)}] {share:4.0%}"
                    if self.bar else f"{self.label}: {share:4.0%}")
            self._write(f"{text} ({self.done}/{self.total} blocks), {_seconds(elapsed)}, "
                        f"about {_seconds(left)} left")

    def close(self):
        """End the bar's line."""
        if self.bar and self.done:
            self.stream.write("\n")
            self.stream.flush()

    def _write(self, text, *, line=False):
        if self.bar and not line:
            self.stream.write("\r" + text)
        else:
            self.stream.write(("\n" if self.bar and self.done > 1 else "") + text + "\n")
        self.stream.flush()


def _seconds(t):
    """A duration in words: ``0.4 s``, ``12 s``, ``3.5 min``."""
    return f"{t:.1f} s" if t < 10 else f"{t:.0f} s" if t < 600 else f"{t / 60:.1f} min"


@contextmanager
def reporting(progress):
    """Make ``progress`` the reporter within the block (None: keep the current one)."""
    if progress is None:
        yield REPORTER.get()
        return
    token = REPORTER.set(progress)
    try:
        yield progress
    finally:
        REPORTER.reset(token)
        progress.close()
