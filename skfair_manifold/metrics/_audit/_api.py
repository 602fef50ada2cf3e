"""bias_audit: the table of selection or scoring rates and impact ratios the law asks for."""

from __future__ import annotations

import datetime
from numbers import Integral, Real
from typing import Any

import numpy as np

from ... import __version__
from ...utils._narwhals import collect, schema_names, to_narwhals, to_numpy
from ...utils._sklearn_compat import Interval, StrOptions, validate_params
from ...utils._typing import ArrayLike, SensitiveLike
from ...utils._validation import did_you_mean, sensitive_columns
from .._frames import FrameConstraint
from ._cells import (
    INTERSECTIONAL,
    NOT_SELECTED,
    SELECTED,
    UNDECIDED,
    Entries,
    characteristic,
    characteristics,
    entries_from_rows,
)
from ._object import BiasAudit, audit_headline
from ._table import COMPARATORS, NUMBER_COLUMNS, characteristic_rows, comparator_index

__all__ = ["bias_audit"]

MSG_ONE_SOURCE = (
    "pass the decisions (y_pred), the scores (y_score) or a table of counts (counts=), "
    "exactly one of them; got {got}."
)
MSG_NO_SENSITIVE = (
    "sensitive_features is required with y_pred or y_score: the columns of sex, "
    "race/ethnicity, ... (a missing value, or the unknown label, is an unknown category)."
)
MSG_DECISION_NOT_BINARY = (
    "y_pred holds {values}: a decision is 0/1 (or True/False); for labels such as 'top', "
    "'middle', 'low' pass tiers, the labels that count as selected, e.g. tiers=[['top'], "
    "['top', 'middle']]."
)
MSG_DECISION_MISSING = (
    "y_pred has {count} missing value(s): every assessed person needs a decision (drop "
    "those rows, or count them as not selected)."
)
MSG_SCORE_BAD = (
    "y_score must hold finite numbers for every row; {problem}."
)
MSG_TIERS = (
    "tiers must be a list of lists of y_pred's labels, each the labels that count as "
    "selected (e.g. [['top'], ['top', 'middle']]); got {got!r}."
)
MSG_TIER_LABEL = "tiers names {label!r}, which y_pred never holds; its labels are {labels}."
MSG_COUNTS_COLUMNS = (
    "counts needs the columns 'n' and 'n_selected' beside one column per attribute; "
    "missing {missing}. Its columns are {columns}."
)
MSG_COUNTS_ROW = (
    "counts row {row}: {problem}."
)
MSG_COMPARATOR = (
    "comparator {value!r} is not a category of any characteristic; the categories are "
    "{categories}.{hint} Or pass 'most_selected' or 'most_selected_any'."
)
MSG_LENGTH = "{name} has {got} rows but y_pred/y_score has {expected}."
MSG_DATA_NAMES = (
    "with data= given, {name} must be a column name of data (a str); got {type}."
)
MSG_DATA_COLUMN = "{name} column {column!r} is not a column of data.{hint} Its columns are {columns}."

#: the helper columns of the frame's GROUP BY (chosen not to clash with the user's)
_SEL, _COUNT, _TIES = "__skfm_selected", "__skfm_count", "__skfm_ties"


