"""The input sweep's cases of the newcomer's sweep (issue 45), and their neighbours.

``add_cases(add, tmp, cli)`` registers them on :func:`input_sweep.build_cases`'s
``add``: one block per finding of the sweep over the continuous outcomes,
``k="auto"``, the KNN index, lazy audits and the command line's continuous and
Parquet paths. A case that returns a value has a ``check`` (None when right).
The findings' own sizes are kept where the answer is a refusal at ``fit`` (a
nominal column of 100,000 codes in 200,000 rows); cases whose answer is a
computation run at a scaled-down neighbour, under the sweep's time limit.
The seeded approximation's row order belongs to the distances and is swept
with them.
"""

import subprocess
import sys

import numpy as np

from ._sweep_outcome import Wrong

WAGE_GRAPH = ["education", "experience", "region", "sector", "sex"]


def _wage_auditor(method="cbn", scale=1.0):
    from skfair_manifold.situation_testing import SituationTestingAuditor

    if method == "cbn":
        return SituationTestingAuditor(protected="sex", protected_value="female",
                                       decision="continuous", tau=1000.0 * scale,
                                       graph=WAGE_GRAPH, interval=["experience"])
    return SituationTestingAuditor(protected="sex", protected_value="female",
                                   decision="continuous", method="knn", k=30,
                                   tau=1000.0 * scale)


def _zips(n, values, seed=0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"zip": rng.integers(0, values, n).astype(str),
                      "a": rng.integers(0, 3, n), "b": rng.integers(0, 3, n),
                      "sex": rng.integers(0, 2, n)})
    return X, rng.integers(0, 2, n)


def _one_computation(method, n):
    """transform's p-values are the report's, and BH on them flags what flag flags."""
    from skfair_manifold.datasets import make_biased_wages
    from skfair_manifold.situation_testing._testing import q_values

    wages = make_biased_wages(n, gap=0.1, random_state=0)

    def run():
        est = _wage_auditor(method).fit(wages.data, wages.target)
        return (est.transform(wages.data), est.flag(wages.data, wages.target),
                est.report(wages.data, wages.target))

    def check(result):
        out, flagged, report = result
        cand = report.audit["candidate"]
        differ = int((out[cand, 5] != report.audit["p_value"][cand]).sum())
        q = q_values(out[cand, 5])
        by_hand = np.zeros(len(out), dtype=bool)
        by_hand[np.flatnonzero(cand)] = (q <= 0.1) & (out[cand, 2] > 1000.0)
        if differ or (by_hand != flagged).any():
            return (f"{differ} p-values differ; BH on transform flags {int(by_hand.sum())}, "
                    f"flag {int(flagged.sum())}")
        return None
    return run, check


def _scaled_audit(scale):
    """The continuous audit with amounts and tau times ``scale``: the flags of scale 1."""
    from skfair_manifold.datasets import make_biased_wages

    wages = make_biased_wages(3000, gap=0.1, random_state=0)

    def flags(s):  # the README's audit: 403 flagged at scale 1
        est = _wage_auditor("cbn", s).fit(wages.data, wages.target * s)
        return est.flag(wages.data, wages.target * s)

    def run():
        return flags(1.0), flags(scale)

    def check(result):
        ref, got = result
        if ref.sum() == 0:
            return "nobody flagged at scale 1"
        return None if (ref == got).all() else \
            f"{int(ref.sum())} flagged at scale 1, {int(got.sum())} at {scale:g}"
    return run, check


def _terminal(args):
    """A command run on a name holding control characters: none reaches stderr raw."""
    import re

    raw = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")

    def case():
        proc = subprocess.run([sys.executable, "-m", "skfair_manifold", *map(str, args)],
                              capture_output=True, text=True, timeout=30)
        if "Traceback" in proc.stderr:
            raise RuntimeError("traceback: " + proc.stderr.splitlines()[-1][:120])
        found = raw.search(proc.stderr)
        return None if found is None else f"raw {found.group()!r} on stderr"

    def run():
        wrong = case()
        return 0.0 if wrong is None else Wrong(wrong)
    return run


