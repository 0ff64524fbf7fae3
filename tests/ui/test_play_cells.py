"""The cells of a person's play, driven only through the UI: badges that say what they grade,
labelled read-only reference cells (oracle and end-to-end), the answer editor focused."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

from cibench_lab.tasks.library import TaskLibrary, builtin_dir

from .axe import axe_violations
from .lab import configured_lab as start_lab
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

PENGUINS = "cibench_template/pandas/penguins_raw_tidy"
THEMES = ("JupyterLab Light", "JupyterLab Dark")


def steps_of(task_id: str) -> list[str]:
    return [s.code for s in TaskLibrary.load([builtin_dir()]).get(task_id).steps]


@pytest.fixture
def lab(tmp_path, monkeypatch, request):
    """A lab with the server settings the test names (`@pytest.mark.parametrize` style via
    `request.param`), its own JupyterLab user settings (the theme switch stays here)."""
    monkeypatch.setenv("JUPYTERLAB_SETTINGS_DIR", str(tmp_path / "user-settings"))
    monkeypatch.setenv("JUPYTERLAB_WORKSPACES_DIR", str(tmp_path / "workspaces"))
    settings = getattr(request, "param", {})
    server = start_lab(tmp_path, {**settings, "lock_settings": bool(settings)})
    yield server
    server.kill()


def set_theme(page: Page, name: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
    page.locator(".lm-Menu-itemLabel", has_text=name).first.click()
    expect(page.locator("body")).to_have_attribute("data-jp-theme-name", name)


def assert_accessible(page: Page, selectors: list[str]) -> None:
    for theme in THEMES:
        set_theme(page, theme)
        assert axe_violations(page, selectors) == [], theme


def next_step(page: Page) -> None:
    """Press the panel's Next step and settle at once (the one place these tests settle a step)."""
    press_next(page)


