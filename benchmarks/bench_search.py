"""What HFM costs in a model search, next to DP and EO, measured side by side.

Two searches, in one process with the same candidates and folds
(``GridSearchCV``, one worker, ``refit=False``), scored with

- accuracy + demographic parity + equal opportunity (``DP/EO``);
- accuracy + ``hfm_avg_scorer`` + ``hfm_max_scorer`` with the search's reuse
  (``HFM``): the true labels' distances once per fold, the predictions'
  distances once per call for both scorers, neighbour lists built by the
  first candidate of a fold and answering every labelling
  (``distances/_reuse.py``);
- the same HFM search with the cache's budget 0 (no distances kept between
  calls; the two HFM scorers of one call still share the exact report).

The DP/EO and the HFM searches run twice each, alternated, and the best time
of each is kept (the machine is shared); the third runs once.

The searches:

1. Adult (``--data-dir``), a LightGBM pipeline (one-hot encoding of the
   categorical columns, scaling of the numerical ones), 9 candidates
   (``num_leaves`` x ``learning_rate``) x 5 folds; the HFM scorers measure
   distances on the transformed features without the outputs of ``race`` and
   ``sex`` (routed as ``sensitive_features``).
2. Uniform data, 30,000 x 30, two attributes (2 and 5 values), a scaled
   logistic regression, 8 values of ``C`` x 3 folds.
3. The credit-like table of ``_generated.py`` (30,000 x 20 on mixed scales,
   three attributes of 2, 4 and 7 values), a bare LightGBM classifier (no
   pipeline: the HFM scorers measure distances on the raw features, scaled by
   ``hfm_report``'s default), the grid of the Adult search, 9 candidates x 5
   folds; every option at its default.
4. The tied credit table of ``_generated.py`` (``credit_tied``: 30,000 x 20
   integer codes, a limit in steps of 10,000, repayment statuses, whole-dollar
   bills and mostly round payments, one account in seven inactive, so that
   rows tie and repeat; sex, education and marriage of 2, 7 and 4 values), a
   MinMaxScaler + LightGBM pipeline with 60 trees (cheap fits, so that the
   scorers' own cost shows), 9 candidates x 5 folds; the HFM scorers measure
   distances on the scaler's output.

Printed per search: the three times, ``HFM / DP-EO`` (target at most 1.15
for the Adult and the credit-like searches) and ``no reuse / DP-EO``; that the HFM scores with and
without reuse are equal bit for bit; and, on the first fold, the HFM scoring
time of the first candidate (which builds the neighbour lists) and the cost
per candidate after the first, beside one uncached scoring.

Usage (hold the benchmarks' lock while timing)::

    flock /tmp/bench.lock python -m benchmarks.bench_search [--quick] [--data-dir DIR]
        [--searches adult logistic credit tied] [--profile] [--runs N]

``--profile``: the HFM search (reuse on) of the credit-like and the tied
tables once more under cProfile, the functions of the package and of
scikit-learn's search with the most cumulative time printed (and written
beside the result). ``--runs N``: each search's timing N times over (the
ratios of every run printed, then their range).
"""

import time

import numpy as np
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, StandardScaler

from skfair_manifold.distances._testing import reuse_cache
from skfair_manifold.scorers import (
    demographic_parity_scorer,
    equal_opportunity_scorer,
    hfm_avg_scorer,
    hfm_max_scorer,
)

from ._io import load, machine, parse_args, write_result

GROUP = {"acc": "accuracy", "dp": demographic_parity_scorer, "eo": equal_opportunity_scorer}
HFM = {"acc": "accuracy", "avg": hfm_avg_scorer, "max": hfm_max_scorer}
#: Runs of the DP/EO and the HFM search (alternated; the best of each is kept).
REPEAT = 2


def adult_search(data_dir, quick):
    from lightgbm import LGBMClassifier

    bunch = load("income", data_dir)
    X, y = bunch.data, np.asarray(bunch.target)
    A = bunch.sensitive[bunch.sensitive_features]
    if quick:
        X, y, A = X.iloc[:6000], y[:6000], A.iloc[:6000]
    pre = ColumnTransformer([
        ("cat", OneHotEncoder(handle_unknown="ignore", sparse_output=False),
         list(bunch.categorical_features) + list(bunch.sensitive_features)),
        ("num", StandardScaler(), list(bunch.numerical_features)),
    ])
    model = Pipeline([("pre", pre), ("lgbm", LGBMClassifier(n_estimators=100, n_jobs=1,
                                                            verbose=-1, random_state=0))])
    grid = {"lgbm__num_leaves": [15, 31, 63], "lgbm__learning_rate": [0.05, 0.1, 0.2]}
    return "Adult, LightGBM pipeline, 9 candidates x 5 folds", model, grid, X, y, A, 5


