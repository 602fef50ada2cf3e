"""``fairness_report``: every per-group rate, gap, ratio and interval in one object.

The group metrics (:func:`demographic_parity`, ...) return one number each;
this module returns the view behind them: per (attribute, group) the counts
and rates, per attribute the differences and ratios of DP, EO and PQP with
the four-fifths check, HFM per attribute when the features are given, the
discriminative risk when the estimator is given, and bootstrap intervals of
every rate and gap. The command line, the demo and the benchmarks read this
one assembly.

Everything comes from weighted ``np.bincount`` sums per group (five sums per
attribute). The bootstrap of unweighted data draws the counts of the cells
(joint group x label x prediction) from one multinomial per replicate, which
is the same distribution as resampling rows and costs no pass over the rows;
with ``sample_weight`` the rows themselves are resampled, in blocks.
"""

import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.utils import Bunch, check_random_state
from ..utils._sklearn_compat import HasMethods, Interval, validate_params
from ..utils._typing import ArrayLike, Label, MatrixLike, RandomStateLike, SensitiveLike
from ..utils._validation import (
    check_pair,
    check_sample_weight,
    encode_sensitive,
    resolve_columns,
    split_columns,
)
from ._common import (
    MSG_GROUP_UNDEFINED,
    MSG_GROUPS_LEFT_OUT,
    UndefinedFairnessWarning,
    positive_masks,
)
from ._group import intersect_codes

__all__ = ["FairnessReport", "fairness_report"]

#: the per-group rates, in the column order of ``by_group``
RATES = ("base_rate", "selection_rate", "true_positive_rate", "false_positive_rate",
         "precision", "accuracy")
#: the gap metrics and the rate each compares
GAP_RATES = {
    "demographic_parity": "selection_rate",
    "equal_opportunity": "true_positive_rate",
    "predictive_quality_parity": "precision",
}
_WHAT = {
    "demographic_parity": "row of non-zero weight",
    "equal_opportunity": "row with y_true == pos_label",
    "predictive_quality_parity": "row with y_pred == pos_label",
}
#: the four-fifths rule: a selection-rate ratio below this fails
FOUR_FIFTHS = 0.8
ALL_ATTRIBUTES = "all attributes"

MSG_CELLS_UNDEFINED = (
    "fairness_report: {count} per-group rate(s) are 0/0 and reported as nan: {cells}. "
    "(policy: undefined values are nan, never a sentinel)"
)
MSG_DR_NEEDS_COLUMNS = (
    "the discriminative risk perturbs the estimator's input, so with estimator= the "
    "sensitive_features must name the sensitive columns of X (names or positions), for "
    "example sensitive_features=['sex', 'race']; got {got}."
)
MSG_X_NEEDED = (
    "sensitive_features={got!r} names columns, which needs X (the features with the "
    "sensitive columns in them)."
)


# --------------------------------------------------------------------------- engine

def _row_quantities(yt, yp, w):
    """The five per-row quantities summed per group: weight, y_true pos, y_pred pos, both,
    agreement (``yt`` and ``yp`` are 0/1 floats, ``w`` the weights)."""
    tp = yt * yp
    return (w, yt * w, yp * w, tp * w, (1.0 - (yt + yp - 2.0 * tp)) * w)


def _sums(code, g, quantities):
    """(5, g) sums of the row quantities per group."""
    return np.stack([np.bincount(code, weights=q, minlength=g) for q in quantities])


def _rates(s):
    """Rates from sums ``s`` of shape (5, ...): dict name -> array (nan where 0/0)."""
    w, t, p, tp, agree = s
    with np.errstate(divide="ignore", invalid="ignore"):
        out = {
            "base_rate": t / w,
            "selection_rate": p / w,
            "true_positive_rate": tp / t,
            "false_positive_rate": (p - tp) / (w - t),
            "precision": tp / p,
            "accuracy": agree / w,
        }
    # exact zeros in the denominators only: float sums of 0/1 weights are exact
    for name, den in (("base_rate", w), ("selection_rate", w), ("true_positive_rate", t),
                      ("false_positive_rate", w - t), ("precision", p), ("accuracy", w)):
        out[name] = np.where(den > 0, out[name], np.nan)
    return out


