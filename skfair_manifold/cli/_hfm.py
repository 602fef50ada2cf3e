"""The ``hfm`` command: HFM and the group baselines of a CSV of predictions."""

import textwrap
import warnings

from skfair_manifold.cli._io import (
    CLIError,
    check_columns,
    check_no_missing,
    dump_json,
    feature_matrix,
    is_parquet,
    numeric_column,
    parse_value_like,
    read_csv,
    round_significant,
    write_text,
)
from skfair_manifold.utils._summary_row import summary_label
from skfair_manifold.utils._visible import one_line, visible_text

MSG_HFM_PARQUET = (
    "{path} is a Parquet file: hfm measures distances between rows, which needs every row "
    "in memory, and reads CSV files. For the group report of a Parquet file, out of core: "
    "skfair-manifold report {path} ... --no-hfm."
)
BASELINES = ("demographic_parity", "equal_opportunity", "predictive_quality_parity")


def note(quiet, message):
    import sys

    if not quiet:  # one line: a name's line break shown as an escape
        print(one_line(message), file=sys.stderr)


#: words that mark a column as another model's output rather than a feature
_PREDICTION_WORDS = {"pred", "preds", "prediction", "predictions", "predicted", "score",
                     "scores", "prob", "proba", "probability", "yhat", "y_hat", "logit"}


def prediction_like(column):
    """True when the column's name reads as a prediction, a score or a probability."""
    import re

    words = [w for w in re.split(r"[^a-z0-9]+", str(column).lower()) if w]
    return bool(set(words) & _PREDICTION_WORDS) or str(column).lower().startswith("yhat")


MSG_ID_LEFT_OUT = (
    "left out column(s) {columns} from the HFM features: they look like identifiers, "
    "which say nothing about a person and would make every row far from every other "
    "(name them in --features to use them)."
)

MSG_FAVOURABLE_DEFAULT = (
    "favourable outcome (by default, --pos-label not given): {text}; --pos-label VALUE "
    "names another, and every rate, gap and verdict is of the favourable outcome."
)

MSG_LABELS_NOT_NUMERIC = (
    "; labels of another kind (yes/no, text, codes) need --pos-label VALUE, the favourable one"
)

#: the words of a name that read as an identifier (``id``, ``candidate_id``, ``ID number``)
_ID_WORDS = {"id", "uuid", "guid"}
#: the rows at least for "a distinct value on every row" to read as an identifier
ID_MIN_ROWS = 20


def identifier_like(series, column):
    """Why the column looks like an identifier rather than a feature, or ``""``.

    Its name reads as one (a word ``id``, ``uuid`` or ``guid``: ``id``,
    ``candidate_id``, ``ID number``; or camel case ``personId``, ``personID``), or
    its values are integers or text with a distinct value on each of at least
    :data:`ID_MIN_ROWS` rows (floats are measurements: a distinct value per row is
    what they usually have).
    """
    import re

    name = str(column)
    words = {w.lower() for w in re.split(r"[^A-Za-z0-9]+", name) if w}
    if words & _ID_WORDS or re.search(r"[a-z](Id|ID)$", name):
        return "named like an identifier"
    import pandas as pd

    kind = series.to_numpy().dtype.kind
    if kind == "O" and pd.to_numeric(series, errors="coerce").notna().mean() >= 0.5:
        return ""  # numbers with stray text: a bad value, which the features' check names
    n = series.shape[0]
    if kind in "iuO" and n >= ID_MIN_ROWS and series.nunique() == n:
        return "a distinct value on every row"
    return ""


def _labels(frame, label, prediction, pos_label):
    """``(y_true, y_pred, pos_label)``: numbers as float64, or any labels with --pos-label.

    Without ``--pos-label`` the labels must be numbers (0/1 takes 1 as favourable);
    with it, they may be of any kind, the value matched among the label column's.
    """
    if pos_label is None:
        try:
            return (numeric_column(frame, label, "--label"),
                    numeric_column(frame, prediction, "--prediction"), None)
        except CLIError as exc:
            raise CLIError(str(exc).rstrip(".") + MSG_LABELS_NOT_NUMERIC + ".") from None
    value = parse_value_like(frame, label, pos_label, "--pos-label")
    try:
        return (numeric_column(frame, label, "--label"),
                numeric_column(frame, prediction, "--prediction"), float(value))
    except (CLIError, TypeError, ValueError):  # text labels: compared as they are
        return frame[label].to_numpy(), frame[prediction].to_numpy(), value


