"""The bias audit's tables when some attributes are estimated (``membership=``, ``proxy=``).

Rows in memory and frames alike go through one GROUP BY (:mod:`._membership`);
each observed attribute becomes the usual :class:`._cells.Characteristic`
(unknown categories bounded as ever), each estimated attribute and the
intersection an :class:`._strata.EstimatedCharacteristic`. An estimated
attribute whose every row is one-hot is an observed one: its table is the
hard labels' table.
"""

import warnings
from dataclasses import replace

import numpy as np

from ...utils._narwhals import collect, schema_names, to_narwhals, to_numpy
from ...utils._validation import did_you_mean, sensitive_columns
from ._cells import INTERSECTIONAL, NOT_SELECTED, SELECTED, Entries, characteristic
from ._membership import (
    MSG_DATA_COLUMN,
    MSG_NAME_CLASH,
    MSG_PROXY_MISSING,
    check_frame,
    check_proxy_column,
    group_frame,
    read_membership,
    rows_frame,
)
from ._readers import (
    MSG_DATA_NAMES,
    MSG_DECISION_MISSING,
    MSG_LENGTH,
    _as_objects,
    _selected_rows,
    score_median,
    unknown_mask,
)
from ._strata import estimated_characteristic

#: a stratum's people below which its selection rate is too noisy for the plug-in bounds
MIN_STRATUM = 20

MSG_ESTIMATE = (
    "estimate must be 'weighted', 'most_likely' or a threshold in (0.5, 1] (a category "
    "is assigned when its probability reaches it); got {got!r}."
)
MSG_SHORTCUT = (
    "estimate={estimate!r}: assigning each person {how} biases the rates and ratios "
    "(generally overstating disparities, by an amount that depends on the threshold); the "
    "weighted estimate (estimate='weighted') is unbiased when the decision is independent "
    "of the category given the proxy, and the bounds hold without it."
)
MSG_SMALL_STRATA = (
    "{name}: {count} strata with a median of {median:g} people: a small stratum's selection "
    "rate is estimated from few people, which narrows its bounds below the population's. "
    "Pass proxy= with coarser strata (the area, or the probabilities binned)."
)

ASSUMPTION = (
    "The weighted estimate equals the true rate when the decision is independent of {name} "
    "given the stratum; the bounds assume only that the probabilities are right within "
    "each stratum ({strata})."
)


def check_estimate(estimate):
    """``"weighted"``, ``"most_likely"`` or a threshold in (0.5, 1]."""
    if isinstance(estimate, str):
        if estimate in ("weighted", "most_likely"):
            return estimate
    elif isinstance(estimate, (int, float)) and not isinstance(estimate, bool) \
            and 0.5 < float(estimate) <= 1.0:
        return float(estimate)
    raise ValueError(MSG_ESTIMATE.format(got=estimate))


def estimated_entries(y_pred, y_score, sensitive_features, data, membership, proxy, unknown,
                      tiers, estimate, intersect):
    """``([(tier, characteristics)], options)`` of an audit with estimated attributes."""
    import narwhals as nw

    estimate = check_estimate(estimate)
    if estimate != "weighted":
        how = ("the most likely category" if estimate == "most_likely" else
               f"the category whose probability reaches {estimate:g}")
        warnings.warn(MSG_SHORTCUT.format(estimate=estimate, how=how), UserWarning,
                      stacklevel=3)
    if data is not None:
        frame = to_narwhals(data)
        present = schema_names(frame)
        observed = [] if sensitive_features is None else (
            [sensitive_features] if isinstance(sensitive_features, str)
            else list(sensitive_features))
        target = y_score if y_score is not None else y_pred
        for name, col in [("sensitive_features", c) for c in observed] + [
                ("y_score" if y_score is not None else "y_pred", target)]:
            if not isinstance(col, str):
                raise TypeError(MSG_DATA_NAMES.format(name=name, type=type(col).__name__))
            if col not in present:
                raise ValueError(MSG_DATA_COLUMN.format(
                    what=name, column=col, hint=did_you_mean(col, present),
                    columns=", ".join(map(repr, present[:20]))))
        estimated, _ = read_membership(membership, data_columns=present)
        check_frame(frame, estimated)
        if proxy is not None:
            check_proxy_column(proxy, present)
            nulls = int(to_numpy(collect(frame.select(nw.col(proxy).null_count()))[proxy])[0])
            if nulls:
                raise ValueError(MSG_PROXY_MISSING.format(count=nulls))
        names = {"observed": observed, "proxy": proxy, "decision": target}
        labels_of = list(observed)
        score_frame = frame
    else:
        source = y_score if y_score is not None else y_pred
        n = len(source)
        observed_map = {}
        if sensitive_features is not None:
            A = sensitive_features
            if isinstance(A, dict):
                for name, col in A.items():
                    if len(col) != n:
                        raise ValueError(MSG_LENGTH.format(name=f"sensitive feature {name!r}",
                                                           got=len(col), expected=n))
                observed_map = {str(k): _as_objects(v) for k, v in A.items()}
            else:
                names_, columns = sensitive_columns(A, n)
                observed_map = {str(a): _as_objects(c) for a, c in zip(names_, columns)}
        estimated, matrices = read_membership(membership, n=n)
        if y_score is not None:
            (_, chosen), _ = _selected_rows(None, y_score, None)
            decision = chosen.astype(object)
        else:
            _selected_rows(y_pred, None, tiers)  # the decisions' checks
            decision = _as_objects(y_pred)
        frame, names = rows_frame(observed=observed_map, matrices=matrices,
                                  estimated=estimated, proxy=proxy, decision=decision, n=n)
        labels_of = list(observed_map)
        score_frame = None
    for attr in estimated:
        if attr.name in labels_of:
            raise ValueError(MSG_NAME_CLASH.format(name=attr.name))
    extra = {"source": "decisions", "what": "selection rate", "rate_name": "selection rate",
             "median": None, "ties_at_median": None}
    decision = nw.col(names["decision"])
    if y_score is not None and score_frame is not None:
        median, ties = _median(score_frame, names["decision"])
        extra.update(source="scores", what="scoring rate", rate_name="scoring rate",
                     median=median, median_method="exact", ties_at_median=ties)
        decision = nw.col(names["decision"]).cast(nw.Float64()) > median
    elif y_score is not None:
        _, extra = _selected_rows(None, y_score, None)
    grouped = group_frame(frame, observed=names["observed"], estimated=estimated,
                          proxy=names["proxy"], decision=decision, estimate=estimate,
                          joint=intersect and len(estimated) > 1)
    selections = _group_selections(grouped, y_score is not None, tiers)
    tables = [(tier, _characteristics(grouped, sel, labels_of, estimated, unknown, estimate,
                                      intersect, proxy_name=_proxy_name(proxy)))
              for tier, sel in selections]
    extra["estimated"] = _describe(tables, estimated, estimate, proxy)
    return tables, extra


