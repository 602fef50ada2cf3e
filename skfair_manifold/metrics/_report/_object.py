"""What :func:`fairness_report` returns: the tables, their one serialiser and their views."""


import numpy as np
from sklearn.utils import Bunch

from ..._html import render_fairness_report
from ...utils._plain import plain_values as _plain_values

__all__ = ["FairnessReport"]


class FairnessReport(Bunch):
    """What :func:`fairness_report` returns: tables of rates, gaps, HFM and intervals.

    A :class:`~sklearn.utils.Bunch` (attributes and keys alike) with:

    headline : list of str
        One sentence per attribute that fails the four-fifths rule or is
        inconclusive: the worst-off and best-off groups, their selection
        rates, the ratio with its interval and the same ratio in the true
        labels; one sentence when every attribute passes.
    by_group : DataFrame
        Indexed by (``attribute``, ``group``); columns ``count`` (rows),
        ``weight`` (sum of ``sample_weight``, with weights only), the rates
        ``base_rate`` (``P(y_true = pos)``), ``selection_rate``
        (``P(y_pred = pos)``), ``true_positive_rate``,
        ``false_positive_rate``, ``precision`` and ``accuracy`` (``nan``
        where the denominator is 0), and ``compared``: the group has at
        least ``min_group_size`` rows and takes part in the gaps.
    overall : Series
        The same quantities over all rows.
    gaps : DataFrame
        One row per attribute and, with several attributes, a summary row
        (``options["summary_label"]``, ``"all attributes"`` unless a column
        is called so) that takes the worst attribute. Over the compared
        groups, for each of ``demographic_parity``, ``equal_opportunity``
        and ``predictive_quality_parity``: ``<metric>_difference``
        (largest rate minus smallest), ``<metric>_difference_to_overall``,
        ``<metric>_ratio`` (smallest over largest), ``<metric>_ratio_to_overall``,
        ``<metric>_group_high`` and ``<metric>_group_low`` (the groups with
        the largest and smallest rate) and ``<metric>_detectable_difference``
        (the smallest difference a test at 5% would detect with 80% power
        between the smallest and the largest compared group); then
        ``base_rate_difference`` and ``base_rate_ratio`` (the same gap in the
        true labels), ``four_fifths`` (``"passes"``, ``"fails"``,
        ``"inconclusive"`` or ``"undefined"``, judged on the interval of
        the selection-rate ratio), ``passes_four_fifths`` (the point
        estimate is at least 0.8), ``groups_compared``, ``groups_left_out``
        and ``rows_left_out``.
    intervals : Bunch
        ``by_group`` and ``gaps``: frames of the same index with columns
        ``<quantity>_low`` and ``<quantity>_high``; ``method`` (``"score"``
        or ``"bootstrap"``), ``n_boot`` and ``confidence``.
    cells : CellTable
        The table every number above comes from.
    hfm : DataFrame or None
        With ``X``: per attribute and the summary row, ``hfm_max``,
        ``hfm_avg`` and the distances ``d_max``, ``d_f_max``, ``d_avg``,
        ``d_f_avg`` of :func:`hfm_report`; ``<value>_low``, ``<value>_high``:
        the certified approximation's interval (nan, or no column, for an
        exact value: never a zero-width interval); with ``n_boot``,
        ``<value>_rows_low``, ``<value>_rows_high`` for ``d_avg``,
        ``d_f_avg`` and ``hfm_avg``, the interval over the sampling of the rows.
    hfm_report : Bunch or None
        The :func:`hfm_report` it came from.
    hfm_witnesses : dict or None
        With ``X``: the people behind HFM's maxima and the rows the model
        moved most (``hfm_report.witnesses``) as plain values: ``features``
        (the names of the columns HFM measured); ``maxima``, per label
        vector (``labels``) and ``attribute``, the ``distance`` and the two
        ``people`` (the row of the maximum, then the nearest row of another
        group), each with ``row``, ``index``, ``group``, ``label`` and
        ``values`` (of ``features``), and the share of the squared distance
        from the label (``label_share``) and from each feature
        (``shares``); ``changed``, the rows whose distance the model moved
        most (``row``, ``d``, ``d_f``, ``change``, ``y_true``, ``y_pred``).
    dr : Series or None
        With ``estimator``: the discriminative risk per attribute and their
        mean (the summary row, DR_avg of the HFM paper).
    bounds : DataFrame or None
        With ``membership``: the :func:`bias_audit` table of the estimated
        attributes' categories (the sharp bounds of the selection rate and the
        impact ratio over who in each stratum was selected, and their
        interval), which hold without the weighted rates' assumption;
        ``options["membership"]`` says per attribute what the weighted rates
        assume and what the strata are.
    options : dict
        The options and settings the report was made with, the favourable
        outcome in words (``favourable_text``), the package version and the
        date.
    provenance : dict
        Where the data came from, filled by the command line (input file and
        its SHA-256, rows dropped); empty from Python.
    warnings : list of str
        The undefined values met.
    """

    def to_frame(self):
        """Every number in one long table.

        Returns
        -------
        frame : DataFrame
            Columns ``section`` (``"by_group"``, ``"overall"``, ``"gaps"``,
            ``"hfm"``, ``"dr"``), ``attribute``, ``group`` (empty outside
            ``by_group``), ``quantity``, ``value``, ``low`` and ``high``
            (nan where a value has no interval; an exact value has none).
            HFM's: the interval over the sampling of the rows (``n_boot``;
            ``d_avg``, ``d_f_avg``, ``hfm_avg``) where there is one, else the
            certified approximation's. Text columns of ``gaps``
            (the groups named, the verdict) are left out: see ``gaps``.
        """
        import pandas as pd

        rows = long_rows(self, self.options["summary_label"])

        def add(section, attribute, group, quantity, value, low=np.nan, high=np.nan):
            rows.append((section, attribute, group, quantity, value, low, high))

        if self.hfm is not None:
            for attr, row in self.hfm.iterrows():
                for q in ("hfm_max", "hfm_avg", "d_max", "d_f_max", "d_avg", "d_f_avg"):
                    kind = f"{q}_rows" if f"{q}_rows_low" in row.index else q
                    add("hfm", attr, "", q, float(row[q]), row.get(f"{kind}_low", np.nan),
                        row.get(f"{kind}_high", np.nan))
        if self.dr is not None:
            for attr, v in self.dr.items():
                add("dr", attr, "", "discriminative_risk", float(v))
        return pd.DataFrame(rows, columns=["section", "attribute", "group", "quantity",
                                           "value", "low", "high"])

    def to_dict(self, *, undefined=None):
        """The report as plain Python values, ready for ``json.dumps`` (nan becomes None).

        Parameters
        ----------
        undefined : object, default=None
            What an undefined value (nan) becomes; ``None`` gives JSON's
            ``null``.

        Returns
        -------
        report : dict
            ``by_group`` (attribute -> group -> quantity -> value),
            ``overall``, ``gaps`` (attribute -> quantity -> value), ``hfm``,
            ``hfm_witnesses``, ``dr``, ``intervals`` (the same layout,
            ``[low, high]`` pairs, with ``method``, ``n_boot`` and
            ``confidence``; ``hfm``, attribute -> ``d_avg``, ``d_f_avg``,
            ``hfm_avg`` -> the interval over the rows with ``n_boot`` and
            ``X``, else None; in ``hfm`` an exact value has no ``_low`` or
            ``_high``, the approximation's interval has them), ``headline``, ``options``, ``provenance`` and
            ``warnings``; with ``y_score``, ``scores`` (``by_group``, ``gaps``,
            ``reliability``). The HTML page and
            the command line's JSON and CSV read this dictionary.
        """
        def _plain(obj):
            return _plain_values(obj, undefined)

        def nested(frame):
            out = {}
            for (attr, group), row in frame.iterrows():
                out.setdefault(str(attr), {})[str(group)] = _plain(row.to_dict())
            return out

        def flat(frame):
            return {str(attr): _plain(row.to_dict()) for attr, row in frame.iterrows()}

        def pairs(frame, nested_index):
            out = {}
            names = sorted({c[:-4] for c in frame.columns if c.endswith("_low")})
            for index, row in frame.iterrows():
                values = {q: _plain([row[f"{q}_low"], row[f"{q}_high"]]) for q in names}
                if nested_index:
                    out.setdefault(str(index[0]), {})[str(index[1])] = values
                else:
                    out[str(index)] = values
            return out

        def hfm_rows(frame):  # HFM's intervals over rows (n_boot), None without
            names = [c[:-len("_rows_low")] for c in frame.columns if c.endswith("_rows_low")]
            if not names:
                return None
            return {str(attr): {q: _plain([row[f"{q}_rows_low"], row[f"{q}_rows_high"]])
                                for q in names} for attr, row in frame.iterrows()}

        result = {
            "by_group": nested(self.by_group),
            "overall": _plain(self.overall.to_dict()),
            "gaps": flat(self.gaps),
            "hfm": None if self.hfm is None else flat(self.hfm),
            "hfm_witnesses": _plain(self.get("hfm_witnesses")),
            "dr": None if self.dr is None else _plain(
                {str(k): v for k, v in self.dr.items()}),
            "intervals": {
                "method": self.intervals.method,
                "n_boot": int(self.intervals.n_boot),
                "confidence": float(self.intervals.confidence),
                "by_group": pairs(self.intervals.by_group, True),
                "gaps": pairs(self.intervals.gaps, False),
                "hfm": None if self.hfm is None else hfm_rows(self.hfm),
            },
            "headline": list(self.headline),
            "options": _plain(self.options),
            "provenance": _plain(self.provenance),
            "warnings": list(self.warnings),
        }
        if self.get("scores") is not None:  # with y_score: AUC and calibration by group
            result["scores"] = {
                "by_group": nested(self.scores), "gaps": flat(self.score_gaps),
                "reliability": [_plain(r) for r in
                                self.score_reliability.to_dict(orient="records")]}
        return result

    def to_html(self, *, title="Fairness report", plots=True):
        """A self-contained HTML page: tables, four-fifths flags, HFM and how to read it.

        Parameters
        ----------
        title : str, default="Fairness report"
        plots : bool, default=True
            Include the bar plots of the per-group rates (inline SVG).

        Returns
        -------
        html : str
            One page; styles and images inline, no request to the network.
        """
        return render_fairness_report(self, title=title, plots=plots)

    def _repr_html_(self):
        """The page, compact, for notebooks (no plots)."""
        return render_fairness_report(self, title="Fairness report", plots=False,
                                      fragment=True)

    def __repr__(self):
        attrs = self.options["attributes"]
        lines = [f"FairnessReport: {self.options['n_samples']} rows, "
                 f"{len(self.by_group)} groups of {len(attrs)} attribute(s) "
                 f"{', '.join(attrs)}{' (intersected)' if self.options['intersect'] else ''}",
                 f"favourable: {self.options['favourable_text']}"]
        lines += [f"  {sentence}" for sentence in self.headline]
        iv = self.intervals
        lines.append(f"intervals: {100 * iv.confidence:g}% "
                     + ("score (Wilson, continuity-corrected; simultaneous for gaps)"
                        if iv.method == "score"
                        else f"bootstrap of the gaps, {iv.n_boot} replicates")
                     + f"; groups under {self.options['min_group_size']} rows not compared")
        extra = [name for name in ("hfm", "dr") if self.get(name) is not None]
        lines.append("tables: by_group, gaps, overall" + "".join(f", {e}" for e in extra))
        return "\n".join(lines)


