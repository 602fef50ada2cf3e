"""Every integer size parameter of the public API and of the command line, given an absurd
value: a ValueError naming the parameter, within a second (``utils/_sizes.check_size``)."""

import argparse
import importlib
import inspect
import re
import signal
import warnings

import numpy as np
import pytest

from skfair_manifold.utils._sizes import check_size

pd = pytest.importorskip("pandas")

ABSURD = 10**12
#: seconds for a refusal (a guard against allocating or looping first, not a benchmark)
LIMIT = 1.0
MODULES = ["skfair_manifold", "skfair_manifold.metrics", "skfair_manifold.distances",
           "skfair_manifold.scorers", "skfair_manifold.situation_testing",
           "skfair_manifold.datasets", "skfair_manifold.plotting", "skfair_manifold.reports"]
#: integer parameters that are not sizes
NOT_SIZES = {"random_state", "n_jobs", "seed", "verbose"}
#: size parameters whose default is None or a string
OPTIONAL_SIZES = {"m2", "max_checks", "sample_size", "working_memory"}

rng = np.random.default_rng(0)
N = 120
X = rng.normal(size=(N, 3))
Y = rng.integers(0, 2, N)
P = np.where(rng.random(N) < 0.8, Y, 1 - Y)
S = rng.integers(0, 2, N)
FRAME = pd.DataFrame({"s0": S, "a": X[:, 0], "b": X[:, 1]})


def _audit(**kw):
    from skfair_manifold import SituationTestingAuditor
    kw.setdefault("k", 5)
    return SituationTestingAuditor(protected="s0", protected_value=1, **kw).fit(FRAME, Y).transform(FRAME)


def _metric(name):
    def call(**kw):
        return getattr(importlib.import_module("skfair_manifold"), name)(
            Y, P, X=X, sensitive_features=S, method="approx", **kw)
    return call


def _dist(name):
    def call(**kw):
        return getattr(importlib.import_module("skfair_manifold.distances"), name)(
            X, Y, S, **kw)
    return call


def _fairness_report(**kw):
    from skfair_manifold import fairness_report
    return fairness_report(Y, P, sensitive_features=S, **kw)


def _gap(name):
    def call(**kw):
        return getattr(importlib.import_module("skfair_manifold.metrics"), name)(
            Y, P, sensitive_features=S, **kw)
    return call


def _generator(name):
    def call(**kw):
        return getattr(importlib.import_module("skfair_manifold.datasets"), name)(**kw)
    return call


#: (public name, parameter) -> the call with that parameter: must refuse ABSURD
REFUSED = {
    ("SituationTestingAuditor", "k"): _audit,
    ("SituationTestingAuditor", "n_bins"): _audit,
    ("SituationTestingAuditor", "structure_bootstrap"): _audit,
    **{(name, p): _metric(name) for name in ("hfm_avg", "hfm_max", "hfm_report")
       for p in ("m1", "n_vectors")},
    ("hfm_report", "n_boot"): _metric("hfm_report"),
    ("fairness_report", "n_boot"): _fairness_report,
    **{(name, p): _dist(name) for name in ("approx_dist", "extend_dist")
       for p in ("m1", "n_vectors")},
    ("make_biased_decisions", "n_samples"): _generator("make_biased_decisions"),
    ("make_biased_decisions", "n_features"): _generator("make_biased_decisions"),
    ("make_planted_bias", "n_samples"): _generator("make_planted_bias"),
    ("make_biased_wages", "n_samples"): _generator("make_biased_wages"),
}
#: "at most" bounds, documented as such: an absurd value is the same as the data's own
#: bound and must be absorbed as fast (parameter -> the call)
CAPPED = {
    ("SituationTestingAuditor", "max_depth"): _audit,
    **{(name, p): _metric(name) for name in ("hfm_avg", "hfm_max", "hfm_report")
       for p in ("m2", "sample_size", "max_checks")},
    **{(name, "m2"): _dist(name) for name in ("approx_dist", "extend_dist")},
    ("accele_dist", "m2"): lambda m2=5: importlib.import_module(
        "skfair_manifold.distances").accele_dist(X, Y, S, np.ones(4) / 2, m2=m2),
    ("fairness_report", "min_group_size"): _fairness_report,
    **{(name, "min_group_size"): _gap(name) for name in (
        "demographic_parity", "equal_opportunity", "predictive_quality_parity",
        "mean_prediction_difference", "error_difference", "bounded_group_loss",
        "distribution_distance")},
    ("make_biased_decisions", "n_informative"): None,  # bounded by n_features (refused)
    ("make_biased_decisions", "n_levels"): _generator("make_biased_decisions"),
    ("plot_causal_graph", "depth"): None,  # a drawing's depth of neighbours, capped by the graph
    ("evidence_html", "max_sheets"): None,  # sheets written at most, capped by the rows
}


def _public_size_parameters():
    found, seen = set(), set()
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if not callable(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))
            try:
                sig = inspect.signature(obj.__init__ if inspect.isclass(obj) else obj)
            except (TypeError, ValueError):
                continue
            for p in sig.parameters.values():
                integer = isinstance(p.default, int) and not isinstance(p.default, bool)
                if p.name not in NOT_SIZES and (integer or p.name in OPTIONAL_SIZES):
                    found.add((name, p.name))
    return found


class _TooSlow(Exception):
    pass


def _within_limit(func):
    """``func()`` under a real-time alarm of LIMIT seconds."""
    def alarm(signum, frame):
        raise _TooSlow
    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, LIMIT)
    try:
        return func()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_every_public_size_parameter_is_covered():
    assert _public_size_parameters() == set(REFUSED) | set(CAPPED)