def note_favourable(quiet, report, pos_label):
    """Name the favourable outcome on standard error when ``--pos-label`` was not given."""
    options = getattr(report, "options", None)
    if pos_label is None and options and options.get("favourable_text"):
        note(quiet, MSG_FAVOURABLE_DEFAULT.format(text=options["favourable_text"]))


def file_provenance(path):
    """The input file's name and SHA-256 (None for standard input)."""
    import hashlib

    if path == "-":
        return {"file": "standard input", "sha256": None}
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return {"file": str(path), "sha256": digest.hexdigest()}


def load_predictions(*, file, label, prediction, sensitive, features, sep, max_categories,
                     pos_label, quiet, need_features=True):
    """Read and check a CSV of predictions for ``hfm`` and ``report``.

    Returns a dict with ``frame``, ``y_true``, ``y_pred``, ``A`` (the
    sensitive columns, a DataFrame), ``X`` (the feature matrix or None),
    ``features`` (the feature columns) and ``pos_label``.
    """
    frame = read_csv(file, sep=sep, command="hfm")
    columns = [(label, "--label"), (prediction, "--prediction")]
    columns += [(c, "--sensitive") for c in sensitive]
    columns += [(c, "--features") for c in (features or [])]
    check_columns(frame, file, columns)
    used = {label, prediction, *sensitive}
    notes = []
    if need_features and not features:
        features = [c for c in frame.columns if c not in used]
        like = [c for c in features if prediction_like(c)]
        if like:
            notes.append(f"left out column(s) {', '.join(like)} from the HFM features: their "
                         f"names look like predictions or scores (name them in --features "
                         f"to use them).")
            features = [c for c in features if c not in like]
        ids = [(c, why) for c in features if (why := identifier_like(frame[c], c))]
        if ids:
            notes.append(MSG_ID_LEFT_OUT.format(columns="; ".join(
                f"{c} ({why})" for c, why in ids)))
            features = [c for c in features if c not in dict(ids)]
        notes.append(f"HFM features: {', '.join(features) if features else '(none)'} "
                     f"(every column but the label, the prediction and the sensitive ones; "
                     f"--features to choose).")
    elif not need_features:
        features = []
    check_no_missing(frame, [label, prediction, *sensitive, *features])
    y_true, y_pred, pos_label = _labels(frame, label, prediction, pos_label)
    for column in sensitive:
        if frame[column].nunique() < 2:
            raise CLIError(f"sensitive column {column!r} has a single value "
                           f"({frame[column].iloc[0]!r}): at least 2 groups are needed.")
    X, names = None, []
    if need_features:
        X, names, encoded, merged = feature_matrix(frame, features,
                                                   max_categories=max_categories)
    for message in notes:
        note(quiet, message)
    if need_features:
        if encoded:
            note(quiet, f"one-hot encoded the text column(s) {', '.join(encoded)}.")
        if merged:
            note(quiet, f"column(s) {', '.join(merged)} have more than {max_categories} "
                        f"values: the {max_categories - 1} most frequent are kept, the "
                        f"others merged into '(other)' (--max-categories).")
    import pandas as pd

    y_true = pd.Series(y_true, name=label)
    y_pred = pd.Series(y_pred, name=prediction)
    return {"frame": frame, "y_true": y_true, "y_pred": y_pred,
            "A": frame[list(sensitive)], "X": X, "features": list(features),
            "feature_names": [str(n) for n in names], "pos_label": pos_label}


