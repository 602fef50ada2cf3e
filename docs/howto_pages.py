"""The how-to pages of the User Guide: their length, and their code blocks.

Run from the repository root::

    python docs/howto_pages.py

prints, for every how-to page, its words and the words before its first code
block that runs. The how-to pages are the pages listed in the toctree of
``docs/user_guide/index.rst``, in its order: a page added there is measured
(``tests/test_docs_pages.py`` holds the limits below) and its code is run
(the same test file runs every code block of the how-to pages and of the
landing page, and compares what they print with the output blocks shown).

The conventions the tests read (plain reStructuredText, nothing to install):

* ``.. code-block:: python`` runs; the blocks of a page run in order, as one
  script, in a temporary folder.
* ``.. code-block:: console`` runs its ``$ `` lines as shell commands
  (``skfair-manifold`` is the package's command line); a line ending in
  ``\\`` continues on the next.
* ``.. code-block:: text`` placed right after a block that runs is the output
  that block prints: the test compares them word by word (a page may wrap a
  long line); a line ``...`` stands for any number of words. Elsewhere a text
  block is a plain text block.
* A comment ``.. test: slow`` or ``.. test: needs duckdb, java`` on the line
  before a block marks it: it then runs in a test of its own (behind the
  ``slow`` marker, or skipped where a module or a program is missing), after
  the page's other blocks that come before it.
* A bare literal block (a paragraph ending in ``::``) is refused on a how-to
  page: every block says whether it runs.

Words are those of the text a reader reads: prose, lists and tables, not
code, output, formulas, comments or directive options.
"""

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

DOCS = Path(__file__).resolve().parent
USER_GUIDE = DOCS / "user_guide"
#: a how-to page shows code that runs within this many words...
MAX_WORDS_BEFORE_CODE = 350
#: ... and stays under this many words
MAX_WORDS = 2500
#: code blocks that run
RUNNABLE = ("python", "console")

_DIRECTIVE = re.compile(r"^(\s*)\.\. ([\w:-]+)::\s*(.*)$")
_MARK = re.compile(r"^\s*\.\. test:\s*(.*)$")
_WORD = re.compile(r"\S+")
#: directives whose body the reader reads as prose
_PROSE_DIRECTIVES = {"list-table", "note", "seealso", "warning", "tip", "important",
                     "admonition", "rubric", "only", "container", "topic", "glossary"}


@dataclass
class Block:
    """A code block of a page."""

    language: str
    code: str
    line: int
    marks: dict = field(default_factory=dict)
    output: "Block | None" = None

    @property
    def runs(self):
        return self.language in RUNNABLE

    def commands(self):
        """The shell commands of a console block, continuation lines joined."""
        commands, current = [], None
        for line in self.code.splitlines():
            if current is not None:
                current += " " + line.strip()
            elif line.startswith("$ "):
                current = line[2:].strip()
            else:
                continue
            if current.endswith("\\"):
                current = current[:-1].rstrip()
            else:
                commands.append(current)
                current = None
        if current is not None:
            commands.append(current)
        return commands


@dataclass
class Page:
    """A page read: its blocks, its words, the words before its first code that runs."""

    path: Path
    blocks: list
    words: int
    words_before_code: int | None
    bare_literal_blocks: list

    @property
    def name(self):
        return self.path.relative_to(DOCS).as_posix()


def _indent(line):
    return len(line) - len(line.lstrip())


def _marks(text):
    """``slow, needs duckdb java`` -> {"slow": True, "needs": ["duckdb", "java"]}."""
    marks = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        if part == "slow":
            marks["slow"] = True
        elif part.startswith("needs"):
            marks["needs"] = [n for n in re.split(r"[\s,]+", part[len("needs"):]) if n]
        else:
            raise ValueError(f"unknown test mark {part!r} (slow; needs NAME ...)")
    return marks


