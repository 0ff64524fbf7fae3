"""A study on a shared lab machine, through the UI only.

The seat: the organiser (the server's own user) played a task of their own to its end — its finished
notebook, references revealed, open in front — and has a file of notes open; a participant signs in with
their code at the consent: nothing of the organiser's stays open, the panel shows none of it, and after a
reload no message names another person's attempt; after Quit no notebook of the organiser's comes to the
front; Hand over leaves nothing of the participant's open for the next one.

The way on: when a study task ends the attempt view offers "Start next task" (one click to it) and "Back to
the study", and the study list's count follows what ended (after Refresh too)."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from playwright.sync_api import Page, expect

from .lab import TOKEN
from .lab import configured_lab as start_lab
from .test_lab_play import badge, open_lab, open_panel, press_next, run_in_cell, settle_pending, start_task
from .test_play_cells import wait_until
from .test_play_time import write_clock_task
from .test_study_ui import saved_panel

STUDY = """
id = "seat"
title = "Seat study"
protocol = "practice"
consent = "We record the code you run and your working time."
participant_code = true
tasks = [
  { task = "cibench_template/pandas/study_one" },
  { task = "cibench_template/pandas/study_two" },
]
"""
NOTES = "organiser-notes.md"
BAR = ".jp-CIBench-actionBar"


def write_one_step_task(root: Path, name: str, title: str) -> None:
    """A task of one exec step: `x = 1`."""
    nb = new_notebook(cells=[new_markdown_cell("Make a variable `x` holding 1."), new_code_cell("x = 1")])
    nb.metadata["step_types"] = ["exec"]
    nb.metadata["cibench_lab"] = {"schema_version": 1, "title": title, "language": "en"}
    nbformat.write(nb, str(root / "cibench_template" / "pandas" / f"{name}.ipynb"))


@pytest.fixture
def seat_lab(tmp_path):
    tasks = tmp_path / "tasks"
    write_clock_task(tasks)  # the organiser's own task: "Clock probe", two steps
    write_one_step_task(tasks, "study_one", "Study task one")
    write_one_step_task(tasks, "study_two", "Study task two")
    study = tmp_path / "seat.toml"
    study.write_text(STUDY)
    server = start_lab(tmp_path, {"task_dirs": [str(tasks)], "study_files": [str(study)]})
    (server.root / NOTES).write_text("# Organiser's notes\n\nP01 at 10:00, P02 at 11:00\n")
    yield server
    server.kill()


def sign_in(page: Page, code: str) -> None:
    """The study view's consent form: the code, the consent, accepted."""
    form = page.locator(".jp-CIBench-studyView").get_by_role("form", name="Consent")
    form.get_by_label("Your participant code").fill(code, timeout=60_000)
    form.get_by_label("I have read the text above and agree to take part").check()
    form.get_by_role("button", name="Accept and continue").click()
    expect(page.locator(".jp-CIBench-participant")).to_have_text(f"Participant: {code}")


def main_tabs(page: Page) -> list[str]:
    """The labels of the main area's tabs."""
    return page.locator("#jp-main-dock-panel .lm-TabBar-tab .lm-TabBar-tabLabel").all_inner_texts()


def nothing_of_another(page: Page, shot: Path | None = None) -> None:
    """No notebook and no document open but the launcher's; no error line; the panel shows no attempt."""
    expect(page.locator(".jp-NotebookPanel")).to_have_count(0)
    expect(page.locator(".jp-FileEditor")).to_have_count(0)
    assert all(label in ("Launcher", "") for label in main_tabs(page)), main_tabs(page)
    expect(page.locator(".jp-CIBench-error")).to_be_hidden()
    if shot:
        page.screenshot(path=str(shot))
    assert "another participant" not in page.locator("body").inner_text()