def add_cases(add, tmp, cli):
    import pandas as pd

    from skfair_manifold.metrics import (
        error_difference,
        fairness_report,
        mean_prediction_difference,
    )
    from skfair_manifold.metrics._testing import auc_interval
    from skfair_manifold.scorers import MostAccurateWithin
    from skfair_manifold.situation_testing import SituationTestingAuditor

    from .bench_tie_groups import GRAPH, SETTINGS, tie_rows

    rng = np.random.default_rng(45)
    G = "issue 45: "

    # ---------------------------------------------------------------- one computation
    for method, n in (("cbn", 3000), ("knn", 1000)):
        run, check = _one_computation(method, n)
        add(G + "continuous audit", f"transform = report = flag ({method}, {n} rows)", run,
            expect="ok", check=check)

    # ---------------------------------------------------------------- detectable gap
    X, y = tie_rows(20_000)
    add(G + "detectable gap", "report of 20,000 rows in 20 tie groups, k='auto'",
        lambda: SituationTestingAuditor(**SETTINGS).fit(X, y).report(X, y), expect="ok",
        check=lambda r: None if np.isfinite(r.audit["detectable_gap"]).sum() > 0
        else "no detectable gap stated")
    Xl, yl = tie_rows(100_000)
    path = tmp / "i45_ties.parquet"
    Xl.assign(y=yl).to_parquet(path)

    def lazy_flag():
        import duckdb

        relation = duckdb.read_parquet(str(path))
        lazy = SituationTestingAuditor(**SETTINGS).fit(relation, "y")
        flagged = lazy.flag(relation, "y").filter("flagged").aggregate("count(*)")
        memory = SituationTestingAuditor(**SETTINGS).fit(Xl, yl).flag(Xl, yl)
        return int(flagged.fetchall()[0][0]), int(memory.sum())
    add(G + "detectable gap", "lazy flag of 100,000 tie rows on DuckDB = in memory",
        lazy_flag, expect="ok", check=lambda r: None if r[0] == r[1] else f"{r}")
    graph = tmp / "i45_graph.json"
    graph.write_text('["' + '", "'.join(GRAPH) + '"]')
    add(G + "detectable gap", "audit command of a 100,000-row Parquet file, k auto",
        cli(["audit", path, "--decision", "y", "--positive-label", "1", "--protected",
             "sex", "--protected-value", "1", "--graph", graph, "-k", "auto", "-o",
             tmp / "i45_cells.csv"], "ok", None), expect="ok")

    # ---------------------------------------------------------------- many nominal values
    Xz, yz = _zips(200_000, 100_000)
    kw = dict(protected="sex", protected_value=1)
    big = "100,000 codes in 200,000 rows"
    for label, params, fragment in (
            ("learned graph", dict(method="cbn"), "Cochran-Mantel-Haenszel test of a column"),
            ("KNN-DD, algorithm='auto'", dict(method="knn", k=10), "algorithm='brute'"),
            ("KNN-DD, algorithm='kd_tree'", dict(method="knn", k=10, algorithm="kd_tree"),
             "algorithm='kd_tree' embeds it"),
            ("CBN-DD, zip in the graph", dict(method="cbn", graph=["zip", "a", "b", "sex"]),
             "column 'zip' has")):
        add(G + "nominal column of many values", f"{label}: {big}",
            lambda p=params: SituationTestingAuditor(**kw, **p).fit(Xz, yz),
            fragment=fragment)
    Xs, ys = _zips(10_000, 5_000)
    add(G + "nominal column of many values", "learned graph: 5,000 codes in 10,000 rows",
        lambda: SituationTestingAuditor(**kw, method="cbn").fit(Xs, ys),
        fragment="Cochran-Mantel-Haenszel test of a column")
    add(G + "nominal column of many values", "KNN-DD: 5,000 codes in 10,000 rows (flag)",
        lambda: float(SituationTestingAuditor(**kw, method="knn", k=10).fit(Xs, ys)
                      .flag(Xs, ys).sum()), expect="ok")
    add(G + "nominal column of many values", "kd_tree: 5,000 codes in 10,000 rows",
        lambda: SituationTestingAuditor(**kw, method="knn", k=10,
                                        algorithm="kd_tree").fit(Xs, ys),
        fragment="in more than 1,024 dimensions")
    Xc, yc = _zips(4_000, 2_000)
    add(G + "nominal column of many values", "CBN-DD, zip in the graph: 2,000 codes in 4,000"
        " rows (flag)", lambda: float(SituationTestingAuditor(
            **kw, method="cbn", graph=["zip", "a", "b", "sex"]).fit(Xc, yc)
            .flag(Xc, yc).sum()), expect="ok")

    def lazy_learned():
        import duckdb

        frame = _zips(20_000, 10_000)[0].assign(y=rng.integers(0, 2, 20_000))
        return SituationTestingAuditor(**kw, method="cbn").fit(duckdb.from_df(frame), "y")
    add(G + "nominal column of many values", "learned graph on a DuckDB relation",
        lazy_learned, fragment="Cochran-Mantel-Haenszel test of a column")
    wide = pd.DataFrame(rng.normal(size=(2000, 500)), columns=[f"x{i}" for i in range(500)])
    wide["sex"] = rng.integers(0, 2, 2000)
    yw = rng.integers(0, 2, 2000)
    add(G + "nominal column of many values", "KNN-DD k='auto', 2,000 rows x 500 numeric "
        "columns (flag)", lambda: float(SituationTestingAuditor(
            **kw, method="knn", k="auto").fit(wide, yw).flag(wide, yw).sum()), expect="ok")
    wide = pd.DataFrame(rng.normal(size=(3000, 500)), columns=[f"x{i}" for i in range(500)])
    wide["sex"] = rng.integers(0, 2, 3000)
    yw = rng.integers(0, 2, 3000)
    add(G + "nominal column of many values", "KNN-DD k='auto', 3,000 rows x 500 numeric "
        "columns (report; 59 s before)", lambda: len(SituationTestingAuditor(
            **kw, method="knn", k="auto").fit(wide, yw).report(wide, yw)), expect="ok")

    # ---------------------------------------------------------------- AUC at the edges
    add(G + "AUC interval", "perfect ranking, 45 and 46 people",
        lambda: auc_interval(1.0, 45, 46, 0.95), expect="ok",
        check=lambda r: None if r[0] > 0.9 and r[1] == 1.0 else f"{r}")
    add(G + "AUC interval", "AUC 0, 45 and 46 people", lambda: auc_interval(0.0, 45, 46, 0.95),
        expect="ok", check=lambda r: None if r[1] < 0.1 and r[0] == 0.0 else f"{r}")
    add(G + "AUC interval", "AUC 0.99 below AUC 1", lambda: (
        auc_interval(0.99, 45, 46, 0.95), auc_interval(1.0, 45, 46, 0.95)), expect="ok",
        check=lambda r: None if r[0][0] <= r[1][0] and r[0][0] > 0.85 else f"{r}")

    # ---------------------------------------------------------------- magnitudes
    n = 240
    sex = np.array(["f", "m", "x"])[rng.integers(0, 3, n)]
    y_true = rng.normal(5.0, 1.0, n)
    y_pred = y_true + rng.normal(0.2, 0.5, n)

    def cont(t, p, **options):
        return fairness_report(t, p, sensitive_features=sex, target_type="continuous",
                               **options)
    ref = cont(y_true, y_pred)

    def same_scaled(scale):
        def check(report):
            got = report.by_group["root_mean_squared_error"].to_numpy(float) / scale
            want = ref.by_group["root_mean_squared_error"].to_numpy(float)
            if not np.allclose(got, want, rtol=1e-9):
                return f"RMSE {got} at scale {scale:g}, {want} at 1"
            if any(len(w) > 30 for w in report.headline[0].split()):
                return "a number of more than 30 digits in the headline"
            rmse = [row["root_mean_squared_error"]
                    for groups in report.to_dict()["by_group"].values()
                    for row in groups.values()]
            if any(v is None or not np.isfinite(v) for v in rmse):
                return f"to_dict's RMSE: {rmse}"
            return None
        return check
    for scale in (1e160, 1e-300, 1e300, 1e-150):
        add(G + "magnitudes", f"continuous report at {scale:g}",
            lambda s=scale: cont(y_true * s, y_pred * s), expect="ok",
            check=same_scaled(scale))
    huge = np.where(rng.random(n) < 0.5, 1e308, -1e308)
    add(G + "magnitudes", "amounts of +-1e308", lambda: cont(huge, y_pred), expect="ok",
        check=lambda r: None if np.isfinite(r.by_group["mean_absolute_error"]).all()
        else "an infinite error")
    add(G + "magnitudes", "every weight 0", lambda: cont(
        y_true, y_pred, sample_weight=np.zeros(n)).headline[0], expect="ok",
        check=lambda h: None if "nothing compared" in h else h)
    add(G + "magnitudes", "a 1e12 offset keeps the means' digits", lambda: cont(
        y_true + 1e12, y_pred + 1e12), expect="ok", check=lambda r: None if np.allclose(
            r.by_group["mean_prediction"].to_numpy(float) - 1e12,
            ref.by_group["mean_prediction"].to_numpy(float), atol=2e-4) else "digits lost")

    def lazy_at(scale):
        import duckdb

        frame = pd.DataFrame({"t": y_true * scale, "p": y_pred * scale, "s": sex})
        return fairness_report("t", "p", sensitive_features="s", data=duckdb.from_df(frame),
                               target_type="continuous")
    for scale in (1e298, 1e-300):
        add(G + "magnitudes", f"a DuckDB relation at {scale:g}", lambda s=scale: lazy_at(s),
            expect="ok", check=same_scaled(scale))
    for scale in (1e295, 1e-304):
        run, check = _scaled_audit(scale)
        add(G + "magnitudes", f"continuous audit with amounts and tau times {scale:g}", run,
            expect="ok", check=check)

    # ---------------------------------------------------------------- other target type
    y01, p01 = rng.integers(0, 2, n), rng.integers(0, 2, n)
    add(G + "options of the other target type", "y_score with a quantity",
        lambda: cont(y_true, y_pred, y_score=np.linspace(0, 1, n)), fragment="y_score")
    add(G + "options of the other target type", "favourable='lower' with 0/1 labels",
        lambda: fairness_report(y01, p01, sensitive_features=sex, favourable="lower"),
        fragment="favourable='lower'")
    from skfair_manifold.datasets import make_biased_wages

    wages = make_biased_wages(400, random_state=0)
    for option, value, fragment in (("bound", "newcombe", "Welch's t bounds"),
                                    ("positive_label", 1, "no positive class")):
        add(G + "options of the other target type", f"{option}={value!r} with an amount",
            lambda o=option, v=value: SituationTestingAuditor(
                protected="sex", protected_value="female", decision="continuous",
                tau=1000.0, method="knn", k=10, **{o: v}).fit(wages.data, wages.target),
            fragment=fragment)
    csv = tmp / "i45_pred.csv"
    wage = rng.integers(20_000, 90_000, n)
    pd.DataFrame({"y": y01, "p": p01, "sex": sex, "wage": wage,
                  "pw": rng.integers(20_000, 90_000, n)}).to_csv(csv, index=False)
    add(G + "options of the other target type", "the report command's --favourable lower "
        "with classes", cli(["report", csv, "--label", "y", "--prediction", "p",
                             "--sensitive", "sex", "--no-hfm", "--favourable", "lower",
                             "-o", tmp / "i45.html"], "error", "--favourable lower"))

    # ---------------------------------------------------------------- promised warnings
    lone = sex.astype(object)
    lone[0] = "alone"
    add(G + "promised warnings", "a one-row group's interval", lambda: float(
        fairness_report(y_true, y_pred, sensitive_features=lone, target_type="continuous",
                        min_group_size=1).intervals.by_group.loc[(0, "alone"),
                                                                 "mean_prediction_low"]),
        expect="ok")
    weights = np.where(sex == "x", 0.0, 1.0)

    def no_weight():
        got = mean_prediction_difference(y_true, y_pred, sensitive_features=sex,
                                         sample_weight=weights)
        report = cont(y_true, y_pred, sample_weight=weights)
        return got, float(report.gaps.loc[0, "mean_prediction_difference"])
    add(G + "promised warnings", "a group of no weight: metric = report", no_weight,
        expect="ok", check=lambda r: None if np.isclose(*r) else f"{r}")
    score = rng.random(400)
    s400 = np.array(["f", "m"])[rng.integers(0, 2, 400)]
    y400 = np.where(s400 == "f", 1, (rng.random(400) < score).astype(int))
    add(G + "promised warnings", "the AUC of a group of one class", lambda: float(
        fairness_report(y400, (score > 0.5).astype(int), sensitive_features=s400,
                        y_score=score).scores.loc[(0, "f"), "auc"]), expect="ok")
    add(G + "promised warnings", "zero weights with y_score", lambda: float(
        fairness_report(y400, (score > 0.5).astype(int), sensitive_features=s400,
                        y_score=score, sample_weight=np.where(s400 == "f", 0.0, 1.0))
        .scores.loc[(0, "f"), "auc"]), expect="ok")
    add(G + "promised warnings", "constant predictions: no group both worst and best",
        lambda: cont(y_true, np.full(n, 3.0)).headline[0], expect="ok",
        check=lambda h: None if "same mean prediction" in h else h)

    # ---------------------------------------------------------------- messages
    add(G + "messages", "a constant prediction beside a quantity", lambda: fairness_report(
        rng.normal(50_000, 9_000, 100), np.full(100, 3.0),
        sensitive_features=np.tile(["f", "m"], 50)), fragment="single value")
    add(G + "messages", "integer wages without pos_label", lambda: fairness_report(
        wage, wage + 1, sensitive_features=sex), fragment="target_type='continuous'")
    add(G + "messages", "the report command on integer wages", cli(
        ["report", csv, "--label", "wage", "--prediction", "pw", "--sensitive", "sex",
         "--no-hfm", "-o", tmp / "i45w.html"], "error", "--target-type continuous"))
    rule = MostAccurateWithin(0.1, fairness="dp", score="acc")
    add(G + "messages", "MostAccurateWithin, every score nan", lambda: rule(
        {"mean_test_acc": [0.9, 0.8], "mean_test_dp": [np.nan, np.nan]}), fragment="is nan")
    add(G + "messages", "MostAccurateWithin, empty results", lambda: rule(
        {"mean_test_acc": [], "mean_test_dp": []}), fragment="holds no candidate")
    add(G + "messages", "MostAccurateWithin, a string bound",
        lambda: MostAccurateWithin("0.05"), fragment="bound must be a finite number")

    def ready_request():
        import sklearn

        from skfair_manifold.scorers import demographic_parity_scorer

        with sklearn.config_context(enable_metadata_routing=True):
            return demographic_parity_scorer.set_score_request(sensitive_features=False)
    add(G + "messages", "set_score_request on a ready scorer", ready_request,
        fragment="shared by the whole process")
    add(G + "messages", "error_difference of no rows", lambda: error_difference(
        [], [], sensitive_features=[]), fragment="y_true is empty")

    def empty_lazy():
        import polars

        frame = polars.DataFrame({"sex": ["f", "m"] * 50, "a": np.arange(100) % 3,
                                  "y": np.arange(100) % 2})
        return SituationTestingAuditor(protected="sex", protected_value="f", k=5,
                                       graph=["a", "sex"]).fit(
            frame.lazy().filter(polars.col("a") > 10), "y")
    add(G + "messages", "an empty lazy frame in the auditor", empty_lazy,
        fragment="has no rows")

    # ---------------------------------------------------------------- the terminal
    column, value = "se\x1b[31mx\nY", "f\x1b]0;title\x07\r\nZ"
    hostile = tmp / "i45_hostile.csv"
    pd.DataFrame({"y": y01, "p": p01, column: np.where(sex == "f", value, "m"),
                  "x": y_true}).to_csv(hostile, index=False)
    for args in (["report", hostile, "--label", "y", "--prediction", "p", "--sensitive",
                  column, "-o", tmp / "i45t.html"],
                 ["audit", hostile, "--decision", "y", "--positive-label", "1",
                  "--protected", column, "--protected-value", value, "--method", "knn",
                  "-k", "5", "-o", tmp / "i45t.csv"],
                 ["report", hostile, "--label", "y", "--prediction", "p", "--sensitive",
                  "a\x1b[2J", "-o", tmp / "i45t.html"]):
        add(G + "terminal", f"{args[0]} with control characters in a name",
            _terminal(args), expect="ok")

    # ---------------------------------------------------------------- duplicated header
    rows = "\n".join(f"{a},{b},{c},{d}" for a, b, c, d in zip(sex, sex[::-1], y01, p01))
    for name, header in (("sex,sex", "sex,sex,y,p"), ("sex and ' sex '", "sex, sex ,y,p")):
        dup = tmp / f"i45_dup{len(header)}.csv"
        dup.write_text(header + "\n" + rows + "\n")
        for command in (["report", dup, "--label", "y", "--prediction", "p", "--sensitive",
                         "sex", "-o", tmp / "i45d.html"],
                        ["audit", dup, "--decision", "y", "--positive-label", "1",
                         "--protected", "sex", "--protected-value", "f", "-o",
                         tmp / "i45d.csv"]):
            add(G + "duplicated header", f"{command[0]}: {name}",
                cli(command, "error", "names column 'sex' 2 times"))
    add(G + "duplicated header", "report from standard input", cli(
        ["report", "-", "--label", "y", "--prediction", "p", "--sensitive", "sex", "-o",
         tmp / "i45d.html"], "error", "names column 'sex' 2 times",
        stdin="sex,sex,y,p\n" + rows + "\n"))
