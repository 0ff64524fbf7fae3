"""Stored script: nothing a kernel wrote runs in a participant's browser (issue 26, item 3).

A Qwen item's prior turn (from an imported JSONL) and an imported task's oracle reference display
HTML with a ``<script>``, ``Javascript`` and an SVG with ``onload``.  The server runs the prior turn
and writes its outputs into the attempt notebook it signs; the browser runs the oracle reference as
a visible cell and saves it.  Neither may keep a MIME bundle a browser would run, and opening the
attempt in chromium runs no script (``window.__pwned`` stays undefined).  One lab, one browser.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from playwright.sync_api import Page, expect

from cibench_lab.cli import main

from .lab import TOKEN, configured_lab
from .test_lab_play import badge, open_lab, open_panel, oracle_cell, press_next, run_in_cell, start_task
from .test_qwen_lab_ui import pick, start

BENCH = Path(__file__).parent.parent / "fixtures" / "qwen" / "benchmark"
HOSTILE = (
    "from IPython.display import HTML, Javascript, SVG, display\n"
    "display(HTML('<script>window.__pwned=1</script><b>bold</b>'))\n"
    "display(Javascript('window.__pwned=2'))\n"
    'display(SVG(\'<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=3">'
    '<rect width="4" height="4"/></svg>\'))\n'
)
PRIOR = f"import pandas as pd\ndf = pd.read_csv('weather.csv')\n{HOSTILE}print(df.head())"
REFERENCE = f"{HOSTILE}print('reference ran')"
NOTEBOOK = ".jp-NotebookPanel:visible"
#: What an output the server writes (or a reference cell shows) may carry: nothing a browser runs.
SAFE_MIME = {"text/plain", "image/png", "image/jpeg"}


def _qwen_bench(into: Path) -> Path:
    """A benchmark folder of one easy visualization item whose prior turn displays HOSTILE."""
    bench = into / "bench"
    shutil.copytree(BENCH / "upload_file_clean", bench / "upload_file_clean")
    query = (
        "Plot the temperature of each day as a line chart.<|im_end|>\n<|im_start|>assistant\n"
        "Thought: I should load the file first.\nAction: code_interpreter\nAction Input:\n"
        f"```py\n{PRIOR}\n```\nObservation: stdout:\n```\n   day  temp\n```\nThought:"
    )
    item = {"query": query, "tags": "visualization", "input_file_path": ["weather/weather.csv"], "lang": "en"}
    (bench / "eval_code_interpreter_v1.jsonl").write_text(json.dumps(item) + "\n")
    return bench


def _hostile_task(root: Path) -> None:
    """An imported task (two steps) whose first reference displays HOSTILE."""
    cells = [
        new_markdown_cell("Say that the reference ran."),
        new_code_cell(REFERENCE, outputs=[new_output("stream", name="stdout", text="reference ran\n")]),
        new_markdown_cell("Make x."),
        new_code_cell("x = 1"),
    ]
    nb = new_notebook(cells=cells)
    nb.metadata["step_types"] = ["text", "exec"]
    nb.metadata["cibench_lab"] = {"schema_version": 1, "title": "Hostile reference", "language": "en"}
    path = root / "cibench_template" / "pandas" / "hostile_reference.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, str(path))


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("stored-script")
    qwen = tmp / "qwen-tasks"
    assert main(["tasks", "import", str(_qwen_bench(tmp)), "--into", str(qwen)]) == 0
    _hostile_task(tmp / "tasks")
    server = configured_lab(tmp, {"task_dirs": [str(qwen), str(tmp / "tasks")]})
    yield server
    server.kill()


def _attempt_notebook(root: Path, stem: str) -> Path:
    found = [p for p in root.rglob(f"{stem}*.ipynb") if ".ipynb_checkpoints" not in p.parts]
    assert len(found) == 1, found
    return found[0]


def _unsafe(nb: dict) -> list[str]:
    """The MIME types of the notebook's outputs that a browser could run."""
    return [
        mime
        for cell in nb["cells"]
        for out in cell.get("outputs", [])
        for mime in out.get("data", {})
        if mime not in SAFE_MIME
    ]


def _saved_oracle(path: Path) -> dict:
    """The oracle cell as saved, once it has its outputs (the lab saves after it ran)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            cells = json.loads(path.read_text())["cells"]
        except json.JSONDecodeError:  # being saved
            cells = []
        oracle = [c for c in cells if c["metadata"].get("cibench_lab", {}).get("role") == "oracle"]
        if oracle and oracle[0]["outputs"] or time.monotonic() > deadline:
            return {"cells": oracle}
        time.sleep(0.3)


def _task_list(page: Page, url: str) -> None:
    """The lab, its CIBench panel on the task list (an earlier test's attempt may be shown)."""
    open_lab(page, url)
    expect(page.locator('.jp-SideBar .lm-TabBar-tab[data-id="cibench-lab-panel"]')).to_be_visible()
    if not page.locator(".jp-CIBench-panel").is_visible():
        page.locator('.jp-SideBar .lm-TabBar-tab[data-id="cibench-lab-panel"]').click()
    back = page.locator(".jp-CIBench-attemptView .jp-CIBench-back")
    shown = ".jp-CIBench-attemptView .jp-CIBench-back:visible, .jp-CIBench-filter:visible"
    expect(page.locator(shown).first).to_be_visible()
    if back.is_visible():
        back.click()
    open_panel(page)


def _pwned(page: Page):
    return page.evaluate("() => window.__pwned")


def test_a_qwen_prior_turn_with_script_is_kept_as_text_and_images_only(page: Page, lab):
    _task_list(page, lab.url)
    pick(page, "ci_0001")
    start(page)
    prior = page.locator(f"{NOTEBOOK} .jp-CIBench-prior")
    expect(prior.locator(".jp-OutputArea-output").last).to_contain_text("day  temp")
    nb = json.loads(_attempt_notebook(lab.root, "ci_0001").read_text())
    assert (_pwned(page), _unsafe(nb)) == (None, [])
    rel = _attempt_notebook(lab.root, "ci_0001").relative_to(lab.root).as_posix()
    page.goto(f"{lab.url}/lab/tree/{rel}?token={TOKEN}")  # opened again, from the signed file
    expect(prior.locator(".jp-OutputArea-output").last).to_contain_text("day  temp", timeout=60_000)
    assert _pwned(page) is None


def test_an_oracle_reference_with_script_runs_none(page: Page, lab):
    _task_list(page, lab.url)
    start_task(page, "hostile_reference", "oracle")
    expect(page.locator(f"{NOTEBOOK} .jp-CIBench-title h1")).to_contain_text("Hostile reference")
    expect(page.locator(f"{NOTEBOOK} .jp-CIBench-answer")).to_be_visible(timeout=60_000)
    run_in_cell(page, 0, "print('mine')")
    expect(badge(page, 0)).to_have_attribute("data-state", "final", timeout=60_000)
    press_next(page)
    oracle = oracle_cell(page, 0)
    expect(oracle.locator(".jp-OutputArea-output").last).to_contain_text("reference ran", timeout=60_000)
    saved = _saved_oracle(_attempt_notebook(lab.root, "hostile_reference"))
    assert saved["cells"] and saved["cells"][0]["outputs"]
    assert (_pwned(page), _unsafe(saved)) == (None, [])
