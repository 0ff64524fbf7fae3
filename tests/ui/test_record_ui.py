"""The participant record in the lab, driven through the UI only: a run of the step's cell and of
a scratch cell, Pause (button), Resume (palette command), a note, Next step; the REST API is read
after — the pause interval, the working time net of it, the note, and both runs in the trace."""

from __future__ import annotations

import datetime as dt
import re
import time

import pytest
from playwright.sync_api import Page, expect

from cibench_lab.tasks.library import builtin_dir

from .axe import axe_violations
from .lab import configured_lab
from .test_lab_play import answer_cell, badge, open_lab, open_panel, press_next, run_in_cell, start_task
from .test_play_panel import run_command, use_theme
from .test_play_time import get, until, write_clock_task

BAR = ".jp-CIBench-actionBar"
PAUSED = 3  # seconds the clock is paused, at least
NOTE = "tried a scratch sum first"


@pytest.fixture
def record_lab(tmp_path):
    tasks = tmp_path / "tasks"
    write_clock_task(tasks)
    server = configured_lab(tmp_path, {"task_dirs": [str(builtin_dir()), str(tasks)]})
    yield server
    server.kill()


def run_scratch_cell(page: Page, code: str) -> None:
    """A new cell below step 1's answer cell (command mode, B), typed and run."""
    answer_cell(page, 0).locator(".cm-content").click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    scratch = page.locator(".jp-NotebookPanel:visible .jp-Cell.jp-mod-selected")
    expect(scratch).not_to_have_class(re.compile("jp-CIBench-answer"))
    page.keyboard.press("Enter")
    page.keyboard.insert_text(code)
    page.keyboard.press("Control+Enter")
    expect(scratch.locator(".jp-InputArea-prompt")).to_have_text(re.compile(r"\[\d+\]"))


def seconds(iso: str) -> float:
    return dt.datetime.fromisoformat(iso.removesuffix("Z")).timestamp()


def no_severe_violations(page: Page, where: str) -> None:
    found = axe_violations(page, ["#cibench-lab-panel"])
    assert not found, f"{where}: {found}"


def test_pause_note_and_trace_are_recorded(page: Page, record_lab):
    open_lab(page, record_lab.url)
    open_panel(page)
    start_task(page, "clock_probe", "end-to-end")
    attempt_id = get(page, "/cibench-lab/api/attempts")[0]["id"]
    view_path = f"/cibench-lab/api/attempts/{attempt_id}"
    run_in_cell(page, 0, "x = 1")
    expect(badge(page, 0)).to_have_text(re.compile("ran without error"), timeout=60_000)
    run_scratch_cell(page, "scratch = x + 41")

    page.locator(f"{BAR} .jp-CIBench-pause").click()
    paused_at = time.monotonic()
    state = page.locator(f"{BAR} .jp-CIBench-clock-paused")
    expect(state).to_contain_text("Clock paused: this time does not count")
    no_severe_violations(page, "light theme, paused")
    use_theme(page, "JupyterLab Dark")
    expect(state).to_be_visible()
    no_severe_violations(page, "dark theme, paused")
    page.screenshot(path=str(record_lab.root.parent / "paused-dark.png"))
    page.wait_for_timeout(max(0.0, PAUSED - (time.monotonic() - paused_at)) * 1000)
    run_command(page, "CIBench: Resume Working Clock")
    expect(page.locator(f"{BAR} .jp-CIBench-clock")).to_have_text("Clock running")

    note = page.get_by_label("Note on Step 1")
    note.fill(NOTE)
    note.press("Tab")  # leaving the box saves it
    expect(page.locator(".jp-CIBench-note-status")).to_have_text("Saved")
    press_next(page)
    expect(answer_cell(page, 1)).to_be_visible()

    view = get(page, view_path)
    (pause,) = view["pauses"]
    assert pause["cause"] == "button" and pause["resumed_by"] == "command" and pause["step"] == 0, pause
    paused = seconds(pause["end"]) - seconds(pause["start"])
    step = view["steps"][0]
    assert paused >= PAUSED - 0.5, pause
    assert abs(step["seconds"] - step["working_seconds"] - paused) <= 2, (step, paused)
    assert step["note"] == NOTE and step["first_run_at"] is not None, step
    trace_path = f"{view_path}/trace"
    until(lambda: len(get(page, trace_path)["runs"]) >= 2, "both runs traced")
    trace = get(page, trace_path)
    runs = {r["code"]: r for r in trace["runs"]}
    assert runs["x = 1"]["graded"] is True and runs["x = 1"]["turn"] == 0, runs
    assert runs["scratch = x + 41"]["graded"] is False and runs["scratch = x + 41"]["cell_id"], runs
    assert runs["x = 1"]["cell_id"] != runs["scratch = x + 41"]["cell_id"]
    assert {e["cell_id"] for e in trace["edits"]} <= {r["cell_id"] for r in trace["runs"]}, trace
    assert sum(e["count"] for e in trace["edits"]) >= 2, trace  # the answer cell and the scratch cell
    expect(page.locator(".jp-CIBench-step-note")).to_have_text(f"Note: {NOTE}")
    page.screenshot(path=str(record_lab.root.parent / "record.png"))
