"""``make demo``: the whole package on data it makes itself.

1. Generate decisions with planted discrimination and its ground truth
   (:func:`~skfair_manifold.datasets.make_biased_decisions`).
2. Train a few models on half of the rows; on the other half print their
   accuracy, HFM (max and avg) and the baselines (DP, EO, PQP, DR).
3. Pick the best trade-off: the fairest model by HFM avg among those within
   one point of accuracy of the most accurate.
4. Audit every decision by situation testing (CBN-DD, then KNN-DD) and count
   how many of the planted cases each finds.

Only the core dependencies are needed (numpy, scipy, scikit-learn, pandas).
"""

import sys
import textwrap
import time

from skfair_manifold.datasets import make_biased_decisions
from skfair_manifold.metrics import fairness_report
from skfair_manifold.situation_testing import SituationTestingAuditor

ACCURACY_SLACK = 0.01  # "within one point of the best accuracy"
K_TESTERS = 50
TAU = 0.05


def _models(n_features, n_sensitive):
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    sensitive = list(range(n_features, n_features + n_sensitive))

    def blind(estimator):
        # The model never reads the sensitive columns, but receives them, so
        # that the discriminative risk can perturb them (and find nothing).
        drop = ColumnTransformer([("sensitive", "drop", sensitive)], remainder="passthrough")
        return make_pipeline(drop, estimator)

    def logistic():
        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))

    def tree():
        return DecisionTreeClassifier(max_depth=8, min_samples_leaf=10, random_state=0)

    return {
        "logistic regression": logistic(),
        "logistic regression, blind": blind(logistic()),
        "decision tree": tree(),
        "decision tree, blind": blind(tree()),
    }


def _measure(name, model, X_test, y_test, sensitive, seed):
    """Accuracy and one :func:`~skfair_manifold.metrics.fairness_report` of ``model``."""
    import numpy as np

    y_pred = model.predict(X_test)
    report = fairness_report(y_test, y_pred, sensitive_features=sensitive, X=X_test,
                             estimator=model, hfm_options={"method": "exact"},
                             random_state=seed)
    worst = report.gaps.loc["all attributes"]
    return {
        "model": name,
        "accuracy": float(np.mean(y_pred == y_test)),
        "hfm_max": float(report.hfm.loc["all attributes", "hfm_max"]),
        "hfm_avg": float(report.hfm.loc["all attributes", "hfm_avg"]),
        "dp": float(worst["demographic_parity_difference"]),
        "eo": float(worst["equal_opportunity_difference"]),
        "pqp": float(worst["predictive_quality_parity_difference"]),
        "dr": float(report.dr["all attributes"]),
        "report": report,
    }


def _best_tradeoff(rows):
    best_accuracy = max(r["accuracy"] for r in rows)
    eligible = [r for r in rows if r["accuracy"] >= best_accuracy - ACCURACY_SLACK]
    return min(eligible, key=lambda r: (r["hfm_avg"], -r["accuracy"]))


