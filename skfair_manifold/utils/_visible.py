"""Invisible and bidirectional format characters in user-supplied names, made visible.

A group value, a column or a feature name may hold a format character
(Unicode category Cf): a bidirectional embedding, override or isolate
(U+202A-U+202E, U+2066-U+2069), which reorders the text after it when
shown, or an invisible one (U+200B-U+200F, U+2060-U+2064, U+FEFF, ...),
which makes two different names look the same. Every output written for
people (the HTML pages, the CSV files, the terminal) shows each such
character as a visible escape, ``<U+202E>``, through :func:`visible_text`;
on the terminal (standard error) the control characters too, the line break
and the tab aside (:func:`terminal_text`: an escape sequence in a column
name would recolour the terminal), and a one-line error keeps a name's line
breaks as escapes (:func:`one_line`);
the JSON output stays faithful to the data and writes it as the JSON escape
``\\u202e`` (``json.dumps``'s default ``ensure_ascii``), which no reader
renders as a direction change.
"""

import contextlib
import re
import sys

#: the characters of Unicode category Cf (format), from the Unicode 14 database; the list
#: is written out so that importing it costs nothing (``tests/utils/test_visible.py``
#: checks it against ``unicodedata`` of the running Python)
FORMAT_CHARACTERS = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f]")


def escape_character(char):
    """The visible escape of one character: ``<U+202E>``."""
    return f"<U+{ord(char):04X}>"


def has_format_characters(value):
    """Whether ``str(value)`` holds a format (Cf) character."""
    return FORMAT_CHARACTERS.search(str(value)) is not None


def visible_text(value, *, escape=escape_character):
    """``str(value)`` with every format (Cf) character replaced by ``escape(char)``.

    Parameters
    ----------
    value : object
        A name or any text; a non-string is converted with ``str``.
    escape : callable, default=escape_character
        One character -> its visible replacement.

    Returns
    -------
    text : str

    Examples
    --------
    >>> from skfair_manifold.utils._visible import visible_text
    >>> visible_text("group\\u202eA")
    'group<U+202E>A'
    >>> visible_text("a\\u200bb\\ufeff"), visible_text(3)
    ('a<U+200B>b<U+FEFF>', '3')
    """
    text = str(value)
    if FORMAT_CHARACTERS.search(text) is None:
        return text
    return FORMAT_CHARACTERS.sub(lambda m: escape(m.group()), text)


#: the control characters (Unicode category Cc) a terminal acts on, but the line break and
#: the tab: an escape sequence (ESC) recolours or moves the cursor, a carriage return
#: overwrites the line, BEL rings
CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_text(value):
    """:func:`visible_text` with the control characters escaped too (``<U+001B>``), the
    line break and the tab kept: what the command line writes to the terminal.

    Examples
    --------
    >>> from skfair_manifold.utils._visible import terminal_text
    >>> terminal_text("no column 'a\\x1b[31mb'\\n")
    "no column 'a<U+001B>[31mb'\\n"
    """
    text = visible_text(value)
    if CONTROL_CHARACTERS.search(text) is None:
        return text
    return CONTROL_CHARACTERS.sub(lambda m: escape_character(m.group()), text)


def one_line(value):
    """:func:`terminal_text` on one line: its line breaks escaped (``<U+000A>``), so that a
    name holding one cannot split a one-line message."""
    return terminal_text(value).replace("\n", escape_character("\n"))


class VisibleStream:
    """A text stream whose writes go through :func:`terminal_text` (the terminal's
    messages: format and control characters shown as escapes)."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text):
        # a carriage return that starts a write is a progress bar's own, kept
        if text.startswith("\r"):
            return self.stream.write("\r" + terminal_text(text[1:]))
        return self.stream.write(terminal_text(text))

    def __getattr__(self, name):  # flush, isatty, encoding, ...: the wrapped stream's
        return getattr(self.stream, name)


@contextlib.contextmanager
def visible_stderr():
    """``sys.stderr`` as a :class:`VisibleStream` within the block.

    Examples
    --------
    >>> import io, sys
    >>> from skfair_manifold.utils._visible import visible_stderr
    >>> saved, sys.stderr = sys.stderr, io.StringIO()
    >>> with visible_stderr():
    ...     print("no column 'a\\u202eb'", file=sys.stderr)
    >>> sys.stderr.getvalue()
    "no column 'a<U+202E>b'\\n"
    >>> sys.stderr = saved
    """
    saved = sys.stderr
    sys.stderr = VisibleStream(saved)
    try:
        yield sys.stderr
    finally:
        sys.stderr = saved