def measure(data, *, method, m1, m2, scale, seed, baselines, n_boot=0, confidence=0.95,
            intersect=False, hfm=True, min_group_size=30):
    """``fairness_report`` on loaded data; every failure of the library is a CLIError.

    Returns ``(report, warning messages)``.
    """
    from skfair_manifold.metrics import (
        UndefinedFairnessWarning,
        fairness_report,
        hfm_report,
    )
    from skfair_manifold.metrics._hfm import witness_records

    hfm_options = {"method": method, "m1": m1, "m2": m2, "scale": scale, "random_state": seed}
    if method == "exact":
        hfm_options = {"method": "exact", "scale": scale}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedFairnessWarning)
        try:
            if baselines:
                report = fairness_report(
                    data["y_true"], data["y_pred"], sensitive_features=data["A"],
                    data=data.get("data"),
                    X=data["X"] if hfm else None, pos_label=data["pos_label"],
                    intersect=intersect, n_boot=n_boot, confidence=confidence,
                    random_state=seed, hfm_options=hfm_options,
                    min_group_size=min_group_size,
                    target_type="binary")  # the command line reports classes only, so far
            else:  # HFM alone (multi-class labels without a positive class)
                bunch = hfm_report(data["y_true"], data["y_pred"], X=data["X"],
                                   sensitive_features=data["A"], **hfm_options)
                report = {"hfm_report": bunch, "hfm_witnesses": witness_records(
                    bunch.witnesses, data["X"], data["y_true"], data["y_pred"],
                    scale=scale) | {"method": bunch.method}}
        except (ValueError, TypeError) as exc:
            raise CLIError(" ".join(str(exc).split())) from None
    found = report.get("hfm_witnesses")
    if found is not None and len(data.get("feature_names", ())) == len(found["features"]):
        found["features"] = list(data["feature_names"])  # the matrix's columns, named
    messages = list(dict.fromkeys(str(w.message) for w in caught
                                  if issubclass(w.category, UndefinedFairnessWarning)))
    return report, messages


def result_dict(report, names, *, baselines):
    """The JSON layout of ``hfm``: HFM overall and per attribute, then the baselines."""
    bunch = report["hfm_report"]
    per = bunch.per_attribute
    result = {
        "hfm_max": float(bunch.hfm_max),
        "hfm_avg": float(bunch.hfm_avg),
        "distances": {"D_max": bunch.d_max, "D_f_max": bunch.d_f_max,
                      "D_avg": bunch.d_avg, "D_f_avg": bunch.d_f_avg},
        "per_attribute": {},
    }
    ci = getattr(bunch, "ci", None)
    if ci is not None:
        result["ci"] = dict(ci)
    if report.get("hfm_witnesses") is not None:
        result["witnesses"] = report["hfm_witnesses"]
    row_ci = bunch.get("row_ci")
    if row_ci is not None:  # --n-boot: the intervals over the sampling of rows
        result["row_ci"] = {key: row_ci[key] for key in (
            "d_avg", "d_f_avg", "hfm_avg", "confidence", "n_boot", "method", "estimand",
            "maxima")}
    for k, name in enumerate(names):
        row = {"hfm_max": float(per.hfm_max[k]), "hfm_avg": float(per.hfm_avg[k]),
               "D_max": float(per.d_max[k]), "D_f_max": float(per.d_f_max[k]),
               "D_avg": float(per.d_avg[k]), "D_f_avg": float(per.d_f_avg[k])}
        if baselines and not report.options["intersect"]:
            gaps = report.gaps.iloc[k]  # by position: a column may be named "all attributes"
            for baseline in BASELINES:
                row[baseline] = float(gaps[f"{baseline}_difference"])
                row[f"{baseline}_ratio"] = float(gaps[f"{baseline}_ratio"])
            row["passes_four_fifths"] = bool(gaps["passes_four_fifths"])
            row["four_fifths"] = str(gaps["four_fifths"])
        result["per_attribute"][str(name)] = row
    if baselines:
        worst = report.gaps.iloc[-1]  # "all attributes", or the one attribute
        result["baselines"] = {b: float(worst[f"{b}_difference"]) for b in BASELINES}
        result["baselines"].update({f"{b}_ratio": float(worst[f"{b}_ratio"])
                                    for b in BASELINES})
        result["baselines"]["passes_four_fifths"] = bool(worst["passes_four_fifths"])
        result["baselines"]["four_fifths"] = str(worst["four_fifths"])
        result["favourable"] = report.options["favourable_text"]
        result["headline"] = list(report.headline)
        full = report.to_dict(undefined=float("nan"))  # dump_json explains each
        result["by_group"] = full["by_group"]
        result["gaps"] = full["gaps"]
        if full["intervals"] is not None:
            result["intervals"] = full["intervals"]
    return result


