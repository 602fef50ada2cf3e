"""The room's ground floor: every constant and message that two of its modules read.

Nothing here imports another module of the package, so any module of the room,
in any wing, may import from here.
"""

import numpy as np

#: the least K of ``k="auto"`` (the paper's K)
AUTO_FLOOR = 50
#: the largest K of ``k="auto"``
AUTO_CEILING = 400
#: the values K takes under ``k="auto"``: ``AUTO_FLOOR * 2 ** (j / 4)``, rounded down
AUTO_GRID = np.unique(np.floor(AUTO_FLOOR * 2.0 ** (np.arange(13) / 4.0)).astype(np.int64))

#: The least effective number of testers per side for a verdict either way.
MIN_EFFECTIVE_TESTERS = 10
#: The distance within which ``MIN_EFFECTIVE_TESTERS`` testers a side must lie, per method.
NEAR_DISTANCE = {"cbn": 0.05, "knn": 0.2}

MSG_NO_PROTECTED = "protected is required: the column of X that holds the protected attribute."
MSG_NO_PROTECTED_VALUE = "protected_value is required: the value of the protected group c-."
MSG_SINGLE_GROUP = (
    "every row is {which}: situation testing compares the protected group with the others, "
    "so both must occur in the data."
)
MSG_PROTECTED_KIND = "the protected column {column!r} cannot be declared {kind}: it is nominal."
#: parameters read by fit only: changing one after fit needs a new fit
FIT_PARAMS = ("protected", "protected_value", "method", "decision", "positive_label", "graph",
              "structure", "alpha", "structure_test", "max_depth", "smoothing",
              "causal_effect", "nominal", "ordinal", "interval", "n_bins", "binning",
              "algorithm", "random_state")

MSG_NO_ARC = (
    "the causal graph has no arc {protected!r} -> {decision!r}: the paper's premise (the "
    "protected attribute is a direct cause of the decision) does not hold, so the graph "
    "itself says the decision does not depend on it directly. Flags are kept but their "
    "verdict is 'fragile' (see structure_info_['protected_arc'])."
)

MSG_LAZY_ROWS = (
    "this auditor was fitted on a lazy frame: {what} needs the fitted rows in memory. Call "
    "flag(frame, decision_column) or cell_verdicts, or fit on pandas/numpy data."
)
