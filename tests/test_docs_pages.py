"""The how-to pages: short, opening with code, and every code block runs as shown.

The pages are found by ``docs/howto_pages.py`` (the User Guide's toctree, and
the landing page for the code); its docstring states the conventions. Each
page's code runs in a fresh interpreter in a temporary folder, as a reader
would run it from top to bottom, with warnings as errors; each output block
shown after a code block is compared with what that block printed, word by word
(a page may wrap a long line).
"""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("howto_pages", ROOT / "docs" / "howto_pages.py")
howto_pages = importlib.util.module_from_spec(_spec)
sys.modules["howto_pages"] = howto_pages
_spec.loader.exec_module(howto_pages)

HOWTO = howto_pages.howto_pages()
WITH_CODE = howto_pages.pages_with_code()
_END = "@@ block {} done @@"
#: warnings are errors, but for the libraries' own notices (narwhals announces that its
#: Dask support moves to a package of its own)
_WARNINGS = ("-W", "error", "-W", "ignore:Dask support is moving:FutureWarning")
#: a marked block (another library, a cluster) runs with that library's own deprecations
#: ignored (dask's read_parquet calls a pandas method pandas 3.1 deprecates), as the
#: README's cluster examples do; every other warning is still an error
_WARNINGS_MARKED = (*_WARNINGS, "-W", "ignore::DeprecationWarning",
                    "-W", "ignore::FutureWarning", "-W", "ignore::ResourceWarning")

#: what a console block's commands are rewritten to, so they run this checkout's code
_PRELUDE = '''\
import re as _re
import subprocess as _subprocess
import sys as _sys


def _shell(command):
    command = _re.sub(r"^skfair-manifold\\b", _sys.executable + " -m skfair_manifold", command)
    command = _re.sub(r"^python\\b", _sys.executable, command)
    # standard output and error together, in order, as a terminal shows them
    out = _subprocess.run(command, shell=True, stdout=_subprocess.PIPE,
                          stderr=_subprocess.STDOUT, text=True)
    _sys.stdout.write(out.stdout)
    _sys.stdout.flush()
    if out.returncode != 0:
        raise SystemExit(f"{command!r} exited with {out.returncode}:\\n{out.stdout}")

'''


def _ids(pages):
    return [p.relative_to(ROOT / "docs").as_posix() for p in pages]


def test_the_how_to_pages_are_found():
    names = _ids(HOWTO)
    assert len(names) >= 7, names
    for page in HOWTO:
        assert page.exists(), f"{page} is in the User Guide's toctree but does not exist"
    assert "user_guide/bias_audit.rst" in names and "user_guide/situation_testing.rst" in names


@pytest.mark.parametrize("path", HOWTO, ids=_ids(HOWTO))
def test_a_how_to_page_opens_with_code_and_stays_short(path):
    page = howto_pages.read_page(path)
    assert page.words_before_code is not None, f"{page.name}: no code block that runs"
    assert page.words_before_code <= howto_pages.MAX_WORDS_BEFORE_CODE, (
        f"{page.name}: {page.words_before_code} words before its first code block "
        f"(at most {howto_pages.MAX_WORDS_BEFORE_CODE})")
    assert page.words < howto_pages.MAX_WORDS, (
        f"{page.name}: {page.words} words (under {howto_pages.MAX_WORDS}); move the "
        f"derivations and measurements to How it works")
    assert not page.bare_literal_blocks, (
        f"{page.name}: literal blocks without a language at lines "
        f"{page.bare_literal_blocks}; write '.. code-block:: python' (runs), 'console' "
        f"(runs) or 'text'")
    assert any(b.output is not None for b in page.blocks), (
        f"{page.name}: show the output a reader will see after a code block")


#: the longest line of code that shows whole in the column at 1280 px (headless Chromium)
MAX_CODE_LINE = 76


@pytest.mark.parametrize("path", WITH_CODE, ids=_ids(WITH_CODE))
def test_a_page_s_code_fits_the_column(path):
    page = howto_pages.read_page(path)
    long = [(b.line, line) for b in page.blocks if b.runs for line in b.code.splitlines()
            if len(line) > MAX_CODE_LINE]
    assert not long, f"{page.name}: code lines over {MAX_CODE_LINE} characters: {long}"


