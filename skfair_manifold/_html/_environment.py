"""The templates' Jinja2 environment: autoescaping, strict undefined, the filters of _text."""

from ._text import _anchor, _finalize, _join, _level, _num, _pct, _pval


def _environment():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("skfair_manifold._html", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2", "svg"]),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
        finalize=_finalize)
    env.filters["join"] = _join
    env.filters["num"] = _num
    env.filters["pct"] = _pct
    env.filters["level"] = _level
    env.filters["pval"] = _pval
    env.filters["anchor"] = _anchor
    return env
