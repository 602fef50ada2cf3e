"""Sweep of bad, odd and adversarial inputs over the public surface and the command line.

Every case says what a user should get: a clear error (a ``ValueError`` or
``TypeError``, or a one-line message and exit code 1 or 2 on the command
line, whose text holds a given fragment naming the argument, the column or
the fix), or a correct result of an edge case. Each outcome is sorted into:

* ``clear``: the expected error, with the fragment in its message;
* ``handled``: an edge case that returned a finite value, or ``nan`` with the
  documented warning;
* ``unclear``: an error of another type, a message without the fragment, or
  a traceback on the command line;
* ``silent``: a value (or exit code 0) where an error was due, or a ``nan``
  / ``inf`` with no warning;
* ``hang``: over the time limit or out of memory.

A case that returns a value may also check it (``check``: None when right,
else what is wrong), so that a wrong number is ``silent`` too; a case that
expects a value may accept a clear refusal instead (its ``fragment``). The
cases of the reliability issue are in ``_sweep_reliability.py``, those of absurd
size parameters and format characters in names (groups ``size parameters``
and ``format characters``) in ``_sweep_sizes_names.py``, those of the
newcomer's sweep (continuous outcomes, ``k="auto"``, the KNN index, lazy
audits, the command line's continuous and Parquet paths; groups ``issue 45``)
in ``_sweep_issue45.py``; groups
tagged ``[exact engine]``, ``[group keys]`` or ``[names]`` depend on the
distances' dynamic range, the group engine's keys and the report's own
names, and the last line counts them apart.

Run it under the benchmarks' lock (a case over ``TIME_LIMIT`` seconds is a
hang)::

    flock /tmp/bench.lock python -m benchmarks.input_sweep

(about two minutes); ``-v`` prints every case, ``--group TEXT`` runs the groups
holding TEXT. It needs no data files and writes ``input_sweep.txt`` to
``--results-dir`` (default ``benchmarks/results``), the command at its top.
"""

import argparse
import math
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from ._sweep_outcome import Wrong

TIME_LIMIT = 30  # seconds per case


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


