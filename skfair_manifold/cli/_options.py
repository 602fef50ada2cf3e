"""The command line's options, declared once: the parser is built from these tables.

Each command's options are a list of :func:`option` (argparse's own
arguments). The options that the situation-testing auditor takes are marked
``auditor=True``: they are not given a default here but handed to
:class:`~skfair_manifold.situation_testing.SituationTestingAuditor` only
when the command line sets them, so that their defaults are the auditor's
own, and ``--help`` reads them from its signature (the only time the parser
imports the auditor). The commands receive the parsed options by name.
"""

import argparse
import math
from typing import NamedTuple


class Option(NamedTuple):
    """One command-line option: argparse's flags and keywords, and whether the auditor takes it."""

    flags: tuple
    settings: dict
    auditor: bool = False


def option(*flags, auditor=False, **settings):
    """An :class:`Option`: ``flags`` and ``settings`` as for ``add_argument``."""
    return Option(flags, settings, auditor)


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


def _finite_number(text):
    """An argparse type: a finite number (``--tau``, a rate's or an amount's threshold)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {value}")
    return value


def _testers(text):
    """An argparse type for ``-k``: ``auto`` or an integer of at least 1."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return _positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither 'auto' nor an integer of at least 1") from None


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


#: ``--debug`` of a command (the top-level parser has its own, with a default)
DEBUG = option("--debug", action="store_true", default=argparse.SUPPRESS,
               help="show the full traceback of an unexpected error")

def add_options(parser, options):
    """Add ``options`` to ``parser``; an auditor's option gets no default (the auditor's)."""
    for item in options:
        settings = dict(item.settings)
        if item.auditor:
            settings["default"] = argparse.SUPPRESS  # absent unless given: the auditor's
        action = parser.add_argument(*item.flags, **settings)
        action.from_auditor = item.auditor


def auditor_default(name):
    """The auditor's default of its parameter ``name`` (imports the auditor)."""
    import inspect

    from skfair_manifold.situation_testing import SituationTestingAuditor

    return inspect.signature(SituationTestingAuditor).parameters[name].default


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The commands' help: an auditor's option shows the auditor's default, read when shown."""

    def _expand_help(self, action):
        if getattr(action, "from_auditor", False):
            action.auditor_default = auditor_default(action.dest)
        return super()._expand_help(action)


MSG_NO_POSITIVE = (
    "--positive-label is required for a yes/no decision: name the favourable value of "
    "--decision (or pass --decision-type continuous for an amount)."
)
MSG_AMOUNT_POSITIVE = (
    "--positive-label is for a yes/no decision; with --decision-type continuous the higher "
    "amount is the favourable one (negate the column where less is favourable)."
)
MSG_TAU_RATE = (
    "argument --tau: must lie in [0, 1] for a yes/no decision (a difference of rates), got "
    "{tau:g}; for an amount pass --decision-type continuous, and --tau in its units."
)


def decision_option_error(args):
    """The message of an ``audit`` usage error in the options that depend on the kind of
    decision (``--positive-label``, ``--tau``), or None."""
    if args.get("decision_type") == "continuous":
        return MSG_AMOUNT_POSITIVE if args.get("positive_label") is not None else None
    if args.get("positive_label") is None:
        return MSG_NO_POSITIVE
    tau = args.get("tau")
    if tau is not None and not 0.0 <= tau <= 1.0:
        return MSG_TAU_RATE.format(tau=tau)
    return None


def auditor_options(args):
    """The auditor's options given on the command line, taken out of ``args`` (a dict)."""
    names = [_dest(item) for item in AUDIT_OPTIONS if item.auditor]
    return {name: args.pop(name) for name in names if name in args}


def _dest(item):
    """argparse's name of an option's value: ``dest``, else its first long flag."""
    if "dest" in item.settings:
        return item.settings["dest"]
    long = [flag for flag in item.flags if flag.startswith("--")]
    return (long or list(item.flags))[0].lstrip("-").replace("-", "_")


def common_options(*, output_help="write the result to FILE instead of standard output",
                   csv_escape=False):
    """The options every command that writes a result takes: separator, output, debug."""
    options = [
        option("--sep", default=",", type=_separator,
               help="the field separator of the CSV file (default: ',')"),
        option("-o", "--output", metavar="FILE", help=output_help),
    ]
    if csv_escape:
        options.append(option(
            "--no-csv-escape", dest="csv_escape", action="store_false",
            help="write text cells as they are; by default a cell that begins with =, +, "
                 "-, @, a tab or a carriage return is prefixed with ' so that a spreadsheet "
                 "shows it as text instead of running it as a formula"))
    options.append(DEBUG)
    return options


