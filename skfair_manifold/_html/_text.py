"""Text for the pages: numbers, p-values and percentages for people; safe text; anchors."""

import hashlib
import math
import re

from ..utils._visible import visible_text


def _num(value, digits=3):
    """A number for people: ``n/a`` when undefined, else ``digits`` decimals."""
    if value is None:
        return "n/a"
    try:
        value = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(value):
        return "n/a"
    if abs(value) < 1e-12:
        value = 0.0
    return f"{value:.{digits}f}"


def _pval(value):
    """A p-value or q-value: 4 decimals, or two significant digits below 0.001."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return "n/a"
    if not math.isfinite(value):
        return "n/a"
    return f"{value:.4f}" if value >= 1e-3 else f"{value:.1e}"


def _pct(value):
    if value is None or not math.isfinite(float(value)):
        return "n/a"
    return f"{100 * float(value):+.1f}%"


def _level(confidence):
    """A confidence level as a reader writes it: 0.95 -> "95%", 0.975 -> "97.5%"."""
    return f"{100 * float(confidence):.10g}%"


#: control characters (C0 but tab and line ends, DEL, C1) and lone surrogates: escaped
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


#: right-to-left letters (Hebrew, Arabic, Syriac, Thaana, NKo, ... and their presentation
#: forms) and the explicit directional marks, embeddings, overrides and isolates
_BIDI = re.compile("[\u0590-\u08ff\u200f\u202a-\u202e\u2066-\u2069\ufb1d-\ufdff"
                   "\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff]")


#: first strong isolate ... pop directional isolate: the plain-text form of <bdi>
FSI, PDI = "\u2068", "\u2069"


class SafeText(str):
    """Text already made safe by :func:`safe_text` (not processed again)."""


def _escape_control(match):
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(value):
    """``value`` as text any page can show: controls escaped, bidirectional text isolated.

    A control character (NUL, ESC, DEL, C1 controls) or a lone surrogate is
    written as its escape (``\\x00``), so that it is neither written raw nor
    lost. A format character (Unicode category Cf: the directional
    embeddings, overrides and isolates such as U+202E, the right-to-left
    override, and the invisible ones such as U+200B or U+FEFF) is written as
    its visible escape ``<U+202E>`` (:func:`~skfair_manifold.utils._visible.visible_text`),
    so it can neither reverse the text nor hide. Text with right-to-left
    letters (or that held a directional character) is put between U+2068
    FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE, the plain-text
    form of ``<bdi>``: it cannot reorder the text around it, in HTML text,
    attributes and SVG alike.
    """
    if isinstance(value, SafeText):
        return value
    text = _CONTROL.sub(_escape_control, str(value))
    isolate = _BIDI.search(text) is not None
    text = visible_text(text)
    return SafeText(FSI + text + PDI if isolate else text)


def _finalize(value):
    """Every ``{{ value }}`` of the templates: text through :func:`safe_text`."""
    import markupsafe

    if isinstance(value, str) and not isinstance(value, markupsafe.Markup):
        return safe_text(value)
    return value


def _neutral(sentence):
    """A sentence of the package that quotes names: their directional embeddings,
    overrides and isolates escaped (``<U+202E>``), so that none reorders the sentence."""
    return SafeText(safe_text(visible_text(sentence)))


def _join(items, separator=""):
    """The templates' ``join``: each item made safe alone, so that one cannot reorder the next."""
    return SafeText(separator.join(safe_text(item) for item in items))


def _anchor(value):
    """A stable HTML id for a person, derived from the id.

    ASCII letters, digits, ``-`` and ``_`` are kept (at most 40 of them),
    other characters become ``_``; when that changed the id (``a b`` and
    ``a/b`` both give ``a_b``), eight hexadecimal digits of the id's SHA-1
    follow, so that distinct ids give distinct anchors. Ids in the page are
    made unique by :func:`unique_anchors`.
    """
    text = str(value)
    slug = re.sub("[^A-Za-z0-9_-]", "_", text)[:40]
    if slug != text:
        slug += "-" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"person-{slug}"


def unique_anchors(values):
    """One anchor per value, :func:`_anchor` with ``-2``, ``-3``, ... on a collision."""
    used, anchors = set(), []
    for value in values:
        anchor = base = _anchor(value)
        n = 1
        while anchor in used:
            n += 1
            anchor = f"{base}-{n}"
        used.add(anchor)
        anchors.append(anchor)
    return anchors
