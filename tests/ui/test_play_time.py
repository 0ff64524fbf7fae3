"""A person's working time and kernel in the lab: the clock pauses while they are away, and the
kernel of the attempt they finish is shut down. Driven through the UI; the API is read after."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from playwright.sync_api import Page, expect

from cibench_lab.tasks.library import builtin_dir

from .lab import configured_lab as start_lab
from .test_lab_play import answer_cell, badge, open_lab, open_panel, press_next, run_in_cell, start_task

PAUSE_AFTER = 2  # seconds: the server's pause_after
AWAY = 6  # seconds between the two runs: counts PAUSE_AFTER


def write_clock_task(root: Path) -> None:
    """A two-step task: an exec step, then a num step."""
    cells = [
        new_markdown_cell("Make a variable `x` holding 1."),
        new_code_cell("x = 1"),
        new_markdown_cell("Print `x` plus one."),
        new_code_cell("print(x + 1)", outputs=[new_output("stream", name="stdout", text="2\n")]),
    ]
    nb = new_notebook(cells=cells)
    nb.metadata["step_types"] = ["exec", "num"]
    nb.metadata["cibench_lab"] = {"schema_version": 1, "title": "Clock probe", "language": "en"}
    path = root / "cibench_template" / "pandas" / "clock_probe.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, str(path))
    (root / "datasources").mkdir()


@pytest.fixture
def timed_lab(tmp_path):
    tasks = tmp_path / "tasks"
    write_clock_task(tasks)
    server = start_lab(tmp_path, {"pause_after": PAUSE_AFTER, "task_dirs": [str(builtin_dir()), str(tasks)]})
    yield server
    server.kill()


def get(page: Page, path: str):
    """GET a server API path as the page (its cookie), parsed."""
    text = page.evaluate("async p => JSON.stringify(await (await fetch(p)).json())", path)
    return json.loads(text)


def until(check, what: str, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"not within {timeout} s: {what}")


def test_the_clock_pauses_while_away_and_a_finished_attempts_kernel_stops(page: Page, timed_lab):
    open_lab(page, timed_lab.url)
    open_panel(page)
    start_task(page, "clock_probe", "end-to-end")
    attempt = get(page, "/cibench-lab/api/attempts")[0]
    view_path = f"/cibench-lab/api/attempts/{attempt['id']}"
    run_in_cell(page, 0, "x = 1")
    expect(badge(page, 0)).to_have_text(re.compile("ran without error"), timeout=60_000)
    page.wait_for_timeout(AWAY * 1000)  # away from the notebook: no edit, no run
    run_in_cell(page, 0, "x = 1")
    until(lambda: get(page, view_path)["steps"][0]["turns"] == 2, "the second run recorded")
    press_next(page)
    expect(answer_cell(page, 1)).to_be_visible()

    step = get(page, view_path)["steps"][0]
    assert step["settled"] and step["seconds"] >= AWAY, step
    assert step["seconds"] - step["working_seconds"] >= AWAY - PAUSE_AFTER - 1, step

    view = get(page, view_path)
    kernel_id = view["kernel_id"]
    assert view["kernel"] == "running" and kernel_id in [k["id"] for k in get(page, "/api/kernels")]
    run_in_cell(page, 1, "print(x + 1)")
    expect(badge(page, 1)).to_have_text(re.compile("numbers? matched"), timeout=60_000)
    press_next(page)
    expect(page.locator(".jp-CIBench-summary")).to_be_visible(timeout=30_000)
    until(
        lambda: kernel_id not in [k["id"] for k in get(page, "/api/kernels")],
        "the finished attempt's kernel shut down",
    )
    view = get(page, view_path)
    assert view["status"] == "done" and view["kernel"] == "stopped" and view["kernel_stopped"] == "finished"
    page.screenshot(path=str(timed_lab.root.parent / "finished.png"))
