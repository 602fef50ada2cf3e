"""``fairness_report``: every per-group rate, gap, ratio and interval in one object.

The group metrics (:func:`demographic_parity`, ...) return one number each;
this module returns the view behind them. The inputs are checked once
(:mod:`._inputs`), turned into a :class:`~.._groups._cells.CellTable` (per
group combination, true label and prediction: count, weight, squared weight),
and every rate, gap, interval and verdict comes from that table
(:mod:`.._groups._engine`). HFM and DR, which need the rows, are computed
beside it; with estimated groups (``membership``), the bias audit's bounds
(:mod:`._membership`).
"""

from __future__ import annotations

import datetime
import warnings
from numbers import Integral, Real
from typing import Any

from ... import __version__
from ...utils._sizes import MAX_BOOT  # more replicates change no visible interval
from ...utils._sklearn_compat import HasMethods, Interval, StrOptions, validate_params
from ...utils._summary_row import ALL_ATTRIBUTES
from ...utils._typing import (
    ArrayLike,
    Label,
    MatrixLike,
    RandomStateLike,
    SensitiveLike,
)
from .._common import UndefinedFairnessWarning
from .._frames import FrameConstraint
from .._groups._engine import FOUR_FIFTHS, MIN_GROUP_SIZE, group_tables
from .._groups._rates import GAP_RATES, RATES
from ._continuous import RegressionReport
from ._hfm_section import _dr_section, _hfm_section
from ._inputs import read_inputs
from ._membership import add_bounds
from ._no_labels import leave_out_labels
from ._object import FairnessReport, headline
from ._scores import add_scores

__all__ = ["ALL_ATTRIBUTES", "FOUR_FIFTHS", "GAP_RATES", "RATES", "FairnessReport",
           "fairness_report"]

#: replicates of HFM's intervals over rows at most (each costs O(n_samples))
HFM_MAX_BOOT = 2000



