"""
=====================================================
Auditing decisions with situation testing
=====================================================

A complaint of discrimination concerns one person. Situation testing compares
the decisions given to people like them inside and outside the protected
group. This example audits every decision of a generated data set whose
discriminated rows are known, reads the evidence for one person, and compares
CBN-DD (testers chosen on the causes of the decision) with KNN-DD (nearest
neighbours on every attribute).
"""

# %%
# Decisions with planted discrimination
# -------------------------------------
# Six ordinal features, of which ``x0, x1, x2`` decide the fair decision;
# ``s0`` (2 groups) and ``s1`` (3 groups) are sensitive. The decision maker
# turns half of the deserved positive decisions of ``s0 = 1`` negative; ``s1``
# is left alone. The generator records which rows it turned.
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from skfair_manifold.datasets import make_biased_decisions
from skfair_manifold.plotting import plot_causal_graph
from skfair_manifold.situation_testing import SituationTestingAuditor

data = make_biased_decisions(3000, n_groups=(2, 3), bias=(0.5, 0.0), random_state=0,
                             as_frame=True)
X = pd.concat([data.data, data.sensitive], axis=1)
y = data.target  # a Series named "decision": the decision node of the graph
planted = data.discriminated
print(f"{len(X)} decisions, {int(planted.sum())} turned negative because s0 = 1")

# %%
# Fit the auditor
# ---------------
# Without a graph, the auditor learns the decision's parents with G-tests at
# ``alpha=0.01`` (the default), assuming nothing causes ``s0`` and the
# decision causes nothing. ``Q`` is the set of parents other than the protected attribute: the
# attributes on which testers must resemble the person.
auditor = SituationTestingAuditor(protected="s0", protected_value=1, method="cbn", k=30,
                                  tau=0.05, alpha_test=0.05, random_state=0).fit(X, y)
print("Q =", auditor.q_)
ax = plot_causal_graph(auditor)

# %%
# The irrelevant features ``x3, x4, x5`` and the untouched attribute ``s1`` are
# not parents of the decision: testers need not resemble the person there.
#
# Audit every row
# ---------------
# ``transform`` gives, for every row, ``p1`` and ``p2``, the positive rates of
# its ``k`` testers outside and inside the protected group, ``diff = p1 - p2``
# and its one-sided confidence bounds ``diff_lower`` and ``diff_upper`` (at
# level ``1 - alpha_test``: 95% here). Equally similar testers are not drawn
# at random but weighted, so ``random_state`` changes nothing. ``flag`` marks
# the protected rows with a negative decision, ``diff > tau`` and
# ``diff_lower > 0`` (the default ``flag_rule="significant"``: a gap above the
# threshold that is not chance; ``flag_rule="bound"`` asks ``diff_lower > tau``,
# ``flag_rule="tau"`` compares ``diff`` alone).
scores = pd.DataFrame(auditor.transform(X), columns=auditor.get_feature_names_out())
flagged = auditor.flag(X, y)
print(scores.describe().loc[["mean", "min", "max"]].round(3).to_string())
print(f"flagged: {int(flagged.sum())}; of them planted: {int((flagged & planted).sum())} "
      f"of {int(planted.sum())}; flagged but not planted: {int((flagged & ~planted).sum())}")

# %%
# Reading the evidence for one person
# -----------------------------------
# ``report`` lists, for each flagged row, its testers (row positions in the
# fitted data), their weights (1: taken for certain; below 1: one of a tie
# group of equally similar records, of which only some can be testers) and
# the decisions they received: the evidence a person can check.
report = auditor.report(X, y)
case = next(entry for entry in report if planted[entry["row"]])
row = case["row"]
print("the person:", X.iloc[row].to_dict(), "decision:", int(y.iloc[row]))
print(f"p1 = {case['p1']:.2f} (testers with s0 = 0), p2 = {case['p2']:.2f} (testers with "
      f"s0 = 1), diff = {case['diff']:.2f}, lower bound {case['diff_lower']:.2f}")
testers = X.iloc[case["testers_unprotected"][:5]].assign(
    decision=case["decisions_unprotected"][:5])
print("first five testers outside the protected group:")
print(testers.to_string())

# %%
# The testers share the person's values of ``Q`` (``x0, x1, x2``) as far as
# possible and differ elsewhere.
#
# CBN-DD against KNN-DD
# ---------------------
# KNN-DD compares people on every non-protected attribute, the irrelevant ones
# included.
results = {}
for method in ("cbn", "knn"):
    audit = SituationTestingAuditor(protected="s0", protected_value=1, method=method, k=30,
                                    random_state=0).fit(X, y)
    mask = audit.flag(X, y)
    results[method.upper() + "-DD"] = {
        "flagged": int(mask.sum()),
        "planted found": int((mask & planted).sum()),
        "flagged, not planted": int((mask & ~planted).sum()),
    }
print(pd.DataFrame(results).T.to_string())

# %%
# The distribution of ``diff`` for the candidates (protected, negative
# decision): the planted cases should stand above ``tau``.
candidates = (X["s0"] == 1).to_numpy() & (y == 0).to_numpy()
fig, ax = plt.subplots()
bins = np.linspace(-1, 1, 41)
ax.hist(scores["diff"][candidates & planted], bins=bins, alpha=0.7, label="planted cases")
ax.hist(scores["diff"][candidates & ~planted], bins=bins, alpha=0.7,
        label="other protected rows with a negative decision")
ax.axvline(0.05, color="k", linestyle="--", label="tau = 0.05")
ax.set_xlabel("diff = p1 - p2 (CBN-DD)")
ax.set_ylabel("rows")
ax.legend()
plt.show()
