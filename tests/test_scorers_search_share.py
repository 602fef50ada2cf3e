"""The two HFM scorers of one search: the shared work runs once per call, values unchanged."""

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.tree import DecisionTreeClassifier

from skfair_manifold.distances._testing import reuse_cache
from skfair_manifold.scorers import _hfm_reuse, hfm_avg_scorer, hfm_max_scorer
from skfair_manifold.utils import _pipeline

CV = StratifiedKFold(3, shuffle=True, random_state=0)
GRID = {"decisiontreeclassifier__max_depth": [2, 4, 6]}


@pytest.fixture
def tied():
    """Integer codes with ties and repeated rows; attributes of 2 and 4 values."""
    rng = np.random.default_rng(0)
    n = 450
    X = rng.integers(0, 5, (n, 6)).astype(float)
    X[:60] = X[60:120]
    A = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 4, n)])
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, n) > 5).astype(int)
    return X, A, y


@pytest.fixture
def counted(monkeypatch):
    """Counts of the HFM reports and of the pipeline transforms of the scorers."""
    calls = {"report": 0, "transform": 0}
    report, transformed = _hfm_reuse.scorer_report, _hfm_reuse.transformed_features

    def count_report(*a, **k):
        calls["report"] += 1
        return report(*a, **k)

    def count_transform(*a, **k):
        calls["transform"] += 1
        return transformed(*a, **k)

    monkeypatch.setattr(_hfm_reuse, "scorer_report", count_report)
    monkeypatch.setattr(_hfm_reuse, "transformed_features", count_transform)
    return calls


def search(X, y, A, scoring):
    model = make_pipeline(MinMaxScaler(), DecisionTreeClassifier(random_state=0))
    gs = GridSearchCV(model, GRID, scoring=scoring, cv=CV, refit=False)
    with sklearn.config_context(enable_metadata_routing=True):
        gs.fit(X, y, sensitive_features=A)
    return gs.cv_results_


def test_both_scorers_share_one_pass_per_candidate(tied, counted):
    X, A, y = tied
    store = reuse_cache()
    store.clear()
    both = search(X, y, A, {"acc": "accuracy", "avg": hfm_avg_scorer, "max": hfm_max_scorer})
    fits = len(GRID["decisiontreeclassifier__max_depth"]) * CV.get_n_splits()
    # the second scorer of each (candidate, fold) reads the first's report
    assert counted == {"report": fits, "transform": fits}
    # each scorer alone, and without the cache of distances: the same values bit for bit
    budget = store.budget
    store.budget = 0
    try:
        alone = {**search(X, y, A, {"avg": hfm_avg_scorer}),
                 **search(X, y, A, {"max": hfm_max_scorer})}
    finally:
        store.budget = budget
        store.clear()
    for kind in ("avg", "max"):
        for split in range(CV.get_n_splits()):
            key = f"split{split}_test_{kind}"
            assert np.array_equal(both[key], alone[key]), key


def test_a_refitted_estimator_is_scored_afresh(tied, monkeypatch):
    """Scorer by scorer on one estimator object refitted: no value from before the refit."""
    X, A, y = tied
    train, test = next(CV.split(X, y))
    model = make_pipeline(MinMaxScaler(), DecisionTreeClassifier(random_state=0))
    values = []
    for Xf, depth in ((X, 2), (X * [1, 2, 3, 1, 1, 1], 2), (X, 6)):
        model.set_params(decisiontreeclassifier__max_depth=depth).fit(Xf[train], y[train])
        got = [s(model, Xf[test], y[test], sensitive_features=A[test])
               for s in (hfm_avg_scorer, hfm_max_scorer)]
        fresh = make_pipeline(MinMaxScaler(), DecisionTreeClassifier(
            random_state=0, max_depth=depth)).fit(Xf[train], y[train])
        monkeypatch.setattr(_pipeline._TRANSFORMED, "budget", 0)  # nothing kept
        reuse_cache().clear()
        ref = [s(fresh, Xf[test], y[test], sensitive_features=A[test])
               for s in (hfm_avg_scorer, hfm_max_scorer)]
        monkeypatch.undo()
        assert got == ref, depth
        values.append(got)
    assert values[0] != values[1] or values[1] != values[2]  # the refits changed something
