"""A built notebook keeps each figure structure on one line, and is the same notebook as nbformat's."""

import json

import nbformat
import pytest

from cibench_lab.authoring.build import notebook_text
from cibench_lab.tasks.plot import FIGURE_MIME

pytestmark = pytest.mark.fast


def _notebook(figure: dict) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("plt.plot([1, 2]); plt.show()")
    data = {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>", FIGURE_MIME: figure}
    cell.outputs = [nbformat.v4.new_output("display_data", data=data)]
    nb.cells = [nbformat.v4.new_markdown_cell("Plot it."), cell]
    return nb


def test_the_figure_structure_is_one_compact_line_of_the_same_json():
    figure = {"v": 1, "axes": [{"lines": [{"x": list(range(50)), "y": [0.5] * 50}], "title": "a {b}"}]}
    nb = _notebook(figure)
    text = notebook_text(nb)
    assert json.loads(text) == json.loads(nbformat.writes(nb))  # only the layout differs
    lines = [line for line in text.splitlines() if FIGURE_MIME in line]
    compact = json.dumps(figure, separators=(",", ":"), sort_keys=True)  # keys sorted, as nbformat's
    assert len(lines) == 1 and lines[0].rstrip(",").endswith(compact)
    assert len(text.splitlines()) < 60  # nbformat's own layout: a line per number
    nbformat.validate(nbformat.reads(text, as_version=4))
    assert nb.cells[1].outputs[0]["data"][FIGURE_MIME] == figure  # the caller's notebook is untouched


def test_a_notebook_without_figures_is_written_as_nbformat_writes_it():
    nb = _notebook({})
    del nb.cells[1].outputs[0]["data"][FIGURE_MIME]
    assert notebook_text(nb).rstrip("\n") == nbformat.writes(nb).rstrip("\n")