def read_page(path):
    """Parse ``path``: code blocks, output blocks, word counts."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    blocks, bare = [], []
    words = 0
    words_before_code = None
    pending_marks = {}
    last_runnable = None      # the block a text block right after it is the output of
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        mark = _MARK.match(line)
        directive = _DIRECTIVE.match(line)
        if mark:
            pending_marks = _marks(mark.group(1))
            i += 1
            continue
        if directive and directive.group(2) not in ("test",):
            indent = len(directive.group(1))
            name, argument = directive.group(2), directive.group(3).strip()
            body_start = i + 1
            j = body_start
            while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > indent):
                j += 1
            body = lines[body_start:j]
            while body and not body[-1].strip():
                body.pop()
            if name in ("code-block", "code", "sourcecode"):
                # options (":caption: ...") come first, then a blank line, then the code
                k = 0
                while k < len(body) and body[k].strip().startswith(":"):
                    k += 1
                code_lines = body[k:]
                while code_lines and not code_lines[0].strip():
                    code_lines.pop(0)
                strip = min((_indent(c) for c in code_lines if c.strip()), default=0)
                code = "\n".join(c[strip:] for c in code_lines) + "\n"
                block = Block(argument or "text", code, i + 1, pending_marks)
                if block.language == "text" and last_runnable is not None:
                    last_runnable.output = block
                    last_runnable = None
                else:
                    blocks.append(block)
                    last_runnable = block if block.runs else None
                    if block.runs and words_before_code is None:
                        words_before_code = words
                pending_marks = {}
            elif name in _PROSE_DIRECTIVES:
                words += len(_WORD.findall(argument))
                words += sum(len(_WORD.findall(b)) for b in body
                             if not b.strip().startswith(":"))
                last_runnable = None
            else:
                last_runnable = None   # math, image, toctree, literalinclude, ...
            i = j
            continue
        if stripped.startswith(".. ") or stripped == "..":
            # a comment or a label (".. _name:"): its indented body goes with it
            indent = _indent(line)
            i += 1
            while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > indent):
                i += 1
            continue
        if stripped and set(stripped) <= set("=-~^\"'`#*+<>") and len(stripped) >= 3:
            i += 1        # a section's underline (or overline)
            continue
        if stripped:
            last_runnable = None
            words += len(_WORD.findall(stripped.removesuffix("::")))
            if stripped.endswith("::") and not stripped.startswith(".."):
                # a bare literal block follows: count it as code, refuse it on how-to pages
                indent = _indent(line)
                j = i + 1
                while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > indent):
                    j += 1
                if j > i + 1:
                    bare.append(i + 1)
                    i = j
                    continue
        i += 1
    return Page(Path(path), blocks, words, words_before_code, bare)


def howto_pages():
    """The how-to pages, in the order of the User Guide's toctree."""
    index = (USER_GUIDE / "index.rst").read_text(encoding="utf-8").splitlines()
    pages, in_toctree = [], False
    for line in index:
        if re.match(r"^\.\. toctree::", line.strip()):
            in_toctree = True
            continue
        if in_toctree:
            entry = line.strip()
            if not entry or entry.startswith(":"):
                continue
            if _indent(line) == 0:
                in_toctree = False
                continue
            # "Title <name>" or "name"
            name = re.sub(r"^.*<(.+)>$", r"\1", entry)
            pages.append(USER_GUIDE / f"{name}.rst")
    return pages


def pages_with_code():
    """Every page whose code runs in the tests: the landing page and the how-to pages."""
    return [DOCS / "index.rst", *howto_pages()]


def main():
    rows = [read_page(p) for p in howto_pages()]
    width = max(len(r.name) for r in rows)
    print(f"{'page':<{width}}  {'words':>6}  {'words before code':>17}  blocks")
    for r in rows:
        before = "-" if r.words_before_code is None else r.words_before_code
        runnable = sum(b.runs for b in r.blocks)
        print(f"{r.name:<{width}}  {r.words:>6}  {before:>17}  {runnable}")
    print(f"limits: under {MAX_WORDS} words a page, code within the first "
          f"{MAX_WORDS_BEFORE_CODE} words")
    return 0


if __name__ == "__main__":
    sys.exit(main())
