"""``main(argv)`` and the parser of the command line."""

import argparse
import sys

from skfair_manifold.cli._audit_options import (
    AUDIT_OPTIONS,
    auditor_options,
    decision_option_error,
)
from skfair_manifold.cli._options import (
    BIAS_AUDIT_OPTIONS,
    DEMO_OPTIONS,
    HFM_OPTIONS,
    REPORT_OPTIONS,
    HelpFormatter,
    _describe,
    add_options,
)

EXIT_OK = 0
EXIT_DATA = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

EPILOG = """exit codes:
  0  success
  1  a problem with the input (missing file or column, malformed CSV, bad value)
     or with an output file (missing or read-only folder, read-only file, full
     disk); one line on stderr
  2  a problem with the command line (unknown option, missing argument, two
     outputs naming one file or both going to standard output)
130 interrupted (Ctrl-C); the message says which output files were replaced

outputs are written to temporary files and put in place only when all are
complete; only an empty CSV field is a missing value (NA, None, null are
ordinary values).
"""

MSG_INTERNAL = (
    "unexpected {kind}: {message} (this is a bug in skfair-manifold; run again with "
    "--debug for the traceback and report it)"
)


def build_parser():
    """The argparse parser of ``skfair-manifold`` (standard library only).

    The options are the tables of :mod:`._options`; this function adds the
    commands and their descriptions.
    """
    from skfair_manifold import __version__

    parser = argparse.ArgumentParser(
        prog="skfair-manifold",
        description=_describe(
            "Measure discrimination in data and models: the harmonic fairness measure via "
            "manifolds (HFM) with the group baselines, HTML reports, and situation testing of "
            "individual decisions. Run 'skfair-manifold COMMAND --help' for the options of "
            "each command."),
        epilog=EPILOG, formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an unexpected error")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    command = sub.add_parser(
        "hfm", formatter_class=HelpFormatter, epilog=EPILOG,
        help="measure a model's discrimination (HFM, DP, EO, PQP) from a CSV of predictions",
        description=_describe(
            "Read a CSV with one row per person: the true label, the model's prediction, one "
            "or more sensitive columns, and the features. Print HFM max and avg (HFM paper, "
            "Eq. 8: log(D_f / D), natural logarithm) over all sensitive attributes and per "
            "attribute, with demographic parity (DP), equal opportunity (EO) and predictive "
            "quality parity (PQP). Lower is fairer for every measure. JSON holds no NaN: an "
            "undefined value is null, with its reason under \"undefined\"; floats have 6 "
            "significant digits.",
            example="skfair-manifold hfm predictions.csv --label y --prediction y_pred "
                    "--sensitive sex race --format json"))
    add_options(command, HFM_OPTIONS)
    command.set_defaults(command_func="hfm")

    command = sub.add_parser(
        "report", formatter_class=HelpFormatter, epilog=EPILOG,
        help="write a self-contained HTML report of a model's fairness from a CSV or "
             "Parquet file of predictions",
        description=_describe(
            "Read the same CSV as 'hfm' and write one HTML file that opens offline in any "
            "browser and prints well: the rates of every group, the DP, EO and PQP gaps and "
            "ratios with the four-fifths rule, HFM per attribute (with --features or the "
            "other columns) and how to read it, and bar plots. A Parquet file is read out "
            "of core by DuckDB (embedded), which computes the group report's counts where "
            "the file lies, so a file larger than memory can be reported; HFM needs the "
            "rows in memory and is left out for it. A CSV file with --no-hfm is read out of "
            "core by DuckDB too (by pandas where the two readers could differ).",
            example="skfair-manifold report predictions.csv --label y --prediction y_pred "
                    "--sensitive sex race -o report.html"))
    add_options(command, REPORT_OPTIONS)
    command.set_defaults(command_func="report")

    command = sub.add_parser(
        "audit", formatter_class=HelpFormatter, epilog=EPILOG,
        help="find individual discrimination in a CSV of decisions (situation testing)",
        description=_describe(
            "Read a CSV of past decisions, one row per person, and test every row by "
            "situation testing: compare the decisions given to the k most similar people "
            "inside and outside the protected group. A row is flagged when it is in the "
            "protected group, received a negative decision, and the positive rate of its "
            "unprotected testers (p1) exceeds that of its protected testers (p2) by more "
            "than tau, and by default the gap is significant by an exact test with the false "
            "discovery rate kept across the audit (see --flag-rule). Write "
            "the flagged rows with their evidence (p1, p2, diff, its bounds diff_lower and "
            "diff_upper, the rule, the testers' ids, weights and decisions), and with --html "
            "an evidence file with one sheet per flagged person. Equally close testers are "
            "weighted, not drawn: the result does not depend on any seed.",
            example="skfair-manifold audit decisions.csv --decision hired --protected sex "
                    "--protected-value female --positive-label yes -k 50"))
    add_options(command, AUDIT_OPTIONS)
    command.set_defaults(command_func="audit")

    command = sub.add_parser(
        "bias-audit", formatter_class=HelpFormatter, epilog=EPILOG,
        help="the bias audit of a selection tool without labels: rates and impact ratios "
             "per category, unknown categories bounded (Local Law 144, four-fifths rule)",
        description=_describe(
            "Read a CSV or Parquet file with one row per person assessed: the decision (or "
            "score) and the sensitive columns. Print, per category of each sensitive column "
            "and of their intersection, the number assessed and selected, the selection "
            "(or scoring) rate and the impact ratio against the comparator, and the "
            "four-fifths verdict on the ratio's interval. People whose category is unknown "
            "are neither dropped nor made a category: the rates and ratios are bounded over "
            "where they truly belong, and the terminal states how many there are and the "
            "comparator of each table. A Parquet file is audited out of core by DuckDB.",
            example="skfair-manifold bias-audit decisions.csv --decision hired --sensitive "
                    "sex race --unknown Unknown --html audit.html"))
    add_options(command, BIAS_AUDIT_OPTIONS)
    command.set_defaults(command_func="bias_audit")

    command = sub.add_parser(
        "demo", formatter_class=HelpFormatter, epilog=EPILOG,
        help="run the whole package on data it generates itself",
        description=_describe(
            "Generate biased decisions with a known ground truth (make_biased_decisions), "
            "train a few models, print their accuracy, HFM and the group baselines, pick the "
            "best trade-off, then audit the decisions by situation testing and count the "
            "planted cases found."))
    add_options(command, DEMO_OPTIONS)
    command.set_defaults(command_func="demo")
    return parser


