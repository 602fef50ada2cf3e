"""The structure search on known Bayesian networks: precision and recall of the parents.

The networks (asia, sachs, child, insurance, alarm; bnlearn repository) are
read from the ``.bif`` files that ship in pgmpy's wheel (``pip install
pgmpy``, the ``benchmarks`` extra; pgmpy itself is not imported) and sampled
with the forward sampler below. In each network the decision ``E`` is a
node without children that has parents (up to ``--decisions`` of them, those
with the most parents first) and the protected attribute ``C`` is a root
node (the first root in file order), as the paper assumes (no arc into
``C``, none out of ``E``). The decision is binarised: its most frequent
state is the positive one. The
truth is ``Par(E) \\ {C}``; the decision's parents in the auditor's
``graph_`` (all those the tests found, less ``C``) are compared with it:
precision = |found & truth| / |found|, recall = |found & truth| / |truth|,
averaged
over the decisions of a network. One more column compares ``q_``, the
parents the testers are matched on, with the same truth: the auditor is
fitted with every default, ``k`` (50) included, so ``q_`` is the one an
audit uses (a weak parent, of effect below 0.05, leaves it only where the
subgroups would be too small for ``k`` testers a side; see
``_weak_parents``); a true parent found by the search but left out of
``q_`` counts against its recall there.

Usage::

    python -m benchmarks.situation_testing_networks [--sizes 5000 20000 60000] [--seeds 3]
        [--quick]

``--seeds S`` draws S samples per size (seed ``s`` samples with
``RandomState(n % 9973 + 7919 s)``; ``s = 0`` is the single sample of the
earlier runs); the tables give means over the seeds, and the last table the
worst seed's mean over the networks.

Wrap it in ``flock /tmp/bench.lock`` on a shared machine. The output is also
written to ``benchmarks/results/situation_testing_networks.md``.
"""

import argparse
import gzip
import re
import time
import warnings
from pathlib import Path

import numpy as np

from skfair_manifold.situation_testing import SituationTestingAuditor

HERE = Path(__file__).resolve().parent

NETWORKS = ("asia", "sachs", "child", "insurance", "alarm")
LINES = []


def out(text=""):
    print(text, flush=True)
    LINES.append(text)


def bif_path(name):
    import importlib.util

    spec = importlib.util.find_spec("pgmpy")
    if spec is None:
        raise SystemExit("this benchmark reads the .bif files of pgmpy's wheel: pip install pgmpy")
    return Path(spec.origin).parent / "utils" / "example_models" / f"{name}.bif.gz"


def parse_bif(text):
    """Variables with their states, parents and conditional probability tables."""
    states = {}
    for name, values in re.findall(r"variable\s+(\S+)\s*\{[^{]*\{([^}]*)\}", text):
        states[name] = [v.strip() for v in values.split(",") if v.strip()]
    parents, cpt = {}, {}
    for head, body in re.findall(r"probability\s*\(([^)]*)\)\s*\{(.*?)\}", text, re.S):
        parts = head.split("|")
        child = parts[0].strip()
        pars = [p.strip() for p in parts[1].split(",")] if len(parts) > 1 else []
        parents[child] = pars
        shape = [len(states[p]) for p in pars] + [len(states[child])]
        table = np.zeros(shape)
        m = re.search(r"table\s+([^;]*);", body)
        if m:
            table[...] = np.array([float(v) for v in m.group(1).split(",")]).reshape(shape)
        for cond, probs in re.findall(r"\(([^)]*)\)\s*([^;]*);", body):
            idx = tuple(states[p].index(v.strip()) for p, v in zip(pars, cond.split(",")))
            table[idx] = [float(v) for v in probs.split(",")]
        cpt[child] = table
    return states, parents, cpt


def forward_sample(states, parents, cpt, n, rng):
    """Rows of state indices, nodes in topological order (ancestral sampling)."""
    order, done = [], set()
    while len(order) < len(states):
        for v in states:
            if v not in done and all(p in done for p in parents[v]):
                order.append(v)
                done.add(v)
    data = {}
    for v in order:
        table = cpt[v]
        if parents[v]:
            idx = tuple(data[p] for p in parents[v])
            probs = table[idx]
        else:
            probs = np.broadcast_to(table, (n, table.shape[-1]))
        cum = np.cumsum(probs, axis=1)
        u = rng.rand(n, 1) * cum[:, -1:]
        data[v] = np.minimum((u > cum).sum(axis=1), table.shape[-1] - 1)
    return data


def decisions_of(states, parents, limit):
    children = {v: [c for c in states if v in parents[c]] for v in states}
    sinks = [v for v in states if not children[v] and parents[v]]
    sinks.sort(key=lambda v: -len(parents[v]))
    roots = [v for v in states if not parents[v]]
    return sinks[:limit], roots


def score(q, truth):
    q, truth = set(q), set(truth)
    hit = len(q & truth)
    precision = hit / len(q) if q else (1.0 if not truth else 0.0)
    recall = hit / len(truth) if truth else 1.0
    return precision, recall