def test_the_page_statistics_script_prints_every_page():
    out = subprocess.run([sys.executable, str(ROOT / "docs" / "howto_pages.py")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    for name in _ids(HOWTO):
        assert name in out.stdout


# --- the code of the pages ----------------------------------------------------------------

def _cases():
    """(page, marked block or None): the page's plain blocks, and each marked block."""
    cases = []
    for path in WITH_CODE:
        page = howto_pages.read_page(path)
        runnable = [b for b in page.blocks if b.runs]
        if not runnable:
            continue
        name = page.name
        cases.append(pytest.param(path, None, id=name))
        for block in runnable:
            if block.marks:
                marks = [pytest.mark.slow] if block.marks.get("slow") else []
                cases.append(pytest.param(path, block.line, id=f"{name}:{block.line}",
                                          marks=marks))
    return cases


def _missing(names):
    """The names that are neither an importable module nor a program on the PATH."""
    return [name for name in names
            if importlib.util.find_spec(name) is None and shutil.which(name) is None]


def _script(blocks):
    parts = [_PRELUDE]
    for n, block in enumerate(blocks):
        if block.language == "python":
            parts.append(block.code)
        else:
            parts.extend(f"_shell({command!r})" for command in block.commands())
        parts.append(f"print({_END.format(n)!r}, flush=True)\n")
    return "\n".join(parts)


def _matches(shown, printed):
    """Word by word, line breaks aside (a page may wrap a long line); a shown line ``...``
    stands for any number of words."""
    def words(text):
        return [w for line in text.strip().splitlines()
                for w in (["\0..."] if line.strip() == "..." else line.split())]

    shown, printed = words(shown), words(printed)

    def match(i, j):
        if i == len(shown):
            return j == len(printed)
        if shown[i] == "\0...":
            return any(match(i + 1, k) for k in range(j, len(printed) + 1))
        return j < len(printed) and shown[i] == printed[j] and match(i + 1, j + 1)

    return match(0, 0)


def _run(blocks, tmp_path, name, warnings=_WARNINGS):
    script = tmp_path / "page.py"
    script.write_text(_script(blocks), encoding="utf-8")
    env = dict(os.environ, MPLBACKEND="Agg")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, *warnings, str(script)], capture_output=True,
                         text=True, env=env, cwd=tmp_path, timeout=600)
    assert out.returncode == 0, f"{name}: its code failed\n{out.stdout[-3000:]}\n{out.stderr}"
    printed, rest = [], out.stdout
    for n in range(len(blocks)):
        chunk, _, rest = rest.partition(_END.format(n) + "\n")
        printed.append(chunk)
    for block, text in zip(blocks, printed):
        if block.output is not None:
            assert _matches(block.output.code, text), (
                f"{name}, the block at line {block.line} printed\n{text}\nand the page "
                f"shows (line {block.output.line})\n{block.output.code}")


@pytest.mark.parametrize(("path", "marked_line"), _cases())
def test_the_code_of_a_page_runs_and_prints_what_the_page_shows(path, marked_line, tmp_path):
    """Unmarked blocks run together; a marked block runs after the plain blocks before it."""
    pytest.importorskip("pandas")
    page = howto_pages.read_page(path)
    runnable = [b for b in page.blocks if b.runs]
    if marked_line is None:
        blocks = [b for b in runnable if not b.marks]
    else:
        target = next(b for b in runnable if b.line == marked_line)
        missing = _missing(target.marks.get("needs", []))
        if missing:
            pytest.skip(f"needs {', '.join(missing)}")
        blocks = [b for b in runnable if not b.marks and b.line < marked_line] + [target]
    _run(blocks, tmp_path, page.name,
         warnings=_WARNINGS if marked_line is None else _WARNINGS_MARKED)


def test_output_blocks_are_compared_line_by_line():
    assert _matches("a  b\n...\nz", "a b\nc\nd\nz")
    assert _matches("a\n...", "a")
    assert _matches("a b\nc", "a\nb c")          # a long line wrapped on the page
    assert not _matches("a b", "a c")
    assert not _matches("a\nb", "a\nb\nc")


def test_the_parser_reads_blocks_outputs_and_marks(tmp_path):
    page = tmp_path / "page.rst"
    page.write_text(re.sub(r"^ {8}", "", """\
        Title
        =====

        Three words here.

        .. code-block:: python

            print(1)

        .. code-block:: text

            1

        .. test: slow; needs duckdb
        .. code-block:: console

            $ skfair-manifold --help \\
                --version

        Prose::

            a bare block
        """, flags=re.M), encoding="utf-8")
    read = howto_pages.read_page(page)
    python, console = read.blocks
    assert read.words_before_code == 4 and read.words == 5  # the title counts
    assert python.output is not None and python.output.code.strip() == "1"
    assert console.marks == {"slow": True, "needs": ["duckdb"]}
    assert console.commands() == ["skfair-manifold --help --version"]
    assert read.bare_literal_blocks == [20]
