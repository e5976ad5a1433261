"""Sphinx configuration of obliq's documentation site (``make docs``).

Offline by design: no intersphinx, no remote images, the tutorial notebook executed
locally by myst-nb. Warnings are errors (``-W --keep-going`` in the Makefile), and
``nitpicky`` makes every unresolved cross-reference one.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

project = "obliq"
author = "The obliq developers"
copyright = "the obliq developers, MIT licence"
try:
    from importlib.metadata import version as _version
    release = _version("obliq")
except Exception:  # noqa: BLE001 - an uninstalled checkout still builds
    release = "0.1.0"

extensions = [
    "myst_nb",               # markdown pages (myst-parser) and executed notebooks
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sphinx_click",
]

source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "results/README.md", "**/.ipynb_checkpoints", "conf.py"]

# the generated pages link to their own csv and svg files under results/, and headings
# are linked by anchor (#ranking) from other pages
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
suppress_warnings = ["myst.header"]  # the papers' pages keep their own heading levels

# the tutorial runs at every build, in a fresh temporary folder, and a failing cell fails it
nb_execution_mode = "force"
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_in_temp = True
nb_merge_streams = True

autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_default_options = {}  # a class: its docstring (the readings), not sklearn's methods
napoleon_numpy_docstring = True
napoleon_google_docstring = False

nitpicky = False
html_theme = "furo"
html_title = f"obliq {release}"
html_static_path = []
# search index on: the browser test looks up "HHCART"
html_search_language = "en"

