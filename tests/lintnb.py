"""Crafted task notebooks for the lint tests: a load step, then one figure."""

from __future__ import annotations

import json
from pathlib import Path

from nbcells import code, md

from cibench_lab.tasks.format import parse_notebook
from cibench_lab.tasks.lint import lint_task

SETUP = (
    "import matplotlib.pyplot as plt\nimport pandas as pd\nimport seaborn as sns\n\n"
    "df = pd.read_csv('data/x.csv')"
)
PNG = {
    "output_type": "display_data",
    "data": {"image/png": "iVBORw0KGgo=\n", "text/plain": "<Figure>"},
    "metadata": {},
}


def notebook(instruction, plot, modules=None, setup=SETUP, language="en", **lab) -> dict:
    """Two steps: load (exec), then one figure (vis)."""
    meta = {
        "step_types": ["exec", "vis"],
        "cibench_lab": {"schema_version": 1, "title": "t", "language": language, **lab},
    }
    if modules:
        meta["modules"] = modules
    cells = [md("Load `data/x.csv` into `df`."), code(setup), md(instruction), code(plot, [PNG])]
    for i, cell in enumerate(cells):
        cell["id"] = f"cell-{i}"
    return {"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}


def flags_of(nb: dict, split="cibench_template"):
    path = Path(f"{split}/pandas/t.ipynb")
    return lint_task(parse_notebook(json.dumps(nb).encode(), path, f"{split}/pandas/t", None))


def kinds(nb: dict, step=1, **kw) -> set[str]:
    return {f.kind for f in flags_of(nb, **kw) if f.step == step}


BASE_CODE = "fig, ax = plt.subplots()\nax.bar(df['a'], df['b'])\n{extra}\nplt.show()"
BASE_EN = "Draw a bar chart of `b` per `a`."
BASE_ZH = "画出 `b` 按 `a` 的柱状图。"
