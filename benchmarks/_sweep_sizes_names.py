"""The input sweep's cases of the size and name issue: absurd size parameters, format characters.

``add_cases(add, tmp, cli)`` registers them on :func:`input_sweep.build_cases`'s
``add``. Sizes: every integer size parameter of the public API and of the
command line given 10**12 (or 10**8 bins) must be refused with a message
naming it, at once (not a ``MemoryError`` after allocating). Names: a
bidirectional override or an invisible character in a group value, a column
or an id must never reach an output raw (the HTML report, the evidence page,
the command line's CSV, JSON, table and messages); JSON must read back the
data as it was.
"""

import json

import numpy as np

ABSURD = 10**12
#: the bidirectional controls and the invisible format characters of the issue
CHARS = [chr(c) for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A),
                          *range(0x200B, 0x2010), 0xFEFF, *range(0x2060, 0x2065)]]
FSI, PDI = "\u2068", "\u2069"


def _raw(text, *, isolates=False):
    """The format characters written raw in ``text`` (the page's own FSI ... PDI aside)."""
    depth, bad = 0, set()
    for c in text:
        if isolates and c == FSI:
            depth += 1
        elif isolates and c == PDI and depth > 0:
            depth -= 1
        elif c in CHARS:
            bad.add(f"U+{ord(c):04X}")
    return f"raw {sorted(bad)}" if bad else None