def organiser_finishes_a_task(page: Page) -> None:
    """The organiser plays "Clock probe" to its end (step 2 given up: its reference revealed), then opens
    their notes from the file browser."""
    open_panel(page)
    start_task(page, "clock_probe", "end-to-end")
    run_in_cell(page, 0, "x = 1")
    expect(badge(page, 0)).to_contain_text("ran without error", timeout=60_000)
    press_next(page)
    page.locator(f"{BAR} .jp-CIBench-giveup").click()
    settle_pending(page)
    notebook = page.locator(".jp-NotebookPanel:visible")
    expect(notebook.locator(".jp-CIBench-closedNote")).to_have_text("This attempt is finished — read only")
    page.locator('.jp-SideBar .lm-TabBar-tab[data-id="filebrowser"]').click()
    page.locator(".jp-DirListing-item", has_text=NOTES).dblclick()
    expect(page.locator(".jp-FileEditor:visible")).to_contain_text("P01 at 10:00")
    page.locator('.jp-SideBar .lm-TabBar-tab[data-id="cibench-lab-panel"]').click()
    page.locator(".jp-CIBench-attemptView .jp-CIBench-back").click()  # All tasks: the study list


def browse_into_the_attempts(page: Page) -> None:
    """The organiser's file browser left in their attempt's folder."""
    page.locator('.jp-SideBar .lm-TabBar-tab[data-id="filebrowser"]').click()
    browser = page.locator(".jp-FileBrowser")
    browser.locator(".jp-BreadCrumbs-home").click()
    browser.locator(".jp-DirListing-item", has_text="cibench-attempts").dblclick()
    browser.locator(".jp-DirListing-item", has_text="clock_probe").dblclick()
    expect(browser.locator(".jp-BreadCrumbs")).to_contain_text("cibench-attempts")
    page.locator('.jp-SideBar .lm-TabBar-tab[data-id="cibench-lab-panel"]').click()


def open_by_hand(page: Page) -> None:
    """Open the organiser's finished notebook from the file browser (the attempts folder)."""
    page.locator('.jp-SideBar .lm-TabBar-tab[data-id="filebrowser"]').click()
    browser = page.locator(".jp-FileBrowser")
    browser.locator(".jp-BreadCrumbs-home").click()
    browser.locator(".jp-DirListing-item", has_text="cibench-attempts").dblclick()
    browser.locator(".jp-DirListing-item", has_text="clock_probe").dblclick()
    page.evaluate(SEEN_NOTEBOOK)
    browser.locator(".jp-DirListing-item", has_text=".ipynb").dblclick()
    page.wait_for_function("window.cibenchSeenNotebook")  # it opened (then closes: its attempt is refused)
    page.locator('.jp-SideBar .lm-TabBar-tab[data-id="cibench-lab-panel"]').click()


#: notes in the page whether a notebook was ever shown (one may open and close between two looks)
SEEN_NOTEBOOK = """() => {
  window.cibenchSeenNotebook = false;
  const seen = () => { window.cibenchSeenNotebook ||= !!document.querySelector('.jp-NotebookPanel'); };
  new MutationObserver(seen).observe(document.body, { childList: true, subtree: true });
}"""


def test_a_participant_signing_in_sees_nothing_of_the_organisers(page: Page, seat_lab, tmp_path):
    open_lab(page, seat_lab.url)
    organiser_finishes_a_task(page)
    browse_into_the_attempts(page)
    page.screenshot(path=str(tmp_path / "6-organiser.png"))
    page.locator('.jp-CIBench-studies [data-study="seat"]').click()
    sign_in(page, "P01")
    nothing_of_another(page, tmp_path / "6-signed-in.png")
    # the file browser is back at the top, not in the organiser's attempt folder
    expect(page.locator(".jp-FileBrowser .jp-BreadCrumbs")).not_to_contain_text("cibench-attempts")
    expect(page.locator(".jp-CIBench-studyView")).to_be_visible()
    expect(page.locator(".jp-CIBench-attempts li.jp-CIBench-attempt")).to_have_count(0)  # P01 has none yet

    wait_until(lambda: saved_panel(page, seat_lab.url).get("study") == "seat")  # the workspace saved it
    page.on("dialog", lambda d: d.accept())
    page.reload()
    page.wait_for_selector(".jp-LabShell")
    expect(page.locator(".jp-CIBench-participant")).to_have_text("Participant: P01", timeout=60_000)
    nothing_of_another(page, tmp_path / "6-reloaded.png")
    open_by_hand(page)  # the organiser's notebook, from the file browser: it does not stay open
    nothing_of_another(page)

    view = page.locator(".jp-CIBench-studyView")
    view.get_by_role("button", name="Start next task").click()
    page.wait_for_selector(".jp-NotebookPanel .jp-CIBench-answer", timeout=60_000)
    expect(page.locator(".jp-CIBench-panel")).to_have_attribute("aria-busy", "false")
    page.locator(".jp-CIBench-attemptView .jp-CIBench-back").click()
    page.locator('.jp-CIBench-studies [data-study="seat"]').click()
    view.get_by_role("button", name="Quit task").click()
    page.locator(".jp-Dialog").get_by_role("button", name="Quit task").click()
    expect(view.get_by_role("status")).to_have_text("Task 2 of 2 · next · 0 of 2 finished, 1 quit")
    nothing_of_another(page, tmp_path / "6-quit.png")  # the organiser's notebook does not come to the front

    view.get_by_role("button", name="Start next task").click()  # P01's notebook open, then Hand over
    page.wait_for_selector(".jp-NotebookPanel .jp-CIBench-answer", timeout=60_000)
    expect(page.locator(".jp-CIBench-panel")).to_have_attribute("aria-busy", "false")
    page.locator(".jp-CIBench-attemptView .jp-CIBench-back").click()
    page.locator('.jp-CIBench-studies [data-study="seat"]').click()
    view.get_by_role("button", name="Hand over").click()
    expect(view.get_by_role("form", name="Consent")).to_be_visible()
    sign_in(page, "P02")
    nothing_of_another(page)
    expect(view.get_by_role("status")).to_have_text("Task 1 of 2 · next")