def _gaps_of(rate, overall):
    """Differences and ratios of ``rate`` (..., g) with nan for undefined groups."""
    rate = np.asarray(rate, dtype=np.float64)
    overall = np.asarray(overall, dtype=np.float64)
    defined = ~np.isnan(rate)
    enough = defined.sum(axis=-1) >= 2
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        hi = np.nanmax(np.where(defined, rate, -np.inf), axis=-1)
        lo = np.nanmin(np.where(defined, rate, np.inf), axis=-1)
        dev = np.where(defined, np.abs(rate - overall[..., None]), -np.inf).max(axis=-1)
        to_o = np.where(defined, np.minimum(rate / overall[..., None],
                                            np.where(rate > 0, overall[..., None] / rate, 0.0)),
                        np.inf).min(axis=-1)
        out = {
            "difference": np.where(enough, hi - lo, np.nan),
            "difference_to_overall": np.where(enough, dev, np.nan),
            "ratio": np.where(enough & (hi > 0), lo / np.where(hi > 0, hi, 1.0), np.nan),
            "ratio_to_overall": np.where(enough & (overall > 0), to_o, np.nan),
        }
    return out


def _quantiles(samples, confidence):
    """Percentile interval over axis 0, ignoring replicates where the value is undefined."""
    a = (1.0 - confidence) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(samples, [a, 1.0 - a], axis=0)
    return low, high


# --------------------------------------------------------------------------- the object

