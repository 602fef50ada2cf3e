"""HFM's ``method="auto"`` against both engines, and the cost model's constants measured.

Default: a grid of shapes (uniform features, n from 1,000 to 100,000, 2 to
100 features, attributes of 2 and ``g`` values, ``g`` in 2..20) and two
tables made in code (``_generated.py``: a law-school-like one of 21,791
rows with 3 discrete features, a credit-like one of 30,000 x 20), each
scored by ``hfm_report`` at its defaults (one worker, the reuse cache
emptied before every run) with ``method="exact"``, ``"approx"`` and
``"auto"``; printed: the cost model's predictions, the measured times, the
engine ``"auto"`` ran and **chosen / best**, the measured time of the engine
``"auto"`` chose over the faster of the two (target <= 1.3 everywhere).
Where ``"auto"`` runs exact its values are checked equal to exact's, bit for
bit. Exact is not run at 100,000 rows of continuous data (the model predicts
it 5-10 x the approximation; a lower bound, ``(n / 30,000)^2`` times the
measured 30,000-row time, is printed instead).

``--cost``: the per-unit times of the model (``skfair_manifold/distances/_cost.py``)
measured on this machine from the engines' parts (the exact engine's pass,
the neighbour lists, the projections), a least-squares fit of ``a + b x``
per shape, beside the constants the package states.

Usage (hold the benchmarks' lock)::

    flock /tmp/bench.lock python -m benchmarks.bench_hfm_auto [--quick]
    flock /tmp/bench.lock python -m benchmarks.bench_hfm_auto --cost
    flock /tmp/bench.lock python -m benchmarks.bench_hfm_auto --low-dim [--quick]
    flock /tmp/bench.lock python -m benchmarks.bench_hfm_auto --floor

``--low-dim`` and ``--floor``: see ``benchmarks/_hfm_low_dim.py`` (exact on few
features against a plain KDTree reference and ``"auto"`` against both engines;
exact 30,000 x 100 against one BLAS pass over all pairs).
"""

import argparse
import time

import numpy as np

from ._generated import credit_like, flipped, law_like
from ._hfm_low_dim import best_of, floor, low_dim
from ._io import add_results_dir, machine, write_result


