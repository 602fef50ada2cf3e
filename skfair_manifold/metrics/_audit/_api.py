"""bias_audit: the table of selection or scoring rates and impact ratios the law asks for."""

from __future__ import annotations

import datetime
from numbers import Real
from typing import Any

from ... import __version__
from ...utils._sklearn_compat import Interval, validate_params
from ...utils._typing import ArrayLike, SensitiveLike
from ...utils._validation import did_you_mean
from .._frames import FrameConstraint
from ._cells import characteristics
from ._estimated import estimated_entries
from ._object import BiasAudit, audit_headline
from ._readers import counts_characteristics, frame_entries, row_entries
from ._table import COMPARATORS, NUMBER_COLUMNS, characteristic_rows, comparator_index

__all__ = ["bias_audit"]

MSG_ONE_SOURCE = (
    "pass the decisions (y_pred), the scores (y_score) or a table of counts (counts=), "
    "exactly one of them; got {got}."
)
MSG_NO_SENSITIVE = (
    "sensitive_features (or membership) is required with y_pred or y_score: the columns of "
    "sex, race/ethnicity, ... (a missing value, or the unknown label, is an unknown "
    "category), or the probabilities of an estimated attribute."
)
MSG_MEMBERSHIP_COUNTS = (
    "membership needs the rows (y_pred or y_score, in memory or in data=), not a table of "
    "counts: the bounds come from each stratum's people."
)
MSG_PROXY_ALONE = "proxy= gives the strata of membership=, which was not given."
MSG_TIERS = (
    "tiers must be a list of lists of y_pred's labels, each the labels that count as "
    "selected (e.g. [['top'], ['top', 'middle']]); got {got!r}."
)
MSG_COMPARATOR = (
    "comparator {value!r} is not a category of any characteristic; the categories are "
    "{categories}.{hint} Or pass 'most_selected' or 'most_selected_any'."
)



