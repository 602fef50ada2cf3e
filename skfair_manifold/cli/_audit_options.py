"""The ``audit`` command's options and the checks of those that depend on the decision.

Declared as :mod:`._options` declares the other commands' (a table of
:func:`~._options.option`); the options marked ``auditor=True`` go to the
auditor only when the command line sets them (:func:`auditor_options`).
"""

from skfair_manifold.cli._options import (
    _at_least_two,
    _dest,
    _fdr_level,
    _finite_number,
    _open_probability,
    _positive_int,
    _testers,
    common_options,
    option,
)

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