def long_rows(report, label):
    """The numbers of ``by_group``, ``overall`` and ``gaps`` as the rows of ``to_frame``.

    Each row ``(section, attribute, group, quantity, value, low, high)``, the
    interval where ``report.intervals`` holds one (nan otherwise); the columns
    that name groups (``*_group``, ``*_group_high``, ``*_group_low``) and text
    columns are left out, even when the groups are numbers.
    """
    rows = []
    iv = report.intervals

    def bounds(frame, key, q):
        if f"{q}_low" not in frame.columns:
            return np.nan, np.nan
        return float(frame.loc[key, f"{q}_low"]), float(frame.loc[key, f"{q}_high"])

    def numbers(frame):
        return [c for c in frame.columns if not str(c).endswith(_GROUP_COLUMNS)
                and (frame[c].dtype.kind in "biuf")]

    for (attr, group), row in report.by_group.iterrows():
        for q in numbers(report.by_group):
            rows.append(("by_group", attr, group, q, float(row[q]),
                         *bounds(iv.by_group, (attr, group), q)))
    for q, v in report.overall.items():
        rows.append(("overall", label, "", q, float(v), np.nan, np.nan))
    for attr, row in report.gaps.iterrows():
        for q in numbers(report.gaps):
            rows.append(("gaps", attr, "", q, float(row[q]), *bounds(iv.gaps, attr, q)))
    return rows


