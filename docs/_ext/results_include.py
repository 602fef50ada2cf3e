"""``.. results-include:: NAME``: a benchmark's results file, included as it is.

NAME is a file of ``benchmarks/results/``; the figures a page shows from it are
then the file's, read when the documentation is built, and cannot drift from it.
The block opens with the command that wrote the file: the file's own line that
runs it (``python -m benchmarks...``) when the options leave it out, or the
``:command:`` option for a file that does not state its command (a file that
states none, included without ``:command:``, is a build warning, an error under
``make docs``). The other options are ``literalinclude``'s (``:start-at:``,
``:end-before:``, ...); the language is ``text``.
"""

import re
from pathlib import Path

from docutils.parsers.rst import directives
from sphinx.directives.code import LiteralInclude
from sphinx.util import logging

RESULTS = "benchmarks/results"
#: a line that runs a benchmark
COMMAND = re.compile(r"python3? (-m benchmarks\.\w+|\S*bench\w*\.py)")
_CUTS = ("start-at", "start-after", "lines", "pyobject")
logger = logging.getLogger(__name__)


def results_path(srcdir, name):
    """The results file ``name`` of the checkout whose ``docs/`` is ``srcdir``."""
    return Path(srcdir).parent / RESULTS / name


def stated_command(text):
    """The command a results file states, as a shell line, or None."""
    for line in text.splitlines():
        match = COMMAND.search(line)
        if match:
            line = line.strip().strip("`")
            line = re.sub(r"^(Command|command):\s*`?", "", line).strip("`").strip()
            line = line.split("`")[0].strip()
            return line if line.startswith("$") else "$ " + line
    return None


class ResultsInclude(LiteralInclude):
    option_spec = dict(LiteralInclude.option_spec, command=directives.unchanged)

    def run(self):
        name = self.arguments[0]
        path = results_path(self.env.srcdir, name)
        self.arguments[0] = "/../" + RESULTS + "/" + name
        self.options.setdefault("language", "text")
        self.options.setdefault("class", []).append("results-file")
        command = self.options.pop("command", None)
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        own = stated_command(text)
        cut = any(option in self.options for option in _CUTS)
        if own is not None and cut:
            command = own
        elif own is not None:
            command = None              # the file's first lines show it
        elif command is None and path.exists():
            logger.warning(f"{name} states no command: give it with :command:",
                           location=self.get_location())
        if command is not None:
            command = command if command.startswith("$") else "$ " + command
            self.options["prepend"] = command + "\n"
        return super().run()


def setup(app):
    app.add_directive("results-include", ResultsInclude)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