def add_cases(add, tmp, cli):
    import pandas as pd

    from skfair_manifold import SituationTestingAuditor, fairness_report
    from skfair_manifold.datasets import make_biased_decisions, make_planted_bias
    from skfair_manifold.distances import approx_dist, extend_dist
    from skfair_manifold.metrics import hfm_avg, hfm_max, hfm_report

    rng = np.random.default_rng(3)
    n = 200
    X = rng.random((n, 3))
    y, p, s = rng.integers(0, 2, n), rng.integers(0, 2, n), rng.integers(0, 2, n)
    frame = pd.DataFrame({"s0": s, "inc": X[:, 0], "age": X[:, 1]})

    def st(**kw):
        kw.setdefault("k", 5)
        return SituationTestingAuditor(protected="s0", protected_value=1, **kw)

    # ------------------------------------------------------------ absurd sizes: library
    for binning in ("mdlp", "quantile"):
        add("size parameters", f"SituationTestingAuditor n_bins=10**8 ({binning})", lambda b=binning: st(
            n_bins=10**8, binning=b).fit(frame, y), fragment="n_bins=100000000 is out of range")
    for param in ("k", "structure_bootstrap"):
        add("size parameters", f"SituationTestingAuditor {param}=10**12", lambda q=param: st(
            **{q: ABSURD}).fit(frame, y), fragment=param)
    for f in (hfm_avg, hfm_max, hfm_report):
        for param in ("m1", "n_vectors"):
            add("size parameters", f"{f.__name__} {param}=10**12", lambda f=f, q=param: f(
                y, p, X=X, sensitive_features=s, method="approx", **{q: ABSURD}), fragment=param)
    add("size parameters", "hfm_report n_boot=10**12", lambda: hfm_report(
        y, p, X=X, sensitive_features=s, n_boot=ABSURD), fragment="n_boot")
    add("size parameters", "fairness_report n_boot=10**12", lambda: fairness_report(
        y, p, sensitive_features=s, n_boot=ABSURD), fragment="n_boot")
    for f in (approx_dist, extend_dist):
        for param in ("m1", "n_vectors"):
            add("size parameters", f"{f.__name__} {param}=10**12", lambda f=f, q=param: f(
                X, y, s, **{q: ABSURD}), fragment=param)
    for param in ("n_samples", "n_features"):
        add("size parameters", f"make_biased_decisions {param}=10**12", lambda q=param:
            make_biased_decisions(**{q: ABSURD}), fragment=param)
    add("size parameters", "make_planted_bias n_samples=10**12", lambda: make_planted_bias(ABSURD),
        fragment="n_samples")

    # ------------------------------------------------------------ absurd sizes: command line
    pred = tmp / "sizes_pred.csv"
    frame.assign(y=y, y_pred=p).to_csv(pred, index=False)
    dec = tmp / "sizes_dec.csv"
    frame.assign(decision=y).to_csv(dec, index=False)
    hfm_args = [str(pred), "--label", "y", "--prediction", "y_pred", "--sensitive", "s0",
                "--features", "inc", "age", "--method", "approx", "--quiet"]
    audit_args = [str(dec), "--decision", "decision", "--protected", "s0", "--protected-value",
                  "1", "--positive-label", "1", "-k", "5", "--quiet"]
    for option in ("--m1", "--n-boot"):
        add("size parameters", f"cli hfm {option} 10**12", cli(["hfm", *hfm_args, option, ABSURD],
                                                     "error", option.lstrip("-").replace("-", "_")))
    add("size parameters", "cli audit --n-bins 10**8", cli(["audit", *audit_args, "--n-bins", 10**8],
                                                 "error", "n_bins=100000000 is out of range"))
    add("size parameters", "cli audit -k 10**12", cli(["audit", *audit_args, "-k", ABSURD], "error",
                                            "k=1000000000000"))
    add("size parameters", "cli demo --n-samples 10**12", cli(["demo", "--n-samples", ABSURD], "error",
                                                    "--n-samples"))

    # ------------------------------------------------------------ format characters in names
    for char in CHARS:
        groups = np.array(["north", f"evil{char}name"])[rng.integers(0, 2, n)]
        add("format characters", f"HTML report, U+{ord(char):04X} in a group and a column", lambda g=groups,
            c=char: fairness_report(y, p, sensitive_features=pd.DataFrame({f"reg{c}ion": g}),
                                    min_group_size=1).to_html(),
            expect="ok", check=lambda page: _raw(page, isolates=True))
    data = make_biased_decisions(300, random_state=0, as_frame=True)
    Xh, yh = data.frame.drop(columns="decision"), data.frame["decision"]
    Xh = Xh.rename(columns={c: f"{c}{CHARS[i]}" for i, c in enumerate(Xh.columns) if c != "s0"})
    Xh["s0"] = Xh["s0"].map({0: f"m{CHARS[0]}", 1: f"f{CHARS[4]}x"})
    ids = np.array([f"p{CHARS[i % len(CHARS)]}{i}" for i in range(len(Xh))], dtype=object)

    def evidence():
        aud = SituationTestingAuditor(protected="s0", protected_value=f"f{CHARS[4]}x", k=10,
                                      method="knn").fit(Xh, yh)
        return aud.report(Xh, yh).to_html(ids=ids)
    add("format characters", "evidence page, every character in columns, groups and ids", evidence,
        expect="ok", check=lambda page: _raw(page, isolates=True))

    hostile = tmp / "names.csv"
    table = pd.DataFrame({f"sex{CHARS[4]}": rng.choice([f"F{CHARS[5]}", f"M{CHARS[9]}"], n),
                          f"inc{CHARS[13]}ome": X[:, 0], "age": X[:, 1], "y": y, "y_pred": p,
                          "id": [f"p{CHARS[i % len(CHARS)]}{i}" for i in range(n)]})
    table.to_csv(hostile, index=False)
    sex, inc = table.columns[0], table.columns[1]
    base = [str(hostile), "--label", "y", "--prediction", "y_pred", "--sensitive", sex,
            "--features", inc, "age", "--quiet"]

    def faithful(out):
        raw = _raw(out)
        if raw:
            return raw
        names = json.dumps(json.loads(out), ensure_ascii=False)
        return None if sex in names else "the column's name not read back as it was"
    add("format characters", "cli hfm JSON: escaped, read back as the data", cli(
        ["hfm", *base, "--format", "json"], "ok", None, stdout_check=faithful), expect="ok")
    add("format characters", "cli hfm table", cli(["hfm", *base], "ok", None, stdout_check=_raw), expect="ok")
    add("format characters", "cli audit CSV", cli(
        ["audit", str(hostile), "--decision", "y", "--positive-label", "1", "--protected", sex,
         "--protected-value", table[sex].iloc[0], "--features", inc, "age", "--id", "id",
         "-k", "10", "--method", "knn", "--all-rows", "--quiet"], "ok", None,
        stdout_check=_raw), expect="ok")
    add("format characters", "cli message listing the columns", cli(
        ["hfm", str(hostile), "--label", "nope", "--prediction", "y_pred", "--sensitive", sex,
         "--features", "age"], "error", "sex<U+202E>"))
