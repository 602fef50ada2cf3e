"""The package's rooms and wings import downward only, never in a circle.

Rooms (``docs/architecture.rst``, "The floors"): every import of a
``skfair_manifold`` module from another room (at module level or inside a
function: a lazy import is still an arrow) must go to a room on the same floor
or below (``FLOORS``), the rooms' graph has no circle, and across rooms a module
imports only a room's public face (``skfair_manifold.<room>``) or ``utils``,
with the few exceptions named in ``CROSS_ROOM_EXCEPTIONS``. The package's
version (``from skfair_manifold import __version__``) is a constant of the lazy
top package and no arrow.

Wings (the sub-packages of ``metrics`` and ``situation_testing``): inside a
room every import goes to a wing or root module of the same floor or below
(``WING_FLOORS``), the room's modules form no circle, and
``situation_testing._stats`` imports nothing of its room outside itself.

Imports inside functions are for optional or heavy libraries only: outside
``cli/`` (whose commands load what they need when run) no function imports a
module of the package.

Run as a script (``python tests/test_import_graph.py``) it prints the counts
these rules hold, and the lines of every module by wing.
"""

import ast
import functools
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

#: Inside the two big rooms: the floor of each wing (a sub-package) and of each
#: module at the room's root; an import goes to the same floor or below.
WING_FLOORS = {
    "metrics": {
        "_common": 0, "_bootstrap": 0, "_frames": 0, "_risk": 0,
        "_groups": 1,
        "_hfm": 2, "_regression": 2, "_audit": 2,
        "_report": 3, "_testing": 3,
        "__init__": 4,
    },
    "situation_testing": {
        "_constants": 0, "_stats": 0, "_headline": 0,
        "_discretize": 1, "_records": 1, "_evidence": 1, "_fitted": 1,
        "_selection": 2,
        "_checks": 3, "_params": 3, "_flags": 3,
        "_fitting": 4, "_verdict": 4, "_harm": 4,
        "_assembly": 5,
        "_lazy": 6,
        "_auditor": 7, "_testing": 7,
        "__init__": 8,
    },
}

#: The only imports of another room's private module, each with its reason.
CROSS_ROOM_EXCEPTIONS = {
    ("metrics", "skfair_manifold.distances._rows"):
        "the engine's one entry for the metric layer: row_distances and the min-max "
        "scaling it applies (HFM's witnesses and bootstrap scale rows as it does)",
    ("scorers", "skfair_manifold.metrics._hfm"):
        "the HFM wing's face: the scorers' report (scorer_report, warn_kind)",
    ("cli", "skfair_manifold.metrics._hfm"):
        "the HFM wing's face: the hfm command's witnesses (witness_records)",
    ("cli", "skfair_manifold.situation_testing._stats._power"):
        "the Parquet audit's summary of the detectable gaps of its cells "
        "(not_flagged_gaps, which the report's own method wraps)",
}

#: Rooms whose functions may import the package's modules (commands load what they run).
LAZY_ROOMS = {"cli"}


