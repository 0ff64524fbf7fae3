"""A study in the lab, through the UI only: a `?cibench-study=ID` link opens the panel on it, the
participant enters their code, answers the questionnaire (each error shows under its field, all at once) and
accepts the consent, starts the first task, and the study view says where they are; a reload
reopens the panel on that study view."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

from .axe import axe_violations
from .lab import TOKEN
from .lab import configured_lab as start_lab
from .test_lab_play import open_panel
from .test_play_cells import wait_until
from .test_play_panel import use_theme

STUDY = """
id = "pilot"
title = "Pilot study"
protocol = "model-parity"
consent = '''
We record the code you run, its outputs and your working time.

You may stop at any time.
'''
participant_code = true
tasks = [
  { task = "cibench_template/pandas/tips_ratio_by_group" },
  { task = "cibench_template/scipy/tips_hypothesis_tests" },
]

[[questionnaire]]
name = "expertise"
label = "Your Python expertise"
type = "choice"
choices = ["beginner", "intermediate", "expert"]
required = true

[[questionnaire]]
name = "years"
label = "Years of Python"
type = "number"
min = 0
"""


@pytest.fixture
def study_lab(tmp_path):
    path = tmp_path / "pilot.toml"
    path.write_text(STUDY)
    server = start_lab(tmp_path, {"study_files": [str(path)]})
    yield server
    server.kill()


def no_severe_violations(page: Page, where: str) -> None:
    found = axe_violations(page, ["#cibench-lab-panel"])
    assert not found, f"{where}: {found}"


def test_a_participant_consents_and_starts_the_first_task(page: Page, study_lab):
    page.goto(f"{study_lab.url}/lab?cibench-study=pilot&token={TOKEN}")
    view = page.locator(".jp-CIBench-studyView")
    expect(view.locator(".jp-CIBench-studyTitle")).to_have_text("Pilot study", timeout=60_000)
    form = view.get_by_role("form", name="Consent")
    expect(form).to_contain_text("You may stop at any time.")
    expect(form).to_contain_text("a model's step ends at its first run without an error")
    no_severe_violations(page, "JupyterLab Light: consent form")
    expect(page.locator(".jp-Launcher")).to_be_visible()  # the lab opened its launcher (and its focus) first

    # sent empty: every field's error at once, each under its field, the focus on the first
    form.get_by_role("button", name="Accept and continue").click()
    code = form.get_by_label("Your participant code")
    accept = form.get_by_label("I have read the text above and agree to take part")
    expertise = form.get_by_label("Your Python expertise (required)")
    for field in (code, expertise, accept):
        expect(field).to_have_attribute("aria-invalid", "true")
    expect(accept).to_have_accessible_description("the consent must be accepted to take part")
    expect(code).to_be_focused()

    code.fill("P01")
    form.get_by_label("Years of Python").fill("4")
    accept.check()
    form.get_by_role("button", name="Accept and continue").click()
    expect(code).not_to_have_attribute("aria-invalid", "true")
    expect(expertise).to_have_attribute("aria-invalid", "true")
    expect(expertise).to_have_accessible_description("required")
    expect(expertise).to_be_focused()

    expertise.select_option("intermediate")
    form.get_by_label("Years of Python").press("Enter")  # the keyboard submits the form
    now = view.get_by_role("status")
    expect(now).to_have_text("Task 1 of 2 · next")
    expect(view.locator(".jp-CIBench-participant")).to_have_text("Participant: P01")

    view.get_by_role("button", name="Start next task").click()
    page.wait_for_selector(".jp-NotebookPanel .jp-CIBench-answer", timeout=60_000)
    expect(page.locator(".jp-CIBench-attempt-title")).to_contain_text("Tipping habits by day and smoking")
    expect(page.locator(".jp-CIBench-panel")).to_have_attribute("aria-busy", "false")  # opened and shown
    page.locator(".jp-CIBench-attemptView .jp-CIBench-back").click()
    page.locator('.jp-CIBench-studies [data-study="pilot"]').click()
    expect(now).to_have_text("Task 1 of 2 · in progress")
    expect(view.locator('.jp-CIBench-planItem[data-status="open"]')).to_contain_text(
        re.compile(r"in progress · \d")
    )
    expect(view.get_by_role("button", name="Quit task")).to_be_visible()
    use_theme(page, "JupyterLab Dark")
    expect(now).to_be_visible()
    no_severe_violations(page, "JupyterLab Dark: study in progress")


def saved_panel(page: Page, url: str) -> dict:
    """The panel's state as the lab last saved it in its workspace (what a reload reads)."""
    answer = page.request.get(f"{url}/lab/api/workspaces/default?token={TOKEN}")
    return answer.json().get("data", {}).get("cibench-lab:panel") or {} if answer.ok else {}


