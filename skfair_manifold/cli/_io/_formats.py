"""The outputs' text: CSV cells escaped against formulas, JSON without NaN and rounded."""

import json
import math

from skfair_manifold.utils._visible import visible_text


#: significant digits of the floats written in JSON
JSON_DIGITS = 6


#: magnitudes below this are floating-point round-off and are written as 0
ZERO_BELOW = 1e-12


#: first characters that make a spreadsheet read a cell as a formula
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _is_number_text(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def escape_cell(value):
    """``value`` with a leading quote when a spreadsheet would read it as a formula.

    Only text is escaped, and only when it is not a plain number: ``-0.25``
    stays a number, ``=1+2`` becomes ``'=1+2``. Its format characters (a
    right-to-left override U+202E, a zero-width space U+200B, ...) are
    written as visible escapes ``<U+202E>`` (:func:`~skfair_manifold.utils._visible.visible_text`),
    so that a spreadsheet cannot show a name reversed or two names alike.
    """
    if isinstance(value, str):
        value = visible_text(value)
    if isinstance(value, str) and value.startswith(FORMULA_START) \
            and not _is_number_text(value):
        return "'" + value
    return value


def escape_frame(frame):
    """A copy of ``frame`` whose text cells and column names are escaped for spreadsheets."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    out = frame.copy()
    for column in out.columns:
        dtype = out[column].dtype
        if not (is_numeric_dtype(dtype) or is_bool_dtype(dtype)):  # text, object, category
            out[column] = out[column].astype(object).map(escape_cell)
    out.columns = [escape_cell(str(c)) for c in out.columns]
    return out


def join_cells(values, *, escape):
    """A list as one ``;``-joined cell, each element escaped when ``escape``."""
    items = [str(v) for v in values]
    if escape:
        items = [escape_cell(v) for v in items]
    return ";".join(items)


def frame_to_csv(frame, *, escape):
    """CSV text of ``frame`` (escaped for spreadsheets unless ``escape`` is False)."""
    if escape:
        frame = escape_frame(frame)
    return frame.to_csv(index=False, lineterminator="\n")


def json_safe(obj, *, digits=JSON_DIGITS, path="", undefined=None):
    """``obj`` with numpy scalars and arrays as Python values, floats rounded, NaN as None.

    ``undefined``, a dict, receives the path of every value that was NaN or
    infinite (``"per_attribute.sex.hfm_max"``).
    """
    import numbers

    if isinstance(obj, dict):
        return {str(k): json_safe(v, digits=digits, path=f"{path}.{k}" if path else str(k),
                                  undefined=undefined) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v, digits=digits, path=f"{path}[{i}]", undefined=undefined)
                for i, v in enumerate(obj)]
    if hasattr(obj, "tolist") and not isinstance(obj, (str, bytes)):  # numpy values
        return json_safe(obj.tolist(), digits=digits, path=path, undefined=undefined)
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, numbers.Integral):
        return int(obj)
    if isinstance(obj, numbers.Real):
        value = float(obj)
        if not math.isfinite(value):
            if undefined is not None:
                undefined[path] = "nan" if value != value else "infinite"
            return None
        return round_significant(value, digits)
    return str(obj)


def round_significant(value, digits=JSON_DIGITS):
    """``value`` rounded to ``digits`` significant digits; round-off below ZERO_BELOW is 0."""
    if value == 0 or abs(value) < ZERO_BELOW:
        return 0.0
    return float(f"{value:.{digits}g}")


def dump_json(payload, *, reasons=(), digits=JSON_DIGITS):
    """JSON text of ``payload``: no NaN/Infinity token, floats rounded.

    Every value that was undefined is ``null`` and listed under
    ``"undefined"`` with its reason: the first of ``reasons`` (warning
    messages) that names the value's last key, else "undefined on the data
    given". Text stays faithful to the data: a format character in a name
    (U+202E, U+200B, ...) is written as its JSON escape (``"\\u202e"``,
    ``json.dumps``'s ``ensure_ascii``), never raw, so that no viewer of the
    file shows it reversed or hidden, and every JSON reader gets it back.
    """
    undefined = {}
    clean = json_safe(payload, digits=digits, undefined=undefined)
    if undefined:
        explained = {}
        for where in undefined:
            keys = where.replace("[", ".").replace("]", "").split(".")
            words = [k for k in keys if k and not k.isdigit()]
            reason = next((r for r in reasons if words and words[-1] in r
                           and all(w in r for w in words[-2:-1])), None) \
                or next((r for r in reasons if words and words[-1] in r), None)
            explained[where] = reason or "undefined on the data given"
        clean["undefined"] = explained
    clean.setdefault("digits", digits)
    return json.dumps(clean, indent=2, allow_nan=False, ensure_ascii=True) + "\n"
