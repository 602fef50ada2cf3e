"""
=====================================================
HFM next to DP, EO, PQP and DR on the same models
=====================================================

Decisions made by a prejudiced decision maker are the training data; three
models learn from them, and every fairness measure of the package describes
them. The example shows what each measure sees and what it misses: in
particular, a model that never sees the sensitive columns still learns the
prejudice through a proxy feature, which the discriminative risk (DR) cannot
detect by construction.
"""

# %%
# Biased decisions with a proxy
# -----------------------------
# :func:`~skfair_manifold.datasets.make_biased_decisions` draws six ordinal
# features (the first three decide the fair decision) and three sensitive
# attributes with 2, 3 and 4 groups. A prejudiced decision maker turns some
# deserved positive decisions negative for the non-privileged groups. With
# ``proxy=0.8`` the last feature ``x5`` reveals ``s0`` for 80% of the rows,
# like a postcode standing for an origin.
import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeClassifier

from skfair_manifold.datasets import make_biased_decisions
from skfair_manifold.metrics import (
    demographic_parity,
    discriminative_risk,
    equal_opportunity,
    hfm_report,
    predictive_quality_parity,
)
from skfair_manifold.plotting import plot_hfm_by_attribute

data = make_biased_decisions(6000, proxy=0.8, random_state=0, as_frame=True)
sensitive = data.sensitive_names
X = pd.concat([data.data, data.sensitive], axis=1)
y = data.target
print(f"{len(X)} rows; {int(data.discriminated.sum())} decisions turned by prejudice "
      f"({dict(zip(sensitive, data.discriminated_by.sum(axis=0).tolist()))} per ground)")

X_train, X_test, y_train, y_test, fair_train, fair_test = train_test_split(
    X, y, data.fair_target, test_size=0.5, random_state=0, stratify=y)

# %%
# Three models
# ------------
# Three decision trees: *aware* sees every column, *blind* drops the
# sensitive columns (but keeps the proxy ``x5``), and *fair-trained* learns
# from the fair decisions, which real data never gives us: a reference.
def tree():
    return DecisionTreeClassifier(max_depth=8, min_samples_leaf=10, random_state=0)


drop_sensitive = make_column_transformer(("drop", sensitive), remainder="passthrough")
models = {
    "aware": tree().fit(X_train, y_train),
    "blind": make_pipeline(drop_sensitive, tree()).fit(X_train, y_train),
    "fair-trained": tree().fit(X_train, fair_train),
}

# %%
# Every measure on the test half
# ------------------------------
# HFM takes the non-sensitive features ``X`` and the sensitive columns
# separately; the group measures need only labels, predictions and groups; DR
# needs the estimator itself, with the sensitive columns among its inputs.
# All are "lower is fairer".
rows, reports = {}, {}
for name, model in models.items():
    y_pred = model.predict(X_test)
    report = hfm_report(y_test, y_pred, X=X_test[data.feature_names],
                        sensitive_features=X_test[sensitive], method="exact")
    reports[name] = report
    groups = dict(y_true=y_test, y_pred=y_pred, sensitive_features=X_test[sensitive])
    rows[name] = {
        "accuracy": (y_pred == y_test).mean(),
        "acc. vs fair": (y_pred == fair_test).mean(),
        "HFM max": report.hfm_max,
        "HFM avg": report.hfm_avg,
        "DP": demographic_parity(**groups),
        "EO": equal_opportunity(**groups),
        "PQP": predictive_quality_parity(**groups),
        "DR": discriminative_risk(model, X_test, sensitive=sensitive, random_state=0),
    }
table = pd.DataFrame(rows).T
print(table.round(3).to_string())

# %%
# Reading the table:
#
# * **DR** is zero for the blind model by construction: changing a column the
#   model never reads cannot change its prediction, yet the blind model's
#   selection rates still differ by group (**DP**) because ``x5`` carries
#   ``s0``.
# * **DP, EO, PQP** compare rates between groups; they know nothing of the
#   features.
# * **HFM** compares the predictions with the labels they were trained on,
#   row by row in feature space, over all three attributes at once: it is the
#   bias the model *adds* to (positive) or *removes* from (negative) the
#   data's own. Here ``HFM avg`` is highest (least fair) for the aware model,
#   which reproduces the prejudice most closely.
#
# Which attribute drives HFM?
# ---------------------------
# ``hfm_report`` also gives each attribute alone (the paper's ``df_i``).
per_attribute = {
    name: {"HFM max": r.per_attribute.hfm_max[k], "HFM avg": r.per_attribute.hfm_avg[k]}
    for k, name in enumerate(reports["aware"].attributes)
    for r in [reports["aware"]]
}
print(pd.DataFrame(per_attribute).T.round(3).to_string())
ax = plot_hfm_by_attribute(per_attribute, overall={"HFM max": reports["aware"].hfm_max,
                                                   "HFM avg": reports["aware"].hfm_avg})
ax.set_title("HFM of the aware model, per sensitive attribute")
