"""``benchmarks/`` is a package whose scripts run as ``python -m benchmarks.<name>``.

No script edits ``sys.path`` (``python -m`` from the repository's top puts
the checkout first); none imports a private module of the package but the
helper modules written for them (``<room>._testing``) and ``utils``; none reads a private
attribute; every import between the benchmarks' own modules resolves; and
every script answers ``--help``.
"""

import ast
import importlib
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "benchmarks"
FILES = sorted(BENCH.glob("*.py"))
SCRIPTS = sorted(p.stem for p in FILES if not p.stem.startswith("_"))
#: a room's helper module for tests and benchmarks (``skfair_manifold.<room>._testing``)
ALLOWED = tuple(f"skfair_manifold.{room}._testing"
                for room in ("datasets", "distances", "metrics", "situation_testing"))


def private(module):
    """Whether a dotted module name of the package is private and not allowed here."""
    parts = module.split(".")
    if parts[0] != "skfair_manifold" or parts[:2] == ["skfair_manifold", "utils"]:
        return False
    if any(module == a or module.startswith(a + ".") for a in ALLOWED):
        return False
    return any(part.startswith("_") and not part.startswith("__") for part in parts[1:])


def package_imports(path):
    """``(line, module)`` of every import of the package in ``path``, ``from M import n``
    giving ``M.n`` (a name may be a module)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out += [(node.lineno, node.module)]
            out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return [(line, m) for line, m in out if m.split(".")[0] == "skfair_manifold"]


def test_the_folder_is_a_package_with_scripts():
    assert (BENCH / "__init__.py").is_file()
    assert not (BENCH / "_common.py").exists()
    assert len(SCRIPTS) > 20


def test_no_benchmark_edits_sys_path():
    found = [f"{p.name}:{i}" for p in BENCH.rglob("*.py")
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if "sys.path.insert" in line or "sys.path.append" in line]
    assert found == []


def test_no_benchmark_imports_a_private_module():
    found = [f"{p.name}:{line}: {m}" for p in FILES for line, m in package_imports(p)
             if private(m)]
    assert found == []
    # nor in the code of the children they start (source text, strings included)
    pattern = re.compile(r"skfair_manifold(?:\.\w+)*")
    found = [f"{p.name}: {m}" for p in FILES
             for m in pattern.findall(p.read_text(encoding="utf-8")) if private(m)]
    assert found == []


def test_no_benchmark_reads_a_private_attribute():
    found = []
    for p in FILES:
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                    and not node.attr.startswith("__"):
                found.append(f"{p.name}:{node.lineno}: .{node.attr}")
    assert found == []


def defined_names(path):
    """The names a module defines at its top level (functions, classes, assignments,
    imports)."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                names |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def test_every_import_of_a_benchmark_or_package_name_resolves():
    """Imports inside functions too (``--help`` does not run them)."""
    wrong = []
    for p in FILES:
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            where = f"{p.name}:{node.lineno}"
            if node.level:
                assert node.level == 1, where
                if node.module is None:  # from . import module
                    wrong += [f"{where}: {a.name}" for a in node.names
                              if not (BENCH / f"{a.name}.py").is_file()]
                    continue
                target = BENCH / f"{node.module}.py"
                if not target.is_file():
                    wrong.append(f"{where}: {node.module}")
                    continue
                names = defined_names(target)
                wrong += [f"{where}: {node.module}.{a.name}" for a in node.names
                          if a.name not in names]
            elif node.module and node.module.split(".")[0] == "skfair_manifold":
                module = importlib.import_module(node.module)
                wrong += [f"{where}: {node.module}.{a.name}" for a in node.names
                          if not hasattr(module, a.name)]
            elif node.module and node.module.split(".")[0] == "benchmarks":
                wrong.append(f"{where}: write `from .{node.module[11:]} import ...`")
    assert wrong == []


def run_help(script):
    proc = subprocess.run([sys.executable, "-m", f"benchmarks.{script}", "--help"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    return script, proc.returncode, proc.stdout, proc.stderr


def test_every_script_answers_help():
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(run_help, SCRIPTS))
    failed = {script: err[-500:] for script, code, _, err in results if code != 0}
    assert failed == {}
    for script, _, out, _ in results:
        assert out.startswith("usage:"), script
        assert f"benchmarks.{script}" in out or f"{script}.py" in out, script


@pytest.mark.parametrize("module, is_private", [
    ("skfair_manifold.metrics._hfm._metrics", True),
    ("skfair_manifold.distances._content_cache", True),
    ("skfair_manifold.metrics._testing", False),
    ("skfair_manifold.metrics._testing.wilson_cc", False),
    ("skfair_manifold.metrics._testing_more", True),
    ("skfair_manifold.situation_testing._testing", False),
    ("skfair_manifold.utils._validation", False),
    ("skfair_manifold.metrics.hfm_report", False),
    ("numpy._core", False),
    ("skfair_manifold.__file__", False),
])
def test_what_counts_as_private(module, is_private):
    assert private(module) is is_private
