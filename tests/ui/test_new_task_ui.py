""" "Make a CIBench Task from This Notebook", by keyboard from the command palette: the teacher's
(an instructor's) open notebook is checked, its steps' kinds shown in a dialog, the task made and
listed; a participant is not offered the command, in the palette or the notebook's menu."""

from __future__ import annotations

import nbformat
from newtask import GOOD, write_solution
from playwright.sync_api import Page, expect

from .axe import axe_violations
from .lab import TOKEN, configured_lab
from .test_lab_play import open_panel
from .test_play_panel import api, open_palette

TASK_ID = "classroom/pandas/bills_week"
TEACHER = {"participant": "teach", "instructors": ["teach"]}


def test_a_teachers_notebook_becomes_a_task_from_the_palette(page: Page, tmp_path):
    lab = configured_lab(tmp_path, {"new_tasks_dir": str(tmp_path / "made"), **TEACHER})
    try:
        nb = write_solution(lab.root / "teacher", GOOD)
        solution = nbformat.read(str(nb), as_version=4)
        solution.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
        nbformat.write(solution, str(nb))
        page.goto(f"{lab.url}/lab/tree/teacher/bills_week.ipynb?token={TOKEN}")
        expect(page.locator(".jp-NotebookPanel .jp-Cell")).to_have_count(9, timeout=60_000)
        page.locator(".jp-NotebookPanel .jp-Cell").first.click()

        open_palette(page)
        page.keyboard.insert_text("Make a CIBench Task")
        expect(page.locator(".lm-CommandPalette-item.lm-mod-active")).to_contain_text(
            "Make a CIBench Task from This Notebook"
        )
        page.keyboard.press("Enter")
        dialog = page.locator(".jp-Dialog")
        expect(dialog).to_contain_text(f"Make the task {TASK_ID}?", timeout=120_000)
        rows = dialog.locator(".jp-CIBench-newTaskSteps tbody tr")
        expect(rows).to_have_count(4)
        kinds = [rows.nth(i).locator("td").nth(2).inner_text() for i in range(4)]
        assert kinds == ["exec", "num", "text", "vis"]
        expect(rows.nth(2).locator("td").nth(3)).to_have_text("tagged")
        found = axe_violations(page, [".jp-Dialog"])
        assert not found, found
        make = dialog.get_by_role("button", name="Make the task")
        expect(make).to_be_focused()  # the default button: Enter makes the task
        page.keyboard.press("Enter")
        expect(dialog).to_contain_text(f"Made the task {TASK_ID}", timeout=120_000)
        expect(dialog).to_contain_text("it is in the task list")
        page.keyboard.press("Enter")
        expect(dialog).to_have_count(0)

        assert (tmp_path / "made" / f"{TASK_ID}.ipynb").is_file()
        assert TASK_ID in [t["id"] for t in api(page, "tasks")]
        open_panel(page)
        page.locator(".jp-CIBench-filter").fill("bills")
        expect(page.locator(f'.jp-CIBench-task[data-task-id="{TASK_ID}"]')).to_contain_text("Bills by day")
    finally:
        lab.kill()


def test_a_participant_is_not_offered_the_command(page: Page, tmp_path):
    lab = configured_lab(tmp_path, {"new_tasks_dir": str(tmp_path / "made"), "participant": "ada"})
    try:
        write_solution(lab.root / "mine", GOOD)
        page.goto(f"{lab.url}/lab/tree/mine/bills_week.ipynb?token={TOKEN}")
        expect(page.locator(".jp-NotebookPanel .jp-Cell")).to_have_count(9, timeout=60_000)
        assert api(page, "me")["roles"] == ["participant"]
        open_palette(page)
        page.keyboard.insert_text("CIBench")
        items = page.locator(".lm-CommandPalette-item")
        expect(items.first).to_be_visible()  # the palette lists the other CIBench commands
        expect(page.locator(".lm-CommandPalette-content")).not_to_contain_text("Make a CIBench Task")
        page.keyboard.press("Escape")
        page.locator(".jp-NotebookPanel .jp-Cell").first.click(button="right")
        menu = page.locator(".lm-Menu").first
        expect(menu.get_by_role("menuitem", name="Show Log Console")).to_be_visible()
        # the menu keeps a hidden item in its DOM: what counts is that none is shown
        expect(menu.get_by_role("menuitem", name="Make a CIBench Task from This Notebook")).to_have_count(0)
    finally:
        lab.kill()
