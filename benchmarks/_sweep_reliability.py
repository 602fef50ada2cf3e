"""The input sweep's cases of the reliability issue (21): one block per category.

``add_cases(add, tmp, cli)`` registers them on :func:`input_sweep.build_cases`'s
``add``. A case that returns a value has a ``check``: a function of the result
that returns None when the result is right, else what is wrong (the case is
then ``silent``). Categories whose fix belongs to another part of the package
say so in their group name: ``[exact engine]`` (the distances' dynamic range)
and ``[group keys]`` (the intersection key and the bootstrap's cells).
"""

import os
import re

import numpy as np

FSI, PDI, RLO = "\u2068", "\u2069", "\u202e"


def _brute(X, y, a):
    """Distance from each (y, x) to the nearest row of another group, in plain float64."""
    Z = np.column_stack([np.asarray(y, dtype=float), np.asarray(X, dtype=float)])
    a = np.asarray(a)
    out = np.empty(Z.shape[0])
    for i in range(Z.shape[0]):
        other = a != a[i]
        out[i] = np.sqrt(((Z[other] - Z[i]) ** 2).sum(axis=1)).min()
    return out


def _close(got, expected, rtol=1e-6):
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    if got.shape == expected.shape and np.allclose(got, expected, rtol=rtol, atol=1e-12):
        return None
    return f"got {np.round(got, 4).tolist()}, brute force {np.round(expected, 4).tolist()}"


def _unisolated(page, char):
    depth = 0
    for c in page:
        if c == FSI:
            depth += 1
        elif c == PDI:
            depth = max(depth - 1, 0)
        elif c == char and depth == 0:
            return True
    return False


