"""Contrast and keyboard focus, measured in the browser in both themes (tests/ui/contrast.py): every
panel control shows a focus ring after keyboard focus that contrasts at least 3:1 with the control
and with what is around it; every text of the panel and of the notebook's badges and labels —
"passed" green, "missed" orange — reaches WCAG AA; so does the ``Results()`` widget's error text."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from cibench_lab.tasks.library import TaskLibrary, builtin_dir

from .contrast import focus_ring, text_ratio, texts_below_aa
from .lab import TOKEN
from .test_lab_play import answer_cell, badge, open_lab, open_panel, press_next, run_in_cell
from .test_play_cells import set_theme

PENGUINS = "cibench_template/pandas/penguins_raw_tidy"
THEMES = ("JupyterLab Light", "JupyterLab Dark")
BAR = ".jp-CIBench-actionBar"
#: The task view's controls, then the attempt view's (each: what a keyboard user can focus).
TASK_CONTROLS = (
    ".jp-CIBench-refresh",
    ".jp-CIBench-filter",
    ".jp-CIBench-facet",
    ".jp-CIBench-task",
    "input.jp-CIBench-mode:checked",
    ".jp-CIBench-player",
    f"{BAR} .jp-CIBench-start",
)
ATTEMPT_CONTROLS = (
    ".jp-CIBench-attemptView .jp-CIBench-back",
    ".jp-CIBench-open",
    ".jp-CIBench-stepList-summary",
    ".jp-CIBench-turns-button",
    ".jp-CIBench-note-text",
    f"{BAR} .jp-CIBench-next",
    f"{BAR} .jp-CIBench-giveup",
    f"{BAR} .jp-CIBench-pause",
)


def steps() -> list[str]:
    return [s.code for s in TaskLibrary.load([builtin_dir()]).get(PENGUINS).steps]


def keyboard_focus(page: Page, selector: str) -> dict:
    """Focus ``selector`` as a keyboard user does (a key pressed first: the browser's focus-visible
    rule), and read its focus ring."""
    page.locator(".jp-CIBench-panel .jp-CIBench-heading").click()
    page.keyboard.press("Tab")
    target = page.locator(selector).first
    target.focus()
    expect(target).to_be_focused()
    return focus_ring(page)


def rings_that_fail(page: Page, controls: tuple[str, ...]) -> list[str]:
    failed = []
    for selector in controls:
        ring = keyboard_focus(page, selector)
        if not (ring["visible"] and ring["ratioControl"] >= 3 and ring["ratioBackground"] >= 3):
            failed.append(f"{selector}: {ring}")
    return failed


def start_penguins(page: Page) -> None:
    page.locator(".jp-CIBench-filter").fill("penguins_raw_tidy")
    page.locator(".jp-CIBench-task").first.click()
    page.locator(f"{BAR} .jp-CIBench-start").click()
    page.wait_for_selector(".jp-NotebookPanel .jp-CIBench-answer")


def test_focus_rings_and_status_texts_reach_their_contrast_in_both_themes(page: Page, lab_server):
    open_lab(page, lab_server.url)
    open_panel(page)
    page.locator(".jp-CIBench-filter").fill("penguins_raw_tidy")
    page.locator(".jp-CIBench-task").first.click()
    for theme in THEMES:
        set_theme(page, theme)
        assert rings_that_fail(page, TASK_CONTROLS) == [], theme
        low, measured = texts_below_aa(page, ["#cibench-lab-panel"])
        assert measured > 10 and low == [], (theme, low)
    start_penguins(page)
    code = steps()
    run_in_cell(page, 0, code[0])
    expect(badge(page, 0)).to_have_class(re.compile("jp-CIBench-badge-pass"), timeout=60_000)
    press_next(page)
    run_in_cell(page, 1, "print('island')")  # a miss: the step list's "missed" beside "passed"
    expect(badge(page, 1)).to_have_class(re.compile("jp-CIBench-badge-miss"), timeout=60_000)
    expect(page.locator(".jp-CIBench-grade-miss")).to_be_visible()
    expect(page.locator(".jp-CIBench-grade-pass")).to_be_visible()
    roots = ["#cibench-lab-panel", ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CIBench-badge",
             ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CIBench-cellLabel"]  # fmt: skip
    for theme in THEMES:
        set_theme(page, theme)
        for status in (".jp-CIBench-grade-pass", ".jp-CIBench-grade-miss"):
            assert text_ratio(page, status) >= 4.5, (theme, status)
        low, measured = texts_below_aa(page, roots)
        assert measured > 20 and low == [], (theme, low)
        assert rings_that_fail(page, ATTEMPT_CONTROLS) == [], theme
    expect(answer_cell(page, 1)).to_be_visible()


RESULTS_NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": "from cibench_lab.widgets import Results\n"
            "Results(environ={'CIBENCH_LAB_SANDBOXED': '1'})",  # a sandboxed kernel's: an error sentence
        }
    ],
    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def test_the_results_widgets_error_text_reaches_aa_in_the_dark_theme(page: Page, lab_server):
    (lab_server.root / "results.ipynb").write_text(json.dumps(RESULTS_NOTEBOOK))
    page.goto(f"{lab_server.url}/lab/tree/results.ipynb?token={TOKEN}")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell .cm-content")
    set_theme(page, "JupyterLab Dark")
    page.locator(".jp-NotebookPanel:visible .jp-Cell .cm-content").first.click()
    page.keyboard.press("Control+Enter")
    said = page.locator(".jp-NotebookPanel:visible .widget-html p")
    expect(said).to_contain_text("sandbox", timeout=60_000)
    assert text_ratio(page, ".jp-NotebookPanel:visible .widget-html p") >= 4.5
