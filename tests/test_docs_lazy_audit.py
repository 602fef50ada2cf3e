"""The User Guide's Dask example of situation testing on a lazy frame runs as written."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "user_guide" / "lazy_frames.rst"


def _section_code(title):
    """The ``code-block:: python`` blocks of the section ``title``, dedented, in order."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(title + "\n" + "-" * len(title))
    end = text.find("\n-----", start + 2 * len(title) + 2)
    section = text[start:end if end > 0 else None]
    blocks = re.findall(r"\.\. code-block:: python\n\n((?:(?:    .*)?\n)+)", section)
    return ["\n".join(line[4:] for line in block.splitlines()) for block in blocks]


def test_the_dask_example_of_the_lazy_audit_runs(tmp_path):
    pytest.importorskip("pyarrow", exc_type=ImportError)  # dask.dataframe imports it
    pytest.importorskip("dask.dataframe", exc_type=ImportError)
    blocks = _section_code("Situation testing where the data lives")
    assert len(blocks) == 1 and "import dask.dataframe as dd" in blocks[0]
    script = tmp_path / "lazy_audit_example.py"
    script.write_text(blocks[0], encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-W", "error",
                          "-W", "ignore:Dask support is moving:FutureWarning", str(script)],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "north" in out.stdout or "east" in out.stdout  # the flagged cells are printed