class FairnessReport(Bunch):
    """What :func:`fairness_report` returns: tables of rates, gaps, HFM and intervals.

    A :class:`~sklearn.utils.Bunch` (attributes and keys alike) with:

    by_group : DataFrame
        Indexed by (``attribute``, ``group``); columns ``count`` (rows),
        ``weight`` (sum of ``sample_weight``, equal to ``count`` without it)
        and the rates ``base_rate`` (``P(y_true = pos)``), ``selection_rate``
        (``P(y_pred = pos)``), ``true_positive_rate``,
        ``false_positive_rate``, ``precision`` and ``accuracy``. A rate whose
        denominator is 0 is ``nan`` (with an
        :class:`UndefinedFairnessWarning`).
    overall : Series
        The same quantities over all rows.
    gaps : DataFrame
        One row per attribute and one, ``"all attributes"``, that takes the
        worst attribute (largest difference, smallest ratio): what the group
        metrics return with ``aggregate="max"``. For each of
        ``demographic_parity``, ``equal_opportunity`` and
        ``predictive_quality_parity``, the columns ``<metric>_difference``
        (``method="between_groups"``), ``<metric>_difference_to_overall``,
        ``<metric>_ratio`` (smallest rate over largest) and
        ``<metric>_ratio_to_overall``; then ``passes_four_fifths``: the
        selection-rate ratio is at least 0.8.
    hfm : DataFrame or None
        With ``X``: per attribute and ``"all attributes"``, ``hfm_max``,
        ``hfm_avg`` and the distances ``d_max``, ``d_f_max``, ``d_avg``,
        ``d_f_avg`` of :func:`hfm_report` (and ``<value>_low``,
        ``<value>_high`` when that report carries intervals).
    hfm_report : Bunch or None
        The :func:`hfm_report` it came from.
    dr : Series or None
        With ``estimator``: the discriminative risk per attribute and their
        mean (``"all attributes"``, DR_avg of the HFM paper).
    intervals : Bunch or None
        With ``n_boot > 0``: ``by_group`` and ``gaps``, frames of the same
        index with columns ``<quantity>_low`` and ``<quantity>_high``
        (percentile bootstrap at ``confidence``), and ``n_boot``,
        ``confidence``.
    options : dict
        The options the report was made with.
    warnings : list of str
        The undefined values met.
    """

    def to_frame(self):
        """Every value in one long table.

        Returns
        -------
        frame : DataFrame
            Columns ``section`` (``"by_group"``, ``"overall"``, ``"gaps"``,
            ``"hfm"``, ``"dr"``), ``attribute``, ``group`` (empty outside
            ``by_group``), ``quantity``, ``value`` and, with intervals,
            ``low`` and ``high``.
        """
        import pandas as pd

        rows = []
        iv = self.intervals

        def add(section, attribute, group, quantity, value, low=np.nan, high=np.nan):
            rows.append((section, attribute, group, quantity, value, low, high))

        for (attr, group), row in self.by_group.iterrows():
            for q, v in row.items():
                low = high = np.nan
                if iv is not None and f"{q}_low" in iv.by_group.columns:
                    low = iv.by_group.loc[(attr, group), f"{q}_low"]
                    high = iv.by_group.loc[(attr, group), f"{q}_high"]
                add("by_group", attr, group, q, float(v), low, high)
        for q, v in self.overall.items():
            add("overall", ALL_ATTRIBUTES, "", q, float(v))
        for attr, row in self.gaps.iterrows():
            for q, v in row.items():
                low = high = np.nan
                if iv is not None and f"{q}_low" in iv.gaps.columns:
                    low, high = iv.gaps.loc[attr, f"{q}_low"], iv.gaps.loc[attr, f"{q}_high"]
                add("gaps", attr, "", q, float(v), low, high)
        if self.hfm is not None:
            for attr, row in self.hfm.iterrows():
                for q in ("hfm_max", "hfm_avg", "d_max", "d_f_max", "d_avg", "d_f_avg"):
                    add("hfm", attr, "", q, float(row[q]), row.get(f"{q}_low", np.nan),
                        row.get(f"{q}_high", np.nan))
        if self.dr is not None:
            for attr, v in self.dr.items():
                add("dr", attr, "", "discriminative_risk", float(v))
        frame = pd.DataFrame(rows, columns=["section", "attribute", "group", "quantity",
                                            "value", "low", "high"])
        if iv is None and self.hfm is not None and "hfm_max_low" not in self.hfm.columns:
            frame = frame.drop(columns=["low", "high"])
        elif iv is None and self.hfm is None:
            frame = frame.drop(columns=["low", "high"])
        return frame

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
            ``dr``, ``intervals`` (the same layout, ``[low, high]`` pairs),
            ``options`` and ``warnings``.
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

        result = {
            "by_group": nested(self.by_group),
            "overall": _plain(self.overall.to_dict()),
            "gaps": flat(self.gaps),
            "hfm": None if self.hfm is None else flat(self.hfm),
            "dr": None if self.dr is None else _plain(
                {str(k): v for k, v in self.dr.items()}),
            "intervals": None,
            "options": _plain(self.options),
            "warnings": list(self.warnings),
        }
        if self.intervals is not None:
            result["intervals"] = {
                "n_boot": int(self.intervals.n_boot),
                "confidence": float(self.intervals.confidence),
                "by_group": pairs(self.intervals.by_group, True),
                "gaps": pairs(self.intervals.gaps, False),
            }
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
        from .._html import render_fairness_report

        return render_fairness_report(self, title=title, plots=plots)

    def __repr__(self):
        attrs = list(dict.fromkeys(self.by_group.index.get_level_values(0)))
        parts = [f"{len(attrs)} attribute(s) {attrs!r}", f"{len(self.by_group)} groups"]
        if self.hfm is not None:
            parts.append("hfm")
        if self.dr is not None:
            parts.append("dr")
        if self.intervals is not None:
            parts.append(f"{self.intervals.n_boot} bootstrap replicates")
        return f"FairnessReport({', '.join(parts)})"


def _plain_values(obj, undefined=None):
    """numpy values to Python ones, nan and inf to ``undefined`` (recursively)."""
    def _plain(value):
        return _plain_values(value, undefined)

    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _plain(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (Integral, np.integer)):
        return int(obj)
    if isinstance(obj, (Real, np.floating)):
        value = float(obj)
        return value if np.isfinite(value) else undefined
    if obj is None or isinstance(obj, str):
        return obj
    return str(obj)


# --------------------------------------------------------------------------- the function

def _is_column_reference(value, n_samples):
    if isinstance(value, (str, Integral)) and not isinstance(value, bool):
        return True
    return (isinstance(value, (list, tuple)) and 0 < len(value) < n_samples
            and all(isinstance(v, (str, Integral)) and not isinstance(v, bool)
                    for v in value))