def _room(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _wing(module):
    """The wing (or root module) of a module of ``metrics`` or ``situation_testing``."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 else "__init__"


def imports(package=PACKAGE):
    """Every import of the package's own modules: a list of
    ``(module, target, names, in_function, "file:line")``."""
    return _imports(Path(package))


@functools.lru_cache(maxsize=4)
def _imports(package):
    found = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package.parent).with_suffix("")
        module = ".".join(rel.parts)
        is_init = path.name == "__init__.py"
        if is_init:
            module = module[: -len(".__init__")]
        here = module if is_init else module.rsplit(".", 1)[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        in_function = {id(sub) for node in ast.walk(tree)
                       if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                       for sub in ast.walk(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")[: len(here.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                pairs = [(target, [a.name for a in node.names])]
            elif isinstance(node, ast.Import):
                pairs = [(a.name, []) for a in node.names]
            else:
                continue
            for target, names in pairs:
                if target.split(".")[0] != "skfair_manifold":
                    continue
                if target == "skfair_manifold" and names == ["__version__"]:
                    continue  # the version: a constant of the lazy top package
                found.append((module, target, names, id(node) in in_function,
                              f"{path.relative_to(package.parent)}:{node.lineno}"))
    return found


def import_edges(package=PACKAGE):
    """``{(from_room, to_room): [file:line, ...]}`` of every import between rooms."""
    edges = defaultdict(list)
    for module, target, _, _, where in imports(package):
        if _room(module) != _room(target):
            edges[(_room(module), _room(target))].append(where)
    return edges


def find_cycle(edges):
    """A circle (a list, first repeated last) in the graph ``edges``, or None."""
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


def _is_face(target):
    """A room's public face (``skfair_manifold.<room>``) or anything of ``utils``."""
    parts = target.split(".")
    return len(parts) <= 2 or parts[1] == "utils"


def cross_room_private_imports(package=PACKAGE):
    """``{(from_room, target): [file:line, ...]}`` of imports of another room's private
    module."""
    found = defaultdict(list)
    for module, target, _, _, where in imports(package):
        if _room(module) != _room(target) and not _is_face(target):
            found[(_room(module), target)].append(where)
    return found


def function_level_imports(package=PACKAGE):
    """``[file:line -> target]`` of package imports inside functions, outside LAZY_ROOMS."""
    return [f"{where} -> {target}" for module, target, _, inside, where in imports(package)
            if inside and _room(module) not in LAZY_ROOMS]


def module_edges(room, package=PACKAGE):
    """The imports between the modules of one room: ``{(module, target): [file:line]}``.

    A target that is a wing's face (a sub-package) counts as the wing's
    ``__init__``, which is a module of its own.
    """
    edges = defaultdict(list)
    for module, target, _, _, where in imports(package):
        if _room(module) == room and _room(target) == room and module != target:
            edges[(module, target)].append(where)
    return edges


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


def test_across_rooms_only_faces_utils_and_the_named_exceptions():
    found = cross_room_private_imports()
    unnamed = {edge: where for edge, where in found.items()
               if edge not in CROSS_ROOM_EXCEPTIONS}
    assert unnamed == {}, ("import the room's public face or utils, or name the exception "
                           f"and its reason in CROSS_ROOM_EXCEPTIONS: {unnamed}")
    stale = set(CROSS_ROOM_EXCEPTIONS) - set(found)
    assert stale == set(), f"exceptions no import needs any more: {stale}"
    assert len(CROSS_ROOM_EXCEPTIONS) <= 4


@pytest.mark.parametrize("room", sorted(WING_FLOORS))
def test_every_wing_and_root_module_has_a_floor(room):
    names = {p.name if p.is_dir() else p.stem for p in (PACKAGE / room).iterdir()
             if (p.is_dir() and (p / "__init__.py").exists()) or p.suffix == ".py"}
    assert names == set(WING_FLOORS[room]), "give the new wing or module a floor"


@pytest.mark.parametrize("room", sorted(WING_FLOORS))
def test_wings_import_downward(room):
    floors = WING_FLOORS[room]
    upward = {}
    for (module, target), where in module_edges(room).items():
        a, b = _wing(module), _wing(target)
        if a != b and floors[b] > floors[a]:
            upward[(a, b)] = where
    assert upward == {}, f"imports going up a floor inside {room}: {upward}"


@pytest.mark.parametrize("room", sorted(FLOORS))
def test_the_modules_of_a_room_have_no_circle(room):
    assert find_cycle(module_edges(room)) is None


def test_the_statistics_wing_imports_no_other_wing():
    outside = [(module, target) for (module, target) in module_edges("situation_testing")
               if _wing(module) == "_stats" and _wing(target) != "_stats"]
    assert outside == []


def test_no_function_imports_a_module_of_the_package_outside_the_command_line():
    assert function_level_imports() == []


def test_every_wing_says_in_one_line_what_it_holds():
    for room in WING_FLOORS:
        for init in sorted((PACKAGE / room).glob("*/__init__.py")):
            doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
            assert doc and len(doc.splitlines()[0]) <= 96, init


def test_no_module_is_over_400_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400}
    assert long == {}, "split the module by responsibility behind the same names"


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


def test_the_edge_finder_sees_a_lazy_import_and_a_private_one(tmp_path):
    package = tmp_path / "skfair_manifold"
    (package / "metrics").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "metrics" / "__init__.py").write_text("")
    (package / "metrics" / "_report.py").write_text(
        "def f():\n    from ..scorers import g\n    return g\n")
    (package / "scorers.py").write_text("from .metrics import _report\n"
                                        "from .metrics._report import f\n")
    edges = import_edges(package)
    assert set(edges) == {("metrics", "scorers"), ("scorers", "metrics")}
    assert find_cycle(edges) is not None
    assert function_level_imports(package) == [
        "skfair_manifold/metrics/_report.py:2 -> skfair_manifold.scorers"]
    assert set(cross_room_private_imports(package)) == {
        ("scorers", "skfair_manifold.metrics._report")}


def _summary():
    """The counts the rules above hold, and the lines of every module by wing."""
    room_circle = find_cycle(import_edges())
    circles = [room for room in FLOORS if find_cycle(module_edges(room))]
    print(f"circles between rooms: {0 if room_circle is None else 1}; "
          f"rooms with a circle of modules: {len(circles)} {circles}")
    private = cross_room_private_imports()
    print(f"cross-room private imports: {len(private)} (room -> module), "
          f"{sum(len(w) for w in private.values())} import statements")
    for (room, target), where in sorted(private.items()):
        print(f"  {room} -> {target}: {', '.join(where)}")
        print(f"    {CROSS_ROOM_EXCEPTIONS.get((room, target), 'NOT NAMED')}")
    inside = function_level_imports()
    print(f"function-level imports of the package's modules outside cli/: {len(inside)}")
    for line in inside:
        print(f"  {line}")
    for room in sorted(WING_FLOORS):
        by_wing = defaultdict(list)
        for path in sorted((PACKAGE / room).rglob("*.py")):
            parts = path.relative_to(PACKAGE / room).parts
            wing = parts[0] if len(parts) > 1 else "(root)"
            n = len(path.read_text(encoding="utf-8").splitlines())
            by_wing[wing].append((str(Path(*parts)), n))
        print(f"\n{room}/")
        for wing in sorted(by_wing, key=lambda w: (w != "(root)", w)):
            files = by_wing[wing]
            print(f"  {wing}: {len(files)} modules, {sum(n for _, n in files)} lines")
            for name, n in files:
                print(f"    {n:5d}  {name}")


if __name__ == "__main__":
    _summary()