def run(name, n, settings, limit, rng):
    import pandas as pd

    states, parents, cpt = parse_bif(gzip.open(bif_path(name), "rt").read())
    data = forward_sample(states, parents, cpt, n, rng)
    decisions, roots = decisions_of(states, parents, limit)
    res = {}
    for e in decisions:
        c = roots[0]
        cols = [v for v in states if v != e]
        X = pd.DataFrame({v: np.asarray(states[v], dtype=object)[data[v]] for v in cols})
        yv = data[e]
        positive = np.bincount(yv).argmax()
        y = (yv == positive).astype(int)
        if X[c].nunique() < 2:
            continue
        truth = [p for p in parents[e] if p != c]
        fitted = {}
        for label, kw in settings:
            kw = dict(kw)
            read = kw.pop("_read", "graph")
            key = repr(sorted(kw.items()))
            if key not in fitted:
                t = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = SituationTestingAuditor(protected=c, protected_value=X[c].iloc[0],
                                                  **kw).fit(X, y)
                fitted[key] = est, time.perf_counter() - t
            est, seconds = fitted[key]
            info = est.structure_info_
            found = est.q_ if read == "q" else \
                [p for p in est.graph_[est.decision_name_] if p != c]
            res.setdefault(label, []).append(score(found, truth) + (
                seconds, info.get("n_tests", np.nan), info.get("depth", np.nan),
                float(info.get("depth_bound_hit", False))))
    return res, len(decisions)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 20000, 60000])
    parser.add_argument("--networks", nargs="+", default=list(NETWORKS), choices=NETWORKS)
    parser.add_argument("--decisions", type=int, default=3,
                        help="decision nodes per network (default: %(default)s)")
    parser.add_argument("--no-pc", action="store_true", help="skip structure='pc'")
    parser.add_argument("--alphas", type=float, nargs="*", default=[0.05],
                        help="levels of the local search besides the default")
    parser.add_argument("--tests", nargs="+", default=[], choices=["g", "cmh", "g+cmh"],
                        help="conditional tests of the local search besides the default")
    parser.add_argument("--seeds", type=int, default=1,
                        help="samples per size; tables give means over them (default: 1)")
    parser.add_argument("--quick", action="store_true", help="5,000 rows, asia and sachs")
    parser.add_argument("--output",
                        default=str(HERE / "results" / "situation_testing_networks.md"))
    args = parser.parse_args(argv)
    sizes = [5000] if args.quick else args.sizes
    networks = ["asia", "sachs"] if args.quick else args.networks
    default = SituationTestingAuditor()
    default_alpha = default.alpha
    settings = [(f"local, {default.structure_test}, alpha {default_alpha:g} (default)", {}),
                (f"local, {default.structure_test}, alpha {default_alpha:g} (default): q_ "
                 f"(K = {default.k})", {"_read": "q"})]
    settings += [(f"local, {default.structure_test}, alpha {a:g}", {"alpha": a})
                 for a in args.alphas if a != default_alpha]
    settings += [(f"local, {t}, alpha {default_alpha:g}", {"structure_test": t})
                 for t in args.tests if t != default.structure_test]
    if not args.no_pc:
        settings.append((f"pc (causal-learn), alpha {default_alpha:g}", {"structure": "pc"}))

    out("# The structure search on known networks: precision / recall of q_")
    out()
    out(f"`python -m benchmarks.situation_testing_networks --sizes {' '.join(map(str, sizes))}"
        f" --decisions {args.decisions}{' --no-pc' if args.no_pc else ''}"
        f" --alphas {' '.join(map(str, args.alphas))}"
        f"{' --tests ' + ' '.join(args.tests) if args.tests else ''} --seeds {args.seeds}`")
    out()
    out(f"Default search: max_depth={default.max_depth}. Cells: mean precision / recall over "
        f"the decisions and the {args.seeds} seed(s); in brackets the seconds per fit, the "
        "mean number of tests, the largest conditioning set tested and how many fits the "
        "depth bound cut (local search only).")
    out()
    out("| network | rows | decisions | " + " | ".join(f"{s[0]} P / R (s, tests, depth, cut)"
                                                     for s in settings) + " |")
    out("|---|---:|---:|" + "---|" * len(settings))
    means = {}
    for n in sizes:
        for name in networks:
            per_seed = {}
            for seed in range(args.seeds):
                rng = np.random.RandomState(n % 9973 + 7919 * seed)
                res, n_dec = run(name, n, settings, args.decisions, rng)
                for label, _ in settings:
                    v = np.array(res.get(label, [(np.nan,) * 6]))
                    per_seed.setdefault(label, []).append(v)
                    p, r = v[:, :2].mean(axis=0)
                    means.setdefault((n, label, seed), []).append((p, r))
            cells = []
            for label, _ in settings:
                v = np.concatenate(per_seed[label])
                p, r, s, t, d = v[:, :5].mean(axis=0)
                cut = int(v[:, 5].sum())
                d = np.nanmax(v[:, 4]) if np.isfinite(v[:, 4]).any() else np.nan
                extra = f", {t:.0f}, {d:.0f}, {cut}" if np.isfinite(t) else ""
                cells.append(f"{p:.3f} / {r:.3f} ({s:.1f}{extra})")
            out(f"| {name} | {n} | {n_dec} | " + " | ".join(cells) + " |")
    out()
    summaries = [("Mean over the networks at each size:", np.mean)]
    if args.seeds > 1:
        summaries.append(("The worst seed's mean over the networks (precision and recall "
                          "each at its worst seed):", np.min))
    for title, over_seeds in summaries:
        out(title)
        out()
        out("| rows | " + " | ".join(s[0] for s in settings) + " |")
        out("|---:|" + "---|" * len(settings))
        for n in sizes:
            cells = []
            for label, _ in settings:
                p, r = over_seeds([np.mean(means[(n, label, seed)], axis=0)
                                   for seed in range(args.seeds)], axis=0)
                cells.append(f"{p:.3f} / {r:.3f}")
            out(f"| {n} | " + " | ".join(cells) + " |")
        out()
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text("\n".join(LINES) + "\n")
    print(f"written to {args.output}")


if __name__ == "__main__":
    main()
