"""``main(argv)`` and the parser of the command line."""

import argparse
import sys

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


def _int_at_least(minimum):
    """An argparse type: an integer of at least ``minimum``."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value
    return parse


_non_negative_int = _int_at_least(0)
_positive_int = _int_at_least(1)
_at_least_two = _int_at_least(2)


def _probability(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must lie in [0, 1], got {value}")
    return value


def _fdr_level(text):
    if text.strip().lower() == "none":
        return None
    return _open_probability(text)


def _open_probability(text):
    value = _probability(text)
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must lie in (0, 1), got {value}")
    return value


def _separator(text):
    if text == "":
        raise argparse.ArgumentTypeError(
            "the separator is empty; give one character such as ',' or ';' (or '\\t')")
    return "\t" if text == "\\t" else text


def _describe(text, example=None):
    """Wrap a description to the terminal's width, keeping the example as written."""
    import shutil
    import textwrap

    width = min(shutil.get_terminal_size((80, 24)).columns, 100) - 2
    out = textwrap.fill(text, width)
    if example:
        out += "\n\nexample:\n  " + example
    return out


def _add_common(parser, *, output_help="write the result to FILE instead of standard output",
                csv_escape=False):
    parser.add_argument("--sep", default=",", type=_separator,
                        help="the field separator of the CSV file (default: ',')")
    parser.add_argument("-o", "--output", metavar="FILE", help=output_help)
    if csv_escape:
        parser.add_argument(
            "--no-csv-escape", dest="csv_escape", action="store_false",
            help="write text cells as they are; by default a cell that begins with =, +, "
                 "-, @, a tab or a carriage return is prefixed with ' so that a spreadsheet "
                 "shows it as text instead of running it as a formula")
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show the full traceback of an unexpected error")


def _add_prediction_columns(parser):
    parser.add_argument("file", help="the CSV file, with a header line ('-' reads standard "
                                     "input); only an empty field is a missing value: "
                                     "NA, None, null are ordinary values")
    parser.add_argument("--label", required=True, metavar="COLUMN",
                        help="the column of true labels (numeric: 0/1, or class codes)")
    parser.add_argument("--prediction", required=True, metavar="COLUMN",
                        help="the column of the model's predictions (same coding as --label)")
    parser.add_argument("--sensitive", required=True, nargs="+", metavar="COLUMN",
                        help="one or more sensitive columns; any values, 2 or more groups each")
    parser.add_argument("--features", nargs="+", metavar="COLUMN",
                        help="the non-sensitive feature columns (default: every other "
                             "column); text columns are one-hot encoded, identifier-like "
                             "ones refused (see --max-categories)")
    parser.add_argument("--max-categories", type=_positive_int, default=50, metavar="N",
                        help="text feature columns keep their N - 1 most frequent values "
                             "and merge the rest into one indicator; a text column with more "
                             "than N values, more than half of the rows distinct, is an "
                             "identifier and is refused (default: 50)")
    parser.add_argument("--method", choices=["auto", "approx", "exact"], default="auto",
                        help="'exact': Eq. 4-7; 'approx': random projections (ExtendDist) "
                             "corrected by the exact distances of a sample of rows, with "
                             "95%% intervals; 'auto': exact up to 12,500 rows (where it is "
                             "the faster), the corrected approximation beyond (default: "
                             "auto)")
    parser.add_argument("--m1", type=_positive_int, default=5,
                        help="approx only: number of repetitions of the projections "
                             "(default: 5; the sample's correction makes more pay little)")
    parser.add_argument("--m2", type=_positive_int, default=None,
                        help="approx only: neighbours compared on each side of a row after "
                             "projection (default: ceil(2 log10 n))")
    parser.add_argument("--no-scale", dest="scale", action="store_false",
                        help="do not scale every feature to [0, 1] before measuring (by "
                             "default they are, as in the paper, so that no raw column "
                             "drowns the label)")
    parser.add_argument("--pos-label", metavar="VALUE",
                        help="the favourable label for DP, EO and PQP (default: 1 with 0/1 "
                             "labels; required for other labels)")
    parser.add_argument("--n-boot", type=_non_negative_int, default=0, metavar="N",
                        help="0: score intervals of every rate and gap, valid at any group "
                             "size; N > 0: the gaps' intervals from a percentile bootstrap "
                             "of N replicates instead, for large groups (default: 0)")
    parser.add_argument("--confidence", type=_open_probability, default=0.95,
                        help="coverage of the intervals (default: 0.95)")
    parser.add_argument("--min-group-size", type=_positive_int, default=30, metavar="N",
                        help="groups of fewer rows are shown but left out of the gaps and "
                             "the four-fifths verdict (default: 30)")
    parser.add_argument("--intersect", action="store_true",
                        help="take the combinations of the sensitive columns as the groups "
                             "(as fairlearn does with several columns) instead of each "
                             "column alone")
    parser.add_argument("--seed", type=int, default=0,
                        help="random seed of the projections and the bootstrap; the same "
                             "seed gives the same result (default: 0)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no notes or warnings on standard error")


