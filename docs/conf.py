"""Sphinx configuration for the dpviz documentation site (``make docs``).

Sources live in docs/; three folders are made at build time and are gitignored:

* ``lectures/``: copies of notebooks/*.ipynb, rendered from their committed outputs (never executed);
* ``_generated/figures/``: each explorer's static figure, taken from its lecture's committed outputs;
* ``api/``: autosummary stubs from a walk of the dpviz package, so new subpackages appear by themselves.

See ``_ext/dpviz_docs.py`` for the first two.  The build needs no network.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# Document the checkout next to docs/, not whichever dpviz the venv happens to have installed.
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))

import dpviz  # noqa: E402

project = "dpviz"
author = "dpviz developers"
copyright = "dpviz developers"  # noqa: A001
release = dpviz.__version__
version = release

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "dpviz_docs",
]

exclude_patterns = ["_build", "_generated", "**.ipynb_checkpoints", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]

# -- strictness --------------------------------------------------------------------------------------------------
# Every cross-reference must resolve.  Without intersphinx (no network at build time) references to numpy, scipy,
# plotly ... cannot resolve; dpviz_docs.py silences exactly those, and only on the generated API pages.
nitpicky = True

# -- notebooks (myst-nb) -----------------------------------------------------------------------------------------
nb_execution_mode = "off"  # the lectures are rendered from their committed outputs, never re-executed
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
# The lectures put "$$...$$" display maths inside paragraphs; without this MyST paired a "$$" with the next "$" and
# swallowed the prose between them into the formula (lectures 00, 01, 02, 04, 09).
myst_dmath_double_inline = True
myst_heading_anchors = 3

# -- maths: MathJax from this machine, not a CDN (a reader offline, or in a classroom without network, saw raw LaTeX)
# `make docs` and `make test` (target docs-deps) install MathJax 3 from the npm registry and keep what a page loads
# in build/docs-deps/mathjax; that folder becomes _static, and the pages load tex-chtml.js from there.
MATHJAX = ROOT / "build" / "docs-deps" / "mathjax"
if (MATHJAX / "tex-chtml.js").is_file():
    html_static_path = [str(MATHJAX)]
    mathjax_path = "tex-chtml.js"
else:   # pragma: no cover - without npm the pages fall back to Sphinx's CDN default
    print(f"dpviz docs: {MATHJAX} not found (`make docs` installs it with npm): the pages load MathJax from a CDN")

# -- API reference -----------------------------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_typehints = "none"  # the numpydoc Parameters/Returns sections carry the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False  # the class template documents members with autodoc instead
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# -- HTML --------------------------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"dpviz {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"index": [], "data": []}
# the theme's colour mode; left unset, the page starts with mode "" and logs "Got invalid theme mode" on every page
html_context = {"default_mode": "auto"}
html_copy_source = False  # the notebooks are large; their source is the repository, not the site
html_show_sourcelink = False