@validate_params(
    {
        "y_pred": ["array-like", str, None],
        "y_score": ["array-like", str, None],
        "sensitive_features": ["array-like", str, dict, None],
        "data": [FrameConstraint(), None],
        "counts": [FrameConstraint(), None],
        "unknown": "no_validation",
        "comparator": "no_validation",
        "min_share": [Interval(Real, 0, 1, closed="left")],
        "intersect": ["boolean"],
        "tiers": [list, None],
        "confidence": [Interval(Real, 0, 1, closed="neither")],
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
    >>> audit.table.loc[0, ["impact_ratio_low", "impact_ratio_high"]].round(3).tolist()
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
    if counts is not None:
        tables = [(None, _counts_characteristics(counts, sensitive_features, unknown,
                                                 intersect))]
        options.update(source="counts", what="selection rate", rate_name="selection rate",
                       ties_at_median=None, median=None)
    else:
        if sensitive_features is None:
            raise ValueError(MSG_NO_SENSITIVE)
        reader = _frame_entries if data is not None else _row_entries
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
    return BiasAudit(table=table, unknown=unknown, headline=headline, options=options,
                     provenance={})


def _assessed(tables):
    """The people assessed: the first characteristic's known and unknown together."""
    for _, chs in tables:
        for ch in chs:
            value = float(ch.n.sum()) + ch.n_unknown
            return int(value) if value == int(value) else value
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


def _unknown_mask(values, unknown):
    """Where a column (object array) is unknown: missing, or the unknown label."""
    missing = np.fromiter(
        (v is None or (isinstance(v, float) and v != v)
         or type(v).__name__ in ("NAType", "NaTType") for v in values.tolist()),
        dtype=bool, count=values.shape[0])
    if unknown is not None:
        missing |= np.array([v == unknown if not m else False
                             for v, m in zip(values.tolist(), missing)], dtype=bool)
    return missing


def _as_objects(column):
    """A column (numpy, pandas Series) as an object array of Python values."""
    if hasattr(column, "to_numpy") and not isinstance(column, np.ndarray):
        column = column.to_numpy(dtype=object)
    values = np.asarray(column, dtype=object)
    return np.array([v.item() if isinstance(v, np.generic) else v for v in values.tolist()],
                    dtype=object)


def _selected_rows(y_pred, y_score, tiers, n=None):
    """The selected indicator(s) of rows: ``[(tier, bool array)]`` and the options."""
    if y_score is not None:
        score = np.asarray(y_score, dtype=object)
        try:
            values = score.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(MSG_SCORE_BAD.format(problem="it holds values that are not "
                                                          "numbers")) from None
        if values.ndim != 1:
            raise ValueError(MSG_SCORE_BAD.format(problem=f"it has shape {values.shape}"))
        if not np.isfinite(values).all():
            raise ValueError(MSG_SCORE_BAD.format(
                problem=f"{int((~np.isfinite(values)).sum())} value(s) are missing or "
                        f"infinite"))
        median = float(np.median(values))
        return [(None, values > median)], {
            "source": "scores", "what": "scoring rate", "rate_name": "scoring rate",
            "median": median, "ties_at_median": int((values == median).sum())}
    labels = _as_objects(y_pred)
    missing = _unknown_mask(labels, None)
    if missing.any():
        raise ValueError(MSG_DECISION_MISSING.format(count=int(missing.sum())))
    extra = {"source": "decisions", "what": "selection rate", "rate_name": "selection rate",
             "median": None, "ties_at_median": None}
    if tiers is None:
        distinct = set(labels.tolist())
        if not distinct <= {0, 1, True, False}:
            shown = sorted(map(repr, distinct))[:8]
            raise ValueError(MSG_DECISION_NOT_BINARY.format(values=", ".join(shown)))
        return [(None, np.array([bool(v) for v in labels.tolist()]))], extra
    present = set(labels.tolist())
    out = []
    for tier in tiers:
        for label in tier:
            if label not in present:
                raise ValueError(MSG_TIER_LABEL.format(label=label,
                                                       labels=sorted(map(str, present))))
        chosen = set(tier)
        out.append((" | ".join(map(str, tier)),
                    np.array([v in chosen for v in labels.tolist()])))
    return out, extra


def _row_entries(y_pred, y_score, sensitive_features, data, unknown, tiers):
    """The joint table(s) of rows in memory, one per tier."""
    source = y_score if y_score is not None else y_pred
    n = len(source)
    A = sensitive_features
    if isinstance(A, dict):
        names, columns = list(A), [A[k] for k in A]
        for name, col in zip(names, columns):
            if len(col) != n:
                raise ValueError(MSG_LENGTH.format(name=f"sensitive feature {name!r}",
                                                   got=len(col), expected=n))
    else:
        names, columns = sensitive_columns(A, n)
    names = [str(a) if not isinstance(a, str) else a for a in names]
    values = [_as_objects(c) for c in columns]
    masks = [_unknown_mask(v, unknown) for v in values]
    selections, extra = _selected_rows(y_pred, y_score, tiers)
    return [(tier, entries_from_rows(values, masks, sel, attributes=names))
            for tier, sel in selections], extra


def _frame_entries(y_pred, y_score, sensitive_features, data, unknown, tiers):
    """The joint table(s) of a frame, by one GROUP BY in its engine (per tier)."""
    import narwhals as nw

    frame = to_narwhals(data)
    present = schema_names(frame)
    sens = [sensitive_features] if isinstance(sensitive_features, str) \
        else list(sensitive_features)
    target = y_score if y_score is not None else y_pred
    wanted = [("sensitive_features", s) for s in sens] + [
        ("y_score" if y_score is not None else "y_pred", target)]
    for name, col in wanted:
        if not isinstance(col, str):
            raise TypeError(MSG_DATA_NAMES.format(name=name, type=type(col).__name__))
        if col not in present:
            shown = ", ".join(repr(c) for c in present[:20])
            raise ValueError(MSG_DATA_COLUMN.format(name=name, column=col,
                                                    hint=did_you_mean(col, present),
                                                    columns=shown))
    extra = {"source": "decisions", "what": "selection rate", "rate_name": "selection rate",
             "median": None, "ties_at_median": None}
    ties = None
    if y_score is not None:
        median = collect(frame.select(nw.col(target).cast(nw.Float64()).median()
                                      .alias("m")))["m"]
        median = float(to_numpy(median)[0])
        if not np.isfinite(median):
            raise ValueError(MSG_SCORE_BAD.format(problem="its median is not a number"))
        selections = [(None, nw.col(target).cast(nw.Float64()) > median)]
        ties = nw.col(target).cast(nw.Float64()) == median
        extra.update(source="scores", what="scoring rate", rate_name="scoring rate",
                     median=median)
    elif tiers is None:
        selections = [(None, nw.col(target).cast(nw.Float64()) == 1.0)]
    else:
        selections = [(" | ".join(map(str, t)), nw.col(target).is_in(list(t)))
                      for t in tiers]
    out = []
    tie_count = 0
    for tier, expr in selections:
        cells = collect(frame.select(*[nw.col(c) for c in sens], expr.alias(_SEL),
                                     *([ties.alias(_TIES)] if ties is not None else []))
                        .group_by(*sens, _SEL).agg(*(
                            [nw.len().alias(_COUNT)]
                            + ([nw.col(_TIES).cast(nw.Int64()).sum().alias(_TIES)]
                               if ties is not None else []))))
        selected = to_numpy(cells[_SEL])
        if any(v is None for v in selected.tolist()):
            raise ValueError(MSG_DECISION_MISSING.format(count=int(to_numpy(
                cells[_COUNT])[[v is None for v in selected.tolist()]].sum())))
        if ties is not None:
            tie_count = int(np.nansum(np.asarray(to_numpy(cells[_TIES]), dtype=np.float64)))
        values = [_as_objects(to_numpy(cells[c])) for c in sens]
        masks = [_unknown_mask(v, unknown) for v in values]
        for v, m in zip(values, masks):
            v[m] = None
        if tiers is None and y_score is None:
            _check_frame_decisions(frame, target)
        out.append((tier, Entries(
            attributes=list(sens), values=values,
            decision=np.where(np.asarray(selected, dtype=bool), SELECTED,
                              NOT_SELECTED).astype(np.int8),
            count=np.asarray(to_numpy(cells[_COUNT]), dtype=np.float64))))
    if ties is not None:
        extra["ties_at_median"] = tie_count
    return [(tier, e.project(list(range(len(sens))))) for tier, e in out], extra


def _check_frame_decisions(frame, column):
    """A frame's decisions are 0/1 or booleans (one small query of the distinct values)."""
    import narwhals as nw

    distinct = collect(frame.select(nw.col(column)).unique())
    labels = set(_as_objects(to_numpy(distinct[column])).tolist())
    if None in labels:
        raise ValueError(MSG_DECISION_MISSING.format(count="some"))
    if not labels <= {0, 1, True, False}:
        raise ValueError(MSG_DECISION_NOT_BINARY.format(
            values=", ".join(sorted(map(repr, labels))[:8])))


def _counts_characteristics(counts, sensitive_features, unknown, intersect):
    """The characteristics of a table of counts (see ``counts``)."""
    frame = collect(to_narwhals(counts))
    present = list(frame.columns)
    if sensitive_features is None:
        attributes = [c for c in present if c not in ("n", "n_selected")]
    else:
        attributes = [sensitive_features] if isinstance(sensitive_features, str) \
            else list(sensitive_features)
    missing = [c for c in ["n", "n_selected", *attributes] if c not in present]
    if missing or not attributes:
        raise ValueError(MSG_COUNTS_COLUMNS.format(missing=missing or "an attribute column",
                                                   columns=present))
    values = [_as_objects(to_numpy(frame[a])) for a in attributes]
    split = [~_unknown_mask(v, None) for v in values]   # None: not split by it
    is_unknown = [np.array([x == unknown if unknown is not None else False
                            for x in v.tolist()], dtype=bool) for v in values]
    n = np.asarray(to_numpy(frame["n"]), dtype=np.float64)
    sel_raw = _as_objects(to_numpy(frame["n_selected"]))
    sel_missing = _unknown_mask(sel_raw, None)
    sel = np.array([np.nan if m else float(v) for v, m in zip(sel_raw.tolist(),
                                                               sel_missing)])
    for row in range(n.shape[0]):
        problem = None
        if not np.isfinite(n[row]) or n[row] < 0:
            problem = f"n must be a finite count, got {n[row]!r}"
        elif sel_missing[row] and not any(u[row] for u in is_unknown):
            problem = ("n_selected is missing on a row of a known category; only rows of "
                       "unknown people may leave it out")
        elif not sel_missing[row] and not 0 <= sel[row] <= n[row] + 1e-9:
            problem = f"n_selected {sel[row]!r} is not between 0 and n ({n[row]!r})"
        if problem is not None:
            raise ValueError(MSG_COUNTS_ROW.format(row=row, problem=problem))
    k = len(attributes)
    chars = []
    groups = [([j], attributes[j]) for j in range(k)]
    if intersect and k > 1:
        groups.append((list(range(k)), INTERSECTIONAL))
    for positions, name in groups:
        rows = [r for r in range(n.shape[0])
                if all(split[j][r] for j in positions)
                and not any(split[j][r] for j in range(k) if j not in positions)]
        vals, dec, cnt = [[] for _ in positions], [], []
        for r in rows:
            pattern = [None if is_unknown[j][r] else values[j][r] for j in positions]
            if sel_missing[r]:
                parts = [(UNDECIDED, n[r])]
            else:
                parts = [(SELECTED, sel[r]), (NOT_SELECTED, n[r] - sel[r])]
            for d, c in parts:
                for i, v in enumerate(pattern):
                    vals[i].append(v)
                dec.append(d)
                cnt.append(c)
        entries = Entries(attributes=[attributes[j] for j in positions],
                          values=[np.array(v, dtype=object) for v in vals],
                          decision=np.array(dec, dtype=np.int8),
                          count=np.array(cnt, dtype=np.float64))
        if len(rows):
            chars.append(characteristic(entries, name))
    return chars
