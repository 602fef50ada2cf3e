"""The continuous report's headline: one sentence per attribute.

:func:`regression_headline` writes it from a :class:`._continuous.RegressionReport`'s
tables (the warnings of undefined groups are the engine's ``undefined_groups``).
"""

import numpy as np


def _num(value):
    """A number for a sentence: thousands separated, four significant digits below."""
    if not np.isfinite(value):
        return "undefined"
    if 1e4 <= abs(value) < 1e15:
        return f"{value:,.0f}"
    return f"{value:.4g}"


def regression_headline(report):
    """One sentence per attribute: the worst-off group's mean prediction, and the largest error."""
    sentences = []
    higher = report.options["favourable"] == "higher"
    loss = ("mean absolute error" if report.options.get("loss") is None
            else f"mean loss ({report.options['loss']})")
    level = f"{100 * report.options['confidence']:g}%"
    for attr, row in report.gaps.iterrows():
        if row["groups_compared"] < 2:
            sentences.append(f"{attr}: fewer than 2 groups of at least "
                             f"{report.options['min_group_size']} rows; nothing compared.")
            continue
        worst = row["mean_prediction_group_low" if higher else "mean_prediction_group_high"]
        best = row["mean_prediction_group_high" if higher else "mean_prediction_group_low"]
        by = report.by_group
        iv = report.intervals.gaps.loc[attr]
        if not row["mean_prediction_difference"] > 0:  # no group is worse off than another
            sentences.append(
                f"{attr}: every compared group has the same mean prediction, "
                f"{_num(by.loc[(attr, worst), 'mean_prediction'])} (the predictions do not "
                f"differ between groups; in the true values the difference is "
                f"{_num(row['mean_target_difference'])}). The largest {loss} is group "
                f"{row['bounded_group_loss_group']!s}'s, {_num(row['bounded_group_loss'])}.")
            continue
        sentences.append(
            f"{attr}: group {worst!s} has the {'lowest' if higher else 'highest'} mean "
            f"prediction, {_num(by.loc[(attr, worst), 'mean_prediction'])} against "
            f"{_num(by.loc[(attr, best), 'mean_prediction'])} for group {best!s} (difference "
            f"{_num(row['mean_prediction_difference'])}, {level} interval "
            f"[{_num(iv['mean_prediction_difference_low'])}, "
            f"{_num(iv['mean_prediction_difference_high'])}]; in the true values "
            f"{_num(row['mean_target_difference'])}); {'higher' if higher else 'lower'} "
            f"predictions are taken as favourable. The largest {loss} is group "
            f"{row['bounded_group_loss_group']!s}'s, {_num(row['bounded_group_loss'])}.")
    return sentences
