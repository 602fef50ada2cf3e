"""Print the versions `make test-oldest` runs on; fail if a core one is not its pin.

Usage: python .ci/oldest_versions.py .ci/oldest-constraints.txt
Shows the pinned libraries, then every other requirement of pyproject.toml's
dependencies and dev extra as pip resolved it against those pins.
"""

import platform
import re
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path


def _installed(name):
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def main(constraints):
    pins = {}
    for line in Path(constraints).read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line and "<" not in line:  # a cap on another library is not a pin
            name, pinned = re.fullmatch(r"([A-Za-z0-9._-]+)\s*==\s*(\S+)", line).groups()
            pins[name] = pinned
    project = tomllib.loads(Path("pyproject.toml").read_text(encoding="utf-8"))["project"]
    others = [re.match(r"[A-Za-z0-9._-]+", requirement)[0] for requirement in
              [*project["dependencies"], *project["optional-dependencies"]["dev"]]]

    print(f"test-oldest on Python {platform.python_version()}, oldest allowed versions:")
    wrong = []
    for name, pinned in pins.items():
        installed = _installed(name)
        print(f"  {name:<20} {installed}" + ("" if installed == pinned else f"  (pin: {pinned})"))
        if installed != pinned:
            wrong.append(name)
    print("with the other dependencies and the dev extra resolved against them:")
    for name in dict.fromkeys(others):
        if name not in pins:
            print(f"  {name:<20} {_installed(name)}")
    if wrong:
        print(f"not at the pinned version: {', '.join(wrong)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
