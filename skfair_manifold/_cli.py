"""The command line, ``skfair-manifold`` and ``python -m skfair_manifold``.

Only ``demo`` exists so far: it runs the distance engine on generated data and
compares the exact distances with the approximation, with the times.
"""

import argparse
import sys
import time


def _demo(args):
    import numpy as np

    from skfair_manifold.distances import extend_dist, extended_set_distance

    rng = np.random.default_rng(args.seed)
    n, p = args.n_samples, args.n_features
    X = rng.random((n, p))
    A = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 5, n)])
    y = (X[:, 0] + 0.3 * A[:, 0] + 0.1 * rng.standard_normal(n) > 0.8).astype(float)
    print(f"Generated data: {n} rows, {p} features in [0, 1], sensitive attributes with 2 and "
          f"5 values, a binary label (seed {args.seed}).")
    t0 = time.perf_counter()
    exact = extended_set_distance(X, y, A)
    t_exact = time.perf_counter() - t0
    t0 = time.perf_counter()
    approx = extend_dist(X, y, A, random_state=args.seed)
    t_approx = time.perf_counter() - t0
    print(f"{'':12s}{'d_max':>10s}{'d_avg':>10s}{'seconds':>10s}")
    print(f"{'exact':12s}{exact[0]:10.4f}{exact[1]:10.4f}{t_exact:10.3f}")
    print(f"{'approximate':12s}{approx[0]:10.4f}{approx[1]:10.4f}{t_approx:10.3f}")
    print(f"Relative error of the approximate d_avg: {approx[1] / exact[1] - 1:+.2%} "
          "(the approximation never underestimates).")
    return 0


def build_parser():
    parser = argparse.ArgumentParser(
        prog="skfair-manifold",
        description="Measure discrimination in data and models (HFM, situation testing).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run the package on data it generates itself")
    demo.add_argument("--n-samples", type=int, default=10_000, help="rows to generate")
    demo.add_argument("--n-features", type=int, default=20, help="features to generate")
    demo.add_argument("--seed", type=int, default=0, help="random seed")
    demo.set_defaults(func=_demo)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