def _format_number(value):
    if value is None or value != value:
        return "n/a"
    return f"{round_significant(value, 6):.4f}"


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
    rows.append((summary_label(result["per_attribute"]), overall))
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
                 f" method {info['method']!r}"
                 + (f" ({info['engine']} distances)." if info.get("engine") else "."))
    if "baselines" in result:
        flag = {"passes": "passes", "fails": "FAILS", "inconclusive": "is INCONCLUSIVE",
                "undefined": "is undefined"}[result["baselines"]["four_fifths"]]
        lines.append(f"Favourable outcome: {result['favourable']}.")
        lines.append(f"Selection-rate ratio (smallest over largest): "
                     f"{_format_number(result['baselines']['demographic_parity_ratio'])}; "
                     f"the four-fifths rule (>= 0.8, judged on the ratio's interval) {flag}.")
        lines += [textwrap.fill(sentence, 79) for sentence in result["headline"]]
    lines.append(textwrap.fill(
        "HFM is log(D_f / D) with the natural logarithm: 0 means the predictions keep the "
        "groups as far apart as the true labels do; above 0 the model adds distance between "
        "groups (extra bias), below 0 it removes some; exp(HFM) - 1 is the share of distance "
        "added (0.1: 10.5%). HFM measures what the model adds to the disparity already in "
        "the labels, not the disparity itself: read it beside DP. DP, EO and PQP are the "
        "largest gaps between groups. Lower is fairer for every measure.", 79))
    return "\n".join(lines) + "\n"


def _engine(report):
    """The distance engine the HFM values came from: 'exact' or 'approx' (None: no HFM)."""
    bunch = report.get("hfm_report")  # a FairnessReport, or the dict of the HFM-only path
    return None if bunch is None else str(bunch.get("method"))


def run_hfm(*, file, label, prediction, sensitive, features, max_categories, method, m1, m2,
            scale, pos_label, baselines, n_boot, confidence, intersect, seed, format, quiet,
            sep, output, min_group_size):
    """The ``hfm`` command; returns the exit code (0), raises CLIError on bad input.

    The options are the parser's (:data:`._options.HFM_OPTIONS`, defaults there).
    """
    if is_parquet(file):
        raise CLIError(MSG_HFM_PARQUET.format(path=file))
    data = load_predictions(file=file, label=label, prediction=prediction,
                            sensitive=sensitive, features=features, sep=sep,
                            max_categories=max_categories, pos_label=pos_label, quiet=quiet)
    report, messages = measure(data, method=method, m1=m1, m2=m2, scale=scale, seed=seed,
                               baselines=baselines, n_boot=n_boot, confidence=confidence,
                               intersect=intersect, min_group_size=min_group_size)
    result = result_dict(report, sensitive, baselines=baselines)
    result["warnings"] = messages
    result["info"] = {"file": file, "n_rows": int(data["frame"].shape[0]),
                      "n_features": int(data["X"].shape[1]), "features": data["features"],
                      "sensitive": list(sensitive), "method": method,
                      "engine": _engine(report), "scale": scale,
                      "m1": m1, "m2": m2, "seed": seed, "log": "natural",
                      "intersect": intersect}
    for message in messages:
        note(quiet, f"warning: {message}")
    if baselines and (format == "json" or output not in (None, "-")):  # else in the table
        note_favourable(quiet, report, pos_label)
    if format == "json":
        text = dump_json(result, reasons=messages)
    else:
        text = visible_text(format_measures_table(result))  # for people: names made visible
    write_text(output, text)
    return 0
