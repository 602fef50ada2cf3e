"""The gallery examples run (slow: run with ``-m slow``)."""

import pathlib
import runpy

import pytest

EXAMPLES = [pathlib.Path(__file__).parents[1] / "examples" / "plot_model_selection_hfm.py"]


@pytest.mark.slow
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    runpy.run_path(str(path), run_name="__main__")
