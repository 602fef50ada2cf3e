"""Sphinx configuration: numpydoc, autosummary, sphinx-gallery, pydata theme.

Built by ``make docs`` with warnings as errors. Nothing here reaches the
network (no intersphinx), so the build works offline.
"""

import os
import sys
import warnings
from pathlib import Path

# The package of this checkout, not an installed copy (when this docs/ sits in one).
_ROOT = Path(__file__).resolve().parent.parent
if (_ROOT / "skfair_manifold" / "__init__.py").exists():
    sys.path.insert(0, str(_ROOT))
# docs/_ext: results_include, the directive that includes a benchmark's results file
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

import skfair_manifold  # noqa: E402

project = "skfair_manifold"
author = "The skfair_manifold developers"
copyright = "2025, " + author
version = release = skfair_manifold.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "results_include",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "render_reports.py", "howto_pages.py"]
root_doc = "index"

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# numpydoc turns "See Also" names into links; keep unknown ones as plain text.
numpydoc_xref_param_type = False

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    "plot_gallery": os.environ.get("SKFAIR_DOCS_PLOT_GALLERY", "True"),
}

html_theme = "pydata_sphinx_theme"
html_title = f"skfair_manifold {version}"
# _css: wrap.css, long inline literals wrap and wide formulas and tables scroll within
# their block on a narrow screen; the top bar fits on one line at 1280 px
html_static_path = ["_css"]
html_css_files = ["wrap.css"]

# Formulas readable offline: MathJax 3 from the django-static-mathjax wheel (docs
# extra), copied into _static, instead of the default CDN script.
try:
    import mathjax as _mathjax
except ImportError as exc:  # pragma: no cover - the docs extra installs it
    raise RuntimeError("the docs need MathJax offline: pip install django-static-mathjax "
                       "(in the docs extra)") from exc
html_static_path.append(os.path.join(os.path.dirname(_mathjax.__file__), "static"))
mathjax_path = "mathjax/es5/tex-chtml.js"
html_theme_options = {
    "navigation_with_keys": False,
    # the five sections fit the top bar beside the search field at 1280 px
    "header_links_before_dropdown": 5,
    "show_prev_next": True,
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"**": ["sidebar-nav-bs"]}

# The examples run under the Agg backend: no window, no warnings about it.
os.environ.setdefault("MPLBACKEND", "Agg")
warnings.filterwarnings("ignore", category=UserWarning,
                        message="Matplotlib is currently using agg")