@validate_params(
    {
        "y_pred": ["array-like", str, None],
        "y_score": ["array-like", str, None],
        "sensitive_features": ["array-like", str, dict, None],
        "data": [FrameConstraint(), None],
        "counts": [FrameConstraint(), None],
        "unknown": [str, Real, None],
        "comparator": [str, tuple, dict, Real],
        "min_share": [Interval(Real, 0, 1, closed="left")],
        "intersect": ["boolean"],
        "tiers": [list, None],
        "confidence": [Interval(Real, 0, 1, closed="neither")],
        "membership": [dict, None],
        "proxy": ["array-like", str, None],
        "estimate": [str, Real],
    },
    prefer_skip_nested_validation=True,
)
def bias_audit(
    y_pred: ArrayLike | str | None = None,
    *,
    y_score: ArrayLike | str | None = None,
    sensitive_features: SensitiveLike | None = None,
    data: Any = None,
    counts: Any = None,
    unknown: Any = None,
    comparator: Any = "most_selected",
    min_share: float = 0.02,
    intersect: bool = True,
    tiers: list | None = None,
    confidence: float = 0.95,
    membership: dict | None = None,
    proxy: ArrayLike | str | None = None,
    estimate: str | float = "weighted",
) -> BiasAudit:
    """The bias audit of a selection tool: rates and impact ratios per category, without labels.

    The table of a bias audit under New York City's Local Law 144 and the
    Uniform Guidelines' four-fifths rule: per category of each sensitive
    attribute (sex, race/ethnicity, ...) and of their intersection, the number
    assessed, the number selected (or scored above the median), the rate and
    the impact ratio against the comparator. Applicants whose category is
    unknown are neither dropped nor made a category: the table bounds every
    rate and ratio over where they truly belong, and the four-fifths verdict
    rests on an interval that covers the true ratio with both the unknowns and
    the sampling uncertain. Read more in the :ref:`User Guide <bias_audit>`.

    Parameters
    ----------
    y_pred : array-like of shape (n_samples,) or str, default=None
        The decisions: 0/1 or booleans (1: selected), or labels with
        ``tiers``. With ``data``, the name of its column.
    y_score : array-like of shape (n_samples,) or str, default=None
        Scores instead of decisions: a person counts as selected when her score
        is strictly above the median score of everyone assessed (the *scoring
        rate* of Local Law 144); ``options["ties_at_median"]`` counts the
        scores equal to the median (they are not above it).
    sensitive_features : array-like, DataFrame or str, default=None
        The sensitive columns (1-D or 2-D, a Series or a DataFrame); with
        ``data`` their names; with ``counts``, the names of its attribute
        columns (default: every column but ``n`` and ``n_selected``). A missing
        value (None, NaN, ``pd.NA``, null) or the ``unknown`` label is an
        unknown category.
    data : DataFrame, LazyFrame or relation, default=None
        A frame holding the columns (pandas, polars, pyarrow, DuckDB, Dask,
        PySpark: anything narwhals takes). The counts come from one GROUP BY in
        the frame's engine (and, for scores, one pass for the exact median).
    counts : DataFrame, default=None
        A table of counts instead of rows, e.g. a published audit's: one column
        per attribute (the category, or None where the row is not split by it,
        or the ``unknown`` label), ``n`` and ``n_selected`` (may be fractional,
        ``n x rate``; may be missing on a row of unknown people, whose
        decisions are then bounded both ways). A characteristic's rows are
        those split by it alone; the intersectional rows those split by every
        attribute.
    unknown : object, default=None
        The label that marks an unknown category (e.g. ``"Unknown"``), besides
        missing values.
    comparator : {"most_selected", "most_selected_any"}, category, or dict, default="most_selected"
        The category each ratio is taken against: the highest rate among the
        categories not excluded (``"most_selected"``), among all categories
        (``"most_selected_any"``), a category's name (a tuple, or ``"a & b"``,
        for an intersection; characteristics without that category take the
        most selected), or a dict ``characteristic -> rule or category``. With
        unknowns the most selected category may move with where they belong:
        the bounds follow it.
    min_share : float in [0, 1), default=0.02
        Categories under this share of the assessed (unknowns included) are
        left out of the comparator and the ratios; their rows stay, with
        ``excluded=True`` and the reason. Local Law 144 allows leaving out
        categories under 2% of the data.
    intersect : bool, default=True
        With several attributes, also the intersectional categories.
    tiers : list of lists, default=None
        With labels in ``y_pred``: each list the labels that count as selected;
        one table per tier (``table["tier"]``).
    confidence : float in (0, 1), default=0.95
        The coverage of the impact ratio's interval.
    membership : dict, default=None
        Attributes that were estimated, not observed (race from BISG, ...):
        ``name -> P``, an (n_samples, n_categories) DataFrame of each person's
        probability of every category (the columns name the categories; rows
        sum to 1 within 1e-6); with ``data``, the names of its probability
        columns (a list, or a dict category -> column). Mixed freely with
        ``sensitive_features``; the intersection multiplies the
        probabilities. A one-hot row is a person whose category is known; an
        attribute with every row one-hot is read as observed. Read more in the
        :ref:`User Guide <estimated_demographics>`.
    proxy : array-like of shape (n_samples,) or str, default=None
        With ``membership``: the stratum each row's probabilities come from
        (the surname-area cell, the area, ...); with ``data``, its column. The
        bounds let the decision depend on the category in any way within a
        stratum. None: each distinct probability row is a stratum.
    estimate : {"weighted", "most_likely"} or float, default="weighted"
        With ``membership``, what ``rate`` and ``impact_ratio`` hold: the
        weighted estimate ``sum_i P(g | z_i) y_i / sum_i P(g | z_i)`` (unbiased
        when the decision is independent of the category given the
        stratum), or the shortcut of assigning each person the most likely
        category (or, a float in (0.5, 1], the category whose probability
        reaches it), which biases the ratios and warns. The bounds are the
        same either way.

    Returns
    -------
    audit : BiasAudit
        ``table``, ``unknown``, ``headline``, ``options``, ``provenance``, and
        the views ``to_frame()``, ``to_dict()``, ``to_html()``.

    Notes
    -----
    The bounds are sharp: every value between them is the rate or ratio of some
    placement of the unknown people, both ends included, and they equal the
    point when nothing is unknown (their derivation is in the User Guide). The
    interval covers the true ratio with at least ``confidence`` when both the
    sampling and the unknowns are uncertain: it runs from the ``(1 -
    confidence) / 2`` quantile of the lower bound to the ``(1 + confidence) /
    2`` quantile of the upper bound over replicates of the audit. Local Law
    144 sets no threshold for the ratio: the verdict applies the Uniform
    Guidelines' four-fifths rule, beside their statistical tests
    (``fisher_p_value``, ``z_score``).

    With ``membership``, an estimated characteristic's bounds are the sharp
    bounds over who in each stratum was selected (every stratum's selected
    count of a category anywhere between the Frechet bounds of its margins,
    the categories sharing the stratum's selected), and its interval runs from
    the lower bound's to the upper bound's one-sided limit by the delta method
    over the strata's counts; ``n`` and ``n_selected`` are expected counts,
    and the tests, which need observed categories, are NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair_manifold.metrics import bias_audit
    >>> rng = np.random.RandomState(0)
    >>> sex = rng.choice(["female", "male"], 5000).astype(object)
    >>> selected = (rng.rand(5000) < np.where(sex == "female", 0.30, 0.40)).astype(int)
    >>> sex[rng.rand(5000) < 0.05] = None                # 5% did not say
    >>> audit = bias_audit(selected, sensitive_features={"sex": sex})
    >>> audit.table[["sex", "rate", "impact_ratio", "verdict"]].round(3)
          sex   rate  impact_ratio       verdict
    0  female  0.303         0.729  inconclusive
    1    male  0.416         1.000        passes
    >>> int(audit.unknown["sex"])
    273
    >>> bounds = audit.table.loc[0, ["impact_ratio_low", "impact_ratio_high"]]
    >>> [round(float(v), 3) for v in bounds]
    [0.643, 0.855]

    Women are selected at 0.729 of the men's rate among those who said their
    sex, but the 273 who did not could put the true ratio anywhere from 0.643
    to 0.855: the four-fifths rule cannot be decided on these data.
    """
    sources = [name for name, v in (("y_pred", y_pred), ("y_score", y_score),
                                    ("counts", counts)) if v is not None]
    if len(sources) != 1:
        raise ValueError(MSG_ONE_SOURCE.format(got=", ".join(sources) or "none"))
    _check_tiers(tiers)
    options = {"min_share": float(min_share), "confidence": float(confidence),
               "intersect": bool(intersect),
               "unknown_label": None if unknown is None else str(unknown),
               "tiers": None if tiers is None else [list(map(str, t)) for t in tiers]}
    if membership is None and proxy is not None:
        raise ValueError(MSG_PROXY_ALONE)
    if membership is not None:
        if counts is not None:
            raise ValueError(MSG_MEMBERSHIP_COUNTS)
        tables, extra = estimated_entries(y_pred, y_score, sensitive_features, data,
                                          membership, proxy, unknown, tiers, estimate,
                                          intersect)
        options.update(extra)
    elif counts is not None:
        tables = [(None, counts_characteristics(counts, sensitive_features, unknown,
                                                intersect))]
        options.update(source="counts", what="selection rate", rate_name="selection rate",
                       ties_at_median=None, median=None)
    else:
        if sensitive_features is None:
            raise ValueError(MSG_NO_SENSITIVE)
        reader = frame_entries if data is not None else row_entries
        entries_list, extra = reader(y_pred, y_score, sensitive_features, data, unknown, tiers)
        tables = [(tier, characteristics(entries, intersect=intersect))
                  for tier, entries in entries_list]
        options.update(extra)
    return _audit(tables, comparator=comparator, min_share=min_share, confidence=confidence,
                  tiers=tiers, options=options)


