"""Every integer size parameter of the public API refused up front at an absurd value (issue 32).

The test walks the public signatures (functions, estimators' ``__init__`` and
the command line's integer options): each integer parameter is either a size
parameter with a call below, or named in :data:`NOT_SIZES` with why. Each
call, with ``10**12`` for one size parameter, must raise a ``ValueError`` or
``TypeError`` naming it, in a child process killed after a few seconds (an
allocation of 10**12 units would take far longer or run out of memory).
"""

import argparse
import importlib
import inspect
import numbers
import re
import subprocess
import sys

import pytest

from skfair_manifold.utils._sizes import check_size

ABSURD = 10**12
MODULES = ("skfair_manifold", "skfair_manifold.distances", "skfair_manifold.metrics",
           "skfair_manifold.scorers", "skfair_manifold.situation_testing",
           "skfair_manifold.datasets", "skfair_manifold.plotting", "skfair_manifold.reports")
#: integer parameters that are no size: what they are
NOT_SIZES = {
    "random_state": "a seed", "n_jobs": "workers, capped by the blocks and the cores",
    "chosen": "an index into cv_results",
    "protected": "a column", "sensitive": "a column",
}
SETUP = """
import numpy as np, pandas as pd
rng = np.random.default_rng(0)
n = 60
X = rng.random((n, 3)); y = rng.integers(0, 2, n); p = rng.integers(0, 2, n)
a = rng.integers(0, 2, n)
frame = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "g": np.where(a == 1, "f", "m")})
"""
AUDITOR = ("from skfair_manifold import SituationTestingAuditor as S\n"
           "S(protected='g', protected_value='f', method='knn', {arg}).fit(frame, y)")
#: (callable's public name, parameter) -> code calling it with ``{arg}`` among its options
CALLS = {
    "hfm_max": "from skfair_manifold.metrics import hfm_max as f\n"
               "f(y, p, X=X, sensitive_features=a, method='approx', {arg})",
    "hfm_avg": "from skfair_manifold.metrics import hfm_avg as f\n"
               "f(y, p, X=X, sensitive_features=a, method='approx', {arg})",
    "hfm_report": "from skfair_manifold.metrics import hfm_report as f\n"
                  "f(y, p, X=X, sensitive_features=a, method='approx', {arg})",
    "approx_dist": "from skfair_manifold.distances import approx_dist as f\n"
                   "f(X, y, a, {arg})",
    "extend_dist": "from skfair_manifold.distances import extend_dist as f\n"
                   "f(X, y, a, {arg})",
    "accele_dist": "from skfair_manifold.distances import accele_dist as f\n"
                   "f(X, y, a, np.ones(4), {arg})",
    "fairness_report": "from skfair_manifold.metrics import fairness_report as f\n"
                       "f(y, p, sensitive_features=a, {arg})",
    "SituationTestingAuditor": AUDITOR,
    "make_biased_decisions": "from skfair_manifold.datasets import make_biased_decisions as f\n"
                             "f({arg})",
    "make_planted_bias": "from skfair_manifold.datasets import make_planted_bias as f\n"
                         "f({arg})",
    "evidence_html": "from skfair_manifold import SituationTestingAuditor as S\n"
                     "from skfair_manifold.reports import evidence_html as f\n"
                     "aud = S(protected='g', protected_value='f', method='knn', k=5)"
                     ".fit(frame, y)\nf(aud, frame, y, {arg})",
    "plot_causal_graph": "import matplotlib; matplotlib.use('Agg')\n"
                         "from skfair_manifold.plotting import plot_causal_graph as f\n"
                         "f({{'y': ['x0'], 'x0': []}}, {arg})",
}


def _is_integer_param(param):
    default = param.default
    if isinstance(default, numbers.Integral) and not isinstance(default, bool):
        return True
    return re.search(r"\bint\b", str(param.annotation)) is not None


def public_integer_params():
    """(public name, parameter) of every integer parameter of the public API."""
    seen, found = set(), []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if not callable(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))
            target = obj.__init__ if inspect.isclass(obj) else obj
            try:
                params = inspect.signature(target).parameters.values()
            except (TypeError, ValueError):
                continue
            found.extend((name, p.name) for p in params
                         if _is_integer_param(p) and p.name not in NOT_SIZES)
    return sorted(set(found))


PARAMS = public_integer_params()


def test_the_walk_finds_the_known_size_parameters():
    for known in (("SituationTestingAuditor", "n_bins"), ("SituationTestingAuditor", "k"),
                  ("fairness_report", "n_boot"), ("hfm_report", "m1"),
                  ("make_biased_decisions", "n_samples"), ("evidence_html", "max_sheets")):
        assert known in PARAMS


def _run(code):
    return subprocess.run([sys.executable, "-c", SETUP + code + "\nprint('RETURNED')"],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(("function", "param"), PARAMS)
def test_absurd_size_refused_at_once(function, param):
    assert function in CALLS, f"{function}({param}=...) has no call in CALLS: add one"
    code = CALLS[function].format(arg=f"{param}={ABSURD}")
    # the child gets a second of CPU (the import is not counted: it is timed apart)
    guard = ("import resource, signal\n"
             "signal.signal(signal.SIGALRM, lambda *a: (_ for _ in ()).throw("
             "SystemExit('TIMEOUT')))\n")
    lines = code.splitlines()
    body = "\n".join(lines[:-1]) + "\nsignal.alarm(1)\n" + lines[-1]
    proc = _run(guard + body)
    err = proc.stderr.strip().splitlines()
    assert "RETURNED" not in proc.stdout, f"{function}({param}={ABSURD}) returned"
    assert "TIMEOUT" not in proc.stderr, f"{function}({param}={ABSURD}) ran over a second"
    last = err[-1] if err else ""
    assert last.startswith(("ValueError", "TypeError", "sklearn.utils._param_validation."
                            "InvalidParameterError")), last
    assert param in last, last


def test_check_size_message():
    with pytest.raises(ValueError, match=r"n_bins=1000000000000 is out of range.*\[2, 60\]"
                       r".*would need 22\.2 TiB"):
        check_size(ABSURD, name="n_bins", low=2, high=60, bytes_per_unit=24)
    with pytest.raises(TypeError, match="k must be an integer"):
        check_size(2.5, name="k")
    with pytest.raises(TypeError, match="k must be an integer"):
        check_size(True, name="k")
    assert check_size(3, name="k", high=3) == 3
