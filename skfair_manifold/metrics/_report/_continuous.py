"""The group report of a continuous target: ``RegressionReport`` and how it is built from rows.

:func:`~skfair_manifold.metrics.fairness_report` builds it when the target
and the prediction are continuous (detected and said in the report, or
``target_type="continuous"``); :mod:`._regression_engine` computes every
number, this module checks the inputs once and lays the tables out.
"""

import datetime
import warnings as _warnings

import numpy as np
from sklearn.utils import Bunch

from ... import __version__
from ..._html import render_regression_report
from ...utils._validation import check_sample_weight
from .._common import UndefinedFairnessWarning
from .._frames import refuse_rows
from .._regression._engine import (
    QUANTITIES,
    Scale,
    distribution_gaps,
    gap_of,
    group_moments,
    mean_intervals,
    row_groups,
    row_quantities,
    undefined_groups,
)
from .._regression._frames import frame_moments
from .._regression._inputs import continuous_column, loss_values
from ...utils._summary_row import summary_label
from ._object import _plain_values, long_rows
from ._regression_words import regression_headline
from ._rows import _column_name

__all__ = ["RegressionReport"]

#: the columns of ``by_group`` and ``overall``, the gaps' quantities, in order
COLUMNS = ("mean_prediction", "mean_target", "mean_absolute_error",
           "root_mean_squared_error", "mean_residual")


class RegressionReport(Bunch):
    """What :func:`fairness_report` returns for a continuous target and prediction.

    A :class:`~sklearn.utils.Bunch` with:

    headline : list of str
        Per attribute, the worst-off group (the lowest mean prediction when
        higher is favourable, the highest when lower is) against the
        best-off one, the difference with its interval and the same
        difference in the true values; and the group with the largest error.
    by_group : DataFrame
        Indexed by (``attribute``, ``group``): ``count``, ``weight`` (with
        weights), ``mean_prediction``, ``mean_target``,
        ``mean_absolute_error``, ``root_mean_squared_error``,
        ``mean_residual`` (``y_pred - y_true``: the model's bias), with
        ``loss`` given ``mean_loss`` (the mean of its per-row values), and
        ``compared`` (at least ``min_group_size`` rows).
    overall : Series
        The same over all rows.
    gaps : DataFrame
        Per attribute, over the compared groups, for each quantity ``q``:
        ``q_difference`` (largest minus smallest), ``q_ratio`` (smallest
        over largest; nan unless all are positive), ``q_group_high``,
        ``q_group_low``; ``bounded_group_loss`` (the largest mean absolute
        error, or mean loss with ``loss``) and its group
        ``bounded_group_loss_group``;
        ``ks_distance`` and ``wasserstein_distance`` (the largest distance
        of a group's distribution of predictions to the population's) with
        their groups; ``groups_compared``, ``groups_left_out``,
        ``rows_left_out``.
    intervals : Bunch
        ``by_group`` (t intervals of each mean at ``confidence``) and
        ``gaps`` (simultaneous intervals of the differences and ratios, and
        the upper bound of the bounded group loss), as ``<q>_low`` and
        ``<q>_high`` columns; ``method`` (``"t"``) and ``confidence``.
    options : dict
        The settings, ``target_type`` and how it was chosen.
    provenance : dict
        Where the data came from (empty from Python).
    warnings : list of str
        The undefined values met.
    """

    def to_frame(self):
        """Every number in one long table, as :meth:`FairnessReport.to_frame` lays it out.

        Returns
        -------
        frame : DataFrame
            Columns ``section`` (``"by_group"``, ``"overall"``, ``"gaps"``),
            ``attribute``, ``group`` (empty outside ``by_group``),
            ``quantity``, ``value``, ``low`` and ``high`` (the t interval of a
            mean, the simultaneous interval of a gap; nan where there is
            none). The columns of ``gaps`` that name groups are left out.
        """
        import pandas as pd

        rows = long_rows(self, summary_label(self.options["attributes"]))
        return pd.DataFrame(rows, columns=["section", "attribute", "group", "quantity",
                                           "value", "low", "high"])

    def to_dict(self, *, undefined=None):
        """Every table as plain Python values (JSON-ready; nan becomes ``undefined``)."""
        def records(frame, nested):
            out = {}
            for key, row in frame.iterrows():
                if nested:
                    out.setdefault(str(key[0]), {})[str(key[1])] = row.to_dict()
                else:
                    out[str(key)] = row.to_dict()
            return out

        payload = {
            "kind": "continuous",
            "headline": list(self.headline),
            "by_group": records(self.by_group, True),
            "overall": self.overall.to_dict(),
            "gaps": records(self.gaps, False),
            "intervals": {"method": self.intervals.method,
                          "confidence": self.intervals.confidence,
                          "by_group": records(self.intervals.by_group, True),
                          "gaps": records(self.intervals.gaps, False)},
            "options": dict(self.options), "warnings": list(self.warnings),
            "provenance": dict(self.get("provenance") or {}),
        }
        return _plain_values(payload, undefined)

    def to_html(self, *, title="Fairness report", plots=True):
        """A self-contained HTML page: the gaps, the means by group, charts and settings.

        Parameters
        ----------
        title : str, default="Fairness report"
        plots : bool, default=True
            Include the bar charts of each group's mean prediction and mean
            target (inline SVG).

        Returns
        -------
        html : str
            One page; styles and images inline, no request to the network.
        """
        return render_regression_report(self, title=title, plots=plots)

    def _repr_html_(self):
        """The page, compact, for notebooks (no plots)."""
        return render_regression_report(self, title="Fairness report", plots=False,
                                        fragment=True)

    def __repr__(self):
        lines = [f"RegressionReport of {self.options['n_samples']} rows "
                 f"(continuous target, {self.options['target_type_source']})"]
        lines += [f"  {sentence}" for sentence in self.headline]
        return "\n".join(lines)


