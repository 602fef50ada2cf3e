"""The command line, ``skfair-manifold`` and ``python -m skfair_manifold``.

Three subcommands, each a thin layer of argparse over the public API:

``hfm``
    A CSV of labels, predictions and sensitive columns in; HFM (max and avg,
    over all attributes and per attribute) and the group baselines out, as a
    table or JSON.
``audit``
    A CSV of decisions in; situation testing of every row with
    :class:`~skfair_manifold.situation_testing.SituationTestingAuditor`; the
    flagged rows and their evidence (testers and their decisions) out, as CSV
    or JSON.
``demo``
    The whole package on data it makes itself (see :mod:`skfair_manifold._demo`).

Exit codes: 0 success, 1 a problem with the input data (missing file or
column, malformed CSV, bad value), 2 a problem with the command line itself
(argparse's usage errors).
"""

import argparse
import difflib
import json
import sys
import textwrap
import time

EXIT_OK = 0
EXIT_DATA = 1
EXIT_USAGE = 2

MSG_PANDAS = (
    "the {command} command reads CSV files with pandas, which is not installed: "
    "pip install 'skfair_manifold[pandas]'."
)
MSG_NO_FILE = "cannot read {path}: no such file."
MSG_EMPTY_FILE = "{path} is empty: expected a CSV file with a header line and data rows."
MSG_MALFORMED = "{path} is not a well-formed CSV file: {detail}"
MSG_NOT_TEXT = "{path} is not a UTF-8 text file (a CSV file was expected)."
MSG_TOO_FEW_ROWS = "{path} has {n} data row(s); at least {minimum} are needed."
MSG_MISSING_COLUMN = "column {column!r} ({option}) is not in {path}.{hint} Its columns are: {columns}."
MSG_DUPLICATE_COLUMN = "column {column!r} is given to both {first} and {second}."
MSG_MISSING_VALUES = (
    "column {column!r} has missing values at row(s) {rows} (line(s) {lines} of the file); "
    "fill or drop them first."
)
MSG_NOT_NUMERIC = (
    "column {column!r} ({role}) must be numeric; the value {value!r} at row {row} (line "
    "{line} of the file) is not a number."
)
MSG_BAD_CHOICE = "{option} {value!r} is not a value of column {column!r}; its values are: {values}."
MSG_NO_FEATURES = "no feature columns left: pass --features, or a file with more columns."


class CLIError(Exception):
    """An error in the user's input, reported as one line, exit code 1."""


# ----------------------------------------------------------------------------
# Reading and checking CSV files
# ----------------------------------------------------------------------------


def _require_pandas(command):
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is in the dev extras
        raise CLIError(MSG_PANDAS.format(command=command)) from None
    return pd


def read_csv(path, *, sep, command, minimum_rows=2):
    """Read a CSV file into a DataFrame, turning every failure into a CLIError."""
    pd = _require_pandas(command)
    source = sys.stdin if path == "-" else path
    try:
        frame = pd.read_csv(source, sep=sep, skipinitialspace=True)
    except FileNotFoundError:
        raise CLIError(MSG_NO_FILE.format(path=path)) from None
    except IsADirectoryError:
        raise CLIError(MSG_NO_FILE.format(path=path) + " It is a folder.") from None
    except pd.errors.EmptyDataError:
        raise CLIError(MSG_EMPTY_FILE.format(path=path)) from None
    except pd.errors.ParserError as exc:
        detail = str(exc).strip().splitlines()[-1]
        raise CLIError(MSG_MALFORMED.format(path=path, detail=detail)) from None
    except UnicodeDecodeError:
        raise CLIError(MSG_NOT_TEXT.format(path=path)) from None
    frame.columns = [str(c).strip() for c in frame.columns]
    if frame.shape[0] < minimum_rows:
        raise CLIError(MSG_TOO_FEW_ROWS.format(path=path, n=frame.shape[0],
                                               minimum=minimum_rows))
    return frame


