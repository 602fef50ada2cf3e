"""Shared by the command line's tests: run ``main`` as the terminal would."""

from skfair_manifold.cli import main


def run_cli(capsys, *args):
    """``(exit code, stdout, stderr)`` of ``main`` on the arguments (each made a string)."""
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # pragma: no cover - argparse's own exits
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err