def grid_data(n, p, groups, seed=0):
    """Uniform features, attributes of 2 and ``groups`` values, 10 % of predictions flipped."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, p))
    A = np.column_stack([rng.integers(0, 2, n), rng.integers(0, groups, n)])
    y_true = (X[:, 0] > 0.5).astype(int)
    y_pred = np.where(rng.random(n) < 0.1, 1 - y_true, y_true)
    return X, y_true, y_pred, A


def run(X, y_true, y_pred, A, method):
    from skfair_manifold.metrics import hfm_report

    return hfm_report(y_true, y_pred, X=X, sensitive_features=A, method=method,
                      random_state=0, n_jobs=1)


def cases(quick):
    ns = (1_000, 10_000, 30_000) if not quick else (1_000, 10_000)
    out = [(f"uniform g={g}", lambda n=n, p=p, g=g: grid_data(n, p, g))
           for n in ns for p in (2, 20, 100) for g in (2, 20)]
    out += [("uniform g=5", lambda n=n, p=p: grid_data(n, p, 5))
            for n in (3_000, 15_000) for p in (5, 50)]
    if not quick:
        out += [(f"uniform g={g}", lambda p=p, g=g: grid_data(100_000, p, g))
                for p in (2, 20) for g in (2, 20)]
    for label, make in (("law-like", law_like), ("credit-like", credit_like)):
        out.append((label, lambda make=make: (lambda X, y, A: (X, y, flipped(y), A))(*make())))
    return out


def grid(args):
    run(*grid_data(2000, 5, 3), "exact")  # warm-up (imports, BLAS)
    head = ("| data | n | p | unique rows | predicted exact s | predicted approx s | "
            "exact s | approx s | auto s (engine) | chosen / best | auto / best |")
    lines = [head, "|---|---|---|---|---|---|---|---|---|---|---|"]
    print(head, flush=True)
    ratios, autos, t30 = [], [], {}
    for label, make in cases(args.quick):
        X, y_true, y_pred, A = make()
        n, p = X.shape
        auto, t_auto = best_of(lambda: run(X, y_true, y_pred, A, "auto"), args.repeat)
        approx, t_a = best_of(lambda: run(X, y_true, y_pred, A, "approx"), args.repeat)
        c = auto.auto
        if n <= 30_000:
            exact, t_e = best_of(lambda: run(X, y_true, y_pred, A, "exact"), args.repeat)
            if auto.method == "exact":
                for key in ("hfm_avg", "hfm_max", "d_avg", "d_max"):
                    assert auto[key] == exact[key], (label, key)
            t30[(label, p)] = t_e if n == 30_000 else t30.get((label, p))
            chosen = t_e if auto.method == "exact" else t_a
            ratio = chosen / min(t_e, t_a)
            ratios.append(ratio)
            autos.append(t_auto / min(t_e, t_a))
            e_cell, r_cell, a_cell = f"{t_e:.2f}", f"{ratio:.2f}", f"{autos[-1]:.2f}"
        else:
            low = t30.get((label, p))
            low = None if low is None else low * (n / 30_000) ** 2
            e_cell = "-" if low is None else f"> {low:.0f} (not run)"
            ok = auto.method == "approx" and (low is None or low >= t_a)
            r_cell = "1.00" if ok else "?"
            a_cell = f"{t_auto / t_a:.2f}" if ok else "?"
            if ok:
                ratios.append(1.0)
                autos.append(t_auto / t_a)
        lines.append(f"| {label} | {n:,} | {p} | {c.n_unique:,} | {c.exact_s:.2f} | "
                     f"{c.approx_s:.2f} | {e_cell} | {t_a:.2f} | {t_auto:.2f} ({auto.method}"
                     f"{', after the pilot' if c.switched else ''}) | {r_cell} | {a_cell} |")
        print(lines[-1], flush=True)
    text = [f"# method='auto' against both engines ({machine()}, one worker)", "",
            f"hfm_report at its defaults, best of {args.repeat} runs each, the reuse cache "
            "emptied before every run; 'uniform g=G': uniform features, attributes of 2 and "
            "G values. chosen / best: the measured time of the engine auto chose over the "
            "faster of the two (target <= 1.3); auto / best: auto's own measured time (its "
            "count of the distinct rows, and the projections and pilot when it turns to "
            "exact after the pilot, included) over the same. Command: "
            f"`flock /tmp/bench.lock python -m benchmarks.bench_hfm_auto"
            f"{' --quick' if args.quick else ''} --repeat {args.repeat}`.", "",
            *lines, "", f"Largest chosen / best: {max(ratios):.2f}, largest auto / best: "
            f"{max(autos):.2f}, over {len(ratios)} shapes."]
    write_result("bench_hfm_auto" + ("_quick" if args.quick else ""), "\n".join(text),
                 args.results_dir)


def fit(xs, ys):
    """Least-squares ``(a, b)`` of ``y = a + b x``."""
    b, a = np.polyfit(np.asarray(xs, float), np.asarray(ys, float), 1)
    return a, b


def cost(args):
    from skfair_manifold.distances._testing import (
        ExactEngine,
        NeighbourLists,
        answer_from_lists,
        approx_row_distances,
        cost_model,
        default_m2,
        draw_projections,
    )

    eng, lst, proj, build = [], [], [], []
    for n, p, g in [(n, p, g) for n in (4_000, 12_000) for p in (2, 20, 100) for g in (2, 10)]:
        X, y_true, y_pred, A = grid_data(n, p, g)
        labels = [y_true.astype(float), y_pred.astype(float)]
        codes = [A[:, 0], A[:, 1]]
        t0 = time.perf_counter()
        engine = ExactEngine(X, labels, codes)
        t1 = time.perf_counter()
        engine.all_rows(n_jobs=1)
        t2 = time.perf_counter()
        _, joint = cost_model.layout_sizes(engine.layout)
        eng.append((p + 1, (t2 - t1) / cost_model.engine_pairs(joint) * 1e9))
        build.append((p, (t1 - t0) / n * 1e9))
        t0 = time.perf_counter()
        lists = NeighbourLists(X, codes)
        for y in labels:
            answer_from_lists(lists, X, y, codes, 1, None)
        t1 = time.perf_counter()
        pairs = cost_model.lists_pairs(cost_model.group_sizes(codes))
        lst.append((p + 1, (t1 - t0) / pairs * 1e9))
        m2 = default_m2(n)
        W = draw_projections(p + 1, 5, 2, np.random.RandomState(0))
        t0 = time.perf_counter()
        for y in labels:
            approx_row_distances(X, y, codes, m1=5, m2=m2, n_vectors=2, random_state=None,
                                 n_jobs=1, projections=W)
        t1 = time.perf_counter()
        units = len(labels) * 5 * 2 * n * len(codes)
        proj.append((p * cost_model.band(m2), (t1 - t0) / units * 1e6))
        print(f"n={n:,} p={p} g={g}: engine {eng[-1][1]:.2f} ns/pair, lists "
              f"{lst[-1][1]:.2f} ns/pair, projections {proj[-1][1]:.3f} us/unit, "
              f"layout {build[-1][1]:.0f} ns/row", flush=True)
    rows = [("ENGINE_NS", "ns per pair of unique rows", "p + 1", fit(*zip(*eng)),
             cost_model.ENGINE_NS),
            ("LISTS_NS", "ns per pair and attribute", "p + 1", fit(*zip(*lst)),
             cost_model.LISTS_NS),
            ("PROJECTION_US", "us per row, label, projection and attribute",
             "p * band(m2)", fit(*zip(*proj)), cost_model.PROJECTION_US),
            ("LAYOUT_NS", "ns per row", "p", fit(*zip(*build)), cost_model.LAYOUT_NS)]
    lines = ["| constant | unit | x | measured a | measured b | stated a | stated b |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {name} | {unit} | {x} | {a:.4g} | {b:.4g} | {sa:.4g} | {sb:.4g} |"
              for name, unit, x, (a, b), (sa, sb) in rows]
    text = [f"# The cost model's constants, measured ({machine()}, one worker)", "",
            "Each a + b x, least squares over n in {4,000, 12,000}, p in {2, 20, 100}, "
            "attributes of 2 and g in {2, 10} values (uniform data). Command: "
            f"`flock /tmp/bench.lock python -m benchmarks.bench_hfm_auto --cost"
            f"{' --quick' if args.quick else ''}"
            f"{' --repeat %d' % args.repeat if args.repeat != 2 else ''}`.", "", *lines,
            *index_cost(args)]
    write_result("bench_hfm_cost" + ("_quick" if args.quick else ""), "\n".join(text),
                 args.results_dir)


def index_cost(args):
    """The index path's constants: the shared query's law, the rest per point, the fixed part,
    a tree per point."""
    from scipy.optimize import curve_fit

    from skfair_manifold.distances._testing import (
        NEIGHBOURS,
        ExactEngine,
        cost_model,
        index_points,
        index_rows,
        index_tree,
        min_max,
    )

    def best(func):
        times = []
        for _ in range(max(1, args.repeat)):
            t0 = time.perf_counter()
            func()
            times.append(time.perf_counter() - t0)
        return min(times)

    runs, tree = [], []
    ns = (500, 2_000, 10_000) if args.quick else (500, 2_000, 10_000, 100_000, 400_000)
    shapes = [(n, p, k) for n in ns
              for p in (1, 2, 3, 4, 6, 8, 10) for k in (1, 3) if n * 1.6 ** p <= 4e7]
    for n, p, k in shapes:
        X, y_true, y_pred, A = grid_data(n, p, 20)
        codes = [A[:, 0], A[:, 1], np.random.default_rng(1).integers(0, 5, n)][:k]
        labels = [y_true.astype(float), y_pred.astype(float)]
        layout = ExactEngine(X, labels, codes, minmax=min_max(X)).layout
        t_index = best(lambda: index_rows(layout, n_jobs=1)) / len(labels)
        points = [index_points(layout, l)[0] for l in range(len(labels))]
        n_points = np.mean([P.shape[0] for P in points])
        t_query = np.mean([best(lambda: index_tree(P).query(P, k=NEIGHBOURS)) for P in points])
        tree.append(np.mean([best(lambda: index_tree(np.ascontiguousarray(P[::2])))
                             for P in points]) / (n_points / 2) * 1e9)
        runs.append((n_points, p, k, t_index, t_query))
        print(f"n={n:,} p={p} attributes={k}: per label {t_index * 1e3:.1f} ms, its query "
              f"{t_query / n_points * 1e9:.0f} ns per point; a tree {tree[-1]:.0f} ns per "
              "point", flush=True)
    n_, p_, k_, t_, q_ = (np.array(v, float) for v in zip(*runs))
    big = n_ >= 10_000  # the query's law from the larger trees (small ones: overheads)
    (qa, qb, qc), _ = curve_fit(
        lambda x, a, b, c: np.log(a) + x[1] * np.log(b) + c * x[1] ** 2 * np.log(x[0] / 1e5),
        (n_[big], p_[big]), np.log(q_[big] / n_[big] * 1e9), p0=(500.0, 1.5, 0.004),
        bounds=([1.0, 1.0, 0.0], [1e5, 4.0, 0.1]))
    law = qa * qb ** p_ * (n_ / 1e5) ** (qc * p_ ** 2)
    rest = t_ - n_ * law * 1e-9
    # the rest per point (ns) and per label vector (s), fitted on relative errors
    design = np.column_stack([n_ * 1e-9, n_ * p_ * 1e-9, n_ * k_ * 1e-9, np.ones_like(n_), k_])
    scale = 1.0 / t_
    coef, *_ = np.linalg.lstsq(design * scale[:, None], rest * scale, rcond=None)
    ra, rb, rc, fa, fb = coef
    sa, sb, sc = cost_model.INDEX_QUERY_NS
    ta, tb, tc = cost_model.INDEX_POINT_NS
    ua, ub = cost_model.INDEX_FIXED_S
    return [
        "", "The index path (uniform features, n in 500..400,000, p in 1..10, the attribute "
        "of 2 values, then with two more of 20 and 5 values; best of "
        f"{args.repeat} runs each; per label vector): the shared tree's query, "
        "a * b^p * (n / 1e5)^(c p^2) ns per point (least squares on the logarithm, n >= "
        "10,000); the rest, a + b p + c n_attributes ns per point and a + b n_attributes s "
        "per label vector (least squares on relative errors); a tree of the other groups, "
        "ns per point (median).", "",
        "| constant | measured | stated |", "|---|---|---|",
        f"| INDEX_QUERY_NS (a, b, c) | ({qa:.4g}, {qb:.4g}, {qc:.4g}) | "
        f"({sa:.4g}, {sb:.4g}, {sc:.4g}) |",
        f"| INDEX_POINT_NS (a, b, c) | ({ra:.4g}, {rb:.4g}, {rc:.4g}) | "
        f"({ta:.4g}, {tb:.4g}, {tc:.4g}) |",
        f"| INDEX_FIXED_S (a, b) | ({fa:.4g}, {fb:.4g}) | ({ua:.4g}, {ub:.4g}) |",
        f"| INDEX_TREE_NS | {np.median(tree):.4g} | {cost_model.INDEX_TREE_NS:.4g} |",
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cost", action="store_true", help="measure the model's constants")
    parser.add_argument("--quick", action="store_true", help="up to 15,000 rows only")
    parser.add_argument("--repeat", type=int, default=2, help="timed runs, the best kept")
    parser.add_argument("--low-dim", action="store_true",
                        help="few features: exact against a plain KDTree, auto against both")
    parser.add_argument("--rows", type=int, nargs="+", default=None,
                        help="--low-dim: only the shapes of these numbers of rows")
    parser.add_argument("--floor", action="store_true",
                        help="exact 30,000 x 100 against one BLAS pass over all pairs")
    add_results_dir(parser)
    args = parser.parse_args(argv)
    if args.cost:
        cost(args)
    elif args.low_dim or args.floor:
        (low_dim if args.low_dim else floor)(args, grid_data, run)
    else:
        grid(args)


if __name__ == "__main__":
    main()
