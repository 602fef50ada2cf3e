"""The report's inputs read once: an eager frame's columns, then the rows' or a lazy frame's table.

:func:`read_inputs` checks the options against each other, reads an eager
frame's columns (the rows' path after), hands a continuous target to
:func:`~._continuous.continuous_report`, and builds the cell table every
rate of the binary report comes from: the rows' (:mod:`._rows`), a lazy
frame's one GROUP BY (:mod:`.._groups._frame_cells`), or, with estimated
groups, the weighted rows' (:mod:`._membership`).
"""

import numpy as np
from sklearn.utils import Bunch, check_random_state

from ...utils._narwhals import is_lazy
from .._frames import MSG_NEED_DATA, eager_inputs, refuse_rows
from .._groups._frame_cells import frame_cell_table
from ._continuous import continuous_report
from ._membership import check_membership_call, membership_table
from ._no_labels import decisions_as_labels
from ._rows import _rows_table
from ._target_type import resolve_target_type

MSG_LOSS_BINARY = (
    "loss= is the continuous report's: the groups' mean loss of a quantity. The target was "
    "read as class labels ({source}); for a quantity pass target_type='continuous', for "
    "class labels leave loss out (the rates are the binary report's)."
)

MSG_Y_SCORE_CONTINUOUS = (
    "y_score= is the binary report's (the AUC and calibration of scores of the favourable "
    "class); the target was read as a quantity ({source}), whose report compares the groups' "
    "mean predictions and errors. Leave y_score out, or, for class labels with scores, pass "
    "target_type='binary' with the predicted classes as y_pred."
)

MSG_FAVOURABLE_BINARY = (
    "favourable={favourable!r} is the continuous report's (whether a higher or a lower "
    "prediction of a quantity favours a person); the target was read as class labels "
    "({source}), whose favourable outcome is a class: pass pos_label=<the favourable class> "
    "(for 0/1 labels where 0 is favourable, pos_label=0) and leave favourable out, or pass "
    "target_type='continuous' for a quantity."
)


def read_inputs(y_true, y_pred, *, sensitive_features, data, X, estimator, pos_label,
                sample_weight, intersect, min_group_size, n_boot, confidence, random_state,
                target_type, favourable, y_score, loss, membership, proxy):
    """The cell table and what the report needs beside it (a Bunch), or the continuous
    report (a :class:`~._continuous.RegressionReport`)."""
    check_membership_call(membership=membership, proxy=proxy,
                          sensitive_features=sensitive_features, X=X, estimator=estimator,
                          y_score=y_score, loss=loss, n_boot=n_boot, data=data,
                          target_type=target_type)
    labels = y_true is not None
    state, given = None, data
    if not labels:  # the decisions alone: read as both, what needs labels left out after
        y_true, target_type = decisions_as_labels(y_pred, target_type, X=X,
                                                  estimator=estimator, y_score=y_score,
                                                  loss=loss)
    lazy = data is not None and is_lazy(data)
    columns = {"label": y_true, "prediction": y_pred} if data is not None else None
    membership_data = data if membership is not None else None
    if data is not None and not lazy:  # an eager frame: its columns, then the rows' path
        named = sensitive_features if sensitive_features is not None else y_pred
        y_true, y_pred, observed, sample_weight = eager_inputs(
            data, y_true=y_true, y_pred=y_pred, sensitive_features=named,
            sample_weight=sample_weight)
        sensitive_features = observed if sensitive_features is not None else None
    elif data is None:
        for name, value in (("y_true", y_true), ("y_pred", y_pred),
                            ("sample_weight", sample_weight)):
            if isinstance(value, str):
                raise ValueError(MSG_NEED_DATA.format(name=name, value=value))
    if not lazy or target_type == "continuous":
        kind, source = (("continuous", "target_type='continuous'") if lazy
                        else resolve_target_type(target_type, y_true, y_pred))
        if kind == "continuous":
            if y_score is not None:
                raise ValueError(MSG_Y_SCORE_CONTINUOUS.format(source=source))
            return continuous_report(
                y_true, y_pred, sensitive_features=sensitive_features, data=data if lazy
                else None, sample_weight=sample_weight, X=X, estimator=estimator,
                pos_label=pos_label, n_boot=n_boot, intersect=intersect,
                min_group_size=min_group_size, confidence=confidence, favourable=favourable,
                source=source, names_given=columns, loss=loss)
        if loss is not None:
            raise ValueError(MSG_LOSS_BINARY.format(source=source))
    else:
        source = "class labels on a lazy frame"
    if loss is not None:  # a lazy frame read as binary (target_type="auto")
        raise ValueError(MSG_LOSS_BINARY.format(source=source))
    if favourable != "higher":
        raise ValueError(MSG_FAVOURABLE_BINARY.format(favourable=favourable, source=source))
    if lazy:
        if X is not None:
            refuse_rows(data, what="HFM (X=)", argument="X")
        if estimator is not None:
            refuse_rows(data, what="the discriminative risk (estimator=)",
                        argument="estimator")
        names_given = columns
        table, favourable, _ = frame_cell_table(
            data, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
            sample_weight=sample_weight, pos_label=pos_label, metric="fairness_report")
        rng = check_random_state(random_state)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        attributes, weighted, rows = table.attributes, table.weighted, None
    elif membership is not None:
        names_given = columns or {"label": "y_true" if labels else "y_pred",
                                  "prediction": "y_pred"}
        table, favourable, rng, seed, rows, state = membership_table(
            y_true, y_pred, sensitive_features, membership, sample_weight, membership_data,
            pos_label=pos_label, random_state=random_state)
        attributes, weighted = table.attributes, True
    else:
        table, favourable, rng, seed, rows = _rows_table(
            y_true, y_pred, sensitive_features, X, estimator, pos_label, sample_weight,
            random_state)
        names_given = columns or rows["names_given"]
        attributes, weighted = table.attributes, rows["weighted"]
    return Bunch(table=table, favourable=favourable, rng=rng, seed=seed, rows=rows,
                 names_given=names_given, attributes=attributes, weighted=weighted,
                 labels=labels, membership=state, data=given)
