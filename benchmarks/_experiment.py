"""One fold of the HFM paper's evaluation protocol (section 4.1), shared by scripts.

Per fold: the preprocessor (``make_paper_preprocessor``) is fitted on the
training rows; the learner sees the scaled, one-hot features and the sensitive
attributes as ordinal codes (as in the authors' code); on the test rows we
measure the performance, the performance on the *disturbed* test rows (the
authors' perturbation: each sensitive value is switched with probability
``RATIO``, an unprivileged value to the privileged one and the privileged one to
a random unprivileged one; all attributes at once), DP / EO / PQP per attribute
(privileged against the rest, as the authors compute them), DR, and HFM
(``df``, ``df_avg``) per attribute and over all attributes, in base 10 like the
paper's tables.
"""

import numpy as np

RATIO = 0.97  # the authors' run script (findings "..._r97_...")
N_ESTIMATORS = 7  # the authors' run script: --nb-cls 7


def make_learner(name, seed):
    from lightgbm import LGBMClassifier
    from sklearn.ensemble import AdaBoostClassifier, BaggingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.svm import SVC, LinearSVC
    from sklearn.tree import DecisionTreeClassifier

    factories = {
        "LightGBM": lambda: LGBMClassifier(n_estimators=N_ESTIMATORS, random_state=seed,
                                           verbose=-1, n_jobs=1),
        "bagging": lambda: BaggingClassifier(n_estimators=N_ESTIMATORS, random_state=seed),
        "AdaBoost": lambda: AdaBoostClassifier(n_estimators=N_ESTIMATORS, random_state=seed),
        "DT": lambda: DecisionTreeClassifier(random_state=seed),
        "NB": lambda: GaussianNB(),
        "KNN": lambda: KNeighborsClassifier(),
        "LR": lambda: LogisticRegression(max_iter=1000),
        "SVM": lambda: SVC(random_state=seed),
        "linSVM": lambda: LinearSVC(random_state=seed),
        "MLP": lambda: MLPClassifier(hidden_layer_sizes=(32,), max_iter=300,
                                     random_state=seed),
    }
    return factories[name]()


def perturb_codes(codes, privileged_codes, rng, ratio=RATIO):
    """The authors' perturbation of sensitive codes (all attributes, independently)."""
    out = codes.copy()
    for j, p in enumerate(privileged_codes):
        values = np.unique(codes[:, j])
        others = values[values != p]
        hit = rng.random(len(codes)) < ratio
        is_priv = codes[:, j] == p
        new = np.where(is_priv, rng.choice(others, size=len(codes)), p)
        out[:, j] = np.where(hit, new, codes[:, j])
    return out


def performance(y, y_pred):
    from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score

    tn = np.sum((y == 0) & (y_pred == 0))
    fp = np.sum((y == 0) & (y_pred == 1))
    return {
        "accuracy": 100 * accuracy_score(y, y_pred),
        "f1": 100 * f1_score(y, y_pred, zero_division=0),
        "precision": 100 * precision_score(y, y_pred, zero_division=0),
        "recall": 100 * recall_score(y, y_pred, zero_division=0),
        "specificity": 100 * (tn / (tn + fp) if tn + fp else 0.0),
    }


def encode(bunch):
    """Sensitive codes (sorted values) and the privileged value's code per attribute."""
    from skfair_manifold.utils._validation import encode_sensitive

    codes, names, groups = encode_sensitive(bunch.sensitive[bunch.sensitive_features],
                                            len(bunch.sensitive))
    privileged = [int(np.flatnonzero(values == bunch.privileged[s])[0])
                  for s, values in zip(names, groups)]
    return np.column_stack(codes), privileged


def run_fold(bunch, codes, privileged, train, test, learner, seed, *, hfm_method="exact"):
    """Everything the tables and figures need for one learner on one fold."""
    from skfair_manifold.datasets import make_paper_preprocessor
    from skfair_manifold.metrics import (
        LOG10_FACTOR,
        discriminative_risk,
        fairness_report,
        hfm_report,
    )

    rng = np.random.default_rng(seed)
    target = bunch.target.to_numpy()
    pre = make_paper_preprocessor(bunch.numerical_features, bunch.categorical_features,
                                  sensitive_features=bunch.sensitive_features)
    X_train = pre.fit_transform(bunch.data.iloc[train])
    X_test = pre.transform(bunch.data.iloc[test])
    d = X_train.shape[1]
    XA_train = np.hstack([X_train, codes[train]])
    XA_test = np.hstack([X_test, codes[test]])
    model = learner.fit(XA_train, target[train])
    y, y_pred = target[test], model.predict(XA_test)
    A_test = codes[test]
    XA_dist = np.hstack([X_test, perturb_codes(A_test, privileged, rng)])
    y_dist = model.predict(XA_dist)

    rec = {"n_test": len(test)}
    perf, perf_dist = performance(y, y_pred), performance(y, y_dist)
    rec.update(perf)
    rec.update({f"delta_{k}": abs(perf[k] - perf_dist[k]) for k in perf})
    sens_cols = list(range(d, d + codes.shape[1]))
    rec["DR"] = discriminative_risk(model, XA_test, sensitive=sens_cols, ratio=RATIO,
                                    privileged=privileged, aggregate="joint",
                                    random_state=seed)
    rec["DR_each"] = [
        discriminative_risk(model, XA_test, sensitive=[c], ratio=RATIO,
                            privileged=[p], random_state=seed)
        for c, p in zip(sens_cols, privileged)
    ]
    # DP / EO / PQP: privileged against the rest, as in the authors' code.
    # One fairness_report gives the three gaps of every attribute.
    binary = (A_test == np.asarray(privileged)[None, :]).astype(int)
    gaps = fairness_report(y, y_pred, sensitive_features=binary, pos_label=1).gaps
    gaps = gaps.iloc[:codes.shape[1]]  # one row per attribute, "all attributes" left out
    rec["DP"] = gaps["demographic_parity_difference"].tolist()
    rec["EO"] = gaps["equal_opportunity_difference"].tolist()
    rec["PQP"] = gaps["predictive_quality_parity_difference"].tolist()
    report = hfm_report(y, y_pred, X=X_test, sensitive_features=A_test, method=hfm_method,
                        scale=False, random_state=seed, n_jobs=1)
    rec["df"] = report.hfm_max * LOG10_FACTOR
    rec["df_avg"] = report.hfm_avg * LOG10_FACTOR
    rec["df_each"] = list(report.per_attribute.hfm_max * LOG10_FACTOR)
    rec["df_avg_each"] = list(report.per_attribute.hfm_avg * LOG10_FACTOR)
    return rec