def _check_tiers(tiers):
    if tiers is None:
        return
    if not tiers or not all(isinstance(t, (list, tuple)) and len(t) for t in tiers):
        raise ValueError(MSG_TIERS.format(got=tiers))


def _audit(tables, *, comparator, min_share, confidence, tiers, options):
    import pandas as pd

    all_chars = [ch for _, chs in tables for ch in chs]
    _check_comparator(comparator, all_chars)
    attributes = []
    for ch in all_chars:
        for a in ch.attributes:
            if a not in attributes:
                attributes.append(a)
    frames, unknown, used = [], {}, {}
    for tier, chs in tables:
        for ch in chs:
            columns, rule = characteristic_rows(
                ch, comparator=comparator, min_share=min_share, confidence=confidence)
            frame = pd.DataFrame(columns)
            for a in reversed(attributes):
                where = ch.attributes.index(a) if a in ch.attributes else None
                frame.insert(0, a, [cell[where] if where is not None else None
                                    for cell in ch.cells])
            frame.insert(0, "characteristic", ch.name)
            frame.insert(1 + len(attributes), "category",
                         [" & ".join(map(str, cell)) for cell in ch.cells])
            if tiers is not None:
                frame.insert(0, "tier", tier)
            frames.append(frame)
            key = ch.name if tiers is None else (tier, ch.name)
            unknown[key] = ch.n_unknown
            used[key] = (f"{rule['rule'].replace('_', ' ')}: "
                         f"{'none' if rule['category'] is None else ' & '.join(map(str, rule['category']))}")
    order = (["tier"] if tiers is not None else []) + ["characteristic", *attributes,
                                                       "category"] + NUMBER_COLUMNS
    table = pd.concat(frames, ignore_index=True)[order] if frames else pd.DataFrame(
        columns=order)
    unknown = pd.Series(unknown, name="unknown", dtype=float)
    options = dict(options)
    options.update(
        comparator=comparator if isinstance(comparator, str) else repr(comparator),
        comparator_text=(comparator if isinstance(comparator, str) else repr(comparator))
        .replace("_", " "),
        comparators={(" / ".join(map(str, k)) if isinstance(k, tuple) else k): v
                     for k, v in used.items()},
        characteristics=list(dict.fromkeys(ch.name for ch in all_chars)),
        attributes=attributes, n_assessed=_assessed(tables),
        package=f"skfair_manifold {__version__}",
        created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))
    headline = audit_headline(table, unknown, comparators=used, confidence=confidence,
                              tiers=tiers)
    for name, info in (options.get("estimated") or {}).items():
        of = "the intersectional category" if name == "intersectional" else name
        headline.append(
            f"{name} is estimated ({info['estimate']} estimate over {info['n_strata']} "
            f"strata): its rates and ratios hold if the decision is independent of {of} "
            f"given the stratum; without that assumption only the bounds and their "
            f"intervals do.")
    return BiasAudit(table=table, unknown=unknown, headline=headline, options=options,
                     provenance={})


def _assessed(tables):
    """The people assessed: the first characteristic's known and unknown together."""
    for _, chs in tables:
        for ch in chs:
            value = ch.n_rows if hasattr(ch, "n_rows") else float(ch.n.sum()) + ch.n_unknown
            return int(round(value)) if abs(value - round(value)) < 1e-6 else value
    return 0


def _check_comparator(comparator, chs):
    if isinstance(comparator, str) and comparator in COMPARATORS:
        return
    if isinstance(comparator, dict):
        names = {ch.name for ch in chs}
        for key in comparator:
            if key not in names:
                raise ValueError(f"comparator names the characteristic {key!r}, which the "
                                 f"audit does not have; it has {sorted(names)}.")
        return
    if not any(comparator_index(ch, comparator) is not None for ch in chs):
        categories = sorted({" & ".join(map(str, c)) for ch in chs for c in ch.cells})
        raise ValueError(MSG_COMPARATOR.format(
            value=comparator, categories=categories,
            hint=did_you_mean(str(comparator), categories)))


