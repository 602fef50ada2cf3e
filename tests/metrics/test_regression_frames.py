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
        assert lazy.gaps["ks_distance"].isna().all()  # the distributions need the rows
        assert "need the rows" in lazy.warnings[0]
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
