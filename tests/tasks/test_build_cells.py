"""``build`` runs its references through the one step runner verify and new use, and records
them as its notebooks always were (by nbclient, the baseline here): each stream gathered into
its first output with ``\\r`` overwrites applied, code cells numbered 1..n with the start code
not counted and an empty one not run, an ``execute_result`` numbered as its cell; a failing
step is named in nbclient's words."""

from __future__ import annotations

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError as NbclientCellError
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from cibench_lab.authoring.build import execute
from cibench_lab.authoring.buildcells import CellExecutionError, CellTimeoutError
from cibench_lab.kernels.spec import KERNEL_NAME, ensure_kernelspec

CELLS = [
    "print('x')\nfrom IPython.display import display\ndisplay('shown')\nprint('y')\nprint('12\\r34')",
    "1 + 1",
    "",
    "import sys\nprint('to stderr', file=sys.stderr)\nsys.stderr.flush()\nprint('to stdout')",
]
FAILING = "print('before the error')\nraise ValueError('broken on purpose')"


def notebook(codes: list[str]) -> nbformat.NotebookNode:
    cells = []
    for i, code in enumerate(codes):
        cells += [new_markdown_cell(f"Step {i + 1}."), new_code_cell(code)]
    return new_notebook(cells=cells)


def by_nbclient(nb: nbformat.NotebookNode, cwd) -> nbformat.NotebookNode:
    """``nb`` as the build recorded it with nbclient (on the same kernelspec; no start code, which
    none of the cells here depends on)."""
    spec_dir = ensure_kernelspec()
    km = KernelManager(
        kernel_name=KERNEL_NAME, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(spec_dir.parent)])
    )
    NotebookClient(
        nb,
        km=km,
        timeout=60,
        record_timing=False,
        coalesce_streams=True,
        resources={"metadata": {"path": str(cwd)}},
    ).execute()
    return nb


def test_build_records_the_cells_as_nbclient_did(tmp_path):
    ours = notebook(CELLS)
    seconds = execute(ours, ensure_kernelspec(), 60, tmp_path)
    assert len(seconds) == 3  # the empty cell is not run
    theirs = by_nbclient(notebook(CELLS), tmp_path)
    for mine, base in zip(ours.cells, theirs.cells, strict=True):
        if mine.cell_type == "code":
            assert (mine.execution_count, mine.outputs) == (base.execution_count, base.outputs)
    first, second, _, fourth = (c for c in ours.cells if c.cell_type == "code")
    assert [o.get("name") or o.output_type for o in first.outputs] == ["stdout", "display_data"]
    assert first.outputs[0]["text"] == "x\ny\n34\n"
    assert second.outputs[0]["execution_count"] == second.execution_count == 2
    assert fourth.execution_count == 3


def test_a_failing_step_is_named_in_the_same_words(tmp_path):
    with pytest.raises(CellExecutionError) as ours:
        execute(notebook(["x = 1", FAILING]), ensure_kernelspec(), 60, tmp_path)
    with pytest.raises(NbclientCellError) as theirs:
        by_nbclient(notebook(["x = 1", FAILING]), tmp_path)
    head = str(theirs.value).split("\x1b")[0]  # the traceback's own cell numbers differ (In[n])
    assert head.startswith("An error occurred while executing the following cell:\n------------------\n")
    assert "----- stdout -----\nbefore the error\n------------------\n" in head
    assert str(ours.value).split("\x1b")[0] == head
    assert "ValueError: broken on purpose" in str(ours.value).replace("\x1b[39m", "").replace("\x1b[31m", "")


def test_a_step_over_its_time_is_a_cell_timeout(tmp_path):
    with pytest.raises(CellTimeoutError) as ours:
        execute(notebook(["import time\ntime.sleep(60)"]), ensure_kernelspec(), 2, tmp_path)
    assert str(ours.value) == (
        "A cell timed out while it was being executed, after 2 seconds.\n"
        "The message was: Cell execution timed out.\n"
        "Here is a preview of the cell contents:\n-------------------\n"
        "import time\ntime.sleep(60)\n-------------------\n"
    )


pytestmark = pytest.mark.timeout(300)