def regression_report(y_true, y_pred, *, sensitive_features, sample_weight, intersect,
                      min_group_size, confidence, favourable, target_type_source,
                      names_given, loss=None):
    """The :class:`RegressionReport` of in-memory rows (``fairness_report``'s continuous path;
    its defaults are ``fairness_report``'s, not repeated here)."""
    names_given = names_given or {"label": _column_name(y_true, "y_true"),
                                  "prediction": _column_name(y_pred, "y_pred")}
    y_true = continuous_column(y_true, "y_true")
    y_pred = continuous_column(y_pred, "y_pred", y_true.shape[0])
    n = y_true.shape[0]
    weights = check_sample_weight(sample_weight, n)
    codes, names, groups = row_groups(sensitive_features, n, intersect=intersect)
    scale = Scale.of(y_pred, y_true)  # the sums of scaled values (the engine's "Scale")
    scaled_pred = scale.down(y_pred)
    values = row_quantities(scale.down(y_true), scaled_pred)
    loss_scale = None
    if loss is not None:
        losses = loss_values(loss, y_true, y_pred)
        loss_scale = Scale.of(losses)
        values = values + (loss_scale.down(losses),)
    overall = group_moments(values, np.zeros(n, dtype=np.intp), 1, weights)
    attributes = []
    for code, attr, labels in zip(codes, names, groups):
        moments = group_moments(values, code, labels.shape[0], weights)
        compared = (moments["count"] >= min_group_size) & (moments["weight"] > 0)
        ks, wasserstein = distribution_gaps(scaled_pred, code, labels.shape[0], compared,
                                            weights)
        attributes.append((attr, labels, moments, (ks, scale.up(wasserstein, shift=False))))
    return tabulate(attributes, overall, weighted=weights is not None, intersect=intersect,
                    min_group_size=min_group_size, confidence=confidence,
                    favourable=favourable, target_type_source=target_type_source,
                    names_given=names_given, loss=loss, scale=scale, loss_scale=loss_scale)


