"""What every plot needs: matplotlib imported on demand, an Axes to draw on."""

MSG_MATPLOTLIB = (
    "{caller} needs matplotlib, which is not installed. Install it with "
    "pip install 'skfair_manifold[plot]' (or pip install matplotlib)."
)


def check_matplotlib(caller):
    """Import and return ``matplotlib.pyplot``, or raise one clear error.

    matplotlib is optional: importing :mod:`skfair_manifold.plotting` never
    imports it, only calling a plotting function does.
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(MSG_MATPLOTLIB.format(caller=caller)) from exc
    return plt


def get_axes(ax, caller):
    """Return ``ax``, or a new Axes on a new figure when ``ax`` is None."""
    plt = check_matplotlib(caller)
    if ax is None:
        _, ax = plt.subplots()
    return ax
