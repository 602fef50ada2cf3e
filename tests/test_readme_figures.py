"""The README's figures about the demo are the demo's own output.

The README quotes what ``make demo`` prints; this test runs the demo (about two
seconds) and compares the README's block with its output, every figure but the
seconds, which depend on the machine. The README's other measured figures are
checked against their results files by ``tests/test_docs_figures.py``.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: the seconds the demo prints: its audits' column and its closing line
_SECONDS = [(re.compile(r"^(\s*(?:CBN|KNN)-DD\s+\d+\s+\d+ of \d+ \(\d+%\)\s+\d+%)\s+[\d.]+\s*$"),
             r"\1 <seconds>"),
            (re.compile(r"^Demo finished in [\d.]+ s\.$"), "Demo finished in <seconds> s.")]


def _masked(text):
    lines = []
    for line in text.strip().splitlines():
        line = line.rstrip()
        for pattern, replacement in _SECONDS:
            line = pattern.sub(replacement, line)
        lines.append(line)
    return lines


def _readme_demo_block():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```text\n(.*?)```", text, flags=re.S)
              if "skfair_manifold demo" in b]
    assert len(blocks) == 1, "the README quotes the demo's output once, in a text block"
    return blocks[0]


def test_the_readme_quotes_the_demo_s_output(capsys):
    pytest.importorskip("pandas")
    from skfair_manifold.cli._main import main

    assert main(["demo"]) == 0            # what `make demo` runs, with its defaults
    assert _masked(_readme_demo_block()) == _masked(capsys.readouterr().out)


def test_the_seconds_are_the_only_figures_left_out():
    block = _readme_demo_block()
    masked = "\n".join(_masked(block))
    assert masked.count("<seconds>") == 3      # the two audits and the total
    # every other number of the block is compared
    assert "340 of 375" in masked and "81%" in masked


def test_the_readme_quotes_no_stale_demo_figures():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    outside = text.replace(_readme_demo_block(), "")
    # the demo's figures are quoted only in its block, where the test above checks them
    assert not re.search(r"\d+ / \d+ of 375|planted cases found by", outside)