@validate_params(
    {
        "y_true": ["array-like"],
        "y_pred": ["array-like"],
        "sensitive_features": ["array-like", str, Integral],
        "X": ["array-like", None],
        "estimator": [HasMethods(["predict"]), None],
        "pos_label": [Real, str, "boolean", None],
        "sample_weight": ["array-like", None],
        "intersect": ["boolean"],
        "n_boot": [Interval(Integral, 0, None, closed="left")],
        "confidence": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
        "hfm_options": [dict, None],
        "dr_options": [dict, None],
    },
    prefer_skip_nested_validation=True,
)
def fairness_report(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sensitive_features: SensitiveLike | str | int | list,
    X: MatrixLike | None = None,
    estimator: Any = None,
    pos_label: Label | None = None,
    sample_weight: ArrayLike | None = None,
    intersect: bool = False,
    n_boot: int = 0,
    confidence: float = 0.95,
    random_state: RandomStateLike = None,
    hfm_options: dict | None = None,
    dr_options: dict | None = None,
) -> "FairnessReport":
    """Per-group rates, the gaps and ratios of DP, EO and PQP, HFM and DR, with intervals.

    The view behind the package's single-number metrics, in the spirit of
    fairlearn's ``MetricFrame``: see :class:`FairnessReport` for what it
    holds. The gaps agree with :func:`demographic_parity`,
    :func:`equal_opportunity` and :func:`predictive_quality_parity`
    (``kind="difference"`` and ``"ratio"``, both ``method`` values).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.

    y_pred : array-like of shape (n_samples,)
        Predicted labels.

    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), \
str, int or list
        The sensitive columns (1-D or 2-D array, Series, DataFrame), or,
        with ``X``, the names or positions of the sensitive columns of ``X``
        (a str, an int, or a list of them shorter than ``n_samples``); with
        ``estimator`` they must be given that way.

    X : array-like or DataFrame of shape (n_samples, n_features), default=None
        The features: HFM (:func:`hfm_report`) is computed when given. When
        ``sensitive_features`` names columns of ``X``, those columns are
        left out of HFM's features.

    estimator : fitted estimator or None, default=None
        With ``X``: the discriminative risk (:func:`discriminative_risk`) of
        each sensitive column of ``X``, and their mean.

    pos_label : int, float, bool, str or None, default=None
        The favourable class, as in :func:`demographic_parity`.

    sample_weight : array-like of shape (n_samples,), default=None
        Row weights of every rate (and of the bootstrap's resampled rows).

    intersect : bool, default=False
        With several attributes, ``True`` takes their combinations as the
        groups of one attribute named ``"a & b"`` (fairlearn's reading of
        several columns); ``False`` gives each attribute its own rows and
        gaps, and ``"all attributes"`` takes the worst. HFM and DR stay per
        attribute either way.

    n_boot : int, default=0
        Bootstrap replicates for the intervals of every rate and gap; 0 for
        none. 1000 gives stable 95% intervals. The intervals are percentile
        intervals of rows resampled with replacement. The largest minus the
        smallest of several noisy rates is biased upwards, so with many small
        groups the interval of a difference can lie above the estimate
        itself: a sign that the groups are too small for their gap to be
        read.

    confidence : float in (0, 1), default=0.95
        The coverage of the percentile intervals.

    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap (and HFM's projections and DR's perturbation
        when their options do not set one).

    hfm_options : dict or None, default=None
        Options of :func:`hfm_report` (``method``, ``m1``, ``scale``, ...).

    dr_options : dict or None, default=None
        Options of :func:`discriminative_risk` (``ratio``, ``privileged``).

    Returns
    -------
    report : FairnessReport

    See Also
    --------
    demographic_parity, equal_opportunity, predictive_quality_parity, hfm_report

    Examples
    --------
    >>> from skfair_manifold.metrics import fairness_report
    >>> y_true = [1, 0, 1, 1, 0, 1, 0, 0]
    >>> y_pred = [1, 0, 1, 0, 0, 1, 1, 0]
    >>> sex = ["f", "f", "f", "f", "m", "m", "m", "m"]
    >>> r = fairness_report(y_true, y_pred, sensitive_features=sex)
    >>> r.by_group[["count", "selection_rate", "true_positive_rate"]]
                     count  selection_rate  true_positive_rate
    attribute group
    0         f          4             0.5            0.666667
              m          4             0.5            1.000000
    >>> gaps = r.gaps.loc[0]
    >>> print(round(gaps.equal_opportunity_difference, 3), round(gaps.equal_opportunity_ratio, 3))
    0.333 0.667
    >>> bool(gaps.passes_four_fifths)  # selection rates 0.5 and 0.5
    True
    """
    import pandas as pd

    y_true, y_pred = check_pair(y_true, y_pred)
    n = y_true.shape[0]
    true_pos, pred_pos = positive_masks(y_true, y_pred, pos_label, "fairness_report")
    weights = check_sample_weight(sample_weight, n)
    rng = check_random_state(random_state)
    seed = int(rng.randint(np.iinfo(np.int32).max))

    X_hfm = X
    positions = None
    if _is_column_reference(sensitive_features, n):
        if X is None:
            raise ValueError(MSG_X_NEEDED.format(got=sensitive_features))
        positions, _ = resolve_columns(X, sensitive_features)
        A, X_hfm = split_columns(X, positions, drop=True)
    else:
        if estimator is not None:
            raise ValueError(MSG_DR_NEEDS_COLUMNS.format(got=type(sensitive_features).__name__))
        A = sensitive_features
    if estimator is not None and X is None:
        raise ValueError("estimator= needs X, the rows the estimator predicts.")

    codes, names, groups = encode_sensitive(A, n)
    attr_names = list(names)
    if intersect:
        codes, names, groups = intersect_codes(codes, names, groups)

    yt = true_pos.astype(np.float64)
    yp = pred_pos.astype(np.float64)
    w = np.ones(n) if weights is None else weights
    quantities = _row_quantities(yt, yp, w)
    sums = [_sums(code, values.shape[0], quantities) for code, values in zip(codes, groups)]
    total = np.array([q.sum() for q in quantities])
    overall_rates = _rates(total)

    # by_group
    index, table, caught = [], {q: [] for q in ("count", "weight", *RATES)}, []
    undefined_cells = []
    for k, (code, values) in enumerate(zip(codes, groups)):
        rates = _rates(sums[k])
        counts = np.bincount(code, minlength=values.shape[0])
        for j, value in enumerate(values.tolist()):
            index.append((names[k], value))
            table["count"].append(int(counts[j]))
            table["weight"].append(float(sums[k][0, j]))
            for q in RATES:
                table[q].append(float(rates[q][j]))
                if np.isnan(rates[q][j]):
                    undefined_cells.append(f"{q} of {names[k]}={value}")
    by_group = pd.DataFrame(table, index=pd.MultiIndex.from_tuples(
        index, names=["attribute", "group"]))
    if weights is None:
        by_group = by_group.drop(columns="weight")
    if undefined_cells:
        shown = ", ".join(undefined_cells[:10]) + (" ..." if len(undefined_cells) > 10 else "")
        caught.append(MSG_CELLS_UNDEFINED.format(count=len(undefined_cells), cells=shown))
    overall = pd.Series({"count": n, **({} if weights is None else {"weight": w.sum()}),
                         **{q: float(overall_rates[q]) for q in RATES}})

    # gaps
    gap_rows = {}
    for k, name in enumerate(names):
        rates = _rates(sums[k])
        row = {}
        for metric, q in GAP_RATES.items():
            defined = ~np.isnan(rates[q])
            n_defined = int(defined.sum())
            if n_defined < defined.size:
                msg = MSG_GROUPS_LEFT_OUT if n_defined >= 2 else MSG_GROUP_UNDEFINED
                caught.append(msg.format(metric=metric, attr=name, what=_WHAT[metric],
                                         n_defined=n_defined,
                                         groups=list(groups[k][~defined].tolist())))
            g = _gaps_of(rates[q], overall_rates[q])
            for form, value in g.items():
                row[f"{metric}_{form}"] = float(value)
        row["passes_four_fifths"] = bool(row["demographic_parity_ratio"] >= FOUR_FIFTHS)
        gap_rows[name] = row
    gaps = pd.DataFrame.from_dict(gap_rows, orient="index")
    if len(names) > 1:
        worst = {}
        for column in gaps.columns:
            if column == "passes_four_fifths":
                continue
            values = gaps[column].to_numpy(dtype=np.float64)
            worst[column] = float(np.max(values) if "difference" in column
                                  else np.min(values))
        worst["passes_four_fifths"] = bool(worst["demographic_parity_ratio"] >= FOUR_FIFTHS)
        gaps.loc[ALL_ATTRIBUTES] = pd.Series(worst)
    gaps.index.name = "attribute"
    gaps["passes_four_fifths"] = gaps["passes_four_fifths"].astype(bool)

    intervals = None
    if n_boot > 0:
        intervals = _bootstrap(codes, names, groups, yt, yp, weights, n_boot=n_boot,
                               confidence=confidence, rng=rng, by_group=by_group, gaps=gaps)

    hfm = hfm_bunch = None
    if X is not None:
        from ._hfm import hfm_report as _hfm_report

        options = {"random_state": seed, **(hfm_options or {})}
        with warnings.catch_warnings(record=True) as hfm_caught:
            warnings.simplefilter("always", UndefinedFairnessWarning)
            hfm_bunch = _hfm_report(y_true, y_pred, X=X_hfm, sensitive_features=A, **options)
        for item in hfm_caught:
            if issubclass(item.category, UndefinedFairnessWarning):
                caught.append(str(item.message))
            else:  # pragma: no cover - re-emit what is not ours to record
                warnings.warn_explicit(item.message, item.category, item.filename, item.lineno)
        hfm = _hfm_frame(hfm_bunch, attr_names)

    dr = None
    if estimator is not None:
        from ._risk import discriminative_risk

        options = {"random_state": seed, **(dr_options or {})}
        values = {name: discriminative_risk(estimator, X, sensitive=[p], **options)
                  for name, p in zip(attr_names, positions)}
        values[ALL_ATTRIBUTES] = float(np.mean(list(values.values())))
        dr = pd.Series(values, name="discriminative_risk")

    for message in caught:
        warnings.warn(message, UndefinedFairnessWarning, stacklevel=3)
    return FairnessReport(
        by_group=by_group, overall=overall, gaps=gaps, hfm=hfm, hfm_report=hfm_bunch, dr=dr,
        intervals=intervals,
        options={"pos_label": pos_label, "intersect": intersect, "n_boot": n_boot,
                 "confidence": confidence, "weighted": weights is not None,
                 "attributes": [str(a) for a in attr_names], "n_samples": n,
                 "hfm_options": dict(hfm_options or {}), "four_fifths": FOUR_FIFTHS},
        warnings=list(dict.fromkeys(caught)),
    )


