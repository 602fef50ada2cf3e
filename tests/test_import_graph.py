"""The package's rooms import downward only, and never in a circle.

Every import of a ``skfair_manifold`` module from another room (at module
level or inside a function: a lazy import is still an arrow) must go to a room
on the same floor or below (``FLOORS``, as drawn in ``docs/architecture.rst``),
and the rooms' graph must have no circle. The one exception is the package's
version (``from skfair_manifold import __version__``): the top ``__init__``
loads nothing on import (PEP 562), so reading the version imports no room.
A new room must be given a floor here.
"""

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "skfair_manifold"

#: The floors: a room may import rooms of its floor or below.
FLOORS = {
    "utils": 0,
    "plotting": 1, "_html": 1, "distances": 1, "datasets": 1,
    "metrics": 2,
    "scorers": 3, "situation_testing": 3, "reports": 3,
    "_demo": 4, "cli": 4,
    "__main__": 5, "__init__": 5,
}


def _room(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def import_edges(package=PACKAGE):
    """``{(from_room, to_room): [file:line, ...]}`` of every import between rooms."""
    edges = defaultdict(list)
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package.parent).with_suffix("")
        module = ".".join(rel.parts)
        is_init = path.name == "__init__.py"
        if is_init:
            module = module[: -len(".__init__")]
        here = module if is_init else module.rsplit(".", 1)[0]
        source = _room(module)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")[: len(here.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target == "skfair_manifold" and [a.name for a in node.names] == [
                        "__version__"]:
                    continue  # the version: a constant of the lazy top package
                targets = [target]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:
                if target.split(".")[0] != "skfair_manifold":
                    continue
                dest = _room(target)
                if dest != source:
                    edges[(source, dest)].append(f"{path.relative_to(package.parent)}:"
                                                 f"{node.lineno}")
    return edges


def find_cycle(edges):
    """A circle of rooms (a list, first repeated last) in the graph ``edges``, or None."""
    graph = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_every_room_has_a_floor():
    rooms = {_room("skfair_manifold." + p.relative_to(PACKAGE).with_suffix("").parts[0])
             for p in PACKAGE.rglob("*.py") if p.relative_to(PACKAGE).parts[0] != "__init__.py"}
    rooms.add("__init__")
    assert rooms - set(FLOORS) == set(), "give the new room a floor in FLOORS"


def test_no_import_goes_up_a_floor():
    upward = {edge: where for edge, where in import_edges().items()
              if FLOORS[edge[1]] > FLOORS[edge[0]]}
    assert upward == {}, f"imports going up a floor: {upward}"


def test_the_rooms_have_no_circle():
    assert find_cycle(import_edges()) is None


@pytest.mark.parametrize("edges, circle", [
    ({("metrics", "scorers"), ("scorers", "metrics")}, True),
    ({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")}, True),
    ({("a", "b"), ("b", "c"), ("a", "c")}, False),
])
def test_the_circle_finder_finds_circles(edges, circle):
    found = find_cycle(edges)
    assert (found is not None) == circle
    if found:
        assert found[0] == found[-1]
        assert all((a, b) in edges for a, b in zip(found, found[1:]))


def test_the_edge_finder_sees_a_lazy_import(tmp_path):
    package = tmp_path / "skfair_manifold"
    (package / "metrics").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "metrics" / "__init__.py").write_text("")
    (package / "metrics" / "_report.py").write_text(
        "def f():\n    from ..scorers import g\n    return g\n")
    (package / "scorers.py").write_text("from .metrics import _report\n")
    edges = import_edges(package)
    assert set(edges) == {("metrics", "scorers"), ("scorers", "metrics")}
    assert find_cycle(edges) is not None
