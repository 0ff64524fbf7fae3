"""A person's play across a reload and after Next, driven only through the UI: the graded code is
on disk (the notebook is saved after each reported run), an empty run says there is nothing to
grade, and the new step's answer cell is fully in view after the oracle's reference."""

from __future__ import annotations

import re
import time

from playwright.sync_api import Page, expect

from cibench_lab.tasks.library import TaskLibrary, builtin_dir

from .test_lab_play import (
    answer_cell,
    badge,
    open_lab,
    open_panel,
    oracle_cell,
    press_next,
    run_in_cell,
    start_task,
)
from .test_resume_ui import reopen_attempt

PENGUINS = "cibench_template/pandas/penguins_raw_tidy"


def steps_of(task_id: str) -> list[str]:
    return [s.code for s in TaskLibrary.load([builtin_dir()]).get(task_id).steps]


def test_a_reload_keeps_the_graded_code_and_an_empty_run_says_so(page: Page, lab_server):
    open_lab(page, lab_server.url)
    open_panel(page)
    start_task(page, "penguins_raw_tidy", "end-to-end")
    code = steps_of(PENGUINS)[0]
    run_in_cell(page, 0, code)
    expect(badge(page, 0)).to_have_class(re.compile("jp-CIBench-badge-pass"), timeout=60_000)
    expect(page.locator(".lm-TabBar-tab.jp-mod-dirty")).to_have_count(0, timeout=30_000)
    page.on("dialog", lambda d: d.accept())  # "Leave site?" if anything were unsaved
    page.reload()
    page.wait_for_selector(".jp-LabShell")
    reopen_attempt(page, answer_cell(page, 0))
    expect(answer_cell(page, 0).locator(".cm-content")).to_contain_text(code.splitlines()[0], timeout=30_000)
    expect(badge(page, 0)).to_have_attribute("data-state", "final", timeout=30_000)
    expect(badge(page, 0)).to_have_class(re.compile("jp-CIBench-badge-pass"))
    run_in_cell(page, 0, "")
    expect(badge(page, 0)).to_have_text("empty cell — nothing to grade")
    expect(badge(page, 0)).to_have_attribute("data-state", "note")


def in_view(page: Page, cell) -> bool:
    """Whether the cell's box lies inside the visible notebook's scrolled viewport."""
    box = cell.bounding_box()
    view = page.locator(".jp-NotebookPanel:visible .jp-WindowedPanel-outer").bounding_box()
    if not box or not view:
        return False
    return box["y"] >= view["y"] - 1 and box["y"] + box["height"] <= view["y"] + view["height"] + 1


def test_after_next_in_oracle_mode_the_answer_cell_is_in_view(page: Page, lab_server):
    open_lab(page, lab_server.url)
    open_panel(page)
    page.set_viewport_size({"width": 1100, "height": 560})  # the new step starts below the fold
    start_task(page, "penguins_raw_tidy", "oracle")
    run_in_cell(page, 0, "raw = None  # not what was asked")
    expect(badge(page, 0)).to_have_attribute("data-state", "final", timeout=60_000)
    press_next(page)
    expect(oracle_cell(page, 0)).to_be_visible(timeout=60_000)
    answer = answer_cell(page, 1)
    expect(answer.locator(".cm-content")).to_be_focused(timeout=30_000)
    deadline = time.monotonic() + 10  # the scroll follows the cell's layout by a frame
    while not in_view(page, answer) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert in_view(page, answer), (answer.bounding_box(), page.viewport_size)
