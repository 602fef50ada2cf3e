"""What :func:`bias_audit` returns: the audit table, the unknown counts and their views."""

from sklearn.utils import Bunch

from ..._html import render_bias_audit
from ...utils._plain import plain_values

__all__ = ["BiasAudit"]


class BiasAudit(Bunch):
    """What :func:`~skfair_manifold.metrics.bias_audit` returns.

    A :class:`~sklearn.utils.Bunch` (attributes and keys alike) with:

    table : DataFrame
        One row per (characteristic, category): ``characteristic`` (the
        attribute's name, or ``"intersectional"``), one column per sensitive
        attribute holding the category (None where the row is not split by
        it), then ``n`` (assessed, category known), ``n_selected`` (selected,
        or scored above the median), ``rate``, ``impact_ratio`` (against the
        comparator, the known people alone: what a published audit reports),
        ``comparator`` (the row is its characteristic's comparator),
        ``excluded`` (under ``min_share`` of the assessed: no ratio),
        ``rate_low``, ``rate_high``, ``impact_ratio_low``,
        ``impact_ratio_high`` (the sharp bounds over where the unknown people
        belong), ``impact_ratio_ci_low``, ``impact_ratio_ci_high`` (the
        interval over the bounds and the sampling, at ``confidence``),
        ``verdict`` (the four-fifths rule on that interval: ``"passes"``,
        ``"fails"``, ``"inconclusive"``, ``"excluded"`` or ``"undefined"``),
        ``fisher_p_value`` and ``z_score`` (the Uniform Guidelines' tests
        against the comparator: Fisher's exact test and the two-standard-
        deviation test, significant when ``|z| > 2``), ``share`` (of the
        assessed), ``estimate`` (``"observed"``; for an attribute estimated
        from ``membership``, ``"weighted"`` or the shortcut's name) and
        ``note``. With ``tiers``, a first column ``tier``.
    unknown : Series
        Per characteristic (and tier), the number assessed whose category is
        unknown: not in ``n``, bounded in the ``_low`` and ``_high`` columns.
    headline : list of str
        What the audit found, in sentences: per characteristic the
        comparator, the categories that fail or are inconclusive, and how far
        the unknowns alone move the ratios.
    options : dict
        The options the audit was made with, each characteristic's comparator
        (``comparators``), the scoring median and its ties, the package
        version and the date; with ``membership``, ``estimated``: per
        estimated characteristic its estimate, its strata (what they are, how
        many, the median size), the people of known category and the
        assumption under which the estimate is the true rate.
    provenance : dict
        Where the data came from (the command line fills the input file and
        its SHA-256); empty from Python.
    """

    def to_frame(self):
        """The audit table (a copy), one row per (characteristic, category)."""
        return self.table.copy()

    def to_dict(self, *, undefined=None):
        """Every number of the audit as plain Python values (JSON-ready).

        Parameters
        ----------
        undefined : object, default=None
            What NaN and infinite values become (None: JSON ``null``).

        Returns
        -------
        data : dict
            ``table`` (a list of rows), ``unknown`` (characteristic -> count),
            ``headline``, ``options``, ``provenance``.
        """
        rows = []
        for row in self.table.to_dict(orient="records"):
            rows.append({str(k): v for k, v in row.items()})
        unknown = {(" / ".join(map(str, k)) if isinstance(k, tuple) else str(k)): v
                   for k, v in self.unknown.items()}
        return plain_values({"table": rows, "unknown": unknown, "headline": self.headline,
                             "options": self.options, "provenance": self.provenance},
                            undefined=undefined)

    def to_html(self, *, title="Bias audit"):
        """A self-contained HTML page: the table the law asks for, the unknowns' bounds,
        the intervals and verdicts, and how to read them.

        Parameters
        ----------
        title : str, default="Bias audit"

        Returns
        -------
        html : str
            One page; styles inline, no request to the network.
        """
        return render_bias_audit(self, title=title)

    def _repr_html_(self):
        """The page, compact, for notebooks."""
        return render_bias_audit(self, title="Bias audit", fragment=True)

    def __repr__(self):
        options = self.options
        lines = [f"BiasAudit: {options['n_assessed']} assessed, "
                 f"{options['what']} ({options['rate_name']}); "
                 f"characteristics {', '.join(options['characteristics'])}"]
        for key, value in self.unknown.items():
            shown = " / ".join(map(str, key)) if isinstance(key, tuple) else key
            lines.append(f"  unknown {shown}: {_count(value)}")
        lines += [f"  {sentence}" for sentence in self.headline]
        lines.append(f"comparator: {options['comparator_text']}; categories under "
                     f"{options['min_share']:g} of the assessed left out of the ratios; "
                     f"intervals {100 * options['confidence']:g}%")
        return "\n".join(lines)


def _count(value):
    value = float(value)
    return f"{int(value)}" if value == int(value) else f"{value:.1f}"


def audit_headline(table, unknown, *, comparators, confidence, tiers):
    """The audit's sentences (see :class:`BiasAudit`)."""
    sentences = []
    level = f"{100 * confidence:g}%"
    keys = ["tier", "characteristic"] if tiers else ["characteristic"]
    for key, rows in table.groupby(keys, sort=False):
        key = key if tiers else key[0] if isinstance(key, tuple) else key
        tier, name = key if tiers else (None, key)
        prefix = f"tier {tier}: " if tiers else ""
        used = comparators.get(key, "")
        ref = rows[rows["comparator"]]
        how = used.split(":")[0]
        ref_text = (f"the comparator is {_category(ref.iloc[0])} ({how}, rate "
                    f"{ref.iloc[0]['rate']:.3f})" if len(ref) else
                    "no comparator (no category selected anybody)")
        bad = rows[rows["verdict"].isin(["fails", "inconclusive"])]
        missing = float(unknown.get(key, 0.0))
        text = f"{prefix}{name}: {ref_text}"
        if len(bad):
            parts = [f"{_category(row)} {row['verdict']} (ratio {row['impact_ratio']:.3f}; "
                     f"{level} interval [{row['impact_ratio_ci_low']:.3f}, "
                     f"{row['impact_ratio_ci_high']:.3f}])" for _, row in bad.iterrows()]
            text += "; " + ", ".join(parts)
        else:
            rated = rows[~rows["excluded"]]
            text += ("; every category passes the four-fifths rule on its whole interval"
                     if len(rated) and (rated["verdict"] == "passes").all() else "")
        if missing:
            rated = rows[~rows["excluded"] & ~rows["comparator"]]
            passing = rated[rated["impact_ratio"] >= 0.8]
            moved = passing[passing["impact_ratio_low"] < 0.8]
            text += f"; {_count(missing)} assessed of unknown {name}"
            text += (f" could put {len(moved)} of the {len(passing)} ratios at or above 0.8 "
                     f"below it" if len(passing) else
                     " move the ratios as the columns impact_ratio_low and _high show")
        sentences.append(text + ".")
    return sentences


def _category(row):
    value = row.get("category")
    return f"'{value}'" if value is not None else "(none)"
