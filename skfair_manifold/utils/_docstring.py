"""Docstring substitution that is safe under ``python -OO``, and shared fragments.

Under ``-OO`` Python drops every docstring, so ``func.__doc__`` is ``None``;
code that edits docstrings at import time must then do nothing instead of
failing. :class:`Substitution` replaces ``{name}`` placeholders by plain text
replacement (not ``str.format``), so the other braces a docstring holds (a
dict in an example, a set in a type) are left alone.
"""

__all__ = ["Substitution", "N_JOBS_DOC", "RANDOM_STATE_DOC"]


class Substitution:
    """Decorator that fills ``{name}`` placeholders of a docstring.

    Parameters
    ----------
    **fragments : str
        Placeholder names and their texts. A placeholder that stands alone
        on its line is replaced together with the line's indentation, so a
        fragment written with its own indentation keeps it.

    Examples
    --------
    >>> from skfair_manifold.utils._docstring import Substitution
    >>> @Substitution(what="a number")
    ... def f():
    ...     '''Return {what}.'''
    >>> f.__doc__
    'Return a number.'
    """

    def __init__(self, **fragments):
        self.fragments = fragments

    def __call__(self, obj):
        if obj.__doc__:  # None under python -OO
            obj.__doc__ = substitute(obj.__doc__, **self.fragments)
        return obj


def substitute(doc, **fragments):
    """``doc`` with every ``{name}`` replaced (see :class:`Substitution`)."""
    if not doc:
        return doc
    lines = []
    for line in doc.split("\n"):
        stripped = line.strip()
        if stripped.startswith("{") and stripped.endswith("}") and stripped[1:-1] in fragments:
            lines.append(fragments[stripped[1:-1]])
            continue
        for key, text in fragments.items():
            line = line.replace("{" + key + "}", text)
        lines.append(line)
    return "\n".join(lines)


N_JOBS_DOC = """n_jobs : int, default=None
        Number of workers (joblib, threads). ``None`` means 1 unless in a
        :func:`joblib.parallel_config` context; ``-1`` uses every core. The
        result is identical for any value."""

RANDOM_STATE_DOC = """random_state : int, RandomState instance or None, default=None
        Seed of the random draws. Pass an int for reproducible results
        across calls."""