#: the options of ``hfm`` and ``report``: the predictions' columns and HFM's settings
PREDICTION_OPTIONS = [
    option("file", help="the CSV file, with a header line ('-' reads standard "
                        "input); only an empty field is a missing value: "
                        "NA, None, null are ordinary values"),
    option("--label", required=True, metavar="COLUMN",
           help="the column of true labels (numeric: 0/1, or class codes)"),
    option("--prediction", required=True, metavar="COLUMN",
           help="the column of the model's predictions (same coding as --label)"),
    option("--sensitive", required=True, nargs="+", metavar="COLUMN",
           help="one or more sensitive columns; any values, 2 or more groups each"),
    option("--features", nargs="+", metavar="COLUMN",
           help="the non-sensitive feature columns (default: every other "
                "column); text columns are one-hot encoded, identifier-like "
                "ones refused (see --max-categories)"),
    option("--max-categories", type=_positive_int, default=50, metavar="N",
           help="text feature columns keep their N - 1 most frequent values "
                "and merge the rest into one indicator; a text column with more "
                "than N values, more than half of the rows distinct, is an "
                "identifier and is refused (default: 50)"),
    option("--method", choices=["auto", "approx", "exact"], default="auto",
           help="'exact': Eq. 4-7; 'approx': random projections (ExtendDist) "
                "corrected by the exact distances of a sample of rows, with "
                "95%% intervals; 'auto': exact up to 12,500 rows (where it is "
                "the faster), the corrected approximation beyond (default: "
                "auto)"),
    option("--m1", type=_positive_int, default=5,
           help="approx only: number of repetitions of the projections "
                "(default: 5; the sample's correction makes more pay little)"),
    option("--m2", type=_positive_int, default=None,
           help="approx only: neighbours compared on each side of a row after "
                "projection (default: ceil(2 log10 n))"),
    option("--no-scale", dest="scale", action="store_false",
           help="do not scale every feature to [0, 1] before measuring (by "
                "default they are, as in the paper, so that no raw column "
                "drowns the label)"),
    option("--pos-label", metavar="VALUE",
           help="the favourable label for DP, EO and PQP (default: 1 with 0/1 "
                "labels; required for other labels)"),
    option("--n-boot", type=_non_negative_int, default=0, metavar="N",
           help="0: score intervals of every rate and gap, valid at any group "
                "size; N > 0: the gaps' intervals from a percentile bootstrap "
                "of N replicates instead, for large groups (default: 0)"),
    option("--confidence", type=_open_probability, default=0.95,
           help="coverage of the intervals (default: 0.95)"),
    option("--min-group-size", type=_positive_int, default=30, metavar="N",
           help="groups of fewer rows are shown but left out of the gaps and "
                "the four-fifths verdict (default: 30)"),
    option("--intersect", action="store_true",
           help="take the combinations of the sensitive columns as the groups "
                "(as fairlearn does with several columns) instead of each "
                "column alone"),
    option("--seed", type=int, default=0,
           help="random seed of the projections and the bootstrap; the same "
                "seed gives the same result (default: 0)"),
    option("-q", "--quiet", action="store_true",
           help="no notes or warnings on standard error"),
]

HFM_OPTIONS = [
    *PREDICTION_OPTIONS,
    option("--no-baselines", dest="baselines", action="store_false",
           help="skip DP, EO and PQP (for multi-class labels without --pos-label)"),
    option("--format", choices=["table", "json"], default="table",
           help="'table' for people, 'json' for programs (default: table)"),
    *common_options(),
]

REPORT_OPTIONS = [
    *PREDICTION_OPTIONS,
    option("--no-hfm", dest="hfm", action="store_false",
           help="leave HFM out (no feature columns needed)"),
    option("--title", default="Fairness report",
           help="the title of the page (default: 'Fairness report')"),
    option("--target-type", choices=["binary", "continuous"], default="binary",
           help="'binary': --label and --prediction are classes (the rates, the "
                "four-fifths rule); 'continuous': they are quantities (a wage, a limit, a "
                "score): the groups' mean predictions, errors and distributions "
                "(default: binary)"),
    option("--favourable", choices=["higher", "lower"], default="higher",
           help="continuous only: whether a higher prediction favours a person (a wage) "
                "or a lower one does (a risk score) (default: higher)"),
    *common_options(output_help="the HTML file to write (default: standard output)"),
]