def continuous_report(y_true, y_pred, *, sensitive_features, data, sample_weight, X,
                      estimator, pos_label, n_boot, intersect, min_group_size, confidence,
                      favourable, source, names_given, loss=None):
    """``fairness_report``'s continuous path: the binary options refused, then the rows'
    report, or with ``data`` (a lazy frame) the sums of its engine."""
    options = [("pos_label", pos_label is not None, "no favourable class"),
               ("n_boot", n_boot > 0, "t intervals, not the bootstrap")]
    if data is None:
        options += [("X", X is not None, "no HFM section yet: call hfm_report"),
                    ("estimator", estimator is not None, "no discriminative risk yet")]
    for option, given, reason in options:
        if given:
            raise ValueError(MSG_CONTINUOUS_OPTION.format(option=option, source=source,
                                                          reason=reason))
    if data is None:
        return regression_report(
            y_true, y_pred, sensitive_features=sensitive_features,
            sample_weight=sample_weight, intersect=intersect, min_group_size=min_group_size,
            confidence=confidence, favourable=favourable, target_type_source=source,
            names_given=names_given, loss=loss)

    if loss is not None:
        refuse_rows(data, what="a loss function (loss=)", argument="loss")

    if X is not None:
        refuse_rows(data, what="HFM (X=)", argument="X")
    if estimator is not None:
        refuse_rows(data, what="the discriminative risk (estimator=)", argument="estimator")
    attributes, overall, weighted, names_given, notes, scale = frame_moments(
        data, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
        sample_weight=sample_weight, intersect=intersect, min_group_size=min_group_size)
    return tabulate(attributes, overall, weighted=weighted, intersect=intersect,
                    min_group_size=min_group_size, confidence=confidence,
                    favourable=favourable, target_type_source=source,
                    names_given=names_given, warnings=notes, scale=scale)


def tabulate(attributes, overall, *, weighted, intersect, min_group_size, confidence,
             favourable, target_type_source, names_given, warnings=(), loss=None,
             scale=None, loss_scale=None):
    """The :class:`RegressionReport` of per-attribute moments, wherever they were summed.

    ``attributes``: ``(name, groups, moments, (ks, wasserstein))`` per attribute,
    ``moments`` as :func:`._regression_engine.group_moments` returns them and
    the distances per group (nan where they could not be computed);
    ``overall``: the moments of all rows as one group. With ``loss`` (the
    user's function), the moments hold its values last: the column
    ``mean_loss``, whose largest group mean is then the bounded group loss.
    ``scale`` and ``loss_scale``: the :class:`._regression_engine.Scale` of the
    values summed (the distances are in the decision's units already).
    """
    import pandas as pd

    columns = COLUMNS + (("mean_loss",) if loss is not None else ())
    units = (Scale() if scale is None else scale, Scale() if loss_scale is None else loss_scale)

    rows, iv_rows, index, gap_rows, gap_iv = [], [], [], {}, {}
    undefined = []  # warned as well as kept (the frame's notes are kept only)
    for attr, labels, moments, distances in attributes:
        undefined += undefined_groups(attr, labels, moments)
        # a group of no weight has no mean: left out of the gaps, as a small one is
        compared = (moments["count"] >= min_group_size) & (moments["weight"] > 0)
        n_compared = max(int(compared.sum()), 1)
        means, var, n_eff = moments["mean"], moments["var"], moments["n_eff"]
        low, high = mean_intervals(means, var, n_eff, confidence)
        s_low, s_high = mean_intervals(means, var, n_eff, confidence ** (1.0 / n_compared))
        table = _columns(means, low, high, columns, units)
        simultaneous = _columns(means, s_low, s_high, columns, units)
        for j, group in enumerate(labels.tolist()):
            index.append((attr, group))
            row = {"count": int(moments["count"][j])}
            if weighted:
                row["weight"] = float(moments["weight"][j])
            row.update({c: float(table[c][0][j]) for c in columns})
            row["compared"] = bool(compared[j])
            rows.append(row)
            iv_rows.append({f"{c}_{end}": float(table[c][e][j])
                            for c in columns for e, end in ((1, "low"), (2, "high"))})
        gap_rows[attr], gap_iv[attr] = _gaps(simultaneous, labels, compared, moments,
                                             distances, columns)
    by_group = pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(
        index, names=["attribute", "group"]))
    overall_table = _columns(overall["mean"], *mean_intervals(
        overall["mean"], overall["var"], overall["n_eff"], confidence), columns, units)
    n = int(overall["count"][0])
    overall_row = pd.Series({"count": n, **({"weight": float(overall["weight"][0])}
                                           if weighted else {}),
                             **{c: float(overall_table[c][0][0]) for c in columns}})
    gaps = pd.DataFrame.from_dict(gap_rows, orient="index")
    gaps.index.name = "attribute"
    gaps_iv = pd.DataFrame.from_dict(gap_iv, orient="index")
    gaps_iv.index.name = "attribute"

    names_given = names_given or {"label": "y_true", "prediction": "y_pred"}
    options = {
        "target_type": "continuous", "target_type_source": target_type_source,
        "favourable": favourable, "label_column": names_given["label"],
        "prediction_column": names_given["prediction"], "intersect": intersect,
        "min_group_size": min_group_size, "confidence": confidence, "interval_method": "t",
        "weighted": weighted, "attributes": [str(a) for a, *_ in attributes],
        "loss": None if loss is None else getattr(loss, "__name__", type(loss).__name__),
        "bounded_group_loss_of": "mean_loss" if loss is not None else "mean_absolute_error",
        "n_samples": n, "package": f"skfair_manifold {__version__}",
        "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    report = RegressionReport(
        by_group=by_group, overall=overall_row, gaps=gaps,
        intervals=Bunch(by_group=pd.DataFrame(iv_rows, index=by_group.index), gaps=gaps_iv,
                        method="t", confidence=confidence),
        options=options, warnings=list(dict.fromkeys([*warnings, *undefined])),
        provenance={})
    report["headline"] = regression_headline(report)
    for message in dict.fromkeys(undefined):
        _warnings.warn(message, UndefinedFairnessWarning, stacklevel=4)
    return report


