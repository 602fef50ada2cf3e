"""The command line, ``skfair-manifold`` and ``python -m skfair_manifold``.

Commands, each a function with keyword arguments over the public API:

``hfm``
    A CSV of labels, predictions and sensitive columns in; HFM (max and avg,
    over all attributes and per attribute) and the group baselines out, as a
    table or JSON (:func:`skfair_manifold.cli._hfm.run_hfm`).
``report``
    The same CSV in; a self-contained HTML report of
    :func:`~skfair_manifold.metrics.fairness_report` out
    (:func:`skfair_manifold.cli._report.run_report`).
``audit``
    A CSV of decisions in; situation testing of every row; the flagged rows
    and their evidence out, as CSV, JSON or an HTML evidence file
    (:func:`skfair_manifold.cli._audit.run_audit`).
``demo``
    The whole package on data it makes itself (:mod:`skfair_manifold._demo`).

:func:`main` parses ``argv`` and returns the exit code: 0 success, 1 a
problem with the input data or an output file (one line on standard error),
2 a problem with the command line itself. No traceback reaches the terminal
unless ``--debug`` is given. Importing this package imports only the
standard library, so ``--help`` and ``--version`` are fast.
"""

from skfair_manifold.cli._main import EXIT_DATA, EXIT_OK, EXIT_USAGE, build_parser, main

__all__ = ["EXIT_DATA", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]
