"""kill -9 the server mid-attempt, start it again: the attempt goes on, grades and kernel state kept."""

from __future__ import annotations

import re
import signal

from playwright.sync_api import Page, expect

from .test_lab_play import (
    EXPECTED_BADGE,
    answer_cell,
    badge,
    open_lab,
    open_panel,
    reference_steps,
    run_in_cell,
    start_task,
)


def test_attempt_survives_kill_9(page: Page, lab_server):
    open_lab(page, lab_server.url)
    open_panel(page)
    start_task(page, "penguins_raw_tidy", "end-to-end")
    steps = reference_steps()
    for index in range(3):
        kind, code = steps[index]
        run_in_cell(page, index, code)
        expect(badge(page, index)).to_have_text(re.compile(EXPECTED_BADGE[kind]), timeout=60_000)
        page.locator(".jp-CIBench-next").click()
        expect(answer_cell(page, index + 1)).to_be_visible()

    lab_server.kill(signal.SIGKILL)
    lab_server.start()
    page.reload()
    page.wait_for_selector(".jp-LabShell")
    cell = answer_cell(page, 3)
    if not cell.is_visible():  # the layout was not restored: resume from the panel
        open_panel(page)
        page.locator(".jp-CIBench-resume").first.click()
    expect(answer_cell(page, 3)).to_be_visible(timeout=30_000)
    expect(page.locator(".jp-CIBench-step")).to_have_count(4, timeout=30_000)
    # the notebook says when the server has restored the kernel's state
    expect(page.locator('.jp-NotebookPanel:visible[data-cibench-kernel="ready"]')).to_have_count(
        1, timeout=60_000
    )
    # the step's reference only passes if df/raw were rebuilt on the new kernel
    kind, code = steps[3]
    run_in_cell(page, 3, code)
    expect(badge(page, 3)).to_have_text(re.compile(EXPECTED_BADGE[kind]), timeout=60_000)
    page.locator(".jp-CIBench-next").click()
    kind, code = steps[4]
    run_in_cell(page, 4, code)
    expect(badge(page, 4)).to_have_text(re.compile(EXPECTED_BADGE[kind]), timeout=60_000)
    grades = page.locator(".jp-CIBench-step")
    for index in range(3):
        expect(grades.nth(index)).to_contain_text(re.compile(EXPECTED_BADGE[steps[index][0]]))
