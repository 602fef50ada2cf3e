"""The documentation builds with warnings as errors.

The whole build, every ``examples/plot_*.py`` run, as ``make docs`` does it,
but into a temporary folder so that nothing generated lands in the checkout.
"""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("numpydoc")
pytest.importorskip("sphinx_gallery")
pytest.importorskip("pydata_sphinx_theme")

ROOT = Path(__file__).resolve().parents[1]

# The API reference and the gallery cover every capability.
_MISSING = [name for name in ("skfair_manifold.metrics", "skfair_manifold.scorers",
                              "skfair_manifold.situation_testing")
            if importlib.util.find_spec(name) is None]
pytestmark = pytest.mark.skipif(bool(_MISSING), reason=f"not in this checkout: {_MISSING}")


def _build(tmp_path, *, plot_gallery):
    # Build from a copy so that the generated pages never land in the checkout.
    shutil.copytree(ROOT / "docs", tmp_path / "docs",
                    ignore=shutil.ignore_patterns("_build", "generated", "auto_examples"))
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    # the measured tables and figures the pages include from the benchmarks' results
    shutil.copytree(ROOT / "benchmarks" / "results", tmp_path / "benchmarks" / "results")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["SKFAIR_DOCS_PLOT_GALLERY"] = str(plot_gallery)
    env["MPLBACKEND"] = "Agg"
    out = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(tmp_path / "docs"), str(tmp_path / "html")],
        capture_output=True, text=True, env=env, timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr
    return tmp_path / "html"


def test_docs_build_with_the_gallery(tmp_path):
    # About 20 s on the project's machine: quick enough for every test run.
    html = _build(tmp_path, plot_gallery=True)
    for page in ("index.html", "api.html", "architecture.html", "user_guide/command_line.html",
                 "how_it_works/hfm.html", "user_guide/situation_testing.html",
                 "how_it_works/situation_testing.html", "auto_examples/index.html"):
        assert (html / page).exists(), page
    assert "approximation never underestimates" in (
        html / "how_it_works" / "distances.html").read_text(encoding="utf-8")
    # formulas readable offline: MathJax from the build itself, no CDN
    page = (html / "how_it_works" / "hfm.html").read_text(encoding="utf-8")
    assert "_static/mathjax/es5/tex-chtml.js" in page and "cdn.jsdelivr" not in page
    assert (html / "_static" / "mathjax" / "es5" / "tex-chtml.js").exists()
    # the situation-testing design page and the reports page are in the build
    for page in ("how_it_works/situation_testing_design.html", "user_guide/reports.html",
                 "user_guide/scorers.html", "how_it_works/measurements.html"):
        assert (html / page).exists(), page
    # the measured tables are the results files, included at build time
    design = (html / "how_it_works" / "situation_testing_design.html").read_text(
        encoding="utf-8")
    assert "python -m benchmarks.situation_testing_mixed --error-control-only" in design
    assert "adult_report.png" in (html / "user_guide" / "reports.html").read_text(
        encoding="utf-8")
    images = list((html / "_images").glob("sphx_glr_plot_*.png"))
    assert images, "the gallery produced no figure"