@pytest.mark.parametrize("key", sorted(REFUSED), ids="-".join)
def test_an_absurd_size_is_refused_at_once_naming_the_parameter(key):
    name, param = key
    call = REFUSED[key]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call()  # warm-up: imports and first-call costs are not the refusal's
        with pytest.raises(ValueError, match=rf"\b{param}\b") as info:
            _within_limit(lambda: call(**{param: ABSURD}))
    message = str(info.value)
    assert str(ABSURD) in message  # the value asked for
    # the allowed range, the bound or the memory it would need
    assert re.search(r"range|must be in|<=|would need", message), message


@pytest.mark.parametrize("key", sorted(k for k, v in CAPPED.items() if v is not None),
                         ids="-".join)
def test_an_absurd_capped_size_is_absorbed_at_once(key):
    name, param = key
    call = CAPPED[key]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call()
        try:
            _within_limit(lambda: call(**{param: ABSURD}))
        except ValueError as exc:  # a clear refusal is acceptable too
            assert param in str(exc)


def test_check_size_message_gives_range_and_memory():
    with pytest.raises(ValueError, match=r"n_bins=10 is out of range: it must be an integer "
                                         r"in \[2, 5\] \(it would need 240 bytes"):
        check_size(10, name="n_bins", low=2, high=5, bytes_per_unit=24)
    with pytest.raises(ValueError, match="n_boot=1000000000000 would need 7.3 TiB"):
        check_size(ABSURD, name="n_boot", low=0, bytes_per_unit=8)
    with pytest.raises(TypeError, match="k must be an integer"):
        check_size(2.5, name="k")
    assert check_size(np.int64(3), name="k", high=3) == 3


# --- the command line ------------------------------------------------------------------------

#: command -> the arguments of a run on the files of ``cli_files``
CLI_RUNS = {
    "hfm": ["{pred}", "--label", "y", "--prediction", "y_pred", "--sensitive", "s0",
            "--features", "a", "b", "--method", "approx", "--quiet"],
    "report": ["{pred}", "--label", "y", "--prediction", "y_pred", "--sensitive", "s0",
               "--features", "a", "b", "--method", "approx", "--quiet", "-o", "{out}.html"],
    "audit": ["{dec}", "--decision", "decision", "--protected", "s0", "--protected-value",
              "1", "--positive-label", "1", "-k", "5", "--quiet", "-o", "{out}.csv"],
    "demo": [],
}
#: (command, option) refused with the absurd value
CLI_REFUSED = {("hfm", "--m1"), ("hfm", "--n-boot"), ("report", "--m1"), ("report", "--n-boot"),
               ("audit", "-k"), ("audit", "--n-bins"), ("demo", "--n-samples")}
#: (command, option) "at most" bounds: absorbed as fast
CLI_CAPPED = {("hfm", "--m2"), ("hfm", "--max-categories"), ("hfm", "--min-group-size"),
              ("report", "--m2"), ("report", "--max-categories"),
              ("report", "--min-group-size"), ("audit", "--html-sheets"), ("audit", "--batch-size")}
CLI_NOT_SIZES = {"--seed", "--n-jobs"}


def _cli_integer_options():
    from skfair_manifold.cli import build_parser

    found = set()
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for command, parser in sub.choices.items():
        for action in parser._actions:
            if action.type is None or not action.option_strings:
                continue
            try:
                integer = isinstance(action.type("7"), int)
            except (argparse.ArgumentTypeError, ValueError, TypeError):
                continue
            option = max(action.option_strings, key=len)
            if integer and option not in CLI_NOT_SIZES and action.nargs is None:
                found.add((command, option))
    return found


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sizes")
    frame = FRAME.assign(y=Y, y_pred=P)
    frame.to_csv(tmp / "pred.csv", index=False)
    FRAME.assign(decision=Y).to_csv(tmp / "dec.csv", index=False)
    return {"pred": tmp / "pred.csv", "dec": tmp / "dec.csv", "out": tmp / "out"}


def _cli(files, command, extra, capsys):
    from skfair_manifold.cli import main

    args = [a.format(**files) for a in CLI_RUNS[command]]
    try:
        code = main([command, *args, *extra])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_every_cli_integer_option_is_covered():
    assert _cli_integer_options() == CLI_REFUSED | CLI_CAPPED


@pytest.mark.parametrize("key", sorted(CLI_REFUSED), ids=" ".join)
def test_cli_refuses_an_absurd_size_in_one_line(cli_files, capsys, key):
    command, option = key
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if command != "demo":  # the demo's default is 6000 rows: no warm-up needed
            assert _cli(cli_files, command, [], capsys)[0] == 0
        code, out, err = _within_limit(lambda: _cli(cli_files, command,
                                                    [option, str(ABSURD)], capsys))
    assert code in (1, 2), err
    assert "Traceback" not in err
    assert option.lstrip("-").replace("-", "_") in err or option in err
    assert str(ABSURD) in err


@pytest.mark.parametrize("key", sorted(CLI_CAPPED), ids=" ".join)
def test_cli_absorbs_an_absurd_capped_size(cli_files, capsys, key):
    command, option = key
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _cli(cli_files, command, [], capsys)[0] == 0
        code, out, err = _within_limit(lambda: _cli(cli_files, command,
                                                    [option, str(ABSURD)], capsys))
    assert "Traceback" not in err
    assert code == 0 or option.lstrip("-").replace("-", "_") in err or option in err
