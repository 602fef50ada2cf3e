"""The ``demo`` command."""

from skfair_manifold.cli._io import CLIError

#: the smallest --n-samples the demo runs on (two halves, 50 testers per side)
MIN_SAMPLES = 200
#: the largest: the demo trains several models, minutes beyond this
MAX_SAMPLES = 1_000_000


def run_demo_command(*, n_samples, seed):
    """Run :func:`skfair_manifold._demo.run_demo`; refuse sizes it cannot work with."""
    if n_samples < MIN_SAMPLES:
        raise CLIError(f"--n-samples {n_samples} is too small: the demo trains on half of "
                       f"the rows and audits with 50 testers per side, which needs at least "
                       f"{MIN_SAMPLES} rows; use --n-samples {MIN_SAMPLES} or more.")
    from skfair_manifold.utils._sizes import check_size

    try:  # the data, the models' copies and the audit: about 64 floats a row
        check_size(n_samples, name="--n-samples", low=MIN_SAMPLES, high=MAX_SAMPLES,
                   bytes_per_unit=8 * 64, why="the demo trains several models on them")
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    from skfair_manifold._demo import run_demo

    return run_demo(n_samples=n_samples, seed=seed)