def _hfm_frame(report, names):
    """HFM per attribute and overall as a DataFrame (with intervals when the report has them)."""
    import pandas as pd

    per = report.per_attribute
    quantities = ("hfm_max", "hfm_avg", "d_max", "d_f_max", "d_avg", "d_f_avg")
    rows = {str(name): {q: float(per[q][k]) for q in quantities} for k, name in enumerate(names)}
    rows[ALL_ATTRIBUTES] = {q: float(report[q]) for q in quantities}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    ci = getattr(report, "ci", None) if not isinstance(report, dict) else report.get("ci")
    if ci is not None:
        for q in quantities:
            overall = _pair(_get(ci, q))
            per_ci = _get(_get(ci, "per_attribute"), q)
            if overall is None:
                continue
            lows, highs = [], []
            for k in range(len(names)):
                pair = _pair(None if per_ci is None else _index(per_ci, k))
                lows.append(np.nan if pair is None else pair[0])
                highs.append(np.nan if pair is None else pair[1])
            frame[f"{q}_low"] = [*lows, overall[0]]
            frame[f"{q}_high"] = [*highs, overall[1]]
    frame.index.name = "attribute"
    return frame


def _get(obj, key):
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def _index(obj, k):
    arr = np.asarray(obj, dtype=np.float64)
    if arr.ndim == 2 and arr.shape[1] == 2:  # (n_attributes, 2)
        return arr[k]
    if arr.ndim == 2 and arr.shape[0] == 2:  # (2, n_attributes)
        return arr[:, k]
    return None


