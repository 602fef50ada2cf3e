"""The figures the documentation and the README quote from a benchmark are the benchmark's.

A measured table is included at build time from its results file
(``.. results-include::``, ``docs/_ext/results_include.py``), so it cannot drift.
A figure quoted in the text must come from the results file the same paragraph
(list item, table row) names: every decimal number of such a paragraph, outside
inline code and formulas (settings such as ``tau=0.05`` are written as code), is
looked up, as a whole number, in the files it names. A paragraph that names no results file is not
checked, so a measured figure must name its file.

The README's figures about the demo are the demo's own output:
``tests/test_readme_figures.py``.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
NAMES = sorted(p.name for p in RESULTS.iterdir() if p.suffix in (".md", ".txt"))
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*\.\d+")
#: what is not prose: inline code, formulas, roles' targets, links
_NOT_PROSE = re.compile(r"``.*?``|`[^`]*`_?|:math:`[^`]*`|\$[^$]*\$", re.S)


def _pages():
    docs = ROOT / "docs"
    skip = {"_build", "generated", "auto_examples"}
    return sorted(p for p in docs.rglob("*.rst") if not skip & set(p.relative_to(docs).parts))


def _rst_units(text):
    """Paragraphs, list items and table rows of a page, outside directives' bodies."""
    units, current, skip_indent = [], [], None
    for line in text.splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if skip_indent is not None:
            if not stripped or indent > skip_indent:
                continue
            skip_indent = None
        if re.match(r"\.\. [\w:-]+::", stripped) and not stripped.startswith(
                (".. list-table::", ".. note::", ".. rubric::")):
            units.append(" ".join(current))
            current = []
            skip_indent = indent
            continue
        if stripped.endswith("::") and not stripped.startswith(".."):
            current.append(stripped[:-2])
            units.append(" ".join(current))
            current = []
            skip_indent = indent
            continue
        if not stripped or re.match(r"^([*-]|\d+\.|\* -|- ) ", stripped):
            units.append(" ".join(current))
            current = [stripped] if stripped else []
            continue
        current.append(stripped)
    units.append(" ".join(current))
    return [u for u in units if u]


def _markdown_units(text):
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    units = []
    for block in re.split(r"\n\s*\n", text):
        lines = block.splitlines()
        if lines and all(line.startswith("|") for line in lines):
            units.extend(lines)
        else:
            units.extend(re.split(r"\n(?=- |\* )", block))
    return units


def _cited(unit):
    return [name for name in NAMES if re.search(rf"(?<![\w-]){re.escape(name)}", unit)]


def _unchecked(unit):
    """The numbers of ``unit`` missing from every results file it names."""
    names = _cited(unit)
    if not names:
        return [], names
    files = " ".join((RESULTS / n).read_text(encoding="utf-8") for n in names)
    found = {n.replace(",", "") for n in _NUMBER.findall(files)}
    prose = _NOT_PROSE.sub(" ", unit)
    missing = [n for n in _NUMBER.findall(prose) if n.replace(",", "") not in found]
    return missing, names


def _case(path):
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("path", [*_pages(), ROOT / "README.md"], ids=_case)
def test_a_figure_quoted_from_a_benchmark_is_in_its_results_file(path):
    text = path.read_text(encoding="utf-8")
    units = _markdown_units(text) if path.suffix == ".md" else _rst_units(text)
    problems = []
    for unit in units:
        missing, names = _unchecked(unit)
        if missing:
            problems.append(f"{missing} not in {names}: {unit[:160]}...")
    assert not problems, "\n".join(problems)


def test_every_results_include_names_a_file_and_a_benchmark_that_exist():
    seen = 0
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        for name, options in re.findall(r"\.\. results-include:: (\S+)((?:\n +:.*)*)", text):
            seen += 1
            assert (RESULTS / name).exists(), f"{_case(page)}: {name}"
            for module in re.findall(r"python -m benchmarks\.(\w+)", options):
                assert (ROOT / "benchmarks" / f"{module}.py").exists(), (_case(page), module)
    assert seen >= 30


def test_the_check_reads_paragraphs_and_ignores_code():
    assert _unchecked("recall 0.739 in situation_testing_mixed_error_control.md")[0] == []
    assert _unchecked("recall 0.123456 in situation_testing_mixed_error_control.md")[0] == \
        ["0.123456"]
    # a number is found whole, not as the start of another (0.73 is not 0.739)
    assert _unchecked("recall 0.73 in situation_testing_mixed_error_control.md")[0] == ["0.73"]
    assert _unchecked("``tau=0.999999`` in situation_testing_mixed_error_control.md")[0] == []
    assert _unchecked("0.123456 with no file named") == ([], [])
    units = _rst_units("A 1.5\nb.\n\n* c 2.5\n* d\n\n.. code-block:: text\n\n    9.9\n\nend")
    assert units == ["A 1.5 b.", "* c 2.5", "* d", "end"]
