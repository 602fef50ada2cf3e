"""The benchmarks' input and output: the paper's data sets, arguments, results, the machine.

The HFM experiment scripts take ``--data-dir`` (default
``<repo>/../shared/datasets``), ``--quick`` for a small run and
``--results-dir`` (default ``benchmarks/results/``); each prints markdown tables
and writes them, with its PNG figures, into the results folder. Children that
time a measurement in a process of its own are started from the checkout's
top (:func:`best_child_run`), so that they measure the same code as their parent.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
RESULTS_DIR = BENCH_DIR / "results"
DEFAULT_DATA_DIR = REPO.parent / "shared" / "datasets"

# The paper's names, in the order of its tables.
DATASETS = ["ricci", "credit", "income", "ppr", "ppvr"]


def parse_args(description, add_arguments=None, argv=None):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR,
                        help="folder laid out like shared/datasets (default: %(default)s)")
    parser.add_argument("--quick", action="store_true",
                        help="a small run (fewer folds, repeats or rows) for a smoke check")
    parser.add_argument("--datasets", nargs="+", choices=DATASETS, default=DATASETS,
                        help="datasets to run (default: all five)")
    add_results_dir(parser)
    if add_arguments is not None:
        add_arguments(parser)
    return parser.parse_args(argv)


def add_results_dir(parser):
    """The ``--results-dir`` option: where :func:`write_result` and :func:`save_figure` write."""
    parser.add_argument("--results-dir", type=Path, default=RESULTS_DIR,
                        help="folder of the written results (default: benchmarks/results)")


def load(name, data_dir):
    """Load one of the paper's datasets by its name in the paper."""
    from skfair_manifold.datasets import (
        load_adult,
        load_compas,
        load_german_credit,
        load_ricci,
    )

    loaders = {
        "ricci": load_ricci,
        "credit": load_german_credit,
        "income": load_adult,
        "ppr": lambda data_home: load_compas(data_home=data_home),
        "ppvr": lambda data_home: load_compas(violent=True, data_home=data_home),
    }
    return loaders[name](data_home=data_dir)


def paper_matrix(bunch):
    """Features x-breve scaled to [0, 1] (sensitive attributes left out), y, A codes.

    The whole dataset is scaled at once; scripts that split into folds fit the
    preprocessor on the training fold instead.
    """
    import numpy as np

    from skfair_manifold.datasets import make_paper_preprocessor
    from skfair_manifold.utils._validation import encode_sensitive

    pre = make_paper_preprocessor(bunch.numerical_features, bunch.categorical_features,
                                  sensitive_features=bunch.sensitive_features)
    X = pre.fit_transform(bunch.data)
    y = np.asarray(bunch.target, dtype=float)
    A = np.column_stack(encode_sensitive(bunch.sensitive[bunch.sensitive_features],
                                         len(y))[0])
    return X, y, A


def markdown_table(headers, rows):
    def cell(v):
        return str(v).replace("|", "\\|")

    lines = ["| " + " | ".join(cell(h) for h in headers) + " |",
             "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def machine():
    return (f"{platform.machine()}, {os.cpu_count()} logical CPUs, "
            f"Python {platform.python_version()}")


def shown(path):
    """``path`` relative to the repository when inside it, else as it is (for messages)."""
    path = Path(path).resolve()
    return path.relative_to(REPO) if path.is_relative_to(REPO) else path


def write_result(stem, text, results_dir=RESULTS_DIR):
    """Print ``text`` and write it to ``<results_dir>/<stem>.md``; return the path."""
    results_dir = Path(results_dir)
    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / f"{stem}.md"
    path.write_text(text.rstrip() + "\n")
    print(text)
    print(f"\n[written to {shown(path)}]")
    return path


def save_figure(fig, stem, results_dir=RESULTS_DIR):
    """Write ``fig`` to ``<results_dir>/<stem>.png``; return the path."""
    results_dir = Path(results_dir)
    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / f"{stem}.png"
    fig.savefig(path, dpi=110, bbox_inches="tight")
    print(f"[figure written to {shown(path)}]")
    return path


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


class Timer:
    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start


def k_value(text):
    """An argparse type for a K of the auditor: ``auto`` or an integer."""
    return "auto" if text == "auto" else int(text)


def child_env(tree=REPO):
    """The environment of a child process that imports the package of ``tree`` (a folder
    holding ``skfair_manifold``): this one's, ``PYTHONPATH`` set to ``tree`` alone."""
    return {**os.environ, "PYTHONPATH": str(tree)}


def best_child_run(module, args, repeats):
    """The fastest of ``repeats`` runs of ``python -m module *args``, each in its own process.

    The child prints a JSON object with ``"seconds"`` on its last line (its
    peak resident memory is its own). It runs from this checkout's top, which
    is also its ``PYTHONPATH``: it imports this checkout's package, as its
    parent does. Paths among ``args`` should be absolute.
    """
    best = None
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-m", module, *map(str, args)], check=True,
                             capture_output=True, text=True, cwd=REPO, env=child_env())
        result = json.loads(out.stdout.strip().splitlines()[-1])
        if best is None or result["seconds"] < best["seconds"]:
            best = result
    return best
