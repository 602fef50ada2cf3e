"""bias_audit: the bounds against enumeration, the table against its definitions, every input path."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from skfair_manifold.metrics import BiasAudit, bias_audit
from skfair_manifold.metrics._audit._bounds import rate_bounds, ratio_bounds
from skfair_manifold.metrics._audit._cells import Entries, characteristic


# --- a plain reference: every placement of the unknown people -----------------------------
def enumerate_bounds(n, s, people, eligible, comparator=None, compatible=None):
    """Smallest and largest rate and impact ratio of each category over every placement
    of the unknown ``people`` (decisions 1, 0 or None: either) among the categories
    they are compatible with (``compatible[i]``: the categories of person i; None: all)."""
    K = len(n)
    rates = np.full((K, 2), np.nan)
    ratios = np.full((K, 2), np.nan)
    options = [range(K) if compatible is None else compatible[i] for i in range(len(people))]
    undecided = [i for i, d in enumerate(people) if d is None]
    for cats in itertools.product(*options):
        for decs in itertools.product([0, 1], repeat=len(undecided)):
            N, S = np.array(n, float), np.array(s, float)
            d = list(people)
            for i, v in zip(undecided, decs):
                d[i] = v
            for c, v in zip(cats, d):
                N[c] += 1
                S[c] += v
            with np.errstate(all="ignore"):
                r = S / N
            for c in range(K):
                if N[c] > 0:
                    rates[c] = [np.fmin(rates[c, 0], r[c]), np.fmax(rates[c, 1], r[c])]
            if comparator is None:
                pool = [r[j] for j in range(K) if eligible[j] and N[j] > 0]
                ref = max(pool) if pool else np.nan
            else:
                ref = r[comparator] if N[comparator] > 0 else np.nan
            if not (ref > 0):
                continue  # no comparator selected anybody: no ratio in this placement
            for c in range(K):
                if eligible[c] and N[c] > 0:
                    ratios[c] = [np.fmin(ratios[c, 0], r[c] / ref),
                                 np.fmax(ratios[c, 1], r[c] / ref)]
    return rates, ratios


def _random_case(rng, K, max_unknown=4):
    n = rng.integers(1, 6, K)
    s = np.array([rng.integers(0, v + 1) for v in n])
    people = [None if rng.random() < 0.3 else int(rng.integers(0, 2))
              for _ in range(rng.integers(0, max_unknown + 1))]
    return n, s, people


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("decisions", ["known", "unreported"])
def test_bounds_equal_enumeration_of_every_assignment(seed, decisions):
    """Up to 4 unknowns over 3 categories, with their decisions or without (every
    decision), against the most selected (eligible categories varied) and a named one."""
    rng = np.random.default_rng(seed)
    for _ in range(40):
        n, s, people = _random_case(rng, 3)
        if decisions == "unreported":
            people = [None] * len(people)
        eligible = np.ones(3, dtype=bool)
        if rng.random() < 0.3:
            eligible[rng.integers(0, 3)] = False
        comparator = int(rng.integers(0, 3)) if rng.random() < 0.3 else None
        if comparator is not None:
            eligible[comparator] = True
        S = sum(p == 1 for p in people)
        F = sum(p == 0 for p in people)
        D = sum(p is None for p in people)
        rates, ratios = enumerate_bounds(n, s, people, eligible, comparator)
        low, high = rate_bounds(n, s, np.full(3, S), np.full(3, F), np.full(3, D))
        np.testing.assert_allclose(low, rates[:, 0], equal_nan=True)
        np.testing.assert_allclose(high, rates[:, 1], equal_nan=True)
        lo, hi = ratio_bounds(n, s, S, F, D, eligible=eligible, comparator=comparator)
        for c in np.flatnonzero(eligible):
            if np.isfinite(ratios[c, 0]):
                assert lo[c] == pytest.approx(ratios[c, 0], abs=1e-12)
                assert hi[c] == pytest.approx(ratios[c, 1], abs=1e-12)


def test_bounds_equal_the_point_when_nothing_is_unknown():
    n, s = np.array([40.0, 60.0, 25.0]), np.array([12.0, 30.0, 5.0])
    eligible = np.ones(3, dtype=bool)
    low, high = rate_bounds(n, s, np.zeros(3), np.zeros(3), np.zeros(3))
    np.testing.assert_allclose(low, s / n)
    np.testing.assert_allclose(high, s / n)
    lo, hi = ratio_bounds(n, s, 0, 0, 0, eligible=eligible)
    np.testing.assert_allclose(lo, (s / n) / (s / n).max())
    np.testing.assert_allclose(hi, lo)


def test_bounds_of_large_undecided_pools_match_the_exhaustive_search():
    """Beyond the exhaustive search (more than 4096 undecided), the grid and its refinement
    find the same extremes as checking every split of a scaled-down copy, to 1e-4."""
    n, s = np.array([900.0, 1200.0, 400.0]), np.array([300.0, 520.0, 100.0])
    eligible = np.ones(3, dtype=bool)
    big = ratio_bounds(n * 10, s * 10, 0, 0, 5000, eligible=eligible, integer=False)
    small = ratio_bounds(n, s, 0, 0, 500, eligible=eligible, integer=True)
    np.testing.assert_allclose(big[0], small[0], atol=1e-3)
    np.testing.assert_allclose(big[1], small[1], atol=1e-3)


def _intersection_case(rng):
    """Two attributes of two categories each; unknowns known in one attribute or none."""
    cells = [(a, b) for a in "fm" for b in "xy"]
    n = rng.integers(1, 5, 4)
    s = np.array([rng.integers(0, v + 1) for v in n])
    patterns = [("f", None), ("m", None), (None, "x"), (None, "y"), (None, None)]
    people = []
    for _ in range(rng.integers(1, 4)):
        pat = patterns[rng.integers(0, len(patterns))]
        people.append((pat, int(rng.integers(0, 2))))
    return cells, n, s, people


@pytest.mark.parametrize("seed", range(4))
def test_intersection_bounds_respect_what_is_known(seed):
    """Partly known people (sex known, race unknown): the rates and the lowest ratio are
    those of enumeration; the highest ratio is never below enumeration's (an outer bound)
    and equals it when every unknown is unknown in both attributes."""
    rng = np.random.default_rng(seed)
    for _ in range(25):
        cells, n, s, people = _intersection_case(rng)
        compat = [[j for j, cell in enumerate(cells)
                   if all(v is None or v == cv for v, cv in zip(pat, cell))]
                  for pat, _ in people]
        rates, ratios = enumerate_bounds(n, s, [d for _, d in people], np.ones(4, bool),
                                         compatible=compat)
        values = [np.array([c[0] for c in cells] + [p[0] for p, _ in people] * 2,
                           dtype=object),
                  np.array([c[1] for c in cells] + [p[1] for p, _ in people] * 2,
                           dtype=object)]
        decision = np.array([1] * 4 + [1] * len(people) + [0] * len(people), dtype=np.int8)
        count = np.concatenate([[0.0] * 4, [float(d == 1) for _, d in people],
                                [float(d == 0) for _, d in people]])
        known = Entries(["sex", "race"], values, decision, count)
        # the known counts go in as their own rows
        rows = Entries(["sex", "race"],
                       [np.array([c[0] for c in cells] * 2, dtype=object),
                        np.array([c[1] for c in cells] * 2, dtype=object)],
                       np.array([1] * 4 + [0] * 4, dtype=np.int8),
                       np.concatenate([s, n - s]).astype(float))
        both = Entries(["sex", "race"], [np.concatenate([rows.values[i], known.values[i]])
                                         for i in range(2)],
                       np.concatenate([rows.decision, known.decision]),
                       np.concatenate([rows.count, known.count]))
        ch = characteristic(both, "intersectional")
        assert ch.cells == cells
        S, F, D = ch.pools()
        low, high = rate_bounds(ch.n, ch.s, S, F, D)
        np.testing.assert_allclose(low, rates[:, 0], equal_nan=True)
        np.testing.assert_allclose(high, rates[:, 1], equal_nan=True)
        lo, hi = ratio_bounds(ch.n, ch.s, ch.selected.sum(), ch.not_selected.sum(),
                              ch.undecided.sum(), eligible=np.ones(4, bool),
                              all_compatible=ch.all_compatible, pools=(S, F, D),
                              types=(ch.compatible, ch.selected, ch.not_selected))
        for c in range(4):
            if np.isfinite(ratios[c, 0]):
                assert lo[c] == pytest.approx(ratios[c, 0], abs=1e-9)
                assert hi[c] >= ratios[c, 1] - 1e-6
                if ch.all_compatible:
                    assert hi[c] == pytest.approx(ratios[c, 1], abs=1e-9)


# --- the table ------------------------------------------------------------------------------
def _data(n=3000, seed=0, unknown_share=0.08):
    rng = np.random.RandomState(seed)
    sex = rng.choice(["female", "male"], n).astype(object)
    race = rng.choice(["asian", "black", "white"], n, p=[0.2, 0.3, 0.5]).astype(object)
    p = 0.35 - 0.08 * (sex == "female") - 0.05 * (race == "black")
    selected = (rng.rand(n) < p).astype(int)
    sex[rng.rand(n) < unknown_share] = None
    race[rng.rand(n) < unknown_share] = "Unknown"
    return pd.DataFrame({"sex": sex, "race": race, "selected": selected,
                         "score": rng.rand(n) + 0.3 * selected})


def test_the_table_holds_what_the_law_asks_for():
    df = _data()
    audit = bias_audit(df["selected"], sensitive_features=df[["sex", "race"]],
                       unknown="Unknown")
    assert isinstance(audit, BiasAudit)
    t = audit.table
    assert list(t.columns[:4]) == ["characteristic", "sex", "race", "category"]
    for col in ["n", "n_selected", "rate", "impact_ratio", "excluded", "rate_low",
                "rate_high", "impact_ratio_low", "impact_ratio_high", "impact_ratio_ci_low",
                "impact_ratio_ci_high", "verdict"]:
        assert col in t.columns
    assert set(t["characteristic"]) == {"sex", "race", "intersectional"}
    sex = t[t.characteristic == "sex"]
    known = df[df.sex.notna()]
    for _, row in sex.iterrows():
        people = known[known.sex == row["sex"]]
        assert row["n"] == len(people) and row["n_selected"] == people.selected.sum()
        assert row["rate"] == pytest.approx(people.selected.mean())
        assert row["race"] is None
    assert sex["impact_ratio"].max() == pytest.approx(1.0)
    ref = sex.loc[sex["comparator"]].iloc[0]
    np.testing.assert_allclose(sex["impact_ratio"], sex["rate"] / ref["rate"])
    assert audit.unknown["sex"] == df.sex.isna().sum()
    assert audit.unknown["race"] == (df.race == "Unknown").sum()
    assert audit.unknown["intersectional"] == (df.sex.isna() | (df.race == "Unknown")).sum()
    # bounds hold the point, the interval holds the bounds
    ok = ~t["excluded"]
    assert (t.loc[ok, "impact_ratio_low"] <= t.loc[ok, "impact_ratio"] + 1e-12).all()
    assert (t.loc[ok, "impact_ratio"] <= t.loc[ok, "impact_ratio_high"] + 1e-12).all()
    assert (t.loc[ok, "impact_ratio_ci_low"] <= t.loc[ok, "impact_ratio_low"] + 1e-12).all()
    assert (t.loc[ok, "impact_ratio_ci_high"] >= t.loc[ok, "impact_ratio_high"] - 1e-12).all()
    assert (t["rate_low"] <= t["rate"]).all() and (t["rate"] <= t["rate_high"]).all()
    for _, row in t.iterrows():
        if row["impact_ratio_ci_low"] >= 0.8:
            assert row["verdict"] == "passes"
        elif row["impact_ratio_ci_high"] < 0.8:
            assert row["verdict"] == "fails"
        else:
            assert row["verdict"] == "inconclusive"
    assert audit.headline and all(isinstance(s, str) for s in audit.headline)


def test_a_counts_table_gives_the_table_of_its_rows():
    """The rows' audit and the audit of their counts (the characteristic rows and the
    intersectional rows, unknown rows included) are the same table."""
    df = _data(seed=3)
    rows = bias_audit(df["selected"], sensitive_features=df[["sex", "race"]],
                      unknown="Unknown")
    sex = df.sex.fillna("Unknown")
    parts = []
    for (s, r), g in df.assign(sex=sex).groupby(["sex", "race"]):
        parts.append({"sex": s, "race": r, "n": len(g), "n_selected": g.selected.sum()})
    for s, g in df.assign(sex=sex).groupby("sex"):
        parts.append({"sex": s, "race": None, "n": len(g), "n_selected": g.selected.sum()})
    for r, g in df.groupby("race"):
        parts.append({"sex": None, "race": r, "n": len(g), "n_selected": g.selected.sum()})
    counts = pd.DataFrame(parts)
    table = bias_audit(counts=counts, unknown="Unknown").table
    columns = ["characteristic", "category", "n", "n_selected", "rate", "impact_ratio",
               "rate_low", "rate_high", "impact_ratio_low", "impact_ratio_high", "verdict"]
    a = rows.table[columns].sort_values(["characteristic", "category"]).reset_index(drop=True)
    b = table[columns].sort_values(["characteristic", "category"]).reset_index(drop=True)
    # the intersection of the counts holds the partly known as wholly unknown: same rates
    # and lowest ratios, a highest ratio at least as high
    same = [c for c in columns if c != "impact_ratio_high"]
    pd.testing.assert_frame_equal(a[a.characteristic != "intersectional"],
                                  b[b.characteristic != "intersectional"],
                                  check_dtype=False)
    inter_a, inter_b = a[a.characteristic == "intersectional"], b[b.characteristic ==
                                                                  "intersectional"]
    pd.testing.assert_frame_equal(inter_a[["category", "n", "n_selected", "rate",
                                           "impact_ratio"]],
                                  inter_b[["category", "n", "n_selected", "rate",
                                           "impact_ratio"]], check_dtype=False)
    assert same


#: A published bias audit under Local Law 144 (scoring rates of a candidate-relevancy
#: tool, 2023; https://perma.cc/KF5Y-5XY7, as transcribed by the corpus of Gerchick et al.,
#: "Auditing the Audits", FAccT 2025): n, n above the median (n x the published rate), the
#: published rate and impact ratio; the unknown row reports no selections.
PUBLISHED_SEX = pd.DataFrame({
    "sex": ["Female", "Male", "Missing/Unknown"],
    "n": [573856, 478161, 397979],
    "n_selected": [271433.888, 222823.026, np.nan],
})
PUBLISHED_RATE = {"Female": 0.473, "Male": 0.466}
PUBLISHED_RATIO = {"Female": 1.0, "Male": 0.986}


def test_a_published_audit_reproduces_from_its_counts():
    audit = bias_audit(counts=PUBLISHED_SEX, unknown="Missing/Unknown")
    t = audit.table.set_index("category")
    for category, rate in PUBLISHED_RATE.items():
        row = PUBLISHED_SEX[PUBLISHED_SEX.sex == category].iloc[0]
        assert t.loc[category, "rate"] == row["n_selected"] / row["n"]  # exactly
        assert t.loc[category, "rate"] == pytest.approx(rate, abs=5e-4)
        # the published ratio comes from unrounded rates: within the rounding of 3 digits
        assert t.loc[category, "impact_ratio"] == pytest.approx(PUBLISHED_RATIO[category],
                                                                abs=2e-3)
    assert t.loc["Male", "impact_ratio"] == t.loc["Male", "rate"] / t.loc["Female", "rate"]
    assert audit.unknown["sex"] == 397979
    # 397,979 applicants of unknown sex, none of their scores reported: anything between
    # all of them below and all above the median
    assert t.loc["Female", "rate_low"] == pytest.approx(271433.888 / (573856 + 397979))
    assert t.loc["Female", "rate_high"] == pytest.approx((271433.888 + 397979)
                                                         / (573856 + 397979))
    assert t.loc["Male", "impact_ratio_low"] < 0.8 <= t.loc["Male", "impact_ratio"]


def test_min_share_leaves_small_categories_out_of_the_ratios():
    counts = pd.DataFrame({"race": ["a", "b", "c"], "n": [500, 480, 10],
                           "n_selected": [200, 150, 9]})
    audit = bias_audit(counts=counts)
    t = audit.table.set_index("category")
    assert bool(t.loc["c", "excluded"]) and np.isnan(t.loc["c", "impact_ratio"])
    assert t.loc["c", "verdict"] == "excluded" and "0.02" in t.loc["c", "note"]
    assert bool(t.loc["a", "comparator"])  # c's 0.9 does not count
    anyone = bias_audit(counts=counts, comparator="most_selected_any").table
    anyone = anyone.set_index("category")
    assert bool(anyone.loc["c", "comparator"])
    assert anyone.loc["a", "impact_ratio"] == pytest.approx(0.4 / 0.9)
    named = bias_audit(counts=counts, comparator="b").table.set_index("category")
    assert named.loc["a", "impact_ratio"] == pytest.approx(0.4 / (150 / 480))
    assert named.loc["b", "impact_ratio"] == 1.0


def test_scores_count_above_the_median_and_state_the_ties():
    scores = np.array([1, 2, 3, 3, 3, 4, 5, 6.0])
    sex = np.array(["f", "m"] * 4, dtype=object)
    audit = bias_audit(y_score=scores, sensitive_features={"sex": sex})
    assert audit.options["median"] == 3.0 and audit.options["ties_at_median"] == 3
    t = audit.table.set_index("category")
    assert t.loc["f", "n_selected"] == np.sum((scores > 3) & (sex == "f"))
    assert t.loc["m", "n_selected"] == np.sum((scores > 3) & (sex == "m"))


def test_tiers_give_one_table_each():
    labels = np.array(["top", "middle", "low", "top", "low", "middle"] * 50, dtype=object)
    sex = np.array(["f", "m", "f"] * 100, dtype=object)
    audit = bias_audit(labels, sensitive_features={"sex": sex}, tiers=[["top"],
                                                                       ["top", "middle"]])
    t = audit.table
    assert list(t["tier"].unique()) == ["top", "top | middle"]
    top = t[t.tier == "top"].set_index("category")
    assert top.loc["f", "n_selected"] == np.sum((labels == "top") & (sex == "f"))


@pytest.mark.parametrize("call, message", [
    (dict(y_pred=[0, 1]), r"sensitive_features \(or membership\) is required"),
    (dict(y_pred=[0, 2, 1], sensitive_features={"s": ["a", "b", "a"]}), "tiers"),
    (dict(y_pred=[0, None, 1], sensitive_features={"s": ["a", "b", "a"]}), "missing"),
    (dict(y_pred=[0, 1], counts=pd.DataFrame({"s": ["a"], "n": [1], "n_selected": [1]})),
     "exactly one"),
    (dict(counts=pd.DataFrame({"s": ["a"], "n": [3]})), "n_selected"),
    (dict(counts=pd.DataFrame({"s": ["a", "b"], "n": [3, 3], "n_selected": [4, 1]})),
     "between 0 and n"),
    (dict(counts=pd.DataFrame({"s": ["a", "b"], "n": [3, 3], "n_selected": [np.nan, 1]})),
     "row of a known category"),
    (dict(y_pred=[0, 1, 1], sensitive_features={"s": ["a", "b", "a"]}, comparator="c"),
     "not a category"),
    (dict(y_score=[0.1, np.nan, 0.3], sensitive_features={"s": ["a", "b", "a"]}),
     "finite numbers"),
])
def test_bad_input_is_refused_with_the_fix(call, message):
    with pytest.raises(ValueError, match=message):
        bias_audit(**call)


def test_the_views():
    df = _data(n=800, seed=2)
    audit = bias_audit(df["selected"], sensitive_features=df[["sex", "race"]],
                       unknown="Unknown")
    frame = audit.to_frame()
    pd.testing.assert_frame_equal(frame, audit.table)
    frame.iloc[0, 0] = "changed"
    assert audit.table.iloc[0, 0] != "changed"
    import json

    data = json.loads(json.dumps(audit.to_dict()))
    assert len(data["table"]) == len(audit.table) and data["unknown"]["sex"] > 0
    page = audit.to_html()
    assert page.startswith("<!DOCTYPE html>") and "Unknown categories" in page
    assert "most selected" in page and "fails" in page or "inconclusive" in page
    assert audit._repr_html_().startswith('<div class="skfair-report">')
    assert "BiasAudit" in repr(audit)


@pytest.mark.parametrize("backend", ["duckdb", "polars"])
def test_a_lazy_frame_gives_the_table_of_the_rows_in_memory(backend):
    df = _data(seed=5)
    memory = bias_audit(df["selected"], sensitive_features=df[["sex", "race"]],
                        unknown="Unknown")
    if backend == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        frame = duckdb.from_df(df)
    else:
        pl = pytest.importorskip("polars")
        frame = pl.DataFrame({c: [None if v != v else v for v in df[c].tolist()]
                              for c in df.columns}).lazy()
    lazy = bias_audit("selected", sensitive_features=["sex", "race"], data=frame,
                      unknown="Unknown")
    pd.testing.assert_frame_equal(memory.table, lazy.table, check_dtype=False)
    scored = bias_audit(y_score="score", sensitive_features=["sex", "race"], data=frame,
                        unknown="Unknown")
    in_memory = bias_audit(y_score=df["score"], sensitive_features=df[["sex", "race"]],
                           unknown="Unknown")
    pd.testing.assert_frame_equal(in_memory.table, scored.table, check_dtype=False)
    assert scored.options["median"] == in_memory.options["median"]


def test_the_interval_covers_when_demographics_are_missing_not_at_random():
    """A quick version of benchmarks/bias_audit_coverage.py: 5 categories, 5-40% unknown,
    the unknown share larger among the not selected; the interval holds the true ratio
    (of the population the data are drawn from) in at least 0.9 of 150 data sets for
    every category (the benchmark: at least 0.94 over 1,000)."""
    rng = np.random.default_rng(0)
    shares = np.array([0.3, 0.25, 0.2, 0.15, 0.1])
    p = np.array([0.30, 0.27, 0.22, 0.30, 0.18])
    truth = p / p.max()
    missing = np.array([0.05, 0.10, 0.20, 0.30, 0.40])
    hits = np.zeros(5)
    reps = 150
    for r in range(reps):
        cat = rng.choice(5, 2000, p=shares)
        sel = rng.random(2000) < p[cat]
        gone = rng.random(2000) < missing[cat] * np.where(sel, 0.5, 1.5)
        names = np.array(list("abcde"), dtype=object)[cat]
        names[gone] = None
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            t = bias_audit(sel.astype(int), sensitive_features={"g": names},
                           ).table.set_index("category")
        for k, name in enumerate("abcde"):
            hits[k] += t.loc[name, "impact_ratio_ci_low"] <= truth[k] <= \
                t.loc[name, "impact_ratio_ci_high"]
    assert (hits / reps >= 0.9).all(), hits / reps


# --- the group report without labels ---------------------------------------------------------
def test_the_report_without_labels_gives_what_the_decisions_give():
    from skfair_manifold.metrics import demographic_parity, fairness_report

    df = _data(seed=7, unknown_share=0.0)
    sex = df["sex"].astype(str)
    report = fairness_report(None, df["selected"], sensitive_features=sex)
    audit = bias_audit(df["selected"], sensitive_features={"sex": sex}).table
    rates = report.by_group["selection_rate"].droplevel(0)
    for _, row in audit.iterrows():
        assert rates[row["sex"]] == pytest.approx(row["rate"])
    assert report.gaps["demographic_parity_ratio"].iloc[0] == pytest.approx(
        audit["impact_ratio"].min())
    assert report.gaps["demographic_parity_difference"].iloc[0] == pytest.approx(
        demographic_parity(df["selected"], df["selected"], sensitive_features=sex))
    for column in ("base_rate", "true_positive_rate", "precision", "accuracy"):
        assert report.by_group[column].isna().all()
    assert report.gaps["equal_opportunity_ratio"].isna().all()
    assert report.options["labels"] is False and "left out" in report.options["left_out"]
    assert "left out" in report.headline[-1] and "true labels" in report.headline[-1]
    assert "true label" not in report.options["favourable_text"].replace("no true labels", "")
    assert "n/a" in report.to_html() or "–" in report.to_html()


@pytest.mark.parametrize("option, message", [
    (dict(X=np.zeros((10, 2))), "HFM"), (dict(y_score=np.linspace(0, 1, 10)), "AUC"),
    (dict(target_type="continuous"), "decisions"),
])
def test_the_report_without_labels_refuses_what_needs_them(option, message):
    from skfair_manifold.metrics import fairness_report

    with pytest.raises(ValueError, match=message):
        fairness_report(None, np.array([0, 1] * 5), sensitive_features=np.array([0] * 5 + [1] * 5),
                        **option)
    with pytest.raises(ValueError, match="quantity"):
        fairness_report(None, np.linspace(0.1, 0.9, 10),
                        sensitive_features=np.array([0] * 5 + [1] * 5))


def test_the_report_without_labels_on_a_lazy_frame():
    duckdb = pytest.importorskip("duckdb")
    from skfair_manifold.metrics import fairness_report

    df = _data(seed=8, unknown_share=0.0)
    df["sex"] = df["sex"].astype(str)
    memory = fairness_report(None, df["selected"], sensitive_features=df["sex"])
    lazy = fairness_report(None, "selected", sensitive_features="sex",
                           data=duckdb.from_df(df))
    np.testing.assert_allclose(memory.by_group["selection_rate"],
                               lazy.by_group["selection_rate"])
    assert lazy.options["labels"] is False


def test_the_user_guide_s_example_runs_and_prints_what_the_page_shows(capsys):
    """docs/user_guide/bias_audit.rst: its first Python block prints its text block."""
    import re
    import textwrap
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "user_guide" /
            "bias_audit.rst").read_text(encoding="utf-8")
    blocks = re.findall(r"\.\. code-block:: (python|text)\n\n((?:    .*\n|\n)+)", page)
    code = textwrap.dedent(blocks[0][1])
    shown = textwrap.dedent(blocks[1][1]).strip()
    assert blocks[0][0] == "python" and blocks[1][0] == "text"
    exec(compile(code, "bias_audit.rst", "exec"), {})
    printed = capsys.readouterr().out.strip()
    assert [line.split() for line in printed.splitlines()] == \
        [line.split() for line in shown.splitlines()]
