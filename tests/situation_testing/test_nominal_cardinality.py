"""A nominal column of many values is refused by name, with the fix, on every path.

100,000 codes in 200,000 rows made the learned graph's CMH test allocate
74.5 GiB, KNN-DD compare every person with every record for 25 minutes and
``algorithm="kd_tree"`` allocate 82 GiB. The decisions are checked here at
small sizes: a working memory of 1 MiB (``sklearn.config_context``) or a
smaller comparison budget stands in for the large table.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn import config_context

from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.situation_testing._selection import _cardinality, _cbn


def _table(n, values, seed=0, continuous=False):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"zip": rng.integers(0, values, n).astype(str),
                      "a": rng.integers(0, 3, n), "sex": rng.integers(0, 2, n)})
    if continuous:
        X["x"] = rng.normal(size=n)
    return X, rng.integers(0, 2, n)


@pytest.mark.filterwarnings("ignore:the causal graph has no arc")
def test_the_structure_search_refuses_a_column_beyond_the_working_memory():
    X, y = _table(3000, 300)
    est = SituationTestingAuditor(protected="sex", protected_value=1, method="cbn")
    with config_context(working_memory=1):  # 1 MiB: at most 181 values
        assert _cardinality.cmh_limit() == 181
        with pytest.raises(ValueError, match=r"column 'zip' has 300 values in 3,000 rows: "
                           r"the structure search's Cochran-Mantel-Haenszel") as info:
            est.fit(X, y)
    assert "Pass graph=" in str(info.value) and "at most 181" in str(info.value)
    # the default working memory: 300 values are tested (the limit is 500)
    assert SituationTestingAuditor(protected="sex", protected_value=1,
                                   method="cbn").fit(X, y).q_ is not None
    # a given graph needs no search
    with config_context(working_memory=1):
        SituationTestingAuditor(protected="sex", protected_value=1, method="cbn",
                                graph=["a", "sex"]).fit(X, y)


def test_the_lazy_path_s_structure_search_refuses_it_too():
    duckdb = pytest.importorskip("duckdb")
    X, y = _table(3000, 300)
    frame = X.assign(y=y)
    relation = duckdb.from_df(frame)
    est = SituationTestingAuditor(protected="sex", protected_value=1, method="cbn")
    with config_context(working_memory=1):
        with pytest.raises(ValueError, match="column 'zip' has 300 values"):
            est.fit(relation, "y")


def test_knn_refuses_a_column_that_turns_its_index_off_above_the_budget(monkeypatch):
    X, y = _table(9000, 100, continuous=True)  # about one record per row: > 4096 a side
    monkeypatch.setattr(_cardinality, "BRUTE_PAIRS", 1e6)
    with pytest.raises(ValueError, match=r"column 'zip' is nominal with 100 values in 9,000 "
                       r"rows: KNN-DD's exact index takes at most 48 columns") as info:
        SituationTestingAuditor(protected="sex", protected_value=1, method="knn",
                                k=5).fit(X, y)
    assert "algorithm='brute'" in str(info.value) and "8.1e+07 comparisons" in str(info.value)
    # asked for: every pair compared; without the column the index is used
    SituationTestingAuditor(protected="sex", protected_value=1, method="knn", k=5,
                            algorithm="brute").fit(X, y)
    SituationTestingAuditor(protected="sex", protected_value=1, method="knn",
                            k=5).fit(X.drop(columns="zip"), y)
    # a nominal column of few values keeps the index
    SituationTestingAuditor(protected="sex", protected_value=1, method="knn",
                            k=5).fit(X.assign(zip=X["zip"].str[:1]), y)


def test_kd_tree_refuses_an_embedding_beyond_the_working_memory():
    X, y = _table(3000, 300, continuous=True)
    est = SituationTestingAuditor(protected="sex", protected_value=1, method="knn", k=5,
                                  algorithm="kd_tree")
    with config_context(working_memory=1):
        with pytest.raises(ValueError, match=r"column 'zip' is nominal with 300 values in "
                           r"3,000 rows: algorithm='kd_tree' embeds it in 301 one-hot "
                           r"columns.*more than the working memory"):
            est.fit(X, y)
    est.fit(X, y)  # 1 GiB holds it
    # the index of thousands of one-hot columns: refused whatever the memory
    X, y = _table(3000, 2000, continuous=True)
    with pytest.raises(ValueError, match="in more than 1,024 dimensions a KD-tree"):
        est.fit(X, y)


def test_cbn_s_table_of_effects_names_the_column_of_most_values(monkeypatch):
    X, y = _table(3000, 300)
    monkeypatch.setattr(_cbn, "_MAX_MIXTURE_CELLS", 10_000)
    with pytest.raises(ValueError, match=r"column 'zip' has 300 of them\); give fewer or "
                       r"coarser parents: leave that column out"):
        SituationTestingAuditor(protected="sex", protected_value=1, method="cbn",
                                graph=["zip", "a", "sex"]).fit(X, y)
