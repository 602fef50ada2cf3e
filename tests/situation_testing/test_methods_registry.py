"""The registry of methods: the auditor looks the method up, a third one can be added."""

import numpy as np
import pandas as pd
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from skfair_manifold.situation_testing import (
    SituationTestingAuditor,
    register_method,
    unregister_method,
)
from skfair_manifold.situation_testing._selection._methods import (
    METHODS,
    CBNMethod,
    CellRows,
    KNNMethod,
)


class ExactMatch:
    """A toy third method: the testers are every fitted record with the same values on
    every compared column (weight 1), the person's own record left out; k is ignored."""

    title = "exact matching"

    def __init__(self, data):
        records, units = data.records, data.units
        self.q = [j for j in range(records.Z.shape[1]) if j != data.protected_index]
        self.graph, self.structure_info, self.protected_arc = None, {}, None
        self.bytes_per_pair = 8
        self.columns, self.records = data.columns, records
        self.profiles, prof = np.unique(records.Z[:, self.q], axis=0, return_inverse=True)
        self.row_prof = prof.reshape(-1)
        side = data.group.astype(np.intp)
        seg = self.row_prof * 2 + side
        self.seg_rows = np.argsort(seg, kind="stable")
        self.seg_bounds = np.searchsorted(seg[self.seg_rows], np.arange(2 * len(self.profiles) + 1))
        L = len(self.profiles)
        self.n = np.zeros((L, 2))
        self.npos = np.zeros((L, 2))
        np.add.at(self.n, (self.row_prof, side), 1.0)
        np.add.at(self.npos, (self.row_prof, side), data.positive.astype(float))
        first = units.first_row
        self.unit_side = side[first]
        self.unit_pos = data.positive[first].astype(float)

    def query(self, Z):
        return Z[:, self.q]

    def _profile(self, Q):
        hit = {row.tobytes(): i for i, row in enumerate(self.profiles + 0.0)}
        return np.array([hit.get(np.ascontiguousarray(r + 0.0).tobytes(), -1) for r in Q])

    def rates(self, Q, self_unit, k, *, n_jobs=None, cells=False):
        prof = self._profile(Q)
        n = np.where(prof[:, None] >= 0, self.n[np.maximum(prof, 0)], 0.0)
        pos = np.where(prof[:, None] >= 0, self.npos[np.maximum(prof, 0)], 0.0)
        me = np.flatnonzero(self_unit >= 0)
        s = self.unit_side[self_unit[me]]
        n[me, s] -= 1.0
        pos[me, s] -= self.unit_pos[self_unit[me]]
        out = [pos, n, n.copy()]
        if cells:
            rows = np.flatnonzero(prof >= 0)
            q_, side = np.repeat(rows, 2), np.tile([0, 1], rows.shape[0])
            keep = n[q_, side] > 0
            q_, side = q_[keep], side[keep]
            out.append({"query": q_, "side": side, "distance": np.zeros(q_.shape[0]),
                        "weight": np.ones(q_.shape[0]), "n_records": n[q_, side],
                        "n_positive": pos[q_, side], "cell": prof[q_]})
        return tuple(out)

    def pair_distances(self, Qx, Qy):
        return (Qx[:, None, :] != Qy[None, :, :]).any(axis=2).astype(float)

    def cell_rows(self):
        return CellRows(self.seg_rows, self.seg_bounds, sides=2)

    def cell_values(self, cells, y_fit):
        return {str(self.columns[j]): self.records.decode(j, self.profiles[cells, k])
                for k, j in enumerate(self.q)}


@pytest.fixture
def exact_match():
    register_method("exact_match", ExactMatch)
    yield "exact_match"
    unregister_method("exact_match")


def data(n=600, seed=0):
    rng = np.random.RandomState(seed)
    X = pd.DataFrame({"sex": rng.choice(["f", "m"], n),
                      "skill": rng.randint(0, 3, n), "city": rng.choice(["a", "b"], n)})
    y = (rng.rand(n) < 0.2 + 0.25 * X.skill - 0.25 * (X.sex == "f")).astype(int)
    return X, y


def test_the_builtin_methods_are_registered():
    assert METHODS["knn"] is KNNMethod and METHODS["cbn"] is CBNMethod


def test_an_unregistered_method_is_refused():
    X, y = data()
    with pytest.raises(InvalidParameterError, match="method"):
        SituationTestingAuditor(protected="sex", protected_value="f", method="nope",
                                k=5).fit(X, y)


def test_a_name_cannot_be_taken_twice(exact_match):
    with pytest.raises(ValueError, match="already registered"):
        register_method("exact_match", KNNMethod)
    with pytest.raises(ValueError, match="built-in"):
        unregister_method("knn")


def test_a_third_method_audits_like_the_others(exact_match):
    X, y = data()
    est = SituationTestingAuditor(protected="sex", protected_value="f", method=exact_match,
                                  k=5, flag_rule="tau", tau=0.1).fit(X, y)
    assert est.q_ == ["skill", "city"] and est.graph_ is None
    out = est.transform(X)
    # brute force: the rates among the records of the same skill and city, one copy of
    # the person left out (a copy with the negative decision when there is one)
    for i in range(0, len(X), 37):
        same = (X.skill == X.skill[i]) & (X.city == X.city[i])
        for side, col in (("m", 0), ("f", 1)):
            sel = same & (X.sex == side)
            n, pos = sel.sum(), y[sel].sum()
            if X.sex[i] == side:
                negative_copy = (sel & (y == 0)).any()
                n, pos = n - 1, pos - (0 if negative_copy else 1)
            assert out[i, col] == pytest.approx(pos / n)
    mask = est.flag(X, y)
    assert mask.any()
    assert np.array_equal(mask, (X.sex == "f") & (y == 0) & (out[:, 2] > 0.1 + 1e-12))
    report = est.report(X, y)
    assert est._fitted.rate_cache.passes == 1  # report read the rates flag computed
    assert len(report) == mask.sum()
    person = report[0]
    same = (X.skill == X.skill[person.row]) & (X.city == X.city[person.row])
    expected = np.flatnonzero(same & (X.sex == "m"))
    assert np.array_equal(person.testers_unprotected, expected)
    assert report.settings["method_title"] == "exact matching"
    page = report.to_html()  # the evidence page names the method and lists its testers
    assert "exact matching, k = 5" in page
    assert page.count('<section class="sheet"') == len(report)
    assert est.pairwise(X.iloc[:3]).shape == (3, len(X))
