"""The rule for outputs the server writes into a notebook (play/safe_outputs.py): only what a
browser shows without running anything, and a notebook signed only when all of it is so."""

from __future__ import annotations

import nbformat
import pytest
from nbformat.sign import NotebookNotary
from nbformat.v4 import new_code_cell, new_notebook, new_output

from cibench_lab.play.safe_outputs import safe_outputs, sign_notebook, unsafe_cells

pytestmark = pytest.mark.fast

PNG = "iVBORw0KGgo=\n"
HOSTILE = {
    "text/html": "<script>window.__pwned=1</script>",
    "application/javascript": "window.__pwned=2",
    "image/svg+xml": '<svg onload="window.__pwned=3"/>',
    "application/vnd.jupyter.widget-view+json": {"model_id": "x"},
    "text/markdown": "<img src=x onerror=alert(1)>",
}


def test_a_bundle_keeps_text_and_images_only():
    display = new_output(
        "display_data",
        data={**HOSTILE, "text/plain": "<HTML object>", "image/png": PNG},
        metadata={"image/png": {"width": 10, "onload": "x"}, "isolated": True},
    )
    result = new_output("execute_result", data={"text/html": "<b>only html</b>"}, execution_count=3)
    assert safe_outputs([display, result]) == [
        {
            "output_type": "display_data",
            "data": {"text/plain": "<HTML object>", "image/png": PNG},
            "metadata": {"image/png": {"width": 10}},
        },
        {
            "output_type": "execute_result",
            "data": {"text/plain": "[output not shown: text/html]"},
            "metadata": {},
            "execution_count": 3,
        },
    ]


def test_streams_and_errors_stay_text_and_anything_else_goes():
    outputs = [
        new_output("stream", name="stdout", text="hi\n"),
        {"output_type": "stream", "name": "stdout", "text": ["a", "b"]},
        {"output_type": "stream", "name": "other", "text": "x"},
        new_output("error", ename="ValueError", evalue="bad", traceback=["line 1"]),
        {"output_type": "display_data", "data": {"image/png": '"><script>'}, "metadata": {}},
        {"output_type": "update_display_data", "data": {"text/html": "<i>"}},
        [1, 2],
    ]
    assert safe_outputs(outputs) == [
        {"output_type": "stream", "name": "stdout", "text": "hi\n"},
        {"output_type": "stream", "name": "stdout", "text": "ab"},
        {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": ["line 1"]},
        {
            "output_type": "display_data",
            "data": {"text/plain": "[output not shown: image/png]"},
            "metadata": {},
        },
    ]


def test_a_notebook_is_signed_as_the_server_built_it_and_only_when_safe(tmp_path):
    notary = NotebookNotary(data_dir=str(tmp_path), db_file=":memory:")
    hostile = new_output("display_data", data={**HOSTILE, "text/plain": "x"})
    nb = new_notebook(cells=[new_code_cell("1", outputs=[hostile]), new_code_cell("2")])
    path = tmp_path / "a.ipynb"
    assert unsafe_cells(nb) == [0]
    assert sign_notebook(notary, nb, path) is False
    assert not notary.check_signature(nb)
    clean = nbformat.from_dict(nb)
    clean.cells[0].outputs = [nbformat.from_dict(o) for o in safe_outputs(nb.cells[0].outputs)]
    assert unsafe_cells(clean) == []
    assert sign_notebook(notary, clean, path) is True
    assert notary.check_signature(clean)
    # what a kernel put in the file before the server signed is not what the server signed
    nbformat.write(nb, str(path))
    assert not notary.check_signature(nbformat.read(str(path), as_version=4))