def logistic_search(quick):
    rng = np.random.default_rng(0)
    n, p = (6000, 30) if quick else (30_000, 30)
    X = rng.random((n, p))
    A = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 5, n)])
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.2 * A[:, 0] + 0.3 * rng.random(n) > 1.0).astype(int)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=300))
    grid = {"logisticregression__C": list(np.logspace(-3, 2, 8))}
    return f"uniform {n:,} x {p}, logistic regression, 8 candidates x 3 folds", \
        model, grid, X, y, A, 3


def credit_search(quick):
    from lightgbm import LGBMClassifier

    from ._generated import credit_like

    X, y, A = credit_like(6000 if quick else 30_000)
    model = LGBMClassifier(n_estimators=100, n_jobs=1, verbose=-1, random_state=0)
    grid = {"num_leaves": [15, 31, 63], "learning_rate": [0.05, 0.1, 0.2]}
    return (f"credit-like {X.shape[0]:,} x {X.shape[1]} (mixed scales, attributes of 2, 4 "
            "and 7 values), LightGBM, 9 candidates x 5 folds, defaults", model, grid, X, y,
            A, 5)


def tied_search(quick):
    from lightgbm import LGBMClassifier

    from ._generated import credit_tied

    X, y, A = credit_tied(6000 if quick else 30_000)
    model = make_pipeline(MinMaxScaler(), LGBMClassifier(n_estimators=60, n_jobs=1, verbose=-1,
                                                         random_state=0))
    grid = {"lgbmclassifier__num_leaves": [15, 31, 63],
            "lgbmclassifier__learning_rate": [0.05, 0.1, 0.2]}
    return (f"tied credit table {X.shape[0]:,} x {X.shape[1]} (integer codes, "
            f"{len(np.unique(X, axis=0)):,} distinct rows; attributes of 2, 7 and 4 values), "
            "MinMaxScaler + LightGBM (60 trees), 9 candidates x 5 folds", model, grid, X, y,
            A, 5)


def profile(label, model, grid, X, y, A, cv, top=25):
    """The HFM search once under cProfile: the most cumulative time, as text."""
    import cProfile
    import io
    import pstats

    reuse_cache().clear()
    prof = cProfile.Profile()
    prof.enable()
    run(model, grid, X, y, A, cv, HFM)
    prof.disable()
    reuse_cache().clear()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out).sort_stats("cumulative")
    stats.print_stats(r"skfair_manifold|_validation.py|_search.py|lightgbm", top)
    out.write("\nBy own time:\n")
    stats.sort_stats("tottime").print_stats(top // 2)
    body = "\n".join(line for line in out.getvalue().splitlines() if line.strip())
    return f"### Profile of the HFM search: {label}\n\n```\n{body}\n```"


def run(model, grid, X, y, A, cv, scoring):
    search = GridSearchCV(model, grid, scoring=scoring, refit=False, n_jobs=1,
                          cv=StratifiedKFold(cv, shuffle=True, random_state=0))
    t0 = time.perf_counter()
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, sensitive_features=A)
    return time.perf_counter() - t0, search.cv_results_


def hfm_scores(results):
    return {k: np.asarray(v) for k, v in results.items()
            if k.startswith("split") and k.endswith(("_avg", "_max"))}


def per_candidate(model, grid, X, y, A, cv):
    """Scoring time of each candidate on the first fold, as the search scores it.

    One multi-metric call per candidate (accuracy and the two fairness
    scorers, the predictions made once), in the search's order: with the
    HFM scorers (reuse on, then off) and with DP and EO.
    """
    from sklearn.base import clone
    from sklearn.metrics import check_scoring
    from sklearn.model_selection import ParameterGrid

    train, test = next(StratifiedKFold(cv, shuffle=True, random_state=0).split(X, y))
    take = (lambda Z, idx: Z.iloc[idx]) if hasattr(X, "iloc") else (lambda Z, idx: Z[idx])
    take_a = (lambda Z, idx: Z.iloc[idx]) if hasattr(A, "iloc") else (lambda Z, idx: Z[idx])
    fitted = [clone(model).set_params(**params).fit(take(X, train), y[train])
              for params in ParameterGrid(grid)]
    X_test, y_test, A_test = take(X, test), y[test], take_a(A, test)

    def score_all(scoring):
        times = []
        with sklearn.config_context(enable_metadata_routing=True):
            for est in fitted:
                scorer = check_scoring(est, scoring=scoring)
                t0 = time.perf_counter()
                scorer(est, X_test, y_test, sensitive_features=A_test)
                times.append(time.perf_counter() - t0)
        return times

    store = reuse_cache()
    budget = store.budget
    store.clear()
    group = score_all(GROUP)
    with_reuse = score_all(HFM)
    store.budget = 0
    without = score_all(HFM)
    store.budget = budget
    store.clear()
    return len(test), with_reuse, without, group