def _run_case(func, expect, fragment, errors=(ValueError, TypeError), check=None):
    """One case -> (category, detail)."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = func()
    except _Timeout:
        return "hang", f"over {TIME_LIMIT} s"
    except MemoryError:
        return "hang", "out of memory"
    except errors as exc:
        message = str(exc)
        if expect == "error" and (fragment is None or fragment in message):
            return "clear", f"{type(exc).__name__}: {message[:110]}"
        if expect == "ok" and fragment is not None and fragment in message:
            return "clear", f"refused: {type(exc).__name__}: {message[:100]}"
        return "unclear", f"{type(exc).__name__}: {message[:160]}"
    except Exception as exc:  # noqa: BLE001 - the sweep sorts every outcome
        return "unclear", f"{type(exc).__name__}: {str(exc)[:160]}"
    finally:
        signal.alarm(0)
    if expect == "error":
        return "silent", f"returned {result!r:.80}"
    if isinstance(result, Wrong):
        return "silent", str(result)
    if check is not None:
        wrong = check(result)
        if wrong:
            return "silent", wrong
    values = _numbers(result)
    warned = any("Undefined" in w.category.__name__ for w in caught)
    for value in values:
        if not math.isfinite(value) and not (math.isnan(value) and warned):
            return "silent", f"returned {value} without a warning"
    return "handled", f"returned {result!r:.80}"


def _numbers(result):
    if isinstance(result, (int, float, np.floating, np.integer)):
        return [float(result)]
    if isinstance(result, tuple):
        return [v for r in result for v in _numbers(r)]
    if hasattr(result, "hfm_max") and hasattr(result, "hfm_avg"):
        return [float(result.hfm_max), float(result.hfm_avg)]
    return []


def _cli(args, expect, fragment, stdin=None, stdout_check=None, stderr_check=None):
    """A command-line case: one clear line and exit code 1/2, or success (its output
    checked by ``stdout_check`` and its standard error by ``stderr_check``, None when
    right)."""
    def run():
        proc = subprocess.run([sys.executable, "-m", "skfair_manifold", *map(str, args)],
                              capture_output=True, text=True, timeout=TIME_LIMIT,
                              input=stdin)
        return proc

    def case():
        proc = run()
        err = proc.stderr.strip()
        if "Traceback" in err:
            raise RuntimeError("traceback: " + err.splitlines()[-1][:120])
        if proc.returncode == 0:
            if expect == "error":
                return f"exit 0: {proc.stdout[:60]!r}"
            wrong = stdout_check(proc.stdout) if stdout_check is not None else None
            if not wrong and stderr_check is not None:
                wrong = stderr_check(proc.stderr)
            return Wrong(wrong) if wrong else 0.0
        if fragment is not None and fragment not in err:
            raise RuntimeError(f"exit {proc.returncode}: {err[:140]}")
        raise ValueError(f"exit {proc.returncode}: {err.splitlines()[-1][:120]}")
    return case


def build_cases(tmp):
    import pandas as pd

    from skfair_manifold.datasets import (
        load_dutch_census,
        load_ricci,
        make_biased_decisions,
        make_paper_preprocessor,
    )
    from skfair_manifold.distances import (
        accele_dist,
        approx_dist,
        extend_dist,
        extended_set_distance,
        set_distance,
    )
    from skfair_manifold.metrics import (
        demographic_parity,
        discriminative_risk,
        equal_opportunity,
        hfm_avg,
        hfm_max,
        hfm_report,
        predictive_quality_parity,
    )
    from skfair_manifold.situation_testing import SituationTestingAuditor

    rng = np.random.default_rng(0)
    n = 60
    X = rng.random((n, 3))
    y = rng.integers(0, 2, n)
    p = rng.integers(0, 2, n)
    a = rng.integers(0, 3, n)
    sex = np.array(["f", "m"])[rng.integers(0, 2, n)]
    cases = []

    def add(group, name, func, expect="error", fragment=None, errors=(ValueError, TypeError),
            check=None):
        cases.append((group, name, func, expect, fragment, errors, check))

    # ---------------------------------------------------------------- group metrics
    for metric in (demographic_parity, equal_opportunity, predictive_quality_parity):
        m = metric.__name__
        add(m, "NaN prediction", lambda f=metric: f(y, np.r_[np.nan, p[1:]],
                                                    sensitive_features=a, pos_label=1),
            fragment="y_pred contains NaN")
        add(m, "None label", lambda f=metric: f(np.r_[[None], y[1:]].astype(object), p,
                                                sensitive_features=a),
            fragment="y_true contains missing")
        add(m, "lengths differ", lambda f=metric: f(y[:-1], p, sensitive_features=a),
            fragment="rows")
        add(m, "single group", lambda f=metric: f(y, p, sensitive_features=np.zeros(n)),
            fragment="single group")
        add(m, "NaN in sensitive", lambda f=metric: f(y, p, sensitive_features=np.r_[
            np.nan, a[1:]]), fragment="missing values")
        add(m, "string labels, no pos_label", lambda f=metric: f(
            np.array(["a", "b"])[y], np.array(["a", "b"])[p], sensitive_features=a),
            fragment="pos_label")
        add(m, "string sample_weight", lambda f=metric: f(
            y, p, sensitive_features=a, sample_weight=["a"] * n), fragment="sample_weight")
        add(m, "negative sample_weight", lambda f=metric: f(
            y, p, sensitive_features=a, sample_weight=-np.ones(n)), fragment="non-negative")
        add(m, "nullable Int64 and string frame", lambda f=metric: f(
            pd.Series(pd.array(y, dtype="Int64")), pd.Series(pd.array(p, dtype="Int64")),
            sensitive_features=pd.DataFrame({"s": pd.array(sex, dtype="string")})),
            expect="ok")
        add(m, "pd.NA in sensitive", lambda f=metric: f(y, p, sensitive_features=pd.Series(
            pd.array([None] + list(sex[1:]), dtype="string"), name="sex")),
            fragment="'sex' contains missing")
        add(m, "three classes, pos_label given", lambda f=metric: f(
            a, (a + 1) % 3, sensitive_features=sex, pos_label=2), expect="ok")
        add(m, "pos_label absent", lambda f=metric: f(y, p, sensitive_features=a,
                                                      pos_label=7), fragment="pos_label=7")
    # ---------------------------------------------------------------- HFM
    for metric in (hfm_max, hfm_avg, hfm_report):
        m = metric.__name__
        add(m, "string y_true, int y_pred", lambda f=metric: f(
            np.array(["a", "b"])[y], p, X=X, sensitive_features=a, method="exact"),
            fragment="y_true holds string values")
        add(m, "NaN in X", lambda f=metric: f(y, p, X=np.where(X > 0.9, np.nan, X),
                                              sensitive_features=a, method="exact"),
            fragment="NaN or infinity")
        add(m, "object X with None", lambda f=metric: f(
            y, p, X=np.column_stack([X[:, :2], np.r_[[None], X[1:, 2]]]).astype(object),
            sensitive_features=a, method="exact"), fragment="missing values")
        add(m, "text column in X", lambda f=metric: f(
            y, p, X=pd.DataFrame({"x": X[:, 0], "city": sex}), sensitive_features=a),
            fragment="'city'")
        add(m, "1-D X", lambda f=metric: f(y, p, X=X[:, 0], sensitive_features=a),
            fragment="2-dimensional")
        add(m, "nullable frame X", lambda f=metric: f(
            y, p, X=pd.DataFrame({"i": pd.array((X[:, 0] * 9).astype(int), dtype="Int64"),
                                  "f": X[:, 1]}), sensitive_features=a, method="exact"),
            expect="ok")
        add(m, "single row", lambda f=metric: f([1], [1], X=[[0.0]], sensitive_features=[0]),
            fragment="at least 2")
        add(m, "identical rows across groups", lambda f=metric: f(
            [0, 0], [0, 0], X=[[0.0], [0.0]], sensitive_features=[0, 1], method="exact"),
            expect="ok")
        add(m, "m1=0", lambda f=metric: f(y, p, X=X, sensitive_features=a, m1=0),
            fragment="m1")
    # ---------------------------------------------------------------- distances
    for func in (set_distance, approx_dist):
        m = func.__name__
        add(m, "NaN label", lambda f=func: f(X, np.r_[np.nan, y[1:]], a),
            fragment="NaN or infinity")
        add(m, "two attributes to a one-attribute function", lambda f=func: f(
            X, y, np.column_stack([a, y])), fragment="one sensitive attribute")
        add(m, "complex X", lambda f=func: f(X.astype(complex), y, a), fragment="complex")
        add(m, "string label", lambda f=func: f(X, np.array(["a", "b"])[y], a),
            fragment="numeric")
    for func in (extended_set_distance, extend_dist):
        m = func.__name__
        add(m, "empty sensitive", lambda f=func: f(X, y, np.empty((n, 0))),
            fragment="no sensitive column")
        add(m, "mixed sensitive", lambda f=func: f(X, y, pd.DataFrame({"g": pd.Series(
            ["a", 1] * (n // 2), dtype=object)})), fragment="mixes values")
        add(m, "polars frames", lambda f=func: f(_polars({"x": X[:, 0]}), y,
                                                 _polars({"s": sex})), expect="ok")
    add("accele_dist", "string projection vector", lambda: accele_dist(
        X, y, a, ["a"] * 4, m2=2), fragment="w must be a projection vector")
    add("accele_dist", "zero projection vector", lambda: accele_dist(
        X, y, a, np.zeros(4), m2=2), fragment="non-zero")
    # ---------------------------------------------------------------- discriminative risk
    from sklearn.tree import DecisionTreeClassifier

    Xs = np.column_stack([X, a])
    tree = DecisionTreeClassifier(random_state=0).fit(Xs, y)
    add("discriminative_risk", "NaN in sensitive column", lambda: discriminative_risk(
        tree, np.column_stack([X, np.r_[np.nan, a[1:]]]), sensitive=3),
        fragment="missing values")
    add("discriminative_risk", "unknown column name", lambda: discriminative_risk(
        tree, pd.DataFrame(Xs, columns=["x0", "x1", "x2", "race"]), sensitive="rase"),
        fragment="Did you mean 'race'")
    add("discriminative_risk", "privileged value absent", lambda: discriminative_risk(
        tree, Xs, sensitive=3, privileged=[9]), fragment="privileged value")
    # ---------------------------------------------------------------- preprocessing, loaders
    add("make_paper_preprocessor", "a bare string", lambda: make_paper_preprocessor(
        "abc", []), fragment="got the string 'abc'")
    add("make_paper_preprocessor", "unknown sensitive option", lambda: make_paper_preprocessor(
        [], [], sensitive="x"), fragment="sensitive must be one of")
    files = {
        "empty.csv": b"",
        "latin1.csv": "Position,Oral,Written,Race,Combine\nCapitán,1,2,W,3\n".encode("latin-1"),
        "score.csv": b"Position,Oral,Written,Race,Combine\nCaptain,1,2,W,abc\n",
        "columns.csv": b"a,b\n1,2\n",
        "domain.arff": b"@relation t\n@attribute sex {1,2}\n@data\n3\n",
    }
    for name, content in files.items():
        (tmp / name).write_bytes(content)
    add("load_ricci", "empty file", lambda: load_ricci(path=tmp / "empty.csv"),
        fragment="the file is empty")
    add("load_ricci", "non-UTF-8 file", lambda: load_ricci(path=tmp / "latin1.csv"),
        fragment="not UTF-8")
    add("load_ricci", "non-numeric score", lambda: load_ricci(path=tmp / "score.csv"),
        fragment="'Combine' must hold numbers")
    add("load_ricci", "wrong columns", lambda: load_ricci(path=tmp / "columns.csv"),
        fragment="lacks the column")
    add("load_ricci", "a folder as path", lambda: load_ricci(path=tmp), fragment="folder",
        errors=(FileNotFoundError,))
    add("load_ricci", "a missing file", lambda: load_ricci(path=tmp / "nope.csv"),
        fragment="nope.csv", errors=(FileNotFoundError,))
    add("load_dutch_census", "ARFF value out of domain", lambda: load_dutch_census(
        path=tmp / "domain.arff"), fragment="outside its attribute's declared domain")
    # ---------------------------------------------------------------- auditor
    data = make_biased_decisions(n_samples=300, random_state=0, as_frame=True)
    frame = pd.concat([data.data, data.sensitive], axis=1)
    sens = data.sensitive.columns[0]
    value = data.sensitive[sens].iloc[0]

    def audit(X_, **kw):
        params = dict(protected=sens, protected_value=value, k=5, method="knn")
        params.update(kw)
        return lambda: SituationTestingAuditor(**params).fit(X_, data.target).transform(X_)
    add("SituationTestingAuditor", "unknown protected column", audit(frame, protected="sx"),
        fragment="'sx'")
    add("SituationTestingAuditor", "protected value absent", audit(frame, protected_value="zz"),
        fragment="'zz'")
    add("SituationTestingAuditor", "k too large", audit(frame, k=10_000), fragment="k")
    add("SituationTestingAuditor", "mixed str/int column", audit(
        frame.assign(mix=pd.Series(["a", 1] * 150, dtype=object))), fragment="'mix'")
    add("SituationTestingAuditor", "datetime column", audit(
        frame.assign(when=pd.date_range("2020-01-01", periods=300))), fragment="'when'")
    add("SituationTestingAuditor", "graph as nested lists", audit(
        frame, method="cbn", graph={"decision": [["x0"]]}), fragment="graph")
    # ---------------------------------------------------------------- plots
    try:
        import matplotlib

        matplotlib.use("Agg")
        from skfair_manifold.plotting import (
            plot_approx_vs_exact,
            plot_fairness_tradeoff,
            plot_hfm_by_attribute,
        )
        add("plot_hfm_by_attribute", "empty dict", lambda: plot_hfm_by_attribute({}),
            fragment="empty")
        add("plot_hfm_by_attribute", "unknown measure", lambda: plot_hfm_by_attribute(
            {"sex": {"df": 0.1}}, measures=["nope"]), fragment="nope")
        add("plot_hfm_by_attribute", "empty measures", lambda: plot_hfm_by_attribute(
            {"sex": {"df": 0.1}}, measures=[]), fragment="measures")
        add("plot_fairness_tradeoff", "scores of different lengths",
            lambda: plot_fairness_tradeoff({"mean_test_hfm": [0.1, 0.2],
                                            "mean_test_acc": [0.3]}, performance="acc"),
            fragment="holds 2 values of 'hfm' and 1 of 'acc'")
        add("plot_fairness_tradeoff", "a list", lambda: plot_fairness_tradeoff([0.1, 0.2]),
            fragment="cv_results must be")
        add("plot_approx_vs_exact", "NaN values", lambda: plot_approx_vs_exact(
            [0.1, np.nan, 0.3], [0.1, 0.2, 0.3]), fragment="NaN")
        add("plot_approx_vs_exact", "strings", lambda: plot_approx_vs_exact(
            ["a", "b"], [0.1, 0.2]), fragment="number")
    except ImportError:
        pass
    # ---------------------------------------------------------------- scorers
    from sklearn.linear_model import LogisticRegression

    from skfair_manifold.scorers import hfm_avg_scorer

    model = LogisticRegression().fit(X, y)
    add("hfm_avg_scorer", "sample_weight", lambda: hfm_avg_scorer(
        model, X, y, sensitive_features=a, sample_weight=np.ones(n)),
        fragment="sample_weight")
    # ---------------------------------------------------------------- command line
    csv = tmp / "pred.csv"
    pd.DataFrame({"y": y, "p": p, "sex": sex, "x": X[:, 0],
                  "name": [f"=HYPERLINK(\"http://x\",\"{i}\")" for i in range(n)]}
                 ).to_csv(csv, index=False)
    add("cli hfm", "missing column", _cli(["hfm", str(csv), "--label", "yy", "--prediction",
                                           "p", "--sensitive", "sex"], "error", "'yy'"))
    add("cli hfm", "missing file", _cli(["hfm", str(tmp / "nope.csv"), "--label", "y",
                                         "--prediction", "p", "--sensitive", "sex"],
                                        "error", "nope.csv"))
    add("cli hfm", "output to /dev/full", _cli(["hfm", str(csv), "--label", "y",
                                                "--prediction", "p", "--sensitive", "sex",
                                                "--features", "x", "-o", "/dev/full"],
                                               "error", "/dev/full"))
    add("cli hfm", "output is the input", _cli(["hfm", str(csv), "--label", "y",
                                                "--prediction", "p", "--sensitive", "sex",
                                                "--features", "x", "-o", str(csv)],
                                               "error", "input"))
    add("cli hfm", "output in a missing folder", _cli(
        ["hfm", str(csv), "--label", "y", "--prediction", "p", "--sensitive", "sex",
         "--features", "x", "-o", str(tmp / "no" / "out.json")], "error", "no"))
    add("cli hfm", "empty separator", _cli(["hfm", str(csv), "--label", "y", "--prediction",
                                            "p", "--sensitive", "sex", "--sep", ""],
                                           "error", "--sep"))
    # an identifier-like column is left out of the default features, with a note naming it
    add("cli hfm", "identifier-like text feature", _cli(
        ["hfm", str(csv), "--label", "y", "--prediction", "p", "--sensitive", "sex"],
        "ok", None, stderr_check=lambda err: None if "left out column(s) name" in err
        else f"no note of the left-out column: {err[:80]!r}"), expect="ok")
    add("cli demo", "too few samples", _cli(["demo", "--n-samples", "10"], "error",
                                            "--n-samples"))
    add("cli audit", "graph is a folder", _cli(
        ["audit", str(csv), "--decision", "y", "--positive-label", "1", "--protected", "sex",
         "--protected-value", "f", "--graph", str(tmp)], "error", str(tmp)))
    add("cli", "unknown command", _cli(["nope"], "error", None))
    from ._sweep_issue45 import add_cases as add_issue45
    from ._sweep_reliability import add_cases
    from ._sweep_sizes_names import add_cases as add_sizes_names

    add_cases(add, tmp, _cli)
    add_sizes_names(add, tmp, _cli)
    add_issue45(add, tmp, _cli)
    return cases


def _polars(columns):
    import polars as pl

    return pl.DataFrame(columns)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-v", "--verbose", action="store_true", help="print every case")
    parser.add_argument("--group", default=None,
                        help="run only the cases whose group holds this text")
    parser.add_argument("--results-dir", type=Path, default=None,
                        help="where to write input_sweep.txt (default: benchmarks/results)")
    args = parser.parse_args(argv)
    # A case that would take all the memory is a failure of its own, not the machine's.
    limit = 8 * 2**30
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    start = time.perf_counter()
    counts = {k: 0 for k in ("clear", "handled", "unclear", "silent", "hang")}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for group, name, func, expect, fragment, errors, check in build_cases(Path(tmp)):
            if args.group is not None and args.group not in group:
                continue
            category, detail = _run_case(func, expect, fragment, errors, check)
            counts[category] += 1
            rows.append((category, group, name, detail))
    lines = [f"{category:8s} {group}: {name}: {detail}"
             for category, group, name, detail in rows
             if args.verbose or category in ("unclear", "silent", "hang")]
    total = sum(counts.values())
    lines.append(f"\n{total} cases in {time.perf_counter() - start:.1f} s: "
                 + ", ".join(f"{v} {k}" for k, v in counts.items()))
    for tag in ("[exact engine]", "[group keys]", "[names]", "size parameters",
                "format characters", "issue 45"):
        tagged = [row[0] for row in rows if tag in row[1]]
        lines.append(f"  of which {tag}: "
                     + ", ".join(f"{tagged.count(k)} {k}" for k in counts))
    text = "\n".join(lines)
    print(text)
    if args.group is None:  # the whole sweep: its results file
        from ._io import RESULTS_DIR

        folder = Path(args.results_dir or RESULTS_DIR)
        folder.mkdir(parents=True, exist_ok=True)
        shown = " -v" if args.verbose else ""
        (folder / "input_sweep.txt").write_text(
            f"$ flock /tmp/bench.lock python -m benchmarks.input_sweep{shown}\n\n"
            + text.lstrip("\n") + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