AUDIT_OPTIONS = [
    option("file", help="the CSV file, with a header line ('-' reads standard "
                        "input); only an empty field is a missing value: "
                        "NA, None, null are ordinary values. A Parquet file "
                        "is audited cell by cell through DuckDB (CBN-DD; "
                        "see --flagged-rows)"),
    option("--decision", required=True, metavar="COLUMN",
           help="the column of decisions (exactly two values, or amounts with "
                "--decision-type continuous)"),
    option("--positive-label", metavar="VALUE",
           help="the value of --decision that is the favourable decision (required for a "
                "yes/no decision)"),
    option("--decision-type", choices=["binary", "continuous"], default="binary",
           help="'binary': a yes/no decision; 'continuous': an amount (a wage, a limit), "
                "higher is favourable: each protected person's testers' mean amounts are "
                "compared by Welch's test, --tau in the amount's units (default: binary)"),
    option("--protected", required=True, metavar="COLUMN",
           help="the protected attribute, for example sex"),
    option("--protected-value", required=True, metavar="VALUE",
           help="the value of --protected that marks the protected group"),
    option("--features", nargs="+", metavar="COLUMN",
           help="the attributes that describe a person (default: every column "
                "but --decision and --id)"),
    option("--id", metavar="COLUMN",
           help="a column that identifies rows, used to name rows and testers "
                "(default: the row number, 0 for the first data row)"),
    option("--method", choices=["cbn", "knn"],
           help="'cbn': testers chosen on the causes of the decision found in a "
                "causal graph (CBN-DD, Zhang, Wu and Wu); 'knn': on all "
                "attributes (KNN-DD, Luong et al.) "
                "(default: the auditor's, %(auditor_default)s)", auditor=True),
    option("-k", type=_testers,
           help="tester pairs per row, or 'auto': each row's own, the testers within "
                "a caliper of it, from 50 (what courts usually ask for) to 400 "
                "(default: the auditor's, %(auditor_default)s)", auditor=True),
    option("--tau", type=_finite_number,
           help="the legal threshold on p1 - p2, in [0, 1] (an amount's: on mean1 - mean2, "
                "in its units) "
                "(default: the auditor's, %(auditor_default)s)", auditor=True),
    option("--flag-rule", choices=["exact", "significant", "bound", "tau"],
           help="'exact': flag when p1 - p2 exceeds tau and the exact test of "
                "the gap is significant across the audit (q_value at most "
                "--fdr; one candidate alone: p_value at most --alpha-test); "
                "'significant': when p1 - p2 exceeds tau and its lower "
                "confidence bound, diff_lower, exceeds 0, person by person; "
                "'bound': when diff_lower exceeds tau (stricter); 'tau': when "
                "p1 - p2 exceeds tau (the papers' rule, noisier) "
                "(default: the auditor's, %(auditor_default)s)", auditor=True),
    option("--fdr", type=_fdr_level, metavar="LEVEL",
           help="the false discovery rate kept across the audit by the 'exact' "
                "rule: at most this share of the flagged people are expected "
                "not to be discriminated; 'none' tests each person alone at "
                "--alpha-test (default: the auditor's, %(auditor_default)s)", auditor=True),
    option("--fdr-method", choices=["bh", "by", "dbh"],
           help="'bh': Benjamini-Hochberg; 'by': Benjamini-Yekutieli, valid "
                "under any dependence, more conservative; 'dbh': the discrete "
                "step-up of Doehler, Durand and Roquain, which counts the "
                "people whose test cannot reach a small p-value less "
                "(default: the auditor's, %(auditor_default)s)", auditor=True),
    option("--causal-effect", choices=["max_over_groups", "pooled"],
           help="how CBN-DD's distance weighs a change of one cause of the "
                "decision: 'pooled', the paper's causal effect; "
                "'max_over_groups', the larger of its effects on the two "
                "groups, which keeps the testers out of situations where the "
                "protected group is treated differently "
                "(default: the auditor's, %(auditor_default)s)", auditor=True),
    option("--bound", choices=["wald", "newcombe"],
           help="the confidence bounds of p1 - p2: 'wald' (Alvarez and "
                "Ruggieri) or 'newcombe' (hybrid score interval) "
                "(default: the auditor's, %(auditor_default)s)", auditor=True),
    option("--alpha-test", type=_open_probability, metavar="LEVEL",
           help="one-sided level of the bounds diff_lower and diff_upper, always "
                "computed and written, as one-sided 1 - LEVEL bounds "
                "(default: the auditor's, %(auditor_default)s)", auditor=True),
    option("--graph", metavar="FILE",
           help="cbn only: a JSON file with the causal graph, an object mapping "
                "each node to the list of its parents (the decision node named "
                "as --decision), or just the list of the decision's parents; "
                "learned from the data when absent"),
    option("--alpha", type=_open_probability,
           help="cbn only: significance level of the tests that learn the graph "
                "(default: the auditor's, %(auditor_default)s)", auditor=True),
    option("--nominal", nargs="+", metavar="COLUMN",
           help="columns whose values are categories compared by equality, "
                "numeric codes included (text columns always are)"),
    option("--ordinal", nargs="+", metavar="COLUMN",
           help="numeric columns of ordered levels, compared by their "
                "difference over the range (default for integer columns with "
                "at most 32 values)"),
    option("--interval", nargs="+", metavar="COLUMN",
           help="continuous columns: compared by their difference under knn; "
                "cut into at most --n-bins bins under cbn and for the graph "
                "search (default for other numeric columns)"),
    option("--n-bins", type=_at_least_two, metavar="N",
           help="cbn: the largest number of bins of each interval column "
                "(default: the auditor's, %(auditor_default)s)", auditor=True),
    option("--binning", choices=["mdlp", "quantile"],
           help="cbn: how interval columns are cut: 'mdlp', where the decision "
                "rate changes, only when the change is more than chance "
                "(Fayyad and Irani's rule); 'quantile', equal-frequency bins "
                "(default: the auditor's, %(auditor_default)s)", auditor=True),
    option("--seed", type=int, default=None,
           help="deprecated, changes nothing: equally close testers are no "
                "longer drawn at random but weighted by the probability of "
                "being taken; accepted so that old command lines still run"),
    option("--all-rows", action="store_true",
           help="write every row with its p1, p2, diff and flag, not only the "
                "flagged rows"),
    option("--format", choices=["csv", "json"], default="csv",
           help="output format; in CSV, lists are joined with ';': the testers "
                "taken for certain (their ids and decisions) and the tie groups "
                "('cell C: N records, P positive, weight W') of each side "
                "(default: csv)"),
    option("--html", metavar="FILE",
           help="also write a self-contained HTML evidence file: a summary, "
                "then one sheet per flagged person with the testers of both "
                "sides"),
    option("--testers", metavar="FILE",
           help="also write the long table of testers (same --format): one row "
                "per flagged person, side and cell of equally treated records, "
                "with its distance, records, positive decisions, weight (the "
                "probability that each of its records is a tester) and values; "
                "the tie groups of the main output are its cells"),
    option("--flagged-rows", metavar="FILE",
           help="with a Parquet input (audited cell by cell through DuckDB, "
                "CBN-DD only; the output is then the table of candidate cells): "
                "also write the flagged rows, every column, to this Parquet "
                "file"),
    option("--html-sheets", type=_positive_int, default=500, metavar="N",
           help="with --html: sheets for at most the first N flagged people; "
                "all are listed in the summary (default: 500)"),
    option("--batch-size", type=_positive_int, default=None,
           help="deprecated, changes nothing: every row is audited in one "
                "pass; accepted so that old command lines still run"),
    option("--n-jobs", type=int,
           help="parallel workers for the auditor, as joblib's n_jobs "
                "(default: the auditor's, %(auditor_default)s: one)", auditor=True),
    option("-q", "--quiet", action="store_true",
           help="no progress bar, no summary and no notes on standard "
                "error"),
    *common_options(csv_escape=True),
]

DEMO_OPTIONS = [
    option("--n-samples", type=_positive_int, default=6000,
           help="rows to generate (default: 6000; at least 200)"),
    option("--seed", type=int, default=0, help="random seed (default: 0)"),
    DEBUG,
]