def _proxy_name(proxy):
    if proxy is None:
        return None
    return f"proxy {proxy!r}" if isinstance(proxy, str) else "the proxy"


def _median(frame, column):
    import narwhals as nw

    score, median = score_median(frame, column)
    ties = collect(frame.select((score == median).cast(nw.Int64()).sum().alias("t")))
    return median, int(to_numpy(ties["t"])[0])


def _group_selections(grouped, scores, tiers):
    """Per tier, whether each group was selected."""
    labels = grouped.decision
    if scores:
        return [(None, np.array([bool(v) for v in labels.tolist()]))]
    missing = unknown_mask(labels, None)
    if missing.any():
        raise ValueError(MSG_DECISION_MISSING.format(count=int(grouped.count[missing].sum())))
    selections, _ = _selected_rows(labels, None, tiers)
    return selections


def _characteristics(grouped, selected, observed_names, estimated, unknown, estimate,
                     intersect, *, proxy_name):
    """The characteristics of one tier (see the module)."""
    values = []
    for v in grouped.observed:
        v = v.copy()
        v[unknown_mask(v, unknown)] = None
        values.append(v)
    names = list(observed_names)
    still = []  # (position, Estimated) still estimated
    for a, attr in enumerate(estimated):
        if grouped.count.shape[0] and np.all(grouped.labels[a] >= 0):  # every row one-hot
            values.append(np.array([attr.categories[k] for k in grouped.labels[a]],
                                   dtype=object))
            names.append(attr.name)
        else:
            still.append((a, attr))
    decision = np.where(selected, SELECTED, NOT_SELECTED).astype(np.int8)
    entries = Entries(attributes=names, values=values, decision=decision,
                      count=grouped.count)
    chars = [characteristic(entries.project([j]), names[j]) for j in range(len(names))]
    common = {"selected": selected, "estimate": estimate, "proxy_name": proxy_name,
              "observed_values": values}
    for a, attr in still:
        chars.append(estimated_characteristic(grouped, name=attr.name, observed=[],
                                              estimated=[(a, attr)], **common))
    if intersect and len(names) + len(still) > 1:
        if not still:
            chars.append(characteristic(entries, INTERSECTIONAL))
        else:
            if len(still) > 1 and len(still) < len(estimated):  # some became observed
                grouped = _marginal_joint(grouped, estimated, [a for a, _ in still])
            chars.append(estimated_characteristic(
                grouped, name=INTERSECTIONAL, observed=list(enumerate(names)),
                estimated=still, **common))
    return chars


def _marginal_joint(grouped, estimated, kept):
    """The joint sums over the attributes still estimated (the others' rows are one-hot)."""
    shapes = [len(attr.categories) for attr in estimated]
    joint = grouped.joint.reshape(grouped.joint.shape[0], *shapes)
    drop = tuple(1 + a for a in range(len(estimated)) if a not in kept)
    return replace(grouped, joint=joint.sum(axis=drop).reshape(joint.shape[0], -1))


def _describe(tables, estimated, estimate, proxy):
    """What ``options["estimated"]`` says of each estimated characteristic."""
    out = {}
    for _, chars in tables[:1]:
        for ch in chars:
            if not hasattr(ch, "m0"):
                continue
            sizes = ch.stratum_sizes
            median = float(np.median(sizes)) if sizes.size else 0.0
            if sizes.size and median < MIN_STRATUM:
                warnings.warn(MSG_SMALL_STRATA.format(name=ch.name, count=sizes.size,
                                                      median=median), UserWarning,
                              stacklevel=4)
            out[ch.name] = {
                "estimate": ch.estimate, "strata": ch.strata, "n_strata": int(sizes.size),
                "median_stratum": median, "labelled": ch.labelled,
                "assumption": ASSUMPTION.format(
                    name="the intersectional category" if ch.name == "intersectional"
                    else ch.name, strata=ch.strata)}
    return out
