"""A person plays a built-in task in JupyterLab, driven only through the UI."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from cibench_lab.tasks.library import TaskLibrary, builtin_dir

from .conftest import TOKEN

TASK_ID = "cibench_template/pandas/penguins_raw_tidy"
#: What a reference answer's badge says, under either profile (the lab shows fair unless configured).
EXPECTED_BADGE = {
    "exec": r"ran without error",
    "num": r"numbers? matched",
    "text": r"text ROUGE-1 1\.00",
    "vis": r"plot SSIM (1\.00|0\.99)|data matches",
}


def reference_steps():
    task = TaskLibrary.load([builtin_dir()]).get(TASK_ID)
    return [(s.kind, s.code) for s in task.steps]


def open_lab(page: Page, url: str) -> None:
    page.goto(f"{url}/lab?token={TOKEN}")
    page.wait_for_selector("#jp-main-dock-panel", state="attached")
    page.wait_for_selector(".jp-LabShell")
    # the lab fills an empty main area with its launcher once the layout is restored, and the launcher
    # takes the focus: wait for the main area's first widget before a test moves the focus itself
    page.wait_for_selector("#jp-main-dock-panel .lm-DockPanel-widget", timeout=60_000)


def open_panel(page: Page) -> None:
    tab = page.locator('.jp-SideBar .lm-TabBar-tab[data-id="cibench-lab-panel"]')
    expect(tab).to_have_attribute("title", re.compile("CIBench"))
    if not page.locator(".jp-CIBench-panel").is_visible():
        tab.click()
    expect(page.locator(".jp-CIBench-filter")).to_be_visible()


def press_next(page: Page, wait: bool = False) -> None:
    """Next step, then through its Undo window: "Settle now", or (``wait``) let the window run out."""
    page.locator(".jp-CIBench-actionBar .jp-CIBench-next").click()
    settle_pending(page, wait)


def settle_pending(page: Page, wait: bool = False) -> None:
    undo = page.locator(".jp-CIBench-actionBar .jp-CIBench-undo")
    expect(undo).to_be_visible()
    if wait:
        expect(page.locator(".jp-CIBench-countdown")).to_have_text(re.compile(r"in [1-5] s"))
        expect(undo).to_be_hidden(timeout=15_000)
    else:
        page.locator(".jp-CIBench-actionBar .jp-CIBench-settle-now").click()
        expect(undo).to_be_hidden(timeout=30_000)


def start_task(page: Page, words: str, mode_label: str) -> None:
    page.locator(".jp-CIBench-filter").fill(words)
    rows = page.locator(".jp-CIBench-task")
    expect(rows).to_have_count(1)
    rows.first.click()
    page.get_by_label(mode_label, exact=True).check()
    page.locator(".jp-CIBench-start").click()
    page.wait_for_selector(".jp-NotebookPanel .jp-CIBench-answer")


def answer_cell(page: Page, step: int):
    return page.locator(f'.jp-NotebookPanel:visible .jp-CIBench-answer[data-step="{step}"]')


def run_in_cell(page: Page, step: int, code: str, keys: str = "Control+Enter") -> None:
    cell = answer_cell(page, step)
    editor = cell.locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)
    page.keyboard.press(keys)


def badge(page: Page, step: int):
    return answer_cell(page, step).locator(".jp-CIBench-badge")


def test_person_plays_penguins_to_the_end(page: Page, lab_server):
    open_lab(page, lab_server.url)
    open_panel(page)
    start_task(page, "penguins_raw_tidy", "end-to-end")
    steps = reference_steps()
    for index, (kind, code) in enumerate(steps):
        if index == 4:  # a miss first: a num step answered without printing
            run_in_cell(page, index, "n_rows = 0")
            expect(badge(page, index)).to_have_text(
                re.compile("expected a printed number; your output had none"), timeout=60_000
            )
            expect(badge(page, index)).to_have_class(re.compile("jp-CIBench-badge-miss"))
        last = index + 1 == len(steps)
        cells = page.locator(".jp-NotebookPanel:visible .jp-Notebook .jp-Cell")
        before = cells.count()
        run_in_cell(page, index, code, "Shift+Enter" if last else "Control+Enter")
        if last:  # Shift+Enter on the step's (last) cell runs it and stays: no cell is added below
            expect(cells).to_have_count(before)
        expect(badge(page, index)).to_have_text(re.compile(EXPECTED_BADGE[kind]), timeout=60_000)
        expect(badge(page, index)).to_have_class(re.compile("jp-CIBench-badge-pass"))
        press_next(page, wait=index == 0)  # the first waits out its Undo window
        if index + 1 < len(steps):
            expect(answer_cell(page, index + 1)).to_be_visible()
    summary = page.locator(".jp-CIBench-summary")
    expect(summary).to_be_visible(timeout=30_000)
    for metric in ("Tool", "Exec", "Num", "Text", "Vis"):
        row = summary.locator("tr", has_text=metric)
        expect(row).to_contain_text("100")
    # what the panel showed is what the server stored
    stored = json.loads(
        page.evaluate("async () => JSON.stringify(await (await fetch('/cibench-lab/api/attempts')).json())")
    )
    assert stored[0]["status"] == "done"
    # the open notebook became the attempt's record: the note says why its cells no longer edit
    expect(page.locator(".jp-NotebookPanel:visible .jp-CIBench-closedNote")).to_have_text(
        "This attempt is finished — read only"
    )
    expect(answer_cell(page, 0).locator(".cm-content")).to_have_attribute("aria-readonly", "true")
    # the last cell is the last step's answer, saved so
    expect(cells.last).to_have_class(re.compile("jp-CIBench-answer"))
    expect(page.locator(".jp-mod-current .jp-mod-dirty")).to_have_count(0)


def oracle_cell(page: Page, step: int):
    return page.locator(f'.jp-NotebookPanel:visible .jp-CIBench-oracle[data-step="{step}"]')


def test_oracle_mode_runs_the_reference_after_a_miss(page: Page, lab_server):
    open_lab(page, lab_server.url)
    open_panel(page)
    start_task(page, "breast_cancer_classifiers", "oracle")
    task = TaskLibrary.load([builtin_dir()]).get("cibench_template/sklearn/breast_cancer_classifiers")
    run_in_cell(page, 0, "X = None  # not what was asked")
    expect(badge(page, 0)).to_have_text(re.compile("ran without error"), timeout=60_000)
    press_next(page)
    oracle = oracle_cell(page, 0)
    expect(oracle).to_be_visible(timeout=30_000)
    expect(oracle.locator(".cm-content")).to_have_attribute("aria-readonly", "true")
    expect(oracle.locator(".cm-content")).to_contain_text("load_breast_cancer")
    # step 1 builds on the reference's X and y, not on the player's X = None
    run_in_cell(page, 1, task.steps[1].code)
    expect(badge(page, 1)).to_have_text(re.compile(EXPECTED_BADGE["num"]), timeout=60_000)
