"""Shared plumbing of the HFM experiment scripts in this folder.

Each script: ``--data-dir`` (default ``<repo>/../shared/datasets``), ``--quick``
for a small run; it prints markdown tables and writes them, with its PNG
figures, under ``benchmarks/results/``.

The repository that holds this folder is put first on ``sys.path`` so that a
script always measures the code of its own checkout, even when another checkout
is installed in the environment in editable mode.
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

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

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
    if add_arguments is not None:
        add_arguments(parser)
    return parser.parse_args(argv)


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


def write_result(stem, text):
    """Print ``text`` and write it to ``results/<stem>.md``; return the path."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{stem}.md"
    path.write_text(text.rstrip() + "\n")
    print(text)
    print(f"\n[written to {path.relative_to(REPO)}]")
    return path


def save_figure(fig, stem):
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{stem}.png"
    fig.savefig(path, dpi=110, bbox_inches="tight")
    print(f"[figure written to {path.relative_to(REPO)}]")
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


def situation_rule_label(rule):
    """The words of a situation-testing rule ``(kind, bound, alpha)`` for a table."""
    kind, bound, alpha = rule
    if kind == "tau":
        return "diff > tau"
    level = f"{bound} {100 * (1 - alpha):g}%"
    return (f"diff > tau and diff_lower > 0 ({level})" if kind == "significant"
            else f"diff_lower > tau ({level})")


def situation_flags(out, rule, *, tau, alpha_fitted):
    """The flags of a situation-testing rule from ``transform``'s output.

    ``rule`` is ``(kind, bound, alpha)`` with kind ``"significant"`` (diff >
    tau and diff_lower > 0), ``"bound"`` (diff_lower > tau) or ``"tau"``
    (diff > tau). The Wald lower bound at another level ``alpha`` is
    ``diff - z_alpha * se``, with ``se`` recovered from the bound computed at
    ``alpha_fitted``: valid for the Wald bound at any level; for another
    bound only at its own level (``alpha == alpha_fitted``, where it returns
    ``out[:, 3]``).
    """
    from scipy import stats

    kind, _, alpha = rule
    diff = out[:, 2]
    se = (diff - out[:, 3]) / stats.norm.ppf(1 - alpha_fitted)
    lower = diff - stats.norm.ppf(1 - alpha) * se
    if kind == "tau":
        return diff > tau
    if kind == "bound":
        return lower > tau
    return (diff > tau) & (lower > 0)


def best_threshold(scores, truth):
    """The best ``min(TP, TN)`` of any rule ``score > t``, over all thresholds t.

    ``truth`` is True for a discriminated target, False for a clean one.
    An upper bound for every flag rule that thresholds ``score``.
    """
    import numpy as np

    scores, truth = np.asarray(scores, dtype=float), np.asarray(truth, dtype=bool)
    order = np.argsort(-scores, kind="stable")
    s, t = scores[order], truth[order]
    tp = np.cumsum(t) / max(t.sum(), 1)          # flag the first i + 1
    tn = 1 - np.cumsum(~t) / max((~t).sum(), 1)
    last = np.r_[s[1:] != s[:-1], True]           # cut only between distinct scores
    best = np.minimum(tp, tn)[last]
    return float(best.max(initial=0.0))


def audit_error_control(est, X, y, *, discriminated=None, clean=None):
    """One audit of every row with ``est`` (fitted): flags, verdicts and their truth.

    Returns a dict: ``candidates`` (protected rows with a negative decision),
    ``flagged`` (share of the candidates flagged by the auditor's rule),
    ``alone`` (share flagged with each person tested alone at
    ``alpha_test``: ``q_value`` replaced by ``p_value``), ``verdicts`` (label
    -> count among the flagged), ``report_passes`` (passes over the rows'
    rates made by ``flag`` then ``report``: 1 when ``report`` reuses
    ``flag``'s rates), ``flag_s`` and ``report_s`` (seconds) and, given the
    truth (boolean masks over the rows), ``recall`` (share of the
    discriminated flagged), ``precision`` (discriminated flagged over
    flagged among the discriminated and the clean candidates) and ``fdp``
    (clean flagged over every flag: the false discovery proportion).
    """
    import numpy as np

    with Timer() as t_flag:
        flags = est.flag(X, y)
    with Timer() as t_rep:
        rep = est.report(X, y)
    audit = rep.audit
    cand = audit["candidate"]
    out = est._rate_cache.value[0]
    alone = cand & (out[:, 2] > est.tau + 1e-12) & (out[:, 5] <= est._alpha_test())
    labels, counts = np.unique(np.asarray(audit["verdict"])[flags], return_counts=True)
    res = {"candidates": int(cand.sum()), "flagged": float(flags[cand].mean()),
           "n_flagged": int(flags.sum()), "alone": float(alone[cand].mean()),
           "verdicts": dict(zip(labels.tolist(), counts.tolist())),
           "report_passes": int(est._rate_cache.passes), "flag_s": t_flag.seconds,
           "report_s": t_rep.seconds}
    if discriminated is not None:
        tp = int((flags & discriminated).sum())
        fp = int((flags & clean).sum())
        res["recall"] = tp / max(int(discriminated.sum()), 1)
        res["precision"] = tp / (tp + fp) if tp + fp else float("nan")
        # the false discovery proportion the procedure promises to keep: the flagged women
        # of situations without bias among every flag (the negative women of the biased
        # situations who were not flipped count as true for it, not for the precision)
        res["fdp"] = fp / flags.sum() if flags.sum() else 0.0
        res["n_discriminated_flagged"], res["n_clean_flagged"] = tp, fp
    return res


def verdict_shares(verdicts):
    """``label share`` of each verdict among the flagged, for a table cell."""
    total = sum(verdicts.values())
    if not total:
        return "-"
    return ", ".join(f"{label} {count / total:.0%}" for label, count in sorted(verdicts.items()))


def result_mean(results, key):
    """Mean of ``key`` over a list of result dicts (such as :func:`audit_error_control`'s),
    NaN values left out."""
    import numpy as np

    return np.nanmean([res[key] for res in results])


def mean_sd_cell(results, key):
    """``mean (standard deviation)`` of ``key`` over a list of result dicts, NaN values
    left out, to three decimals: a table cell."""
    import numpy as np

    values = [res[key] for res in results]
    return f"{np.nanmean(values):.3f} ({np.nanstd(values):.3f})"


def best_child_run(script, args, repeats):
    """The fastest of ``repeats`` runs of ``python script *args``, each in its own process.

    The child prints a JSON object with ``"seconds"`` on its last line (its
    peak resident memory is its own); this checkout comes first on its path.
    """
    best = None
    for _ in range(repeats):
        out = subprocess.run([sys.executable, str(script), *map(str, args)], check=True,
                             capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(REPO)})
        result = json.loads(out.stdout.strip().splitlines()[-1])
        if best is None or result["seconds"] < best["seconds"]:
            best = result
    return best
