"""The oldest-versions constraints of `make test-oldest` pin pyproject.toml's floors."""

import re
import tomllib
from pathlib import Path

import pytest
from packaging.version import Version  # a dependency of pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
CONSTRAINTS = ROOT / ".ci" / "oldest-constraints.txt"

_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$")


def _name(raw):
    return re.sub(r"[-_.]+", "-", raw).lower()


# The libraries whose oldest allowed versions `make test-oldest` installs: every
# run-time dependency of the package (the extras are resolved by pip against them).
CORE = {
    _name(_REQUIREMENT.match(req)[1])
    for req in tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
}


def _floors():
    """{name: [floor of each requirement that names it]} over dependencies and extras."""
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        requirements.extend(extra)
    floors = {}
    for requirement in requirements:
        name, _, spec = _REQUIREMENT.match(requirement.split(";")[0]).groups()
        found = re.findall(r">=\s*([0-9][0-9A-Za-z.]*)", spec)
        floors.setdefault(_name(name), []).extend(found)
    return floors


# a cap on a library that is not core: one that needs a newer NumPy than the pin
# without declaring it to pip
_CAP = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*<\s*([0-9][0-9A-Za-z.]*)")


def _pins():
    pins = {}
    for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if not line or _CAP.fullmatch(line):
            continue
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([0-9][0-9A-Za-z.]*)", line)
        assert match, f"{CONSTRAINTS.name}: {line!r} is not of the form name==version"
        assert _name(match[1]) not in pins, f"{CONSTRAINTS.name}: {match[1]} pinned twice"
        pins[_name(match[1])] = match[2]
    return pins


def test_constraints_pin_exactly_the_core_libraries():
    assert set(_pins()) == CORE
    assert {"numpy", "scipy", "scikit-learn", "joblib"} <= CORE


@pytest.mark.parametrize("name", sorted(CORE))
def test_each_pin_is_the_floor_in_pyproject(name):
    floors = _floors()
    assert floors.get(name), f"pyproject.toml gives {name} no floor (>=)"
    # every requirement naming the library (core or extra) states the same floor
    distinct = {Version(floor) for floor in floors[name]}
    assert len(distinct) == 1, f"{name} has several floors: {floors[name]}"
    assert Version(_pins()[name]) == Version(floors[name][0]), (
        f"{CONSTRAINTS.name} pins {name}=={_pins()[name]} but pyproject.toml's floor is "
        f">={floors[name][0]}: change both together"
    )


def test_caps_are_on_libraries_that_are_not_core_and_say_why():
    lines = CONSTRAINTS.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        match = _CAP.fullmatch(line.split("#")[0].strip())
        if match:
            assert _name(match[1]) not in CORE, f"{match[1]} is core: pin it at its floor"
            assert number and lines[number - 1].startswith("#"), (
                f"{CONSTRAINTS.name}: the cap {line!r} needs a comment above it with the reason"
            )
