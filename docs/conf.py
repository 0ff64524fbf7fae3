"""Sphinx configuration of the documentation site (`bash scripts/docs` builds it into docs/_build/html).

MyST Markdown pages under the PyData theme; the references are generated from the code: the server's
options from the traits, the command line from the argparse parser (sphinx-argparse), the REST API from
docs/openapi.json (sphinxcontrib-openapi), the lab's settings from schema/plugin.json (`_ext/refs.py`).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE / "_ext")]  # the package (for the references), our extension

project = "cibench-lab"
author = "cibench-lab contributors"
copyright = "cibench-lab contributors, BSD 3-Clause"  # noqa: A001 (Sphinx's name)

extensions = [
    "myst_parser",
    "sphinxarg.ext",
    "sphinxcontrib.openapi",
    "refs",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "jupyterhub_config.example.py", "README.md"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 4  # `page.md#a-heading` links, as GitHub renders them
suppress_warnings = ["myst.header"]  # the moved pages start at ## where they were README sections

html_theme = "pydata_sphinx_theme"
html_title = "cibench-lab"
html_static_path = ["_static"]
html_css_files = ["site.css"]
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": True,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_sidebars = {"index": []}
html_show_sourcelink = False
html_last_updated_fmt = None
openapi_default_renderer = "httpdomain"
http_strict_mode = False  # the OpenAPI document answers every error as its `default` response
smartquotes = False  # the text as written: options keep their "--", quotes stay straight
