# Two commands on a fresh machine with Python 3.11+, pip and make:
#   make demo   creates .venv, installs the package, runs the demo
#   make test   installs the dev extras and runs the whole test suite
# and `make test-oldest` runs the suite on the oldest versions pyproject.toml allows.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# The oldest versions: a second virtual environment, the core libraries pinned at
# their floors by the constraints file, the rest of the dev extra resolved by pip.
OLDEST             := .venv-oldest
OLDEST_BIN         := $(OLDEST)/bin
OLDEST_CONSTRAINTS := .ci/oldest-constraints.txt

.PHONY: demo test test-oldest install dev bench docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml setup.cfg | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[cli]"
	touch $@

$(VENV)/.installed-dev: pyproject.toml setup.cfg | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@ $(VENV)/.installed

$(VENV)/.installed-docs: pyproject.toml setup.cfg | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed

dev: $(VENV)/.installed-dev

demo: install
	$(BIN)/python -m skfair_manifold demo

test: dev
	$(BIN)/python -m pytest

$(OLDEST_BIN)/python:
	$(PYTHON) -m venv $(OLDEST)
	$(OLDEST_BIN)/python -m pip install --quiet --upgrade pip

$(OLDEST)/.installed-dev: pyproject.toml setup.cfg $(OLDEST_CONSTRAINTS) | $(OLDEST_BIN)/python
	$(OLDEST_BIN)/python -m pip install --quiet -c $(OLDEST_CONSTRAINTS) -e ".[dev]"
	touch $@

test-oldest: $(OLDEST)/.installed-dev
	$(OLDEST_BIN)/python .ci/oldest_versions.py $(OLDEST_CONSTRAINTS)
	$(OLDEST_BIN)/python -m pytest

bench: dev
	$(BIN)/python -m benchmarks.bench_distances

# The documentation, warnings as errors; the gallery examples run. Output in docs/_build/html.
docs: $(VENV)/.installed-docs
	$(BIN)/python -m sphinx -W --keep-going -q -b html docs docs/_build/html

clean:
	rm -rf $(VENV) $(OLDEST) build dist *.egg-info .pytest_cache .hypothesis docs/_build \
		docs/generated docs/auto_examples docs/sg_execution_times.rst
