"""The ``report`` command: a self-contained HTML fairness report of a CSV of predictions."""

from skfair_manifold.cli._hfm import file_provenance, load_predictions, measure, note
from skfair_manifold.cli._io import write_text


def run_report(*, file, label, prediction, sensitive, features=None, max_categories=50,
               method="auto", m1=5, m2=None, scale=True, pos_label=None, n_boot=0,
               confidence=0.95, intersect=False, seed=0, hfm=True, title="Fairness report",
               quiet=False, sep=",", output=None, min_group_size=30):
    """The ``report`` command; returns the exit code (0), raises CLIError on bad input."""
    data = load_predictions(file=file, label=label, prediction=prediction,
                            sensitive=sensitive, features=features, sep=sep,
                            max_categories=max_categories, pos_label=pos_label, quiet=quiet,
                            need_features=hfm)
    report, messages = measure(data, method=method, m1=m1, m2=m2, scale=scale, seed=seed,
                               baselines=True, n_boot=n_boot, confidence=confidence,
                               intersect=intersect, hfm=hfm, min_group_size=min_group_size)
    report.provenance.update(file_provenance(file))
    report.provenance["rows_dropped"] = 0
    report.options["hfm_features"] = data["features"] if hfm else None
    for message in messages:
        note(quiet, f"warning: {message}")
    write_text(output, report.to_html(title=title))
    return 0