def _pair(obj):
    if obj is None:
        return None
    arr = np.asarray(obj, dtype=np.float64).reshape(-1)
    return (float(arr[0]), float(arr[1])) if arr.shape[0] == 2 else None


def _bootstrap(codes, names, groups, yt, yp, weights, *, n_boot, confidence, rng, by_group,
               gaps):
    """Percentile intervals of every rate and gap (see the module docstring for the method)."""
    import pandas as pd

    sizes = [values.shape[0] for values in groups]
    n = yt.shape[0]
    if weights is None:
        # the counts of the joint cells (all attributes, label, prediction) carry everything
        key = np.zeros(n, dtype=np.int64)
        for code, g in zip(codes, sizes):
            key = key * g + code
        key = key * 4 + (2 * yt + yp).astype(np.int64)
        cells, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        cell_t = ((cells // 2) % 2).astype(np.float64)
        cell_p = (cells % 2).astype(np.float64)
        rest = cells // 4
        cell_group = []
        for g in reversed(sizes):
            cell_group.append(rest % g)
            rest = rest // g
        cell_group = cell_group[::-1]
        C = rng.multinomial(n, counts / n, size=n_boot).astype(np.float64)  # (B, m)
        per_attr = []
        for k, g in enumerate(sizes):
            from scipy.sparse import csr_matrix

            m = cells.shape[0]
            onehot = csr_matrix((np.ones(m), (np.arange(m), cell_group[k])), shape=(m, g))
            q = np.stack([np.ones(m), cell_t, cell_p, cell_t * cell_p,
                          1.0 - (cell_t + cell_p - 2 * cell_t * cell_p)])  # (5, m)
            # (5, B, g): sums of each quantity per group and replicate
            per_attr.append(np.stack([np.asarray((onehot.T @ (C * qi).T).T) for qi in q]))
        total_q = np.stack([C.sum(axis=1), C @ cell_t, C @ cell_p, C @ (cell_t * cell_p),
                            C @ (1.0 - (cell_t + cell_p - 2 * cell_t * cell_p))])
    else:
        per_attr = [np.empty((5, n_boot, g)) for g in sizes]
        total_q = np.empty((5, n_boot))
        block = max(1, int(4_000_000 // max(n, 1)))
        for start in range(0, n_boot, block):
            stop = min(start + block, n_boot)
            idx = rng.randint(0, n, size=(stop - start, n))
            wb, tb, pb, tpb, ab = _row_quantities(yt[idx], yp[idx], weights[idx])
            rep = np.repeat(np.arange(stop - start), n)
            for k, g in enumerate(sizes):
                flat = rep * g + codes[k][idx].reshape(-1)
                for i, q in enumerate((wb, tb, pb, tpb, ab)):
                    per_attr[k][i, start:stop] = np.bincount(
                        flat, weights=q.reshape(-1), minlength=(stop - start) * g
                    ).reshape(stop - start, g)
            for i, q in enumerate((wb, tb, pb, tpb, ab)):
                total_q[i, start:stop] = q.sum(axis=1)

    total_rates = _rates(total_q)
    group_cols = {}
    gap_cols = {}
    for k, name in enumerate(names):
        rates = _rates(per_attr[k])  # each (B, g)
        for q in RATES:
            low, high = _quantiles(rates[q], confidence)
            group_cols.setdefault(f"{q}_low", []).extend(low.tolist())
            group_cols.setdefault(f"{q}_high", []).extend(high.tolist())
        for metric, q in GAP_RATES.items():
            for form, values in _gaps_of(rates[q], total_rates[q]).items():
                gap_cols.setdefault(name, {})[f"{metric}_{form}"] = values
    by_group_iv = pd.DataFrame(group_cols, index=by_group.index)
    rows = {}
    for name, columns in gap_cols.items():
        rows[name] = {}
        for column, values in columns.items():
            low, high = _quantiles(values, confidence)
            rows[name][f"{column}_low"], rows[name][f"{column}_high"] = float(low), float(high)
    if len(names) > 1:
        rows[ALL_ATTRIBUTES] = {}
        for column in gap_cols[names[0]]:
            stacked = np.stack([gap_cols[name][column] for name in names])  # (k, B)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                worst = np.max(stacked, axis=0) if "difference" in column \
                    else np.min(stacked, axis=0)
            low, high = _quantiles(worst, confidence)
            rows[ALL_ATTRIBUTES][f"{column}_low"] = float(low)
            rows[ALL_ATTRIBUTES][f"{column}_high"] = float(high)
    gaps_iv = pd.DataFrame.from_dict(rows, orient="index").reindex(gaps.index)
    return Bunch(by_group=by_group_iv, gaps=gaps_iv, n_boot=n_boot, confidence=confidence)
