"""Control characters of a column name or a group value never reach the terminal raw.

An escape sequence (ESC) in a name would recolour the terminal or move its
cursor, a carriage return overwrite the line, a line break split a one-line
message. Every command, on its success and its error paths, writes them to
standard error as visible escapes (``<U+001B>``), one line per message.
"""

import re

import numpy as np
import pytest

from skfair_manifold.cli import main
from skfair_manifold.utils import _visible

pd = pytest.importorskip("pandas")

COLUMN = "se\x1b[31mx\nY"
VALUE = "f\x1b]0;title\x07\r\nZ"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame({"y": rng.integers(0, 2, n), "p": rng.integers(0, 2, n),
                          COLUMN: np.where(rng.random(n) < 0.5, VALUE, "m"),
                          "x": rng.random(n)})
    path = tmp / "hostile.csv"
    frame.to_csv(path, index=False)
    return tmp, path


def _runs(tmp, path):
    out = ["-o", str(tmp / "out")]
    audit = ["audit", path, "--decision", "y", "--positive-label", "1", "--protected",
             COLUMN, "--method", "knn", "-k", "5", *out]
    return [
        ["hfm", path, "--label", "y", "--prediction", "p", "--sensitive", COLUMN],
        ["hfm", path, "--label", "y", "--prediction", "p", "--sensitive", COLUMN + "\x1b"],
        ["report", path, "--label", "y", "--prediction", "p", "--sensitive", COLUMN, *out],
        ["report", path, "--label", "y", "--prediction", "p", "--sensitive", "a\x1b[2J",
         *out],
        [*audit, "--protected-value", VALUE],
        [*audit, "--protected-value", "zz\x1b[1m\nq"],
        ["bias-audit", path, "--decision", "p", "--sensitive", COLUMN, *out],
        ["bias-audit", path, "--decision", "p", "--sensitive", "n\x1bo\ne~", *out],
    ]


def test_every_command_escapes_control_characters_on_stderr(hostile, capsys):
    tmp, path = hostile
    for args in _runs(tmp, path):
        main([str(a) for a in args])
        err = capsys.readouterr().err
        assert not RAW.search(err), (args[0], err)
        for line in err.splitlines():  # no message split by a name's line break
            assert not line.startswith(("Y", "Z", "q", "e~", "[")), (args[0], err)


def test_terminal_text_and_one_line_escape_what_a_terminal_acts_on():
    assert _visible.terminal_text("a\x1b[31mb\tc\n") == "a<U+001B>[31mb\tc\n"
    assert _visible.terminal_text("\x07\x7f\x9b\u202e") == "<U+0007><U+007F><U+009B><U+202E>"
    assert _visible.one_line("a\nb\r\n") == "a<U+000A>b<U+000D><U+000A>"