def check_columns(frame, path, columns):
    """``columns``: list of (column, option). Every one must be in ``frame``."""
    seen = {}
    for column, option in columns:
        if column in seen and seen[column] != option:
            raise CLIError(MSG_DUPLICATE_COLUMN.format(column=column, first=seen[column],
                                                       second=option))
        seen[column] = option
        if column not in frame.columns:
            close = difflib.get_close_matches(column, list(frame.columns), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise CLIError(MSG_MISSING_COLUMN.format(
                column=column, option=option, path=path, hint=hint,
                columns=", ".join(map(str, frame.columns))))


def _rows_and_lines(mask, limit=5):
    import numpy as np

    rows = np.flatnonzero(mask)
    shown = rows[:limit].tolist()
    more = f" and {rows.size - limit} more" if rows.size > limit else ""
    # line 1 is the header, so data row i is on line i + 2
    return (", ".join(map(str, shown)) + more,
            ", ".join(str(r + 2) for r in shown) + more)


def check_no_missing(frame, columns):
    for column in columns:
        mask = frame[column].isna().to_numpy()
        if mask.any():
            rows, lines = _rows_and_lines(mask)
            raise CLIError(MSG_MISSING_VALUES.format(column=column, rows=rows, lines=lines))


def numeric_column(frame, column, role):
    """The column as float64, or a CLIError naming the first value that is no number."""
    import numpy as np

    pd = _require_pandas("hfm")
    series = frame[column]
    if series.dtype == bool:
        return series.to_numpy(dtype=np.float64)
    values = pd.to_numeric(series, errors="coerce")
    bad = values.isna().to_numpy() & series.notna().to_numpy()
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise CLIError(MSG_NOT_NUMERIC.format(column=column, role=role,
                                              value=series.iloc[row], row=row, line=row + 2))
    return values.to_numpy(dtype=np.float64)


def feature_matrix(frame, columns):
    """Numeric columns as they are, text columns one-hot encoded.

    A column whose values are mostly numbers but with a few that are not is a
    bad value, not a category: that raises, with the row.
    """
    import numpy as np

    pd = _require_pandas("hfm")
    parts, names, encoded = [], [], []
    for column in columns:
        series = frame[column]
        if series.dtype == bool or pd.api.types.is_numeric_dtype(series):
            parts.append(series.to_numpy(dtype=np.float64)[:, None])
            names.append(column)
            continue
        as_number = pd.to_numeric(series, errors="coerce")
        if as_number.notna().mean() >= 0.5:  # a numeric column with stray text
            numeric_column(frame, column, "a feature")
        dummies = pd.get_dummies(series.astype(str), prefix=column, prefix_sep="=")
        parts.append(dummies.to_numpy(dtype=np.float64))
        names.extend(dummies.columns)
        encoded.append(column)
    if not parts:
        raise CLIError(MSG_NO_FEATURES)
    return np.hstack(parts), names, encoded


def parse_value_like(frame, column, text, option):
    """Turn ``text`` from the command line into a value of ``column``, or raise."""
    import numpy as np

    values = frame[column].dropna().unique()
    for value in values:
        if str(value) == text:
            return value
    # numeric columns: "1" matches 1.0, "1.0" matches 1
    try:
        number = float(text)
    except ValueError:
        number = None
    if number is not None:
        for value in values:
            if isinstance(value, (int, float, np.integer, np.floating)) and value == number:
                return value
    shown = ", ".join(sorted(map(str, values))[:20])
    raise CLIError(MSG_BAD_CHOICE.format(option=option, value=text, column=column, values=shown))


# ----------------------------------------------------------------------------
# Output
# ----------------------------------------------------------------------------


def _open_output(path):
    if path is None or path == "-":
        return sys.stdout, False
    try:
        return open(path, "w", encoding="utf-8", newline=""), True
    except OSError as exc:
        raise CLIError(f"cannot write {path}: {exc.strerror}.") from None


def _json_default(obj):
    import numpy as np

    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)


def _clean_float(value):
    value = float(value)
    return None if value != value else value  # NaN -> null in JSON