def wait_until(condition, timeout: float = 60.0) -> None:
    """Poll `condition` (a read of the server's API) until it holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the server never got there")
        time.sleep(0.5)


def stored(page: Page, route: str):
    return page.evaluate(f"async () => await (await fetch('/cibench-lab/api/{route}')).json()")


def reference_cell(page: Page, step: int):
    return page.locator(f'.jp-NotebookPanel:visible .jp-CIBench-reference[data-step="{step}"]')


#: Records every text the panel's notebook line shows from now on (window.__notebookLine).
WATCH_NOTEBOOK_LINE = """() => {
  window.__notebookLine = [];
  new MutationObserver(() => {
    const line = document.querySelector('.jp-CIBench-notebookState');
    if (line) window.__notebookLine.push(line.textContent);
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def in_view(page: Page, cell) -> bool:
    """Whether ``cell`` lies wholly inside the visible notebook's scrolled area."""
    area = page.locator(".jp-NotebookPanel:visible .jp-WindowedPanel-outer").bounding_box()
    box = cell.bounding_box()
    return (
        bool(area and box)
        and area["y"] <= box["y"]
        and box["y"] + box["height"] <= area["y"] + area["height"]
    )


def width_of(cell, part: str) -> float:
    return cell.locator(part).first.bounding_box()["width"]


def test_focus_is_in_the_answer_editor_after_start_and_next(page: Page, lab):
    open_lab(page, lab.url)
    open_panel(page)
    page.evaluate(WATCH_NOTEBOOK_LINE)
    start_task(page, "penguins_raw_tidy", "end-to-end")
    code = steps_of(PENGUINS)
    expect(answer_cell(page, 0).locator(".cm-content")).to_be_focused()
    # in view with its instruction, once the title and the instruction rendered (they grow above it)
    instruction = page.locator('.jp-NotebookPanel:visible .jp-CIBench-instruction[data-step="0"]')
    expect(instruction.locator(".jp-RenderedMarkdown")).to_contain_text("Step 1 of")
    page.wait_for_timeout(3_500)  # past the time the lab keeps centring it
    assert in_view(page, answer_cell(page, 0)) and in_view(page, instruction)
    expect(answer_cell(page, 0).locator(".cm-content")).to_be_focused()
    # the title cell (a short intro) is as wide as the instruction cell below it, not a narrow column
    title = page.locator(".jp-NotebookPanel:visible .jp-Cell.jp-CIBench-title")
    expect(title.locator(".jp-RenderedMarkdown h1")).to_be_visible()
    assert title.evaluate("e => getComputedStyle(e).display") != "flex"
    assert abs(title.bounding_box()["width"] - instruction.bounding_box()["width"]) < 1
    assert abs(width_of(title, ".jp-Cell-inputWrapper") - width_of(instruction, ".jp-Cell-inputWrapper")) < 1
    # the panel never said the notebook was closed while it opened
    lines = set(page.evaluate("window.__notebookLine"))
    assert lines == {"Notebook: penguins_raw_tidy.template-en.ipynb"}, lines
    # not dirty from the moment it opens: the kernel's language_info JupyterLab adds is saved
    ready = page.locator('.jp-NotebookPanel:visible[data-cibench-kernel="ready"]')
    expect(ready).to_have_count(1, timeout=60_000)
    notebook = stored(page, "attempts")[0]["notebook_path"]
    saved = page.evaluate(f"async () => (await (await fetch('/api/contents/{notebook}')).json()).content")
    assert "version" in saved["metadata"]["language_info"]
    expect(page.locator(".lm-TabBar-tab.jp-mod-dirty")).to_have_count(0)
    page.keyboard.insert_text(code[0])  # no click: the keyboard is in the answer cell
    page.keyboard.press("Control+Enter")
    expect(badge(page, 0)).to_have_text(re.compile("passed · ran without error"), timeout=60_000)
    expect(badge(page, 0)).to_have_attribute("data-state", "final")
    next_step(page)
    expect(answer_cell(page, 1).locator(".cm-content")).to_be_focused()
    page.keyboard.insert_text(code[1])
    page.keyboard.press("Control+Enter")
    expect(badge(page, 1)).to_have_text(re.compile(r"passed · text ROUGE-1 1\.00"), timeout=60_000)
    turns = stored(page, f"attempts/{stored(page, 'attempts')[0]['id']}/turns")
    assert [(t["step"], t["code"]) for t in turns] == [(0, code[0]), (1, code[1])]


def test_a_settled_step_rerun_is_not_graded(page: Page, lab):
    open_lab(page, lab.url)
    open_panel(page)
    start_task(page, "penguins_raw_tidy", "end-to-end")
    code = steps_of(PENGUINS)
    run_in_cell(page, 0, "import time\ntime.sleep(3)\n" + code[0])
    expect(badge(page, 0)).to_have_attribute("data-state", "running")
    expect(badge(page, 0)).to_have_text("running… · stops at 2 min")  # the turn_timeout default
    expect(badge(page, 0)).to_have_attribute("data-state", "final", timeout=60_000)
    expect(badge(page, 0)).to_have_class(re.compile("jp-CIBench-badge-pass"))
    expect(badge(page, 0).locator(".jp-CIBench-badge-rule")).to_have_text("best run kept")
    next_step(page)
    expect(answer_cell(page, 1)).to_be_visible()
    run_in_cell(page, 0, "raw = None  # other code in a settled step's cell")
    expect(badge(page, 0)).to_have_text("not graded (step settled)")
    expect(badge(page, 0)).to_have_attribute("data-state", "note")
    expect(badge(page, 0)).not_to_have_class(re.compile("jp-CIBench-badge-pass"))
    expect(answer_cell(page, 0).locator(".jp-CIBench-badge")).to_have_count(1)
    assert_accessible(page, [".jp-CIBench-badge"])
    attempt = stored(page, f"attempts/{stored(page, 'attempts')[0]['id']}")
    assert attempt["steps"][0]["turns"] == 1  # the re-run was not recorded as a turn


def test_the_oracle_cell_is_labelled_and_read_only(page: Page, lab):
    open_lab(page, lab.url)
    open_panel(page)
    start_task(page, "breast_cancer_classifiers", "oracle")
    run_in_cell(page, 0, "X = None  # not what was asked")
    expect(badge(page, 0)).to_have_attribute("data-state", "final", timeout=60_000)
    next_step(page)
    oracle = oracle_cell(page, 0)
    expect(oracle.locator(".jp-CIBench-cellLabel")).to_have_text("Reference for step 1 · read-only")
    named = page.get_by_role("article", name="Reference for step 1 · read-only")
    expect(named).to_have_attribute("data-step", "0")
    editor = oracle.locator(".cm-content")
    expect(editor).to_have_attribute("aria-readonly", "true")
    editor.click()
    page.keyboard.insert_text("TYPED-IN-REFERENCE")
    expect(editor).to_contain_text("load_breast_cancer")
    expect(editor).not_to_contain_text("TYPED-IN-REFERENCE")
    assert_accessible(page, [".jp-CIBench-badge", ".jp-CIBench-oracle"])


@pytest.mark.parametrize("lab", [{"reveal": "after-step", "turn_cap": 2}], indirect=True)
def test_after_step_reveal_shows_the_reference_cell(page: Page, lab):
    open_lab(page, lab.url)
    open_panel(page)
    start_task(page, "penguins_raw_tidy", "end-to-end")
    code = steps_of(PENGUINS)
    expect(badge(page, 0)).to_have_text(re.compile(r"^2 runs allowed"))  # before the first run
    run_in_cell(page, 0, "import pandas as pd")
    expect(badge(page, 0).locator(".jp-CIBench-badge-rule")).to_have_text(
        "best run kept · 1 run left", timeout=60_000
    )
    run_in_cell(page, 0, code[0])  # the cap's last run settles the step
    ref = reference_cell(page, 0)
    expect(ref).to_be_visible(timeout=60_000)
    # the cell's badge and the panel's step list say the cap settled it
    expect(badge(page, 0).locator(".jp-CIBench-badge-rule")).to_have_text(
        "best run kept · settled at the 2-run limit"
    )
    expect(page.locator('.jp-CIBench-step[data-step="0"] .jp-CIBench-step-outcome')).to_have_text(
        "settled at the 2-run limit · 2 turns"
    )
    # below the step's answer cell, before the next step's instruction
    roles = page.locator(".jp-NotebookPanel:visible .jp-Cell").evaluate_all(
        "cells => cells.map(c => [...c.classList].find(k => k.startsWith('jp-CIBench-'))"
        " + ':' + c.dataset.step)"
    )
    assert roles.index("jp-CIBench-reference:0") == roles.index("jp-CIBench-answer:0") + 1
    # collapsed, labelled, a markdown cell (nothing to execute)
    toggle = ref.get_by_role("button", name=re.compile("Reference for step 1"))
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(ref.locator(".jp-InputPlaceholder")).to_be_visible()
    expect(ref).to_have_class(re.compile("jp-MarkdownCell"))
    expect(ref.locator(".jp-RenderedMarkdown")).to_be_hidden()
    toggle.focus()
    page.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    rendered = ref.locator(".jp-RenderedMarkdown")
    expect(rendered).to_contain_text("read_csv('data/penguins_raw.csv')")
    # read-only: a double click shows its source in a read-only editor at most
    rendered.dblclick()
    page.keyboard.insert_text("TYPED-IN-REFERENCE")
    expect(ref.locator(".cm-content")).to_have_attribute("aria-readonly", "true")
    expect(ref).not_to_contain_text("TYPED-IN-REFERENCE")
    assert_accessible(page, [".jp-CIBench-badge", ".jp-CIBench-reference"])
    attempt = stored(page, f"attempts/{stored(page, 'attempts')[0]['id']}")
    assert attempt["steps"][0]["settled"] and attempt["steps"][0]["turns"] == 2


@pytest.mark.parametrize("lab", [{"kernel_idle_cull": 10, "pause_after": 1}], indirect=True)
def test_a_kernel_stopped_while_away_is_restored_when_the_person_comes_back(page: Page, lab):
    open_lab(page, lab.url)
    open_panel(page)
    start_task(page, "penguins_raw_tidy", "end-to-end")
    code = steps_of(PENGUINS)
    run_in_cell(page, 0, code[0])
    expect(badge(page, 0)).to_have_attribute("data-state", "final", timeout=60_000)
    next_step(page)
    expect(answer_cell(page, 1)).to_be_visible()
    row = stored(page, "attempts")[0]
    attempt, name = f"attempts/{row['id']}", row["notebook_path"].rsplit("/", 1)[-1]
    old = stored(page, attempt)["kernel_id"]
    # the person leaves the notebook; the server stops its idle kernel
    page.locator(".lm-TabBar-tab", has_text="Launcher").click()
    wait_until(lambda: stored(page, attempt)["kernel"] == "stopped")
    page.locator(".lm-TabBar-tab", has_text=name).click()
    note = page.locator(".jp-CIBench-kernelNote")
    expect(note).to_contain_text("Kernel stopped after 10 idle seconds — restored", timeout=60_000)
    expect(page.locator('.jp-NotebookPanel:visible[data-cibench-kernel="ready"]')).to_have_count(
        1, timeout=60_000
    )
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    view = stored(page, attempt)
    assert view["kernel"] == "running" and view["kernel_id"] != old
    # step 2 builds on step 1's `raw`: the server restored it on the new kernel
    run_in_cell(page, 1, code[1])
    expect(badge(page, 1)).to_have_text(re.compile(r"passed · text ROUGE-1 1\.00"), timeout=60_000)
    note.get_by_role("button", name="Dismiss the kernel note").click()
    expect(note).to_have_count(0)