def _columns(means, low, high, columns=COLUMNS, units=(Scale(), Scale())):
    """``{column: (value, low, high)}`` per group in the decision's units (``units``: the
    scales of the quantities and of the loss), the root taken for the RMSE; the rows of
    ``means`` are :data:`QUANTITIES`, then ``mean_loss`` when ``columns`` ends with it."""
    out = {}
    names = QUANTITIES + (("mean_loss",) if columns[-1] == "mean_loss" else ())
    scale, loss_scale = units
    for q, name in enumerate(names):
        if name == "mean_loss":
            out[name] = tuple(loss_scale.up(v[q]) for v in (means, low, high))
            continue
        name = "root_mean_squared_error" if name == "mean_squared_error" else name
        out[name] = tuple(scale.quantity(q, v[q]) for v in (means, low, high))
    return out


def _gaps(simultaneous, labels, compared, moments, distances, columns=COLUMNS):
    """One attribute's row of ``gaps`` and of its intervals."""
    row, row_iv = {}, {}
    for c in columns:
        gap = gap_of(*simultaneous[c], compared)
        for form in ("difference", "ratio"):
            row[f"{c}_{form}"] = gap[form]
            row_iv[f"{c}_{form}_low"] = gap[f"{form}_low"]
            row_iv[f"{c}_{form}_high"] = gap[f"{form}_high"]
        row[f"{c}_group_high"] = labels[gap["high"]] if gap["high"] >= 0 else None
        row[f"{c}_group_low"] = labels[gap["low"]] if gap["low"] >= 0 else None
    mae, _, mae_high = simultaneous[columns[-1] if columns[-1] == "mean_loss"
                                    else "mean_absolute_error"]
    defined = np.flatnonzero(compared & np.isfinite(mae))
    worst = defined[np.argmax(mae[defined])] if defined.shape[0] else -1
    row["bounded_group_loss"] = float(mae[worst]) if worst >= 0 else np.nan
    row["bounded_group_loss_group"] = labels[worst] if worst >= 0 else None
    row_iv["bounded_group_loss_low"] = np.nan
    row_iv["bounded_group_loss_high"] = float(np.max(mae_high[defined])) \
        if defined.shape[0] else np.nan
    for name, dist in zip(("ks_distance", "wasserstein_distance"), distances):
        finite = np.flatnonzero(np.isfinite(dist))
        top = finite[np.argmax(dist[finite])] if finite.shape[0] else -1
        row[name] = float(dist[top]) if top >= 0 else np.nan
        row[f"{name}_group"] = labels[top] if top >= 0 else None
    row["groups_compared"] = int(compared.sum())
    row["groups_left_out"] = int((~compared).sum())
    row["rows_left_out"] = int(moments["count"][~compared].sum())
    return row, row_iv


MSG_CONTINUOUS_OPTION = (
    "{option} is an option of the binary report; a continuous target (target_type="
    "'continuous', {source}) has {reason}."
)