def build_parser():
    """The argparse parser of ``skfair-manifold`` (standard library only)."""
    from skfair_manifold import __version__

    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="skfair-manifold",
        description=_describe(
            "Measure discrimination in data and models: the harmonic fairness measure via "
            "manifolds (HFM) with the group baselines, HTML reports, and situation testing of "
            "individual decisions. Run 'skfair-manifold COMMAND --help' for the options of "
            "each command."),
        epilog=EPILOG, formatter_class=formatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an unexpected error")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    hfm = sub.add_parser(
        "hfm", formatter_class=formatter, epilog=EPILOG,
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
    _add_prediction_columns(hfm)
    hfm.add_argument("--no-baselines", dest="baselines", action="store_false",
                     help="skip DP, EO and PQP (for multi-class labels without --pos-label)")
    hfm.add_argument("--format", choices=["table", "json"], default="table",
                     help="'table' for people, 'json' for programs (default: table)")
    _add_common(hfm)
    hfm.set_defaults(command_func="hfm")

    report = sub.add_parser(
        "report", formatter_class=formatter, epilog=EPILOG,
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
    _add_prediction_columns(report)
    report.add_argument("--no-hfm", dest="hfm", action="store_false",
                        help="leave HFM out (no feature columns needed)")
    report.add_argument("--title", default="Fairness report",
                        help="the title of the page (default: 'Fairness report')")
    _add_common(report, output_help="the HTML file to write (default: standard output)")
    report.set_defaults(command_func="report")

    audit = sub.add_parser(
        "audit", formatter_class=formatter, epilog=EPILOG,
        help="find individual discrimination in a CSV of decisions (situation testing)",
        description=_describe(
            "Read a CSV of past decisions, one row per person, and test every row by "
            "situation testing: compare the decisions given to the k most similar people "
            "inside and outside the protected group. A row is flagged when it is in the "
            "protected group, received a negative decision, and the positive rate of its "
            "unprotected testers (p1) exceeds that of its protected testers (p2) by more "
            "than tau: by default the lower confidence bound of diff = p1 - p2 must. Write "
            "the flagged rows with their evidence (p1, p2, diff, its bounds diff_lower and "
            "diff_upper, the rule, the testers' ids, weights and decisions), and with --html "
            "an evidence file with one sheet per flagged person. Equally close testers are "
            "weighted, not drawn: the result does not depend on any seed.",
            example="skfair-manifold audit decisions.csv --decision hired --protected sex "
                    "--protected-value female --positive-label yes -k 50"))
    audit.add_argument("file", help="the CSV file, with a header line ('-' reads standard "
                                    "input); only an empty field is a missing value: "
                                    "NA, None, null are ordinary values. A Parquet file "
                                    "is audited cell by cell through DuckDB (CBN-DD; "
                                    "see --flagged-rows)")
    audit.add_argument("--decision", required=True, metavar="COLUMN",
                       help="the column of decisions (exactly two values)")
    audit.add_argument("--positive-label", required=True, metavar="VALUE",
                       help="the value of --decision that is the favourable decision")
    audit.add_argument("--protected", required=True, metavar="COLUMN",
                       help="the protected attribute, for example sex")
    audit.add_argument("--protected-value", required=True, metavar="VALUE",
                       help="the value of --protected that marks the protected group")
    audit.add_argument("--features", nargs="+", metavar="COLUMN",
                       help="the attributes that describe a person (default: every column "
                            "but --decision and --id)")
    audit.add_argument("--id", metavar="COLUMN",
                       help="a column that identifies rows, used to name rows and testers "
                            "(default: the row number, 0 for the first data row)")
    audit.add_argument("--method", choices=["cbn", "knn"], default="cbn",
                       help="'cbn': testers chosen on the causes of the decision found in a "
                            "causal graph (CBN-DD, Zhang, Wu and Wu); 'knn': on all "
                            "attributes (KNN-DD, Luong et al.) (default: cbn)")
    audit.add_argument("-k", type=_positive_int, default=50,
                       help="tester pairs per row; courts usually ask for 50 (default: 50)")
    audit.add_argument("--tau", type=_probability, default=0.05,
                       help="the legal threshold on p1 - p2 (default: 0.05)")
    audit.add_argument("--flag-rule", choices=["exact", "significant", "bound", "tau"],
                       default="exact",
                       help="'exact': flag when p1 - p2 exceeds tau and the exact test of "
                            "the gap is significant across the audit (q_value at most "
                            "--fdr; one candidate alone: p_value at most --alpha-test); "
                            "'significant': when p1 - p2 exceeds tau and its lower "
                            "confidence bound, diff_lower, exceeds 0, person by person; "
                            "'bound': when diff_lower exceeds tau (stricter); 'tau': when "
                            "p1 - p2 exceeds tau (the papers' rule, noisier) "
                            "(default: exact)")
    audit.add_argument("--fdr", type=_fdr_level, default=0.1, metavar="LEVEL",
                       help="the false discovery rate kept across the audit by the 'exact' "
                            "rule: at most this share of the flagged people are expected "
                            "not to be discriminated; 'none' tests each person alone at "
                            "--alpha-test (default: 0.1)")
    audit.add_argument("--fdr-method", choices=["bh", "by", "dbh"], default="bh",
                       help="'bh': Benjamini-Hochberg; 'by': Benjamini-Yekutieli, valid "
                            "under any dependence, more conservative; 'dbh': the discrete "
                            "step-up of Doehler, Durand and Roquain, which counts the "
                            "people whose test cannot reach a small p-value less "
                            "(default: bh)")
    audit.add_argument("--causal-effect", choices=["max_over_groups", "pooled"],
                       default="max_over_groups",
                       help="how CBN-DD's distance weighs a change of one cause of the "
                            "decision: 'pooled', the paper's causal effect; "
                            "'max_over_groups', the larger of its effects on the two "
                            "groups, which keeps the testers out of situations where the "
                            "protected group is treated differently (default: "
                            "max_over_groups)")
    audit.add_argument("--bound", choices=["wald", "newcombe"], default="wald",
                       help="the confidence bounds of p1 - p2: 'wald' (Alvarez and "
                            "Ruggieri) or 'newcombe' (hybrid score interval) "
                            "(default: wald)")
    audit.add_argument("--alpha-test", type=_open_probability, default=None, metavar="LEVEL",
                       help="one-sided level of the bounds diff_lower and diff_upper, always "
                            "computed and written (default: the auditor's, 0.1: one-sided "
                            "90%% bounds)")
    audit.add_argument("--graph", metavar="FILE",
                       help="cbn only: a JSON file with the causal graph, an object mapping "
                            "each node to the list of its parents (the decision node named "
                            "as --decision), or just the list of the decision's parents; "
                            "learned from the data when absent")
    audit.add_argument("--alpha", type=_open_probability, default=None,
                       help="cbn only: significance level of the tests that learn the graph "
                            "(default: the auditor's, 0.01)")
    audit.add_argument("--nominal", nargs="+", metavar="COLUMN",
                       help="columns whose values are categories compared by equality, "
                            "numeric codes included (text columns always are)")
    audit.add_argument("--ordinal", nargs="+", metavar="COLUMN",
                       help="numeric columns of ordered levels, compared by their "
                            "difference over the range (default for integer columns with "
                            "at most 32 values)")
    audit.add_argument("--interval", nargs="+", metavar="COLUMN",
                       help="continuous columns: compared by their difference under knn; "
                            "cut into at most --n-bins bins under cbn and for the graph "
                            "search (default for other numeric columns)")
    audit.add_argument("--n-bins", type=_at_least_two, default=5, metavar="N",
                       help="cbn: the largest number of bins of each interval column "
                            "(default: 5)")
    audit.add_argument("--binning", choices=["mdlp", "quantile"], default="mdlp",
                       help="cbn: how interval columns are cut: 'mdlp', where the decision "
                            "rate changes, only when the change is more than chance "
                            "(Fayyad and Irani's rule); 'quantile', equal-frequency bins "
                            "(default: mdlp)")
    audit.add_argument("--seed", type=int, default=None,
                       help="deprecated, changes nothing: equally close testers are no "
                            "longer drawn at random but weighted by the probability of "
                            "being taken; accepted so that old command lines still run")
    audit.add_argument("--all-rows", action="store_true",
                       help="write every row with its p1, p2, diff and flag, not only the "
                            "flagged rows")
    audit.add_argument("--format", choices=["csv", "json"], default="csv",
                       help="output format; in CSV, lists are joined with ';': the testers "
                            "taken for certain (their ids and decisions) and the tie groups "
                            "('cell C: N records, P positive, weight W') of each side "
                            "(default: csv)")
    audit.add_argument("--html", metavar="FILE",
                       help="also write a self-contained HTML evidence file: a summary, "
                            "then one sheet per flagged person with the testers of both "
                            "sides")
    audit.add_argument("--testers", metavar="FILE",
                       help="also write the long table of testers (same --format): one row "
                            "per flagged person, side and cell of equally treated records, "
                            "with its distance, records, positive decisions, weight (the "
                            "probability that each of its records is a tester) and values; "
                            "the tie groups of the main output are its cells")
    audit.add_argument("--flagged-rows", metavar="FILE",
                       help="with a Parquet input (audited cell by cell through DuckDB, "
                            "CBN-DD only; the output is then the table of candidate cells): "
                            "also write the flagged rows, every column, to this Parquet "
                            "file")
    audit.add_argument("--html-sheets", type=_positive_int, default=500, metavar="N",
                       help="with --html: sheets for at most the first N flagged people; "
                            "all are listed in the summary (default: 500)")
    audit.add_argument("--batch-size", type=_positive_int, default=None,
                       help="deprecated, changes nothing: every row is audited in one "
                            "pass; accepted so that old command lines still run")
    audit.add_argument("--n-jobs", type=int, default=None,
                       help="parallel workers for the auditor (default: 1)")
    audit.add_argument("-q", "--quiet", action="store_true",
                       help="no progress bar, no summary and no notes on standard "
                            "error")
    _add_common(audit, csv_escape=True)
    audit.set_defaults(command_func="audit")

    demo = sub.add_parser(
        "demo", formatter_class=formatter, epilog=EPILOG,
        help="run the whole package on data it generates itself",
        description=_describe(
            "Generate biased decisions with a known ground truth (make_biased_decisions), "
            "train a few models, print their accuracy, HFM and the group baselines, pick the "
            "best trade-off, then audit the decisions by situation testing and count the "
            "planted cases found."))
    demo.add_argument("--n-samples", type=_positive_int, default=6000,
                      help="rows to generate (default: 6000; at least 200)")
    demo.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    demo.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                      help="show the full traceback of an unexpected error")
    demo.set_defaults(command_func="demo")
    return parser


def _command(name):
    """The function of command ``name``, imported only when it runs."""
    if name == "hfm":
        from skfair_manifold.cli._hfm import run_hfm as func
    elif name == "report":
        from skfair_manifold.cli._report import run_report as func
    elif name == "audit":
        from skfair_manifold.cli._audit import run_audit as func
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

    command = args.pop("command")
    name = args.pop("command_func")
    debug = args.pop("debug", False)
    outputs = [("-o/--output", args.get("output"))]  # None: standard output
    outputs += [(option, args.get(key)) for option, key in (("--html", "html"),
                                                            ("--testers", "testers"),
                                                            ("--flagged-rows", "flagged_rows"))
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
        print(f"skfair-manifold {command}: error: {exc}", file=sys.stderr)
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
        print(f"skfair-manifold {command}: error: {reason}{where}.", file=sys.stderr)
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