def run_demo(*, n_samples=6000, seed=0, out=None):
    """Run the demo and print to ``out`` (standard output by default)."""
    import numpy as np
    from sklearn.model_selection import train_test_split

    out = sys.stdout if out is None else out
    start = time.perf_counter()

    def say(text=""):
        print(text, file=out, flush=True)

    # 1. Data -----------------------------------------------------------------
    data = make_biased_decisions(n_samples, proxy=0.5, random_state=seed)
    F, A, y = data.data, data.sensitive, data.target
    n_features, n_sensitive = F.shape[1], A.shape[1]
    groups = ", ".join(f"{name} ({len(np.unique(A[:, k]))} groups)"
                       for k, name in enumerate(data.sensitive_names))
    by_ground = ", ".join(f"{name}: {int(c)}" for name, c in
                          zip(data.sensitive_names, data.discriminated_by.sum(axis=0)))
    say("skfair_manifold demo: decisions with planted discrimination")
    say("=" * 60)
    say(textwrap.fill(
        f"{n_samples} people; features {', '.join(data.feature_names)} (only "
        f"{', '.join(data.informative)} decide the fair decision; {', '.join(data.proxies)} "
        f"is a proxy of {data.sensitive_names[0]}); sensitive attributes {groups}, group 0 "
        f"privileged. A prejudiced decision maker turned {int(data.discriminated.sum())} "
        f"deserved positive decisions negative ({by_ground}): the planted cases.", 88))
    say()

    # 2. Models ---------------------------------------------------------------
    X = np.hstack([F, A]).astype(np.float64)
    sensitive = list(range(n_features, n_features + n_sensitive))
    idx_train, idx_test = train_test_split(np.arange(n_samples), test_size=0.5,
                                           random_state=seed, stratify=y)
    rows = []
    for name, model in _models(n_features, n_sensitive).items():
        model.fit(X[idx_train], y[idx_train])
        rows.append(_measure(name, model, X[idx_test], y[idx_test], sensitive, seed))
    say(f"1. Four models trained on {len(idx_train)} rows, measured on the other "
        f"{len(idx_test)}")
    say("   (lower is fairer for every measure; 'blind' models never read the sensitive "
        "columns):")
    header = (f"   {'model':<28}{'accuracy':>9}{'HFM max':>9}{'HFM avg':>9}"
              f"{'DP':>7}{'EO':>7}{'PQP':>7}{'DR':>7}")
    say(header)
    say("   " + "-" * (len(header) - 3))
    for r in rows:
        say(f"   {r['model']:<28}{r['accuracy']:>9.3f}{r['hfm_max']:>9.3f}"
            f"{r['hfm_avg']:>9.3f}{r['dp']:>7.3f}{r['eo']:>7.3f}{r['pqp']:>7.3f}"
            f"{r['dr']:>7.3f}")
    say(textwrap.fill(
        "HFM = log(D_f / D), natural log, exact distances: above 0 the model pulls the groups "
        "further apart than the labels do. DP, EO, PQP: the largest gap between groups over "
        "the three attributes. DR: the share of predictions that change when the sensitive "
        "attributes change.", 88, initial_indent="   ", subsequent_indent="   "))
    say()

    # 3. Best trade-off -------------------------------------------------------
    best = _best_tradeoff(rows)
    per_attribute = best["report"].hfm["hfm_avg"].to_numpy()[:n_sensitive]
    worst = data.sensitive_names[int(np.nanargmax(per_attribute))]
    say(f"2. Best trade-off: {best['model']!r}, the lowest HFM avg ({best['hfm_avg']:.3f}) "
        f"among the models")
    say(f"   within {ACCURACY_SLACK * 100:.0f} point of the best accuracy (its accuracy: "
        f"{best['accuracy']:.3f}).")
    say("   Its HFM avg per attribute: " + ", ".join(
        f"{name} {value:.3f}" for name, value in zip(data.sensitive_names, per_attribute))
        + f"; the least fair is {worst}.")
    say()

    # 4. Audit ----------------------------------------------------------------
    protected = data.sensitive_names[0]
    planted = int(data.discriminated_by[:, 0].sum())
    say(f"3. Situation testing of all {n_samples} decisions. A person with {protected} = 1 and "
        f"a negative")
    say(f"   decision is flagged when the {K_TESTERS} most similar people with {protected} = 0 "
        f"got positive")
    say(f"   decisions more often than the {K_TESTERS} most similar with {protected} = 1, "
        f"by more than")
    say(f"   tau = {TAU}, and an exact test of the gap keeps the false discovery rate across")
    say("   the audit at 10% (q_value <= 0.1, Benjamini-Hochberg: flag_rule='exact', the")
    say("   default).")
    say(f"   Ground truth: {planted} planted cases on {protected}.")
    say(f"   {'method':<8}{'flagged':>9}{'planted cases found':>22}{'precision':>11}"
        f"{'seconds':>9}")
    audits = [_audit(data, method=method, seed=seed) for method in ("cbn", "knn")]
    for audit in audits:
        say(f"   {audit['method'].upper() + '-DD':<8}{audit['flagged']:>9}"
            f"{audit['found']:>11} of {planted} ({audit['recall']:.0%})"
            f"{audit['precision']:>10.0%}{audit['seconds']:>9.1f}")
    cbn = audits[0]
    say(textwrap.fill(
        f"CBN-DD compared people only on the decision's causes it learned from the data, "
        f"Q = {{{', '.join(cbn['q'])}}}; KNN-DD on every attribute. Precision: the share of "
        f"flagged rows that are planted cases (on any ground).", 88,
        initial_indent="   ", subsequent_indent="   "))
    say(f"   Found {cbn['found']} of the {planted} planted cases with CBN-DD.")
    say()
    say(f"Demo finished in {time.perf_counter() - start:.1f} s.")
    return 0


def _audit(data, *, method, seed):
    """Audit every decision of ``data`` for discrimination on its first attribute."""
    import numpy as np

    protected = data.sensitive_names[0]
    X = np.hstack([data.data, data.sensitive])
    names = data.feature_names + data.sensitive_names
    y = data.target
    t0 = time.perf_counter()
    auditor = SituationTestingAuditor(protected=names.index(protected), protected_value=1,
                                      method=method, k=K_TESTERS, tau=TAU, positive_label=1,
                                      random_state=seed)
    auditor.fit(X, y)
    flagged = np.asarray(auditor.flag(X, y), dtype=bool)
    seconds = time.perf_counter() - t0
    planted = data.discriminated_by[:, 0]
    found = int(np.sum(flagged & planted))
    flagged_any = int(np.sum(flagged & data.discriminated))
    return {
        "method": method,
        "flagged": int(flagged.sum()),
        "found": found,
        "recall": found / max(int(planted.sum()), 1),
        "precision": flagged_any / max(int(flagged.sum()), 1),
        "q": [names[i] for i in auditor.q_],
        "seconds": seconds,
    }
