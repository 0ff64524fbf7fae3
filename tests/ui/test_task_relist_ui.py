"""The panel reads the task list again on its own (src/panel/relist.ts): a task written into a
served task folder while a student's lab is open shows in their panel's list without Refresh,
within `taskListPoll` seconds (10 by default; the server rescans at most every 3 s), the filter's
text and the focus kept; another one, later, keeps the selected task selected and focused (the
window regaining the focus asks too; src/__tests__/relist.spec.ts checks that path alone)."""

from __future__ import annotations

import json

import pytest
from conftest import write_probe_task
from playwright.sync_api import Page, expect

from .lab import configured_lab as start_lab
from .test_lab_play import open_lab, open_panel

NEW_ID = "classroom/pandas/bills_week"


def write_task(root, task_id: str, title: str) -> None:
    """A teacher's new task: the probe notebook under another id and title (written whole)."""
    probe = json.loads((root / "cibench_template" / "pandas" / "leak_probe.ipynb").read_text())
    probe["metadata"]["cibench_lab"]["title"] = title
    path = root / f"{task_id}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.tmp")
    partial.write_text(json.dumps(probe), encoding="utf-8")
    partial.replace(path)


@pytest.fixture
def task_lab(tmp_path):
    root = tmp_path / "tasks"
    write_probe_task(root)
    server = start_lab(tmp_path, {"task_dirs": [str(root)]})
    yield server, root
    server.kill()


def test_a_new_task_shows_in_the_open_list_without_refresh(page: Page, task_lab):
    server, root = task_lab
    open_lab(page, server.url)
    open_panel(page)
    rows = page.locator(".jp-CIBench-panel button.jp-CIBench-task")
    expect(rows).to_have_count(1)
    filter_box = page.locator(".jp-CIBench-filter")
    filter_box.fill("bills")
    expect(page.locator(".jp-CIBench-tasklist")).to_contain_text("No task matches the filter.")
    filter_box.focus()

    write_task(root, NEW_ID, "Bills of the week")
    new_row = page.locator(f".jp-CIBench-panel button[data-task-id='{NEW_ID}']")
    expect(new_row).to_be_visible(timeout=30_000)  # no Refresh pressed
    expect(new_row).to_contain_text("Bills of the week")
    expect(filter_box).to_have_value("bills")
    expect(filter_box).to_be_focused()

    filter_box.fill("")
    new_row.click()  # selected, and the focus on it
    expect(new_row).to_have_attribute("aria-pressed", "true")
    write_task(root, "classroom/pandas/rent_month", "Rent of the month")
    page.evaluate("() => window.dispatchEvent(new Event('focus'))")  # the student comes back
    expect(rows).to_have_count(3, timeout=30_000)
    expect(new_row).to_have_attribute("aria-pressed", "true")
    expect(new_row).to_be_focused()