def _command(name):
    """The function of command ``name``, imported only when it runs."""
    if name == "hfm":
        from skfair_manifold.cli._hfm import run_hfm as func
    elif name == "report":
        from skfair_manifold.cli._report import run_report as func
    elif name == "audit":
        from skfair_manifold.cli._audit import run_audit as func
    elif name == "bias_audit":
        from skfair_manifold.cli._bias_audit import run_bias_audit as func
    else:
        from skfair_manifold.cli._demo import run_demo_command as func
    return func


def main(argv=None):
    """Run the command line on ``argv`` (``sys.argv[1:]`` by default); return the exit code.

    argparse's own exits (``--help``, ``--version``, usage errors) raise
    ``SystemExit`` with codes 0 and 2, as everywhere. Every message on
    standard error shows the format characters of a name (U+202E, U+200B,
    ...) as visible escapes ``<U+202E>`` (:mod:`skfair_manifold.utils._visible`).
    """
    from skfair_manifold.utils._visible import visible_stderr

    with visible_stderr():
        return _main(argv)


def _main(argv):
    parser = build_parser()
    args = vars(parser.parse_args(argv))
    from skfair_manifold.cli._io import (
        MSG_OUTPUT_IS_INPUT,
        CLIError,
        check_output,
        check_outputs,
        same_file,
        staged_outputs,
    )
    from skfair_manifold.utils._visible import one_line

    command = args.pop("command")
    name = args.pop("command_func")
    debug = args.pop("debug", False)
    if name == "audit":  # the auditor's options, only those given: its defaults are its own
        problem = decision_option_error(args)
        if problem:
            parser.error(problem)
        args["auditor_options"] = auditor_options(args)
    outputs = [("-o/--output", args.get("output"))]  # None: standard output
    outputs += [(option, args.get(key)) for option, key in (("--html", "html"),
                                                            ("--testers", "testers"),
                                                            ("--flagged-rows", "flagged_rows"),
                                                            ("--json", "json"))
                if args.get(key) is not None]
    for _, output in outputs:
        if output is not None and same_file(output, [args.get("file"), args.get("graph")]):
            parser.error(MSG_OUTPUT_IS_INPUT.format(path=output))
    try:
        check_outputs(outputs)
    except CLIError as exc:
        parser.error(str(exc))
    stage = None
    try:
        for _, output in outputs:
            check_output(output)
        with staged_outputs() as stage:
            return _command(name)(**args)
    except CLIError as exc:
        print(f"skfair-manifold {command}: error: {one_line(exc)}", file=sys.stderr)
        return EXIT_DATA
    except KeyboardInterrupt:
        changed = " No output file was changed." if stage is None \
            else stage.changed_sentence()
        print(f"skfair-manifold {command}: interrupted.{changed}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as exc:
        if debug:
            raise
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        reason = exc.strerror or str(exc)
        print(f"skfair-manifold {command}: error: {one_line(f'{reason}{where}')}.",
              file=sys.stderr)
        return EXIT_DATA
    except Exception as exc:  # noqa: BLE001 - the terminal never shows a traceback
        if debug:
            raise
        message = " ".join(str(exc).split()) or "no message"
        print(f"skfair-manifold {command}: error: "
              f"{MSG_INTERNAL.format(kind=type(exc).__name__, message=message)}",
              file=sys.stderr)
        return EXIT_DATA


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
