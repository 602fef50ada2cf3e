"""Every Python example of the README runs, in order, as one script."""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_MISSING = [name for name in ("pandas", "matplotlib", "skfair_manifold.metrics",
                              "skfair_manifold.scorers", "skfair_manifold.situation_testing")
            if importlib.util.find_spec(name) is None]


@pytest.mark.skipif(bool(_MISSING), reason=f"not installed or not in this checkout: {_MISSING}")
def test_readme_python_examples_run(tmp_path):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 5
    script = tmp_path / "readme_examples.py"
    script.write_text("\n".join(blocks), encoding="utf-8")
    env = dict(os.environ, MPLBACKEND="Agg")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-W", "error", str(script)], capture_output=True,
                         text=True, env=env, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr
