"""The continuous report on lazy frames equals the one on the rows in memory."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from skfair_manifold.metrics import fairness_report

pd = pytest.importorskip("pandas")


def table(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"sex": rng.choice(["f", "m"], n),
                          "region": rng.choice([9, 10, 11], n)})  # numbers sort as numbers
    frame["y"] = rng.lognormal(10.4, 0.35, n)  # wages: large values, small spread
    frame["p"] = frame.y * np.where(frame.sex == "f", 0.9, 1.0) * rng.lognormal(0, 0.08, n)
    frame["w"] = rng.uniform(0.5, 2.0, n)
    return frame


def lazy_frames(frame):
    out = []
    try:
        import polars as pl

        out.append(("polars", pl.from_pandas(frame).lazy()))
    except ImportError:  # pragma: no cover - polars is a dev dependency
        pass
    try:
        import duckdb

        out.append(("duckdb", duckdb.from_df(frame)))
    except ImportError:  # pragma: no cover
        pass
    try:
        import dask.dataframe as dd

        out.append(("dask", dd.from_pandas(frame, npartitions=3)))
    except ImportError:  # pragma: no cover - dask is an optional extra
        pass
    return out


def numbers(frame):
    keep = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])
            and not pd.api.types.is_bool_dtype(frame[c])]
    return frame[keep].to_numpy(dtype=np.float64)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("intersect", [False, True])
def test_lazy_frames_give_the_in_memory_report(weighted, intersect):
    frame = table()
    kw = dict(intersect=intersect, min_group_size=5)
    memory = fairness_report(frame.y, frame.p, sensitive_features=frame[["sex", "region"]],
                             sample_weight=frame.w if weighted else None, **kw)
    for name, data in lazy_frames(frame):
        lazy = fairness_report("y", "p", sensitive_features=["sex", "region"], data=data,
                               sample_weight="w" if weighted else None,
                               target_type="continuous", **kw)
        assert list(lazy.by_group.index) == list(memory.by_group.index), name
        assert_allclose(numbers(lazy.by_group), numbers(memory.by_group), rtol=1e-9)
        assert_allclose(numbers(lazy.intervals.by_group), numbers(memory.intervals.by_group),
                        rtol=1e-9)
        gaps = [c for c in memory.gaps.columns if not c.startswith(("ks_", "wasserstein_"))]
        assert_allclose(numbers(lazy.gaps[gaps]), numbers(memory.gaps[gaps]), rtol=1e-9)
        assert (lazy.gaps["mean_prediction_group_low"]
                == memory.gaps["mean_prediction_group_low"]).all()
        # the KS distance exactly, from counts in bins; Wasserstein needs the rows
        ks = [c for c in memory.gaps.columns if c.startswith("ks_")]
        assert_allclose(numbers(lazy.gaps[ks]), numbers(memory.gaps[ks]), rtol=1e-12)
        assert (lazy.gaps["ks_distance_group"].astype(str)
                == memory.gaps["ks_distance_group"].astype(str)).all(), name
        assert lazy.gaps["wasserstein_distance"].isna().all()
        assert "needs the rows" in lazy.warnings[0]
        assert lazy.headline == memory.headline
        assert lazy.options["label_column"] == "y"


def test_lazy_frames_refuse_missing_and_text_values_naming_the_column():
    frame = table(n=200)
    missing = frame.assign(p=frame.p.where(frame.index != 3))
    text = frame.assign(p=frame.p.astype(str))
    for label, bad, match in (("missing", missing, "y_pred column 'p' holds 1 missing"),
                              ("text", text, "y_pred column 'p' must hold numbers")):
        for name, data in lazy_frames(bad):
            with pytest.raises(ValueError, match=match):
                fairness_report("y", "p", sensitive_features="sex", data=data,
                                target_type="continuous")
    negative = frame.assign(w=-frame.w)
    for name, data in lazy_frames(negative):
        with pytest.raises(ValueError, match="sample_weight column 'w' must hold finite"):
            fairness_report("y", "p", sensitive_features="sex", data=data,
                            sample_weight="w", target_type="continuous")


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_spark_gives_the_in_memory_report(spark):
    frame = table(n=1000)
    memory = fairness_report(frame.y, frame.p, sensitive_features=frame[["sex", "region"]],
                             sample_weight=frame.w, min_group_size=5)
    lazy = fairness_report("y", "p", sensitive_features=["sex", "region"],
                           data=spark.createDataFrame(frame), sample_weight="w",
                           target_type="continuous", min_group_size=5)
    assert_allclose(numbers(lazy.by_group), numbers(memory.by_group), rtol=1e-9)
    assert lazy.headline == memory.headline
    ks = ["ks_distance"]
    assert_allclose(numbers(lazy.gaps[ks]), numbers(memory.gaps[ks]), rtol=1e-12)


def _ks_cases():
    rng = np.random.default_rng(7)
    n = 4000
    sex = rng.choice(["f", "m", "x"], n, p=[0.45, 0.45, 0.1])
    cases = {
        # few distinct values: ties everywhere, resolved at the first pass
        "ties": np.round(rng.normal(0, 1, n), 1),
        # a heavy tail: most values in one bin of the first pass, several passes
        "tail": rng.lognormal(0, 3, n) * np.where(sex == "f", 1.2, 1.0),
        # one value taken by half the rows, the rest spread
        "spike": np.where(rng.random(n) < 0.5, 3.0, rng.normal(3, 1e-9, n)),
        "constant": np.full(n, 2.5),
    }
    return sex, cases


@pytest.mark.parametrize("case", ["ties", "tail", "spike", "constant"])
def test_lazy_ks_is_exact_on_hard_distributions(case):
    """Against the in-memory sort: ties, a heavy tail, a spike, one value; weighted."""
    duckdb = pytest.importorskip("duckdb")
    sex, cases = _ks_cases()
    p = cases[case]
    frame = pd.DataFrame({"sex": sex, "y": p + 1.0, "p": p,
                          "w": np.random.default_rng(1).uniform(0.2, 3.0, p.shape[0])})
    for weight in (None, "w"):
        memory = fairness_report(frame.y, frame.p, sensitive_features=frame["sex"],
                                 sample_weight=None if weight is None else frame.w,
                                 min_group_size=5)
        lazy = fairness_report("y", "p", sensitive_features="sex", data=duckdb.from_df(frame),
                               sample_weight=weight, target_type="continuous",
                               min_group_size=5)
        assert_allclose(lazy.gaps["ks_distance"], memory.gaps["ks_distance"], rtol=1e-12,
                        atol=1e-12)  # the in-memory sums leave 1e-15 where both are 0


def test_lazy_ks_unresolved_is_left_undefined_and_said(monkeypatch):
    import polars as pl

    from skfair_manifold.metrics._regression import _frame_ks as _frame_distances

    for name, value in (("LEVEL_BITS", 1), ("MAX_LEVEL", 2), ("EXACT_ROWS", 0)):
        monkeypatch.setattr(_frame_distances, name, value)
    frame = table(n=2000)
    lazy = fairness_report("y", "p", sensitive_features=["sex"], data=pl.from_pandas(frame).lazy(),
                           target_type="continuous")
    assert lazy.gaps["ks_distance"].isna().all()
    assert any("could not be resolved" in w for w in lazy.warnings)


@pytest.mark.parametrize("exact_rows, expected", [(200, [(1, False), (2, False), (3, False)]),
                                                  (10 ** 6, [(1, False), (1, True)])])
def test_lazy_ks_refines_bins_until_exact(monkeypatch, exact_rows, expected):
    """Small bins force passes at finer levels, or the values of the uncertain bins read
    one by one; the result is the in-memory distance all the same."""
    duckdb = pytest.importorskip("duckdb")
    from skfair_manifold.metrics._regression import _frame_ks as _frame_distances

    for name, value in (("LEVEL_BITS", 3), ("MAX_LEVEL", 16), ("EXACT_ROWS", exact_rows)):
        monkeypatch.setattr(_frame_distances, name, value)
    counted = []
    count = _frame_distances._count
    monkeypatch.setattr(_frame_distances, "_count",
                        lambda *a: counted.append((a[6], a[8])) or count(*a))
    sex, cases = _ks_cases()
    frame = pd.DataFrame({"sex": sex, "y": cases["tail"], "p": cases["tail"]})
    memory = fairness_report(frame.y, frame.p, sensitive_features=frame["sex"])
    for name, data in [("duckdb", duckdb.from_df(frame))] + lazy_frames(frame):
        counted.clear()
        lazy = fairness_report("y", "p", sensitive_features="sex", data=data,
                               target_type="continuous")
        assert counted[:len(expected)] == expected, name
        assert_allclose(lazy.gaps["ks_distance"], memory.gaps["ks_distance"], rtol=1e-12,
                        err_msg=name)
