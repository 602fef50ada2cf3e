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
           help="the column of true labels (0/1, class codes, or labels of any kind, "
                "yes/no or text, with --pos-label)"),
    option("--prediction", required=True, metavar="COLUMN",
           help="the column of the model's predictions (same coding as --label)"),
    option("--sensitive", required=True, nargs="+", metavar="COLUMN",
           help="one or more sensitive columns; any values, 2 or more groups each"),
    option("--features", nargs="+", metavar="COLUMN",
           help="the non-sensitive feature columns (default: every other "
                "column but those that look like identifiers, an id name or a "
                "distinct integer or text on every row, left out with a note); "
                "text columns are one-hot encoded, identifier-like ones refused "
                "(see --max-categories)"),
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
           help="the favourable label for DP, EO and PQP, a value of --label of any "
                "kind (default: 1 with 0/1 labels, named on standard error; required "
                "for other labels)"),
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
    option("--favourable", choices=["higher", "lower"], default=None,
           help="--target-type continuous only: whether a higher prediction favours a "
                "person (a wage) or a lower one does (a risk score) (default: higher); "
                "for class labels name the favourable class with --pos-label"),
    *common_options(output_help="the HTML file to write (default: standard output)"),
]

#: the options of ``bias-audit``
BIAS_AUDIT_OPTIONS = [
    option("file", help="the CSV or Parquet file, one row per person assessed, with a "
                        "header line ('-' reads standard input); in a CSV file only an "
                        "empty field is a missing value"),
    option("--decision", metavar="COLUMN",
           help="the decisions: 0/1 or true/false (1: selected), or labels with --tiers"),
    option("--score", metavar="COLUMN",
           help="scores instead of decisions: selected means scored strictly above the "
                "median of everyone assessed (the scoring rate of Local Law 144)"),
    option("--sensitive", nargs="+", metavar="COLUMN",
           help="the sensitive columns (sex, race/ethnicity, ...); an empty field, or "
                "--unknown, is an unknown category (required unless --membership-columns)"),
    option("--membership-columns", action="append", metavar="NAME=COL,COL,...",
           help="an attribute estimated, not observed (race from BISG, ...): its name and "
                "the columns of each person's probability of every category, the column "
                "names the categories (or CATEGORY:COLUMN); repeat for several "
                "(e.g. --membership-columns race=white,black,hispanic,asian)"),
    option("--proxy", metavar="COLUMN",
           help="with --membership-columns: the stratum each row's probabilities come from "
                "(the surname-area cell, the area); without it each distinct row of "
                "probabilities is a stratum"),
    option("--estimate", default="weighted", metavar="ESTIMATE",
           help="with --membership-columns: weighted (the weighted estimate), most_likely, "
                "or a threshold in (0.5, 1] (shortcuts that bias the ratios; they warn) "
                "(default: weighted)"),
    option("--unknown", metavar="LABEL",
           help="the label that marks an unknown category (e.g. 'Unknown'), besides "
                "empty fields"),
    option("--comparator", default="most_selected", metavar="RULE_OR_CATEGORY",
           help="the category each ratio is taken against: most_selected (the highest "
                "rate among the categories not left out), most_selected_any (among all), "
                "or a category's name ('a & b' for an intersection) (default: "
                "most_selected)"),
    option("--min-share", type=_probability, default=0.02, metavar="SHARE",
           help="categories under this share of the assessed are left out of the "
                "comparator and the ratios, their rows kept (default: 0.02)"),
    option("--tiers", nargs="+", metavar="LABELS",
           help="with labels in --decision: each tier the comma-separated labels that count "
                "as selected, one table each (e.g. --tiers top top,middle)"),
    option("--no-intersect", dest="intersect", action="store_false",
           help="leave out the intersectional categories"),
    option("--confidence", type=_probability, default=0.95,
           help="the coverage of the impact ratios' intervals (default: 0.95)"),
    option("--json", metavar="FILE", help="also write the whole audit as JSON"),
    option("--html", metavar="FILE", help="also write the audit's self-contained HTML page"),
    option("-q", "--quiet", action="store_true",
           help="print nothing on the terminal (with -o, --json or --html)"),
    *common_options(output_help="also write the table as CSV to FILE", csv_escape=True),
]

DEMO_OPTIONS = [
    option("--n-samples", type=_positive_int, default=6000,
           help="rows to generate (default: 6000; at least 200)"),
    option("--seed", type=int, default=0, help="random seed (default: 0)"),
    DEBUG,
]