#: the ends of the columns that name groups rather than measure them
_GROUP_COLUMNS = ("_group", "_group_high", "_group_low")


def _group_text(value):
    return "(none)" if value is None else repr(value) if not isinstance(value, str) \
        else f"'{value}'"


def headline(report):
    """One sentence per attribute that fails the four-fifths rule or is inconclusive.

    Each names the worst-off and best-off groups by selection rate, their
    rates, the ratio with its interval, the same ratio in the true labels,
    and the verdict; one sentence says when every attribute passes.
    """
    gaps, by_group, iv = report.gaps, report.by_group, report.intervals.gaps
    options = report.options
    level = f"{100 * report.intervals.confidence:g}%"
    sentences = []
    summary = options["summary_label"]
    for attr, row in gaps.iterrows():
        if attr == summary and len(gaps) > 1:
            continue
        verdict = row["four_fifths"]
        left_out = (f"; {row['groups_left_out']} group(s) of fewer than "
                    f"{options['min_group_size']} rows ({row['rows_left_out']} rows) not "
                    f"compared" if row["groups_left_out"] else "")
        if verdict in ("fails", "inconclusive"):
            low_g, high_g = row["demographic_parity_group_low"], \
                row["demographic_parity_group_high"]
            low_rate = by_group.loc[(attr, low_g), "selection_rate"]
            high_rate = by_group.loc[(attr, high_g), "selection_rate"]
            text = {"fails": "fails the four-fifths rule",
                    "inconclusive": "is inconclusive on the four-fifths rule"}[verdict]
            sentences.append(
                f"{attr} {text}: group {_group_text(low_g)} is selected at {low_rate:.3f} "
                f"against {high_rate:.3f} for {_group_text(high_g)} (ratio "
                f"{row['demographic_parity_ratio']:.3f}, {level} interval "
                f"[{iv.loc[attr, 'demographic_parity_ratio_low']:.3f}, "
                f"{iv.loc[attr, 'demographic_parity_ratio_high']:.3f}]"
                + (f"; in the true labels the ratio is {row['base_rate_ratio']:.3f}"
                   if options.get("labels", True) else "") + f"){left_out}.")
        elif verdict == "undefined":
            sentences.append(f"{attr}: the selection-rate ratio is undefined (fewer than two "
                             f"groups compared, or no group selected){left_out}.")
    if not sentences:
        detect = gaps["demographic_parity_detectable_difference"].max()
        sentences.append(
            "Every attribute passes the four-fifths rule: the whole interval of each "
            "selection-rate ratio is at least 0.8"
            + (f" (differences of selection rate under {detect:.3f} could not have been "
               f"detected with these group sizes)." if np.isfinite(detect) else "."))
    if not options.get("labels", True):
        sentences.append(options["left_out"][0].upper() + options["left_out"][1:] + ".")
    return sentences
