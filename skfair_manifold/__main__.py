"""``python -m skfair_manifold``: the command line."""

import sys

from skfair_manifold.cli import main

if __name__ == "__main__":  # pragma: no cover - exercised through a subprocess test
    sys.exit(main())