class Progress:
    """A one-line progress bar on stderr, silent unless stderr is a terminal."""

    def __init__(self, total, *, label, enabled=True, stream=None, width=30):
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled and total > 0 and _isatty(self.stream)
        self.total, self.label, self.width = total, label, width
        self.start = time.perf_counter()
        self.done = 0

    def update(self, n):
        self.done += n
        if not self.enabled:
            return
        share = min(self.done / self.total, 1.0)
        filled = int(round(share * self.width))
        elapsed = time.perf_counter() - self.start
        eta = elapsed / share - elapsed if share > 0 else 0.0
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (self.width - filled)}] "
                          f"{share:4.0%} {self.done}/{self.total} rows, {elapsed:5.1f} s, "
                          f"{eta:5.1f} s left")
        self.stream.flush()

    def close(self):
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def _isatty(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _note(args, message):
    if not getattr(args, "quiet", False):
        print(message, file=sys.stderr)


# ----------------------------------------------------------------------------
# hfm
# ----------------------------------------------------------------------------

BASELINES = ("demographic_parity", "equal_opportunity", "predictive_quality_parity")


def compute_measures(X, y_true, y_pred, A, names, *, method, m1, m2, scale, seed, pos_label,
                     baselines):
    """HFM over all attributes and per attribute, and the group baselines.

    One call of :func:`skfair_manifold.metrics.hfm_report` gives HFM overall
    and per attribute; the baselines are computed per attribute and
    aggregated with the maximum over attributes. Returns a JSON-ready dict.
    """
    import warnings

    from skfair_manifold import metrics

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", metrics.UndefinedFairnessWarning)
        report = metrics.hfm_report(y_true, y_pred, X=X, sensitive_features=A, method=method,
                                    m1=m1, m2=m2, scale=scale, random_state=seed)
        per = report.per_attribute
        result = {
            "hfm_max": _clean_float(report.hfm_max),
            "hfm_avg": _clean_float(report.hfm_avg),
            "distances": {"D_max": report.d_max, "D_f_max": report.d_f_max,
                          "D_avg": report.d_avg, "D_f_avg": report.d_f_avg},
            "per_attribute": {},
        }
        for k, name in enumerate(names):
            row = {"hfm_max": _clean_float(per.hfm_max[k]),
                   "hfm_avg": _clean_float(per.hfm_avg[k]),
                   "D_max": float(per.d_max[k]), "D_f_max": float(per.d_f_max[k]),
                   "D_avg": float(per.d_avg[k]), "D_f_avg": float(per.d_f_avg[k])}
            if baselines:
                for baseline in BASELINES:
                    row[baseline] = _clean_float(getattr(metrics, baseline)(
                        y_true, y_pred, sensitive_features=A[:, k], pos_label=pos_label))
            result["per_attribute"][str(name)] = row
        if baselines:
            result["baselines"] = {
                baseline: _clean_float(getattr(metrics, baseline)(
                    y_true, y_pred, sensitive_features=A, pos_label=pos_label, aggregate="max"))
                for baseline in BASELINES
            }
    result["warnings"] = sorted({str(w.message) for w in caught})
    return result


def _format_number(value):
    return "n/a" if value is None else f"{value:.4f}"


def format_measures_table(result):
    """A plain-text table: one row per attribute, one column per measure."""
    measures = ["hfm_max", "hfm_avg"]
    if "baselines" in result:
        measures += list(BASELINES)
    short = {"hfm_max": "HFM max", "hfm_avg": "HFM avg", "demographic_parity": "DP",
             "equal_opportunity": "EO", "predictive_quality_parity": "PQP"}
    rows = [(str(name), values) for name, values in result["per_attribute"].items()]
    overall = {"hfm_max": result["hfm_max"], "hfm_avg": result["hfm_avg"]}
    overall.update(result.get("baselines", {}))
    rows.append(("all attributes", overall))
    first = max(len("attribute"), *(len(name) for name, _ in rows))
    lines = [f"{'attribute':<{first}}" + "".join(f"{short[m]:>10}" for m in measures)]
    lines.append("-" * len(lines[0]))
    for name, values in rows:
        lines.append(f"{name:<{first}}" + "".join(f"{_format_number(values.get(m)):>10}"
                                                  for m in measures))
    info = result["info"]
    lines.append("")
    lines.append(f"{info['n_rows']} rows, {info['n_features']} feature columns"
                 f" ({'scaled to [0, 1]' if info['scale'] else 'not scaled'}),"
                 f" method {info['method']!r}.")
    lines.append(textwrap.fill(
        "HFM is log(D_f / D) with the natural logarithm: 0 means the predictions keep the "
        "groups as far apart as the true labels do; above 0 the model adds distance between "
        "groups (extra bias), below 0 it removes some. DP, EO and PQP are the largest gaps "
        "between groups. Lower is fairer for every measure.", 79))
    return "\n".join(lines) + "\n"


def run_hfm(args):
    import numpy as np

    frame = read_csv(args.file, sep=args.sep, command="hfm")
    columns = [(args.label, "--label"), (args.prediction, "--prediction")]
    columns += [(c, "--sensitive") for c in args.sensitive]
    columns += [(c, "--features") for c in (args.features or [])]
    check_columns(frame, args.file, columns)
    used = {args.label, args.prediction, *args.sensitive}
    features = args.features or [c for c in frame.columns if c not in used]
    check_no_missing(frame, [args.label, args.prediction, *args.sensitive, *features])
    y_true = numeric_column(frame, args.label, "--label")
    y_pred = numeric_column(frame, args.prediction, "--prediction")
    for column in args.sensitive:
        if frame[column].nunique() < 2:
            raise CLIError(f"sensitive column {column!r} has a single value "
                           f"({frame[column].iloc[0]!r}): HFM needs at least 2 groups.")
    A = frame[list(args.sensitive)].to_numpy(dtype=object)
    if A.shape[1] and all(frame[c].dtype.kind in "iub" for c in args.sensitive):
        A = A.astype(np.int64)
    X, _, encoded = feature_matrix(frame, features)
    if encoded:
        _note(args, f"one-hot encoded the text column(s) {', '.join(encoded)}.")
    pos_label = None
    if args.pos_label is not None:
        pos_label = parse_value_like(frame, args.label, args.pos_label, "--pos-label")
        pos_label = float(pos_label)
    try:
        result = compute_measures(X, y_true, y_pred, A, args.sensitive, method=args.method,
                                  m1=args.m1, m2=args.m2, scale=not args.no_scale,
                                  seed=args.seed, pos_label=pos_label,
                                  baselines=not args.no_baselines)
    except (ValueError, TypeError) as exc:
        raise CLIError(str(exc)) from None
    result["info"] = {"file": args.file, "n_rows": int(frame.shape[0]),
                      "n_features": int(X.shape[1]), "features": list(features),
                      "sensitive": list(args.sensitive), "method": args.method,
                      "scale": not args.no_scale, "m1": args.m1, "m2": args.m2,
                      "seed": args.seed, "log": "natural"}
    for message in result["warnings"]:
        _note(args, f"warning: {message}")
    out, close = _open_output(args.output)
    try:
        if args.format == "json":
            json.dump(result, out, indent=2, default=_json_default)
            out.write("\n")
        else:
            out.write(format_measures_table(result))
    finally:
        if close:
            out.close()
    return EXIT_OK


# ----------------------------------------------------------------------------
# audit
# ----------------------------------------------------------------------------


def _load_graph(path):
    """A JSON object mapping each node to its parents, or a JSON list of the decision's parents."""
    try:
        with open(path, encoding="utf-8") as handle:
            graph = json.load(handle)
    except FileNotFoundError:
        raise CLIError(MSG_NO_FILE.format(path=path)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CLIError(f"{path} is not valid JSON: {exc}.") from None
    if isinstance(graph, list) and all(isinstance(p, str) for p in graph):
        return graph
    if not isinstance(graph, dict) or not all(
        isinstance(ps, list) and all(isinstance(p, str) for p in ps) for ps in graph.values()
    ):
        raise CLIError(f"{path} must hold a JSON object mapping each node to the list of its "
                       'parents, for example {"decision": ["age", "education"]}, or the list '
                       "of the decision's parents.")
    return graph


def audit_rows(auditor, X, y, *, batch_size, progress, all_rows):
    """Situation testing of every row, in batches so that progress can be shown.

    The auditor recognises a fitted row by its values, whatever batch it
    comes in, so batching changes nothing in the result. Returns the
    evidence of the flagged rows (``auditor.report``, rows renumbered in
    ``X``) and, with ``all_rows``, ``transform``'s output for every row.
    """
    import numpy as np

    evidence, scores = [], []
    for start in range(0, X.shape[0], batch_size):
        stop = min(start + batch_size, X.shape[0])
        X_batch, y_batch = X.iloc[start:stop], y.iloc[start:stop]
        if all_rows:
            scores.append(auditor.transform(X_batch))
        for entry in auditor.report(X_batch, y_batch):
            entry["row"] += start
            evidence.append(entry)
        progress.update(stop - start)
    progress.close()
    return evidence, (np.vstack(scores) if all_rows else None)


def _audit_table(frame, args, auditor, evidence, scores, ids):
    """One row per audited person: the flag, the rates and the testers."""
    import numpy as np

    pd = _require_pandas("audit")
    score_names = [str(n) for n in auditor.get_feature_names_out()]
    tester_columns = ["testers_unprotected", "decisions_unprotected", "testers_protected",
                      "decisions_protected"]
    if scores is None:
        rows = np.array([e["row"] for e in evidence], dtype=np.intp)
        table = pd.DataFrame({name: [e[name] for e in evidence] for name in score_names})
        table.insert(0, "flagged", True)
    else:
        rows = np.arange(frame.shape[0])
        table = pd.DataFrame(scores, columns=score_names)
        flagged = np.zeros(frame.shape[0], dtype=bool)
        flagged[[e["row"] for e in evidence]] = True
        table.insert(0, "flagged", flagged)
    table.insert(0, "row", rows)
    if args.id:
        table.insert(1, args.id, ids[rows])
    table.insert(table.columns.get_loc("flagged"), args.protected,
                 frame[args.protected].to_numpy()[rows])
    table.insert(table.columns.get_loc("flagged"), args.decision,
                 frame[args.decision].to_numpy()[rows])
    by_row = {e["row"]: e for e in evidence}
    for column in tester_columns:
        values = []
        for r in rows:
            entry = by_row.get(int(r))
            if entry is None:
                values.append([])
            elif column.startswith("testers"):
                values.append(ids[np.asarray(entry[column], dtype=np.intp)].tolist())
            else:
                values.append(np.asarray(entry[column]).tolist())
        table[column] = values
    return table


def run_audit(args):
    import numpy as np

    frame = read_csv(args.file, sep=args.sep, command="audit")
    columns = [(args.decision, "--decision"), (args.protected, "--protected")]
    if args.id:
        columns.append((args.id, "--id"))
    columns += [(c, "--features") for c in (args.features or [])]
    check_columns(frame, args.file, columns)
    if args.id and frame[args.id].duplicated().any():
        dup = frame[args.id][frame[args.id].duplicated()].iloc[0]
        raise CLIError(f"column {args.id!r} (--id) must identify rows; {dup!r} appears twice.")
    skip = {args.decision, args.id} - {None}
    features = args.features or [c for c in frame.columns if c not in skip]
    if args.protected not in features:
        features = [args.protected, *features]
    check_no_missing(frame, [args.decision, *features])
    protected_value = parse_value_like(frame, args.protected, args.protected_value,
                                       "--protected-value")
    positive_label = parse_value_like(frame, args.decision, args.positive_label,
                                      "--positive-label")
    if frame[args.decision].nunique() != 2:
        raise CLIError(f"column {args.decision!r} (--decision) must hold exactly 2 values "
                       f"(a positive and a negative decision); it has "
                       f"{frame[args.decision].nunique()}.")
    graph = _load_graph(args.graph) if args.graph else None
    X = frame[features]
    y = frame[args.decision]
    from skfair_manifold.situation_testing import SituationTestingAuditor

    auditor = SituationTestingAuditor(
        protected=args.protected, protected_value=protected_value, method=args.method,
        k=args.k, tau=args.tau, positive_label=positive_label, graph=graph,
        alpha=args.alpha, alpha_test=args.alpha_test, n_jobs=args.n_jobs,
        random_state=args.seed)
    t0 = time.perf_counter()
    try:
        auditor.fit(X, y)
        progress = Progress(X.shape[0], label="auditing", enabled=not args.quiet)
        evidence, scores = audit_rows(auditor, X, y, batch_size=args.batch_size,
                                      progress=progress, all_rows=args.all_rows)
    except (ValueError, TypeError) as exc:
        raise CLIError(str(exc)) from None
    elapsed = time.perf_counter() - t0
    ids = frame[args.id].to_numpy() if args.id else np.arange(frame.shape[0])
    table = _audit_table(frame, args, auditor, evidence, scores, ids)
    candidates = int(((frame[args.protected] == protected_value)
                      & (frame[args.decision] != positive_label)).sum())
    _note(args, f"audited {frame.shape[0]} rows in {elapsed:.1f} s with "
                f"{args.method.upper()}-DD (k={args.k}, tau={args.tau}): {len(evidence)} of "
                f"the {candidates} rows with {args.protected}={protected_value!s} and a "
                f"negative decision are flagged as discriminated.")
    q = [str(v) for v in auditor.q_]
    if args.method == "cbn":
        _note(args, f"testers matched on the decision's causes Q = {{{', '.join(q)}}}.")
    out, close = _open_output(args.output)
    try:
        if args.format == "json":
            records = json.loads(table.to_json(orient="records"))
            payload = {"file": args.file, "method": args.method, "k": args.k, "tau": args.tau,
                       "alpha_test": args.alpha_test, "protected": args.protected,
                       "protected_value": protected_value, "decision": args.decision,
                       "positive_label": positive_label, "n_rows": int(frame.shape[0]),
                       "n_flagged": len(evidence), "q": q, "seconds": round(elapsed, 3),
                       "rows": records}
            json.dump(payload, out, indent=2, default=_json_default)
            out.write("\n")
        else:
            flat = table.copy()
            for column in ("testers_unprotected", "decisions_unprotected",
                           "testers_protected", "decisions_protected"):
                flat[column] = flat[column].map(lambda v: ";".join(map(str, v)))
            flat.to_csv(out, index=False, lineterminator="\n")
    finally:
        if close:
            out.close()
    return EXIT_OK


# ----------------------------------------------------------------------------
# The parser
# ----------------------------------------------------------------------------

EPILOG = """exit codes:
  0  success
  1  a problem with the input: missing file or column, malformed CSV, bad value
  2  a problem with the command line (unknown option, missing argument)
"""


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _probability(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must lie in [0, 1], got {value}")
    return value


def _describe(text, example=None):
    """Wrap a description to the terminal's width, keeping the example as written."""
    import shutil
    import textwrap

    width = min(shutil.get_terminal_size((80, 24)).columns, 100) - 2
    out = textwrap.fill(text, width)
    if example:
        out += "\n\nexample:\n  " + example
    return out


def _add_common(parser):
    parser.add_argument("--sep", default=",",
                        help="the field separator of the CSV file (default: ',')")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the result to FILE instead of standard output")


def build_parser():
    from skfair_manifold import __version__

    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="skfair-manifold",
        description=_describe(
                    "Measure discrimination in data and models: the harmonic fairness measure "
                    "via manifolds (HFM) with the group baselines, and situation testing of "
                    "individual decisions. Run 'skfair-manifold COMMAND --help' for the options "
                    "of each command."),
        epilog=EPILOG, formatter_class=formatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    hfm = sub.add_parser(
        "hfm", formatter_class=formatter, epilog=EPILOG,
        help="measure a model's discrimination (HFM, DP, EO, PQP) from a CSV of predictions",
        description=_describe(
                    "Read a CSV with one row per person: the true label, the model's "
                    "prediction, one or more sensitive columns, and the features. Print HFM "
                    "max and avg (HFM paper, Eq. 8: log(D_f / D), natural logarithm) over all "
                    "sensitive attributes and per attribute, with demographic parity (DP), "
                    "equal opportunity (EO) and predictive quality parity (PQP). Lower is "
                    "fairer for every measure.",
        example="skfair-manifold hfm predictions.csv --label y --prediction y_pred "
                "--sensitive sex race --format json"))
    hfm.add_argument("file", help="the CSV file, with a header line ('-' reads standard input)")
    hfm.add_argument("--label", required=True, metavar="COLUMN",
                     help="the column of true labels (numeric: 0/1, or class codes)")
    hfm.add_argument("--prediction", required=True, metavar="COLUMN",
                     help="the column of the model's predictions (same coding as --label)")
    hfm.add_argument("--sensitive", required=True, nargs="+", metavar="COLUMN",
                     help="one or more sensitive columns; any values, 2 or more groups each")
    hfm.add_argument("--features", nargs="+", metavar="COLUMN",
                     help="the non-sensitive feature columns (default: every other column); "
                          "text columns are one-hot encoded")
    hfm.add_argument("--method", choices=["approx", "exact"], default="approx",
                     help="'approx': random projections (ExtendDist, fast, never below the "
                          "exact distance); 'exact': Eq. 4-7 (default: approx)")
    hfm.add_argument("--m1", type=_positive_int, default=25,
                     help="approx only: number of repetitions of the projections (default: 25)")
    hfm.add_argument("--m2", type=_positive_int, default=None,
                     help="approx only: neighbours compared on each side of a row after "
                          "projection (default: ceil(2 log10 n))")
    hfm.add_argument("--no-scale", action="store_true",
                     help="do not scale every feature to [0, 1] before measuring (by default "
                          "they are, as in the paper, so that no raw column drowns the label)")
    hfm.add_argument("--pos-label", metavar="VALUE",
                     help="the favourable label for DP, EO and PQP (default: 1 with 0/1 "
                          "labels; required for other labels)")
    hfm.add_argument("--no-baselines", action="store_true",
                     help="skip DP, EO and PQP (for multi-class labels without --pos-label)")
    hfm.add_argument("--seed", type=int, default=0,
                     help="random seed of the projections; the same seed gives the same "
                          "result (default: 0)")
    hfm.add_argument("--format", choices=["table", "json"], default="table",
                     help="'table' for people, 'json' for programs (default: table)")
    hfm.add_argument("-q", "--quiet", action="store_true",
                     help="no notes or warnings on standard error")
    _add_common(hfm)
    hfm.set_defaults(func=run_hfm)

    audit = sub.add_parser(
        "audit", formatter_class=formatter, epilog=EPILOG,
        help="find individual discrimination in a CSV of decisions (situation testing)",
        description=_describe(
                    "Read a CSV of past decisions, one row per person, and test every row by "
                    "situation testing: compare the decisions given to the k most similar "
                    "people inside and outside the protected group. A row is flagged when it "
                    "is in the protected group, received a negative decision, and the "
                    "positive rate of its unprotected testers exceeds that of its protected "
                    "testers by more than tau. Write the flagged rows with their evidence "
                    "(p1, p2, diff, the testers' rows and decisions).",
        example="skfair-manifold audit decisions.csv --decision hired --protected sex "
                "--protected-value female --positive-label yes -k 50"))
    audit.add_argument("file", help="the CSV file, with a header line ('-' reads standard "
                                    "input)")
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
    audit.add_argument("--graph", metavar="FILE",
                       help="cbn only: a JSON file with the causal graph, an object mapping "
                            "each node to the list of its parents (the decision node named as "
                            "--decision), or just the list of the decision's parents; learned "
                            "from the data when absent")
    audit.add_argument("--alpha", type=_probability, default=0.05,
                       help="cbn only: significance level of the tests that learn the graph "
                            "(default: 0.05)")
    audit.add_argument("--alpha-test", type=_probability, default=None, metavar="LEVEL",
                       help="also require the one-sided Wald lower confidence bound of p1 - p2 "
                            "at this level to exceed tau, so that a flag is statistically "
                            "significant (default: off)")
    audit.add_argument("--seed", type=int, default=0,
                       help="seed of the documented tie-breaking between equally close "
                            "testers; the same seed gives the same result (default: 0)")
    audit.add_argument("--all-rows", action="store_true",
                       help="write every row with its p1, p2, diff and flag, not only the "
                            "flagged rows")
    audit.add_argument("--format", choices=["csv", "json"], default="csv",
                       help="output format; in CSV, lists of testers are joined with ';' "
                            "(default: csv)")
    audit.add_argument("--batch-size", type=_positive_int, default=2000,
                       help="rows audited between two updates of the progress bar "
                            "(default: 2000)")
    audit.add_argument("--n-jobs", type=int, default=None,
                       help="parallel workers for the auditor (default: 1)")
    audit.add_argument("-q", "--quiet", action="store_true",
                       help="no progress bar and no summary on standard error")
    _add_common(audit)
    audit.set_defaults(func=run_audit)

    demo = sub.add_parser(
        "demo", formatter_class=formatter, epilog=EPILOG,
        help="run the whole package on data it generates itself",
        description=_describe(
                    "Generate biased decisions with a known ground truth "
                    "(make_biased_decisions), train a few models, print their accuracy, HFM "
                    "and the group baselines, pick the best trade-off, then audit the "
                    "decisions by situation testing and count the planted cases found."))
    demo.add_argument("--n-samples", type=_positive_int, default=6000,
                      help="rows to generate (default: 6000)")
    demo.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    demo.set_defaults(func=_run_demo)
    return parser


def _run_demo(args):
    from skfair_manifold._demo import run_demo

    return run_demo(n_samples=args.n_samples, seed=args.seed)


def main(argv=None):
    """Run the command line; return the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except CLIError as exc:
        print(f"skfair-manifold {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_DATA
    except KeyboardInterrupt:  # pragma: no cover
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