def test_a_reload_reopens_the_study_view_the_participant_was_in(page: Page, study_lab):
    """Opened from the study list (no link in the address, which would reopen it on its own)."""
    page.goto(f"{study_lab.url}/lab?token={TOKEN}")
    page.wait_for_selector(".jp-LabShell")
    open_panel(page)
    page.locator('.jp-CIBench-studies [data-study="pilot"]').click()
    view = page.locator(".jp-CIBench-studyView")
    form = view.get_by_role("form", name="Consent")
    form.get_by_label("Your participant code").fill("P02")
    form.get_by_label("Your Python expertise (required)").select_option("expert")
    form.get_by_label("I have read the text above and agree to take part").check()
    form.get_by_role("button", name="Accept and continue").click()
    now = view.get_by_role("status")
    expect(now).to_have_text("Task 1 of 2 · next")
    view.get_by_role("button", name="Start next task").click()
    page.wait_for_selector(".jp-NotebookPanel .jp-CIBench-answer", timeout=60_000)
    expect(page.locator(".jp-CIBench-panel")).to_have_attribute("aria-busy", "false")
    page.locator(".jp-CIBench-attemptView .jp-CIBench-back").click()
    page.locator('.jp-CIBench-studies [data-study="pilot"]').click()
    expect(now).to_have_text("Task 1 of 2 · in progress")
    expect(page.locator(".jp-NotebookPanel .jp-CIBench-answer")).to_be_visible()  # its notebook stays open
    wait_until(lambda: saved_panel(page, study_lab.url).get("study") == "pilot")  # the workspace saved it

    page.on("dialog", lambda d: d.accept())  # "Leave site?" if anything were unsaved
    page.reload()
    page.wait_for_selector(".jp-LabShell")
    expect(view.locator(".jp-CIBench-studyTitle")).to_have_text("Pilot study", timeout=60_000)
    expect(now).to_have_text("Task 1 of 2 · in progress")
    expect(view.locator(".jp-CIBench-participant")).to_have_text("Participant: P02")
    expect(page.locator(".jp-CIBench-attemptView")).to_be_hidden()
    expect(page.locator(".jp-CIBench-tasksView")).to_be_hidden()


def test_a_quit_task_is_counted_as_quit_and_reopens_read_only_with_no_kernel(page: Page, study_lab):
    page.goto(f"{study_lab.url}/lab?cibench-study=pilot&token={TOKEN}")
    view = page.locator(".jp-CIBench-studyView")
    form = view.get_by_role("form", name="Consent")
    form.get_by_label("Your participant code").fill("P03", timeout=60_000)
    form.get_by_label("Your Python expertise (required)").select_option("beginner")
    form.get_by_label("I have read the text above and agree to take part").check()
    form.get_by_role("button", name="Accept and continue").click()
    view.get_by_role("button", name="Start next task").click()
    page.wait_for_selector(".jp-NotebookPanel .jp-CIBench-answer", timeout=60_000)
    expect(page.locator(".jp-CIBench-panel")).to_have_attribute("aria-busy", "false")
    page.locator(".jp-CIBench-attemptView .jp-CIBench-back").click()
    page.locator('.jp-CIBench-studies [data-study="pilot"]').click()
    view.get_by_role("button", name="Quit task").click()
    page.locator(".jp-Dialog").get_by_role("button", name="Quit task").click()
    expect(view.get_by_role("status")).to_have_text("Task 2 of 2 · next · 0 of 2 finished, 1 quit")
    listed = page.locator('.jp-CIBench-studies [data-study="pilot"]')
    expect(listed).to_contain_text("0 of 2 finished, 1 quit")

    view.locator(".jp-CIBench-back").click()  # the task list: the quit attempt under "My attempts"
    attempts = page.locator(".jp-CIBench-attempts")
    if attempts.get_attribute("open") is None:
        attempts.locator(".jp-CIBench-attempts-summary").click()
    attempts.locator(".jp-CIBench-attempt-quit .jp-CIBench-review").click()
    notebook = page.locator(".jp-NotebookPanel:visible")
    note = notebook.locator(".jp-CIBench-closedNote")
    expect(note).to_have_text("This attempt was quit — read only", timeout=60_000)
    answer = notebook.locator('.jp-CIBench-answer[data-step="0"]')
    editor = answer.locator(".cm-content")
    expect(editor).to_have_attribute("aria-readonly", "true")
    before = editor.inner_text()
    editor.click()
    page.keyboard.insert_text("x = 1  # typed")
    expect(editor).to_have_text(before)  # read only: nothing typed lands
    expect(page.locator(".jp-CIBench-counter")).to_have_text("Quit at step 1 of 14")
    rows = page.locator(".jp-CIBench-times tbody tr")
    expect(rows).to_have_count(14)  # the step it left, then the ones never played
    expect(rows.first).to_contain_text("quit")
    expect(rows.last).to_contain_text("not played")
    answer.click()
    page.keyboard.press("Control+Enter")  # runs nothing, asks for no kernel
    expect(answer.locator(".jp-CIBench-badge")).to_have_text("not graded (attempt quit)")
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    path = page.locator(".jp-CIBench-notebookState").get_attribute("title")
    sessions = lambda: page.request.get(f"{study_lab.url}/api/sessions?token={TOKEN}").json()  # noqa: E731
    time.sleep(3)  # a kernel JupyterLab might have started on it would be stopped by now
    assert all(s["path"] != path for s in sessions()), sessions()