def bench(label, model, grid, X, y, A, cv, runs=1):
    """The table of one search; with ``runs`` > 1 the timing ``runs`` times over."""
    if runs == 1:
        return timed_search(label, model, grid, X, y, A, cv)[0]
    parts, ratios = zip(*(timed_search(f"{label}, run {r + 1} of {runs}", model, grid, X, y,
                                       A, cv) for r in range(runs)))
    return "\n\n".join(parts) + (f"\n\nHFM / DP-EO over the {runs} runs: "
                                  + ", ".join(f"{r:.2f}" for r in ratios)
                                  + f" (largest {max(ratios):.2f}).")


def timed_search(label, model, grid, X, y, A, cv):
    """One run's table and its ratio HFM / DP-EO."""
    store = reuse_cache()
    budget = store.budget
    # Best of REPEAT runs each, alternated, against the noise of a shared machine;
    # the cache is emptied before every HFM run.
    t_group = t_hfm = np.inf
    for _ in range(REPEAT):
        t_group = min(t_group, run(model, grid, X, y, A, cv, GROUP)[0])
        store.clear()
        t, res_hfm = run(model, grid, X, y, A, cv, HFM)
        t_hfm = min(t_hfm, t)
        store.clear()
    store.budget = 0
    t_plain, res_plain = run(model, grid, X, y, A, cv, HFM)
    store.budget = budget
    store.clear()
    same = all(np.array_equal(a, res_plain[k]) for k, a in hfm_scores(res_hfm).items())
    n_test, with_reuse, without, group = per_candidate(model, grid, X, y, A, cv)
    lines = [
        f"### {label}",
        "",
        "| scoring | search s | / DP-EO |",
        "|---|---|---|",
        f"| accuracy + DP + EO | {t_group:.1f} | 1.00 |",
        f"| accuracy + HFM avg + HFM max (reuse) | {t_hfm:.1f} | {t_hfm / t_group:.2f} |",
        f"| accuracy + HFM avg + HFM max (no reuse) | {t_plain:.1f} | "
        f"{t_plain / t_group:.2f} |",
        "",
        f"HFM scores with and without reuse equal bit for bit: {same}",
        "",
        f"Scoring one candidate on the first fold ({n_test:,} test rows; one multi-metric "
        f"call: accuracy and the two fairness scorers, predictions made once): HFM first "
        f"candidate {with_reuse[0]:.3f} s (builds the neighbour lists), each candidate "
        f"after the first {np.mean(with_reuse[1:]):.3f} s on average (median "
        f"{np.median(with_reuse[1:]):.3f} s); HFM without reuse {np.mean(without):.3f} s "
        f"per candidate; DP/EO {np.mean(group):.3f} s per candidate.",
    ]
    return "\n".join(lines), t_hfm / t_group


def main():
    import warnings

    from skfair_manifold.metrics import UndefinedFairnessWarning

    # EO's note on groups without a positive row, printed once per call, would
    # time the terminal: both searches run with it silenced.
    warnings.simplefilter("ignore", UndefinedFairnessWarning)
    def options(parser):
        parser.add_argument("--searches", nargs="+",
                            choices=["adult", "logistic", "credit", "tied"],
                            default=["adult", "logistic", "credit", "tied"],
                            help="searches to run (default: all)")
        parser.add_argument("--profile", action="store_true",
                            help="the credit-like and tied HFM searches once more under "
                                 "cProfile")
        parser.add_argument("--runs", type=int, default=1,
                            help="each search's timing this many times over (default 1)")

    args = parse_args(__doc__.splitlines()[0], options)
    sections = [f"# HFM in a model search\n\n{machine()}; sklearn {sklearn.__version__}"]
    if "adult" in args.searches:
        sections.append(bench(*adult_search(args.data_dir, args.quick), runs=args.runs))
        print(sections[-1], flush=True)
    if "logistic" in args.searches:
        sections.append(bench(*logistic_search(args.quick), runs=args.runs))
        print(sections[-1], flush=True)
    for name, make in (("credit", credit_search), ("tied", tied_search)):
        if name not in args.searches:
            continue
        search = make(args.quick)
        sections.append(bench(*search, runs=args.runs))
        print(sections[-1], flush=True)
        if args.profile:
            sections.append(profile(*search))
            print(sections[-1], flush=True)
    name = "bench_search" + ("_quick" if args.quick else "")
    if set(args.searches) != {"adult", "logistic", "credit", "tied"}:
        name += "_" + "_".join(args.searches)
    write_result(name, "\n\n".join(sections), args.results_dir)


if __name__ == "__main__":
    main()
