"""An audit's progress: the estimate after the first block, the lines of ``verbose``, the bar."""

import io

import numpy as np

from skfair_manifold.cli._audit import Progress, fit_and_report
from skfair_manifold.datasets import make_planted_bias
from skfair_manifold.situation_testing import SituationTestingAuditor
from skfair_manifold.utils import _progress
from skfair_manifold.utils._progress import BlockProgress

KW = dict(protected="sex", protected_value="female", method="knn", k=10)


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_estimate_after_the_first_block_is_the_blocks_times_its_time(monkeypatch):
    clock = iter(np.arange(0.0, 100.0, 1.0))  # every block takes one second
    monkeypatch.setattr(_progress.time, "perf_counter", lambda: next(clock))
    out = io.StringIO()
    progress = BlockProgress("KNN-DD", stream=out)
    progress.begin(20, "1,000 queries x 2 sides")
    for _ in range(20):
        progress.advance()
    lines = out.getvalue().splitlines()
    assert lines[0] == ("KNN-DD: 1,000 queries x 2 sides in 20 blocks; about 20 s in all "
                        "(from the first block)")
    assert lines[1].endswith("(2/20 blocks), 2.0 s, about 18 s left")  # each tenth
    assert lines[-1].endswith("100% (20/20 blocks), 20 s, about 0.0 s left")
    assert len(lines) == 11


def test_verbose_writes_the_passes_and_changes_nothing(capsys):
    X, y, _, _ = make_planted_bias(6000, random_state=0)
    quiet = SituationTestingAuditor(**KW).fit(X, y)
    flags = quiet.flag(X, y)
    assert capsys.readouterr().err == ""
    loud = SituationTestingAuditor(verbose=1, **KW).fit(X, y)
    np.testing.assert_array_equal(loud.flag(X, y), flags)
    err = capsys.readouterr().err
    candidates = int(((X["sex"] == "female") & (y == 0)).sum())
    assert f"KNN-DD (k=10): {candidates:,} queries x 2 sides in " in err
    assert "about" in err and "100% (" in err


def test_the_command_line_bar_in_a_terminal():
    X, y, _, _ = make_planted_bias(6000, random_state=0)
    screen = Terminal()
    progress = Progress(len(X), label="auditing", stream=screen)
    report, _, _ = fit_and_report(SituationTestingAuditor(**KW), X, y, all_rows=False,
                                  progress=progress)
    text = screen.getvalue()
    assert "auditing: " in text and "in all (from the first block)" in text
    assert "\rauditing [" in text and "100%" in text
    assert text.endswith("\n")
    quiet = SituationTestingAuditor(**KW).fit(X, y)
    assert report.summary["row"].tolist() == np.flatnonzero(quiet.flag(X, y)).tolist()