@validate_params(
    {
        "y_true": ["array-like", str, None],
        "y_pred": ["array-like", str],
        "sensitive_features": ["array-like", str, Integral, None],
        "data": [FrameConstraint(), None],
        "X": ["array-like", None],
        "estimator": [HasMethods(["predict"]), None],
        "pos_label": [Real, str, "boolean", None],
        "sample_weight": ["array-like", str, None],
        "intersect": ["boolean"],
        "min_group_size": [Interval(Integral, 1, None, closed="left")],
        "n_boot": [Interval(Integral, 0, MAX_BOOT, closed="both")],
        "confidence": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
        "hfm_options": [dict, None],
        "dr_options": [dict, None],
        "target_type": [StrOptions({"auto", "binary", "continuous"})],
        "favourable": [StrOptions({"higher", "lower"})],
        "y_score": ["array-like", str, None],
        "loss": [callable, None],
        "membership": [dict, None],
        "proxy": ["array-like", str, None],
    },
    prefer_skip_nested_validation=True,
)
def fairness_report(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sensitive_features: SensitiveLike | None = None,
    data: Any = None,
    X: MatrixLike | None = None,
    estimator: Any = None,
    pos_label: Label | None = None,
    sample_weight: ArrayLike | None = None,
    intersect: bool = False,
    min_group_size: int = MIN_GROUP_SIZE,
    n_boot: int = 0,
    confidence: float = 0.95,
    random_state: RandomStateLike = None,
    hfm_options: dict | None = None,
    dr_options: dict | None = None,
    target_type: str = "auto",
    favourable: str = "higher",
    y_score: ArrayLike | None = None,
    loss=None,
    membership: dict | None = None,
    proxy: ArrayLike | str | None = None,
) -> FairnessReport | RegressionReport:
    """Per-group rates, the gaps and ratios of DP, EO and PQP, HFM and DR, with intervals.

    The view behind the package's single-number metrics, in the spirit of
    fairlearn's ``MetricFrame``: see :class:`FairnessReport` for what it
    holds. The gaps are :func:`demographic_parity`,
    :func:`equal_opportunity` and :func:`predictive_quality_parity`
    (``kind="difference"`` and ``"ratio"``, both ``method`` values) with the
    same ``min_group_size`` (both default to 30).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,), str or None
        True labels (with ``data``, the name of their column). None: the
        decisions alone, without ground truth: the selection rates, demographic
        parity and the four-fifths rule; ``options["left_out"]`` names what
        needs labels (see also :func:`bias_audit`).

    y_pred : array-like of shape (n_samples,) or str
        Predicted labels (with ``data``, the name of their column).

    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), \
str, int or list
        The sensitive columns (1-D or 2-D array, Series, DataFrame), or,
        with ``X``, the names or positions of the sensitive columns of ``X``
        (a str, an int, or a list of them shorter than ``n_samples``). With
        ``estimator`` they must be columns of ``X``: named that way, or
        given as a Series or DataFrame whose names are columns of ``X``.
        With ``data``, the name of one column of ``data`` or a list of names.

    data : DataFrame, LazyFrame or relation, default=None
        A frame that holds the columns: ``y_true``, ``y_pred``,
        ``sensitive_features`` and ``sample_weight`` are then column names.
        Any frame narwhals supports: a polars ``LazyFrame`` or ``DataFrame``,
        a DuckDB relation, a Dask or PySpark DataFrame, a pandas DataFrame or
        a pyarrow Table. A lazy or distributed frame is aggregated in its own
        engine (one group-by over the sensitive columns and the two label
        indicators) and only the cell table comes back, so the rows never
        enter memory; the report is the same as on the rows in memory,
        intervals and bootstrap included. HFM (``X``) and DR (``estimator``)
        need the rows and are refused with a lazy frame. See
        :ref:`lazy_frames`.

    X : array-like or DataFrame of shape (n_samples, n_features), default=None
        The features: HFM (:func:`hfm_report`) is computed when given. When
        the sensitive features are columns of ``X``, those columns are left
        out of HFM's features. With a :class:`~sklearn.pipeline.Pipeline` as
        ``estimator``, ``X`` is its raw input: HFM measures distances on the
        features its final step sees (the output of the steps before it,
        without the outputs of the sensitive columns), as the HFM scorers do.

    estimator : fitted estimator or None, default=None
        With ``X``: the discriminative risk (:func:`discriminative_risk`) of
        each sensitive column of ``X``, perturbed in the raw ``X``, and their
        mean.

    pos_label : int, float, bool, str or None, default=None
        The favourable class, as in :func:`demographic_parity`: required
        unless the labels are 0/1, -1/1 or booleans. Every view of the
        report names it.

    sample_weight : array-like of shape (n_samples,) or str, default=None
        Row weights of every rate (with ``data``, a column name). Intervals
        then use Kish's effective sample size of each rate's denominator.

    intersect : bool, default=False
        With several attributes, ``True`` takes their combinations as the
        groups of one attribute named ``"a & b"`` (fairlearn's reading of
        several columns); ``False`` gives each attribute its own rows and
        gaps, and a summary row takes the worst. HFM and DR stay per
        attribute either way.

    min_group_size : int, default=30
        Groups with fewer rows stay in ``by_group`` (``compared`` False) but
        are left out of the gaps, their intervals and the four-fifths
        verdict; ``gaps`` counts the groups and rows left out. 30 is where
        a rate's 95% interval is at most about +-0.18 wide and the expected
        gap between two groups of equal rate 0.5 falls to 0.10 (measured by
        ``benchmarks/group_intervals.py``); at 5 rows that gap is 0.25 and a
        group of all-selected people decides the ratio. Set 1 to compare
        every group.

    n_boot : int, default=0
        0: score intervals (see Notes), valid at any group size. More: the
        intervals of the gaps and ratios are percentile bootstrap intervals
        of ``n_boot`` replicates drawn from the cell counts (at most
        1,000,000); the rates keep their score intervals. The bootstrap
        collapses on small groups: prefer it for groups of hundreds of rows.
        With ``X``, HFM's ``d_avg``, ``d_f_avg`` and ``hfm_avg`` also get
        intervals over the sampling of rows (``hfm_report``'s ``row_ci``,
        at most 2,000 replicates; columns ``<value>_rows_low`` and
        ``<value>_rows_high`` of ``hfm``; ``low`` and ``high`` of
        ``to_frame()``; ``intervals["hfm"]`` of ``to_dict()``; "rows:" in
        the page), beside the approximation's own (``<value>_low``,
        ``<value>_high``). An exact value (the exact engine, a maximum checked
        to the end) has no interval: it is shown as a value.

    confidence : float in (0, 1), default=0.95
        The coverage of every interval (HFM's too, unless ``hfm_options``
        sets its own).

    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap (and HFM's projections and DR's perturbation
        when their options do not set one).

    hfm_options : dict or None, default=None
        Options of :func:`hfm_report` (``method``, ``m1``, ``scale``, ...).

    dr_options : dict or None, default=None
        Options of :func:`discriminative_risk` (``ratio``, ``privileged``).

    target_type : {"auto", "binary", "continuous"}, default="auto"
        ``"binary"``: class labels, the rates above. ``"continuous"``: a
        quantity (a wage, a credit limit, a score): the groups' mean
        prediction, mean target, errors and the distance of their
        distributions of predictions, in a :class:`RegressionReport`.
        ``"auto"`` takes continuous when ``y_true`` and ``y_pred`` hold
        numbers that are not all integers (or one does and the other is not
        binary), says so in ``options["target_type_source"]``, and refuses a
        continuous prediction against binary labels (probability scores)
        rather than guess. On a lazy frame, ``"auto"`` reads class labels:
        say ``"continuous"`` there, and the sums are computed in the frame's
        engine (the distances between distributions, which need the rows,
        are then left undefined). ``X``, ``estimator``, ``pos_label`` and
        ``n_boot`` are the binary report's.

    favourable : {"higher", "lower"}, default="higher"
        Continuous target only: whether a higher prediction favours a
        person (a wage, a limit) or a lower one does (a risk score, a bail
        amount); the headline names the worst-off group accordingly.

    y_score : array-like of shape (n_samples,), str or None, default=None
        Binary target only: the scores of the favourable class
        (``predict_proba``'s column, or any score that ranks) beside the
        predicted classes. The report then holds ``scores`` (per group the
        AUC with its interval and the expected calibration error),
        ``score_reliability`` (the reliability table by group and bin) and
        ``score_gaps`` (the largest AUC gap, the worst calibration, the
        groups behind them); the calibration over 10 equal-width bins of
        ``[0, 1]``. In-memory rows only (with ``data``, an eager frame's
        column name).

    membership : dict, default=None
        Attributes estimated, not observed (race from BISG, ...), as in
        :func:`bias_audit`: ``name -> P``, an (n_samples, n_categories)
        DataFrame of probabilities (with ``data``, the names of its
        probability columns). Every rate of such an attribute is the weighted
        estimate (each person counts in every category with her probability
        of it; ``count`` is the expected number of people), valid when the
        decision and the label are independent of the category given the
        proxy; ``bounds`` holds the bias audit's bounds of the selection rate
        and the impact ratio, which do not assume it. In-memory rows and eager
        frames; HFM, DR, the scores and the bootstrap need observed groups.
        See :ref:`estimated_demographics`.

    proxy : array-like of shape (n_samples,) or str, default=None
        With ``membership``: the stratum each row's probabilities come from,
        for the bounds (see :func:`bias_audit`).

    loss : callable or None, default=None
        Continuous target only: a function ``loss(y_true, y_pred)`` of two
        float arrays that returns each row's loss (for example the squared
        log error ``lambda t, p: (np.log1p(p) - np.log1p(t)) ** 2``). Its
        group means are the column ``mean_loss``, compared as the other
        quantities (differences, ratios, t intervals), and the bounded group
        loss is its largest group mean instead of the MAE. In-memory rows
        only: a lazy frame's engine cannot run a Python function.

    Returns
    -------
    report : FairnessReport or RegressionReport

    See Also
    --------
    demographic_parity, equal_opportunity, predictive_quality_parity, hfm_report

    Notes
    -----
    The rate of a group has Wilson's score interval with continuity
    correction, whose coverage is at least nominal at every group size from 4
    to 1,000 rows; the gaps and ratios between groups have simultaneous
    intervals (every compared group's interval at level ``confidence ** (1 /
    G)``), which hold for the population's gap whichever groups are its
    extremes, and so correct the upward bias of a largest-minus-smallest
    over many small groups. The four-fifths verdict is ``"passes"`` when the
    whole interval of the selection-rate ratio is at least 0.8, ``"fails"``
    when it is below, and ``"inconclusive"`` when it straddles 0.8.

    Examples
    --------
    >>> from skfair_manifold.metrics import fairness_report
    >>> y_true = [1, 0, 1, 1, 0, 1, 0, 0]
    >>> y_pred = [1, 0, 1, 0, 0, 1, 1, 0]
    >>> sex = ["f", "f", "f", "f", "m", "m", "m", "m"]
    >>> r = fairness_report(y_true, y_pred, sensitive_features=sex, min_group_size=1)
    >>> r.by_group[["count", "selection_rate", "true_positive_rate"]]
                     count  selection_rate  true_positive_rate
    attribute group
    0         f          4             0.5            0.666667
              m          4             0.5            1.000000
    >>> gaps = r.gaps.loc[0]
    >>> print(round(gaps.equal_opportunity_difference, 3), round(gaps.equal_opportunity_ratio, 3))
    0.333 0.667
    >>> gaps.four_fifths  # equal selection rates, but 4 people a group cannot show it
    'inconclusive'
    """
    read = read_inputs(
        y_true, y_pred, sensitive_features=sensitive_features, data=data, X=X,
        estimator=estimator, pos_label=pos_label, sample_weight=sample_weight,
        intersect=intersect, min_group_size=min_group_size, n_boot=n_boot,
        confidence=confidence, random_state=random_state, target_type=target_type,
        favourable=favourable, y_score=y_score, loss=loss, membership=membership, proxy=proxy)
    if isinstance(read, RegressionReport):
        return read
    table, favourable, rng, seed, rows = read.table, read.favourable, read.rng, read.seed, \
        read.rows
    names_given, attributes, weighted, labels = read.names_given, read.attributes, \
        read.weighted, read.labels
    n = table.n_samples
    if intersect:
        table = table.intersect()
    parts = group_tables(table, confidence=confidence, min_group_size=min_group_size,
                         n_boot=n_boot, rng=rng)
    caught = list(parts.messages)

    hfm = hfm_bunch = hfm_features = hfm_witnesses = None
    if X is not None:
        hfm, hfm_bunch, hfm_features, hfm_witnesses = _hfm_section(
            rows["y_true"], rows["y_pred"], X, rows["X_hfm"], rows["sensitive"], estimator,
            {"random_state": seed, "n_boot": min(n_boot, HFM_MAX_BOOT),
             "confidence": confidence, **(hfm_options or {})},
            caught, parts.summary_label, index=rows.get("index"))

    dr = None if estimator is None else _dr_section(
        estimator, X, rows["sensitive"], attributes,
        {"random_state": seed, **(dr_options or {})}, parts.summary_label)

    for message in caught:
        warnings.warn(message, UndefinedFairnessWarning, stacklevel=3)

    options = {
        "pos_label": pos_label, "favourable": favourable,
        "favourable_text": (f"prediction = {favourable!r} in column {names_given['prediction']!r}"
                            f" (and true label = {favourable!r} in column "
                            f"{names_given['label']!r})"),
        "label_column": names_given["label"], "prediction_column": names_given["prediction"],
        "intersect": intersect, "min_group_size": min_group_size, "n_boot": n_boot,
        "confidence": confidence, "interval_method": parts.intervals.method,
        "weighted": weighted, "attributes": [str(a) for a in attributes],
        "n_samples": n, "hfm_options": dict(hfm_options or {}),
        "hfm_features": hfm_features, "four_fifths": FOUR_FIFTHS,
        "summary_label": parts.summary_label,
        "random_state": random_state if isinstance(random_state, Integral) else None,
        "package": f"skfair_manifold {__version__}",
        "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    report = FairnessReport(
        by_group=parts.by_group, overall=parts.overall, gaps=parts.gaps, hfm=hfm,
        hfm_report=hfm_bunch, hfm_witnesses=hfm_witnesses, dr=dr, intervals=parts.intervals, cells=table,
        options=options, warnings=list(dict.fromkeys(caught)), provenance={})
    if not labels:
        leave_out_labels(report)
    report["headline"] = headline(report)
    report["bounds"] = None
    if membership is not None:
        add_bounds(report, read.membership, favourable, membership=membership, proxy=proxy,
                   intersect=intersect, confidence=confidence)
    if y_score is not None:
        add_scores(report, y_score, data=read.data, rows=rows, favourable=favourable,
                   intersect=intersect, confidence=confidence, min_group_size=min_group_size)
    return report