def add_cases(add, tmp, cli):
    import pandas as pd

    from skfair_manifold.datasets import make_biased_decisions
    from skfair_manifold.distances import set_distance
    from skfair_manifold.metrics import demographic_parity, fairness_report, hfm_report
    from skfair_manifold.situation_testing import SituationTestingAuditor

    def evidence_html(auditor, X, y, **options):  # the evidence page is the report's own
        return auditor.report(X, y).to_html(**options)

    rng = np.random.default_rng(21)

    # ------------------------------------------------------------ [exact engine] item 1
    n = 400
    binary = rng.integers(0, 2, (n, 3)).astype(float)
    yb = rng.integers(0, 2, n).astype(float)
    ab = rng.integers(0, 2, n)
    for span in (1e8, 1e11, 1e15):
        days = rng.integers(0, 30, n) * (span / 30) + 1.6e12 * (span >= 1e11)
        Xs = np.column_stack([days, binary])

        def case(X_=Xs):
            return set_distance(X_, yb, ab)
        add("set_distance [exact engine]", f"a column spanning {span:.0e} with ties",
            case, expect="ok", fragment="scale",
            check=lambda r, X_=Xs: _close(r, (_brute(X_, yb, ab).max(),
                                                  _brute(X_, yb, ab).mean())))
    yp = np.where(rng.random(n) < 0.8, yb, 1 - yb)
    Xd = np.column_stack([rng.integers(0, 30, n) * 86_400_000.0 + 1.6e12, binary])

    def hfm_distances():
        r = hfm_report(yb, yp, X=Xd, sensitive_features=ab, method="exact", scale=False)
        return float(r.d_max), float(r.d_avg), float(r.d_f_max), float(r.d_f_avg)
    add("hfm_report [exact engine]", "Unix milliseconds beside binary features, scale=False",
        hfm_distances, expect="ok",
        check=lambda r: _close(r, (_brute(Xd, yb, ab).max(), _brute(Xd, yb, ab).mean(),
                                   _brute(Xd, yp, ab).max(), _brute(Xd, yp, ab).mean())))

    # ------------------------------------------------------------ [group keys] item 2
    def intersect_labels(n_attr, n_values, n_rows):
        A = pd.DataFrame({f"b{k}": rng.integers(0, n_values, n_rows) for k in range(n_attr)})
        y_, p_ = rng.integers(0, 2, n_rows), rng.integers(0, 2, n_rows)

        def run():
            return fairness_report(y_, p_, sensitive_features=A, intersect=True).by_group

        def check(by_group):
            truth = A.astype(str).agg(" & ".join, axis=1).value_counts()
            got = by_group.reset_index().set_index("group")["count"]
            wrong = sum(int(got.get(label, -1) != count) for label, count in truth.items())
            return None if wrong == 0 and len(got) == len(truth) else \
                f"{wrong} of {len(truth)} combinations mislabelled or miscounted"
        return run, check
    for n_attr, n_values, n_rows in ((8, 290, 1000), (70, 2, 2000), (12, 40, 1500)):
        run, check = intersect_labels(n_attr, n_values, n_rows)
        add("fairness_report [group keys]", f"intersect, {n_attr} attributes of {n_values} "
            f"values", run, expect="ok", check=check)

    # ------------------------------------------------------------ names, missing: item 3
    m = 120
    y3, p3 = rng.integers(0, 2, m), rng.integers(0, 2, m)
    s3 = np.array(["f", "m"])[rng.integers(0, 2, m)]
    t3 = np.array(["u", "v", "w"])[rng.integers(0, 3, m)]
    named = pd.DataFrame({"all attributes": s3, "region": t3})
    add("fairness_report [names]", "a sensitive column named 'all attributes'",
        lambda: fairness_report(y3, p3, sensitive_features=named).gaps, expect="ok",
        check=lambda g: _close(
            [g["demographic_parity_difference"].iloc[0]],
            [demographic_parity(y3, p3, sensitive_features=s3)]))
    region = np.array(["NA", "None", "null"])[rng.integers(0, 3, m)]
    pred = tmp / "r21_pred.csv"
    pd.DataFrame({"y": y3, "p": p3, "region": region, "x": rng.random(m)}).to_csv(
        pred, index=False)
    named_csv = tmp / "r21_named.csv"
    pd.DataFrame({"y": y3, "p": p3, "all attributes": s3, "region": t3,
                  "x": rng.random(m)}).to_csv(named_csv, index=False)
    hfm = ["--label", "y", "--prediction", "p", "--method", "exact"]
    add("cli hfm [names]", "groups NA, None, null", cli(
        ["hfm", pred, *hfm, "--sensitive", "region", "--format", "json"], "ok", None,
        stdout_check=lambda out: None if all(f'"{g}"' in out for g in ("NA", "None", "null"))
        else "a group is missing"), expect="ok")
    add("cli hfm [names]", "a sensitive column named 'all attributes'", cli(
        ["hfm", named_csv, *hfm, "--sensitive", "all attributes", "region"], "ok", None,
        stdout_check=lambda out: None if "\nall attributes (summary) " in out
        else "the summary row and the column share one label"), expect="ok")
    data = make_biased_decisions(400, n_groups=(2, 3), bias=(0.5, 0.0), random_state=2,
                                 as_frame=True)
    frame = data.frame.copy()
    frame["s0"] = frame["s0"].map({0: "None", 1: "NA"})
    ids = [f"p{i}" for i in range(len(frame))]
    ids[:4] = ["NA", "null", "None", "nan"]
    frame.insert(0, "person", ids)
    decisions = tmp / "r21_decisions.csv"
    frame.to_csv(decisions, index=False)
    audit = ["audit", decisions, "--decision", "decision", "--positive-label", "1",
             "--protected", "s0", "--protected-value", "NA", "--method", "knn", "-k", "5",
             "--quiet"]
    add("cli audit [names]", "--protected-value NA, ids NA null None nan", cli(
        [*audit, "--id", "person", "--all-rows"], "ok", None,
        stdout_check=lambda out: None if all(f"\n{i},{v}," in out for i, v in enumerate(
            ["NA", "null", "None", "nan"]))
        else "an id was lost"), expect="ok")

    # ------------------------------------------------------------ pages: item 4
    d4 = make_biased_decisions(400, random_state=0, as_frame=True)
    X4, y4 = d4.frame.drop(columns="decision"), d4.frame["decision"]
    aud = SituationTestingAuditor(protected="s0", protected_value=1, k=10,
                                  method="knn").fit(X4, y4)
    flagged = np.asarray(aud.report(X4, y4).summary["row"], dtype=int)

    def ids_with(values):
        out = np.array([f"p{i}" for i in range(len(X4))], dtype=object)
        out[flagged[:len(values)]] = values
        return out
    add("pages", "right-to-left override in a group name (report)", lambda: fairness_report(
        y3, p3, sensitive_features=pd.DataFrame({"region": np.where(
            t3 == "u", f"evil{RLO}name", t3)})).to_html(), expect="ok",
        check=lambda page: "an override outside any isolate" if _unisolated(page, RLO)
        else None)
    add("pages", "right-to-left override in an id (evidence)", lambda: evidence_html(
        aud, X4, y4, ids=ids_with([f"a{RLO}b"])), expect="ok",
        check=lambda page: "an override outside any isolate" if _unisolated(page, RLO)
        else None)
    add("pages", "NUL and BEL in an id", lambda: evidence_html(
        aud, X4, y4, ids=ids_with(["nul\x00bel\x07"])), expect="ok",
        check=lambda page: "a control character written raw" if "\x00" in page
        or "\x07" in page else None)

    def distinct_anchors(page):
        sections = re.findall(r'<section class="sheet" id="([^"]+)"', page)
        return None if len(set(sections)) == len(sections) else \
            f"{len(sections) - len(set(sections))} anchors shared"
    add("pages", "ids a b, a_b, a.b, a/b", lambda: evidence_html(
        aud, X4, y4, ids=ids_with(["a b", "a_b", "a.b", "a/b"])), expect="ok",
        check=distinct_anchors)
    add("pages", "ids 'x', 'x ', 'x\\t' and 'x.'", lambda: evidence_html(
        aud, X4, y4, ids=ids_with(["x", "x ", "x\t", "x."])), expect="ok",
        check=distinct_anchors)
    add("pages", "duplicate ids in evidence_html", lambda: evidence_html(
        aud, X4, y4, ids=["same"] * len(X4)), fragment="ids must name each row once")

    def narrow(page):
        widths = [int(w) for w in re.findall(r'<svg[^>]* width="(\d+)"', page)]
        wraps = "overflow-wrap: anywhere" in page
        return None if wraps and max(widths, default=0) <= 1280 else \
            f"widest figure {max(widths, default=0)} px, long words wrap: {wraps}"
    add("pages", "a 5,000-character attribute name (report)", lambda: fairness_report(
        y3, p3, sensitive_features=pd.DataFrame({"n" * 5000: s3})).to_html(), expect="ok",
        check=narrow)
    long_graph = SituationTestingAuditor(protected="s0", protected_value=1, k=10,
                                         method="cbn", graph=["x0", "s0", "L" * 3000])
    X4l = X4.assign(**{"L" * 3000: X4["x1"]})
    add("pages", "a 3,000-character column in the causal graph (evidence)",
        lambda: evidence_html(long_graph.fit(X4l, y4), X4l, y4), expect="ok", check=narrow)

    # ------------------------------------------------------------ outputs: item 5
    plain = frame.assign(person=[f"p{i}" for i in range(len(frame))],
                         s0=frame["s0"].map({"None": "male", "NA": "female"}))
    plain_csv = tmp / "r21_plain.csv"
    plain.to_csv(plain_csv, index=False)
    out_args = ["audit", plain_csv, "--decision", "decision", "--positive-label", "1",
                "--protected", "s0", "--protected-value", "female", "--method", "knn",
                "-k", "5", "--quiet", "--id", "person"]
    same = tmp / "r21_same.csv"
    add("cli outputs", "--testers and -o name one file", cli(
        [*out_args, "--testers", same, "-o", same], "error", "name the same file"))
    add("cli outputs", "--html x.csv -o ./x.csv", cli(
        [*out_args, "--html", tmp / "r21_x.csv", "-o", tmp / "." / "r21_x.csv"], "error",
        "name the same file"))
    os.symlink(tmp / "r21_target.csv", tmp / "r21_link.csv")
    add("cli outputs", "-o through a symbolic link to --testers", cli(
        [*out_args, "--testers", tmp / "r21_target.csv", "-o", tmp / "r21_link.csv"],
        "error", "name the same file"))
    add("cli outputs", "--html - beside the CSV on standard output", cli(
        [*out_args, "--html", "-"], "error", "standard output"))
    add("cli outputs", "--testers - and -o -", cli(
        [*out_args, "--testers", "-", "-o", "-"], "error", "standard output"))
    read_only = tmp / "r21_read_only.csv"
    read_only.write_text("keep\n")
    read_only.chmod(0o444)
    add("cli outputs", "-o a read-only file", cli([*out_args, "-o", read_only], "error",
                                                    "read-only"))
    add("cli outputs", "-o /proc/version", cli([*out_args, "-o", "/proc/version"], "error",
                                                 "read-only"))
    add("cli outputs", "--html into a missing folder", cli(
        [*out_args, "--html", tmp / "r21_none" / "page.html"], "error", "does not exist"))

    # ------------------------------------------------------------ auditor: item 6
    d6 = make_biased_decisions(n_samples=1500, random_state=0, as_frame=True)
    X6 = pd.concat([d6.data, d6.sensitive], axis=1)
    y6 = d6.target
    cont = X6.assign(inc=rng.random(len(X6)) * 1000)

    def st(**kw):
        params = dict(protected="s0", protected_value=1, k=10, method="knn")
        params.update(kw)
        return SituationTestingAuditor(**params)

    def no_nan(out):
        return "NaN rates" if np.isnan(out).any() else None
    for kind in ("ordinal", "nominal"):
        add("SituationTestingAuditor", f"a continuous column declared {kind} (cbn, graph)",
            lambda kind=kind: st(method="cbn", graph={"decision": ["inc", "x0", "s0"]},
                                 **{kind: ["inc"]}).fit(cont, y6).transform(cont),
            expect="ok", fragment="Declare it interval", check=no_nan)
    add("SituationTestingAuditor", "a column of unique integer codes declared ordinal (cbn)",
        lambda: st(method="cbn", graph={"decision": ["code", "x0", "s0"]}, ordinal=["code"])
        .fit(X6.assign(code=rng.permutation(len(X6)) * 0.5), y6).transform(X6.assign(
            code=rng.permutation(len(X6)) * 0.5)), expect="ok", fragment="interval",
        check=no_nan)

    def refit(**changes):
        est = st().fit(X6, y6)
        est.set_params(**changes)
        return est.transform(X6)
    add("SituationTestingAuditor", "set_params(k=10000) after fit", lambda: refit(k=10_000),
        fragment="k=10000")
    add("SituationTestingAuditor", "set_params(tau=5) after fit", lambda: refit(tau=5),
        fragment="tau")
    add("SituationTestingAuditor", "set_params(protected_value=0) after fit",
        lambda: refit(protected_value=0), fragment="fit again")
    add("SituationTestingAuditor", "object column with None", lambda: st().fit(
        X6.assign(city=pd.Series(["a", "b", None] * 500, dtype=object)), y6),
        fragment="missing values")
    add("SituationTestingAuditor", "string column with pd.NA", lambda: st().fit(
        X6.assign(city=pd.Series(["a", "b", None] * 500, dtype="string")), y6),
        fragment="missing values")
    add("SituationTestingAuditor", "Float64 column with pd.NA", lambda: st().fit(
        X6.assign(w=pd.array([1.5, None, 2.5] * 500, dtype="Float64")), y6),
        fragment="'w'")
    big = make_biased_decisions(n_samples=60_000, random_state=0, as_frame=True)
    Xbig = pd.concat([big.data, big.sensitive], axis=1)
    add("SituationTestingAuditor", "pairwise on 60,000 rows", lambda: st().fit(
        Xbig, big.target).pairwise(Xbig), fragment="would need")
    add("SituationTestingAuditor", "n_bins=10**9, quantile binning", lambda: st(
        method="cbn", n_bins=10**9, binning="quantile", graph={"decision": ["inc", "s0"]})
        .fit(cont, y6), fragment="n_bins")

    # ------------------------------------------------------------ runaway sizes
    add("fairness_report [group keys]", "n_boot=10**8 on 1,000 rows", lambda: fairness_report(
        rng.integers(0, 2, 1000), rng.integers(0, 2, 1000),
        sensitive_features=rng.integers(0, 3, 1000), n_boot=10**8), fragment="n_boot")

    # ------------------------------------------------------------ weights, frames: item 7
    w = rng.random(m) + 0.5
    unit = demographic_parity(y3, p3, sensitive_features=s3, sample_weight=w)
    for scale in (1e308 / 1.5, 1e-310, 1e300):
        add("demographic_parity", f"weights x {scale:.0e}", lambda scale=scale:
            demographic_parity(y3, p3, sensitive_features=s3, sample_weight=w * scale),
            expect="ok", check=lambda r: _close([r], [unit], rtol=1e-9))
    add("fairness_report", "weights of 1e308 (gaps)", lambda: fairness_report(
        y3, p3, sensitive_features=s3, sample_weight=np.full(m, 1e308)).gaps,
        expect="ok", check=lambda g: _close(
            [g["demographic_parity_difference"].iloc[0]],
            [demographic_parity(y3, p3, sensitive_features=s3)]))
    multi = pd.DataFrame({("who", "sex"): s3, ("who", "region"): t3})
    flat = pd.DataFrame({"sex": s3, "region": t3})
    add("demographic_parity", "MultiIndex columns", lambda: demographic_parity(
        y3, p3, sensitive_features=multi), expect="ok",
        check=lambda r: _close([r], [demographic_parity(y3, p3, sensitive_features=flat)]))
    add("fairness_report", "MultiIndex columns", lambda: fairness_report(
        y3, p3, sensitive_features=multi).gaps, expect="ok",
        check=lambda g: _close(g["demographic_parity_difference"].to_numpy(),
                               fairness_report(y3, p3, sensitive_features=flat)
                               .gaps["demographic_parity_difference"].to_numpy()))
    add("demographic_parity", "columns 1 and '1'", lambda: demographic_parity(
        y3, p3, sensitive_features=pd.DataFrame({1: s3, "1": t3})), fragment="'1'")
    add("demographic_parity", "a column name given twice", lambda: demographic_parity(
        y3, p3, sensitive_features=pd.concat([pd.Series(s3, name="a"),
                                              pd.Series(t3, name="a")], axis=1)),
        fragment="'a'")
    Xm = pd.DataFrame(rng.random((m, 2)), columns=pd.MultiIndex.from_tuples(
        [("x", "1"), ("x", "2")]))
    add("hfm_report", "MultiIndex feature columns", lambda: float(hfm_report(
        y3, p3, X=Xm, sensitive_features=s3, method="exact").hfm_max), expect="ok",
        check=lambda r: _close([r], [float(hfm_report(y3, p3, X=Xm.to_numpy(),
                                                      sensitive_features=s3,
                                                      method="exact").hfm_max)]))