def test_a_finished_study_task_leads_to_the_next_and_the_counts_follow(page: Page, seat_lab, tmp_path):
    page.goto(f"{seat_lab.url}/lab?cibench-study=seat&token={TOKEN}")
    sign_in(page, "P03")
    view = page.locator(".jp-CIBench-studyView")
    view.get_by_role("button", name="Start next task").click()
    page.wait_for_selector(".jp-NotebookPanel .jp-CIBench-answer", timeout=60_000)
    run_in_cell(page, 0, "x = 1")
    expect(badge(page, 0)).to_contain_text("ran without error", timeout=60_000)
    press_next(page)
    attempt = page.locator(".jp-CIBench-attemptView")
    expect(page.locator(f"{BAR} .jp-CIBench-counter")).to_have_text("Finished")
    way_on = attempt.get_by_role("region", name="Seat study")
    expect(way_on).to_contain_text("Task 1 of 2 ended · 1 of 2 finished")
    expect(way_on.get_by_role("button", name="Back to the study")).to_be_visible()
    page.screenshot(path=str(tmp_path / "7-finished.png"))

    attempt.locator(".jp-CIBench-back", has_text="All tasks").click()
    listed = page.locator('.jp-CIBench-studies [data-study="seat"]')
    expect(listed).to_contain_text("1 of 2 finished")
    page.screenshot(path=str(tmp_path / "7-all-tasks.png"))
    page.locator(".jp-CIBench-refresh").click()
    expect(page.locator(".jp-CIBench-panel")).to_have_attribute("aria-busy", "false")
    expect(listed).to_contain_text("1 of 2 finished")

    attempts = page.locator(".jp-CIBench-attempts")
    if attempts.get_attribute("open") is None:
        attempts.locator(".jp-CIBench-attempts-summary").click()
    attempts.locator(".jp-CIBench-review").first.click()  # the finished attempt again
    way_on.get_by_role("button", name="Start next task").click()  # one click to the next task
    expect(attempt.locator(".jp-CIBench-attempt-title")).to_have_text("Study task two", timeout=60_000)
    expect(page.locator(".jp-NotebookPanel:visible .jp-CIBench-answer")).to_be_visible(timeout=60_000)
    expect(page.locator(".jp-NotebookPanel:visible .jp-CIBench-closedNote")).to_have_count(0)
    expect(way_on).to_be_hidden()  # nothing to go on to while the task is played
    expect(listed).to_contain_text(re.compile(r"task 2 of 2 in progress · 1 of 2 finished"))

    page.locator(f"{BAR} .jp-CIBench-giveup").click()
    settle_pending(page)
    expect(way_on).to_contain_text("All 2 tasks ended · 2 of 2 finished")
    expect(way_on.get_by_role("button", name="Start next task")).to_have_count(0)
    way_on.get_by_role("button", name="Back to the study").click()
    expect(view.get_by_role("status")).to_have_text("All 2 tasks ended · 2 of 2 finished")
    expect(listed).to_contain_text("finished: 2 of 2")
