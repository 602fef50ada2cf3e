"""A model audited by asking it: each protected person's decision with the attribute changed."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

MSG_NO_PREDICT = (
    "estimator must be a fitted estimator or pipeline with predict (the model whose "
    "decisions are audited); got {type}."
)
MSG_VALUE = (
    "the protected column {column!r} holds {n} values besides the protected one ({values}); "
    "pass value=, the one to give the protected people (e.g. value={example!r})."
)
MSG_NO_OTHER = (
    "the protected column {column!r} holds only the protected value {value!r}: there is no "
    "other value to set; pass value=."
)
MSG_LENGTH = "{name} has {got} rows but X has {expected}."

#: the columns of :func:`counterfactual_decisions`
COLUMNS = ["protected", "decision", "counterfactual_decision", "flipped"]


def counterfactual_decisions(auditor, estimator, X, *, value=None, report=None):
    """Each protected person's decision with the protected attribute set to the other value.

    The counterfactual question asked of a model one can call: what does it
    decide for the same person, every other column unchanged, had she not
    been protected? A fitted estimator or pipeline is asked twice, on ``X``
    and on a copy of ``X`` whose protected rows hold ``value`` in the
    auditor's protected column (the caller's ``X`` is left as it is).
    Unlike situation testing this needs no testers, and it holds for the model
    only: it says nothing of the attributes the protected one affects, which
    stay as they are (a direct effect).

    Parameters
    ----------
    auditor : SituationTestingAuditor
        A fitted auditor: its ``protected`` column and ``protected_value``.
    estimator : fitted estimator with ``predict``
        The model whose decisions are audited; it reads ``X`` as given.
    X : DataFrame or ndarray of shape (n_samples, n_features)
        The rows, with the protected column.
    value : object, default=None
        The value the protected people are given; None: the column's only
        other value (refused, with the values, when it holds several).
    report : SituationTestingReport, default=None
        The auditor's report of the same rows: the frame then also holds each
        row's ``flagged``, ``verdict`` and, for a yes/no decision, ``pn`` and
        ``more_likely_than_not``; the report keeps the frame
        (``report.counterfactual``) and the counts of who flips, who is
        flagged and who both (``report.settings["counterfactual"]``), which
        its page shows.

    Returns
    -------
    frame : DataFrame
        Aligned with the rows of ``X`` (its index when ``X`` is a DataFrame):
        ``protected`` (bool), ``decision`` (the model's), ``counterfactual_decision``
        (with the attribute changed; the decision itself for the unprotected
        rows) and ``flipped`` (the two differ; False for unprotected rows).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from skfair_manifold.situation_testing import (SituationTestingAuditor,
    ...                                                counterfactual_decisions)
    >>> rng = np.random.RandomState(0)
    >>> sex, skill = rng.randint(0, 2, 600), rng.randint(0, 3, 600)
    >>> X = np.column_stack([sex, skill])
    >>> y = ((skill >= 1) & ~((sex == 1) & (skill == 1))).astype(int)  # women of skill 1 refused
    >>> model = DecisionTreeClassifier(random_state=0).fit(X, y)
    >>> auditor = SituationTestingAuditor(protected=0, protected_value=1, k=20,
    ...                                   graph=[0, 1]).fit(X, y)
    >>> frame = counterfactual_decisions(auditor, model, X)
    >>> int(frame["flipped"].sum()) == int(((sex == 1) & (skill == 1)).sum())
    True
    """
    import pandas as pd

    check_is_fitted(auditor)
    if not hasattr(estimator, "predict"):
        raise TypeError(MSG_NO_PREDICT.format(type=type(estimator).__name__))
    column = auditor.protected
    frame = hasattr(X, "iloc")
    if frame:
        position = X.columns.get_loc(column) if not isinstance(column, (int, np.integer)) \
            or column in X.columns else int(column)
        values = X.iloc[:, position].to_numpy()
    else:
        X = np.asarray(X)
        position = int(column)
        values = X[:, position]
    protected = np.asarray(values == auditor.protected_value, dtype=bool)
    value = _other_value(values, protected, auditor.protected_value, column, value)
    changed = X.copy()
    if frame:
        target = changed.iloc[:, position]
        if target.dtype.kind not in "O" and not isinstance(value, (int, float, np.number)):
            changed[changed.columns[position]] = target.astype(object)
        changed.iloc[np.flatnonzero(protected), position] = value
    else:
        if changed.dtype.kind != "O" and not isinstance(value, (int, float, np.number)):
            changed = changed.astype(object)
        changed[protected, position] = value
    decision = np.asarray(estimator.predict(X))
    other = np.asarray(estimator.predict(changed))
    counter = np.where(protected, other, decision)
    out = pd.DataFrame({"protected": protected, "decision": decision,
                        "counterfactual_decision": counter,
                        "flipped": protected & (counter != decision)},
                       index=X.index if frame else None)
    if report is not None:
        _beside_report(out, report)
    return out


def _other_value(values, protected, protected_value, column, value):
    if value is not None:
        return value
    others = [v for v in dict.fromkeys(values[~protected].tolist())]
    if not others:
        raise ValueError(MSG_NO_OTHER.format(column=column, value=protected_value))
    if len(others) > 1:
        shown = ", ".join(repr(v) for v in others[:8])
        raise ValueError(MSG_VALUE.format(column=column, n=len(others), values=shown,
                                          example=others[0]))
    return others[0]


def _beside_report(out, report):
    """The report's verdicts beside the flips, and the report's copy and counts."""
    audit = report.audit
    n = out.shape[0]
    if np.asarray(audit.get("flagged", ())).shape[0] != n:
        raise ValueError(MSG_LENGTH.format(name="report", got=len(audit.get("flagged", ())),
                                           expected=n))
    flagged = np.asarray(audit["flagged"], dtype=bool)
    out["flagged"] = flagged
    out["verdict"] = np.asarray(audit["verdict"], dtype=object)
    if "pn" in audit:
        out["pn"] = np.asarray(audit["pn"])
        out["more_likely_than_not"] = np.asarray(audit["more_likely_than_not"], dtype=bool)
    flips = out["flipped"].to_numpy()
    report.counterfactual = out
    report.settings["counterfactual"] = {
        "flipped": int(flips.sum()), "flagged": int(flagged.sum()),
        "both": int((flips & flagged).sum()), "protected": int(out["protected"].sum())}
