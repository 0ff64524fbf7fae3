"""A person plays Qwen benchmark items in the browser: each listed by its question (the filter
finds Chinese words of it), an intro with its files, hard or easy and the runs allowed, Enter on the
only match moving to Start, the question shown as written in the notebook, "All tasks" leaving
nothing for Start to start; an easy item's prior turn a labelled read-only cell, [1], whose run is
refused; an answer run that says it is not graded without a judge; a lower server turn cap counted
in the intro's runs allowed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from cibench_lab.cli import main

from .axe import axe_violations
from .lab import configured_lab
from .test_lab_play import answer_cell, badge, open_lab, open_panel, run_in_cell

BENCH = Path(__file__).parent.parent / "fixtures" / "qwen" / "benchmark"
EASY = "ci_0002"
MATH = "Solve x**2 - 5*x + 6 = 0 and print the roots."
NOTEBOOK = ".jp-NotebookPanel:visible"
ALL = ("minor", "moderate", "serious", "critical")


@pytest.fixture
def lab(tmp_path, request):
    """The imported items; ``request.param``: more server settings (indirect parametrize)."""
    tasks = tmp_path / "qwen-tasks"
    assert main(["tasks", "import", str(BENCH), "--into", str(tasks)]) == 0
    server = configured_lab(tmp_path, {"task_dirs": [str(tasks)], **getattr(request, "param", {})})
    yield server
    server.kill()


def pick(page: Page, words: str) -> None:
    page.locator(".jp-CIBench-filter").fill(words)
    expect(page.locator(".jp-CIBench-task")).to_have_count(1)
    page.locator(".jp-CIBench-task").first.click()


def start(page: Page) -> None:
    page.locator(".jp-CIBench-start").click()
    expect(page.locator(".jp-CIBench-attemptView")).to_be_visible(timeout=60_000)
    expect(page.locator(f"{NOTEBOOK} .jp-CIBench-answer")).to_be_visible(timeout=60_000)


def note(page: Page):
    """What the answer cell's badge says (without the criterion read out after it)."""
    return badge(page, 0).locator(".jp-CIBench-badge-text")


def all_tasks(page: Page) -> None:
    """Back to the list: nothing is left selected for Start."""
    page.locator(".jp-CIBench-attemptView .jp-CIBench-back").click()
    expect(page.locator(".jp-CIBench-start")).to_be_disabled()
    expect(page.locator(".jp-CIBench-barHint")).to_have_text("Select a task to start.")


def test_qwen_items_before_and_around_play(page: Page, lab):
    open_lab(page, lab.url)
    open_panel(page)
    pick(page, "ci_0006")
    row = page.locator(".jp-CIBench-task").first
    expect(row.locator(".jp-CIBench-task-title")).to_have_text(MATH)
    meta = "math · eval_code_interpreter_v1 line 6 · English"
    expect(row.locator(".jp-CIBench-task-meta")).to_have_text(meta)
    detail = page.locator(".jp-CIBench-detail")
    expect(detail.locator(".jp-CIBench-question")).to_have_text(MATH)
    expect(detail.locator(".jp-CIBench-fact")).to_have_text(["No files", re.compile("^1 run allowed")])
    expect(page.locator(".jp-CIBench-barHint")).to_have_text(f"ci_0006 · {MATH}")
    start(page)
    question = page.locator(f"{NOTEBOOK} .jp-CIBench-instruction .mathjax_ignore")
    expect(question).to_have_text(MATH)  # as written: markdown made no italics of its stars
    expect(page.locator(f"{NOTEBOOK} .jp-CIBench-instruction").locator("em, mjx-container")).to_have_count(0)
    expect(page.locator(f"{NOTEBOOK} .jp-CIBench-title h1")).to_have_text(re.compile(re.escape(MATH)))
    expect(note(page)).to_have_text("1 run allowed")  # before the first run
    editor = answer_cell(page, 0).locator(".cm-content")
    expect(editor).to_have_attribute("aria-label", "Your answer for step 1")
    found = {v["id"] for v in axe_violations(page, ["body"], ALL)}
    assert not found & {"landmark-no-duplicate-banner", "aria-input-field-name"}, found
    all_tasks(page)

    page.locator(".jp-CIBench-filter").fill("求")  # a Chinese question's word
    expect(page.locator(".jp-CIBench-task")).to_have_count(1)
    page.locator(".jp-CIBench-filter").press("Enter")  # the only match: no mode to choose, so Start
    expect(page.locator(".jp-CIBench-start")).to_be_focused()
    expect(page.locator(".jp-CIBench-barHint")).to_have_text("ci_0007 · 求 1 到 100 的整数之和。")

    pick(page, EASY)  # an easy visualization item: its prior turn, not graded without a judge
    detail = page.locator(".jp-CIBench-detail")
    expect(detail.locator(".jp-CIBench-kinds")).to_have_text(
        "Qwen Code Interpreter Benchmark · one step · visualization"
    )
    expect(detail.locator(".jp-CIBench-modes")).to_have_count(0)  # no oracle mode
    expect(detail.locator(".jp-CIBench-fact")).to_contain_text(
        ["Files: weather/weather.csv", "Easy: the first turn is given", "3 runs allowed (the item's 4 calls"]
    )
    start(page)
    prior = page.locator(f"{NOTEBOOK} .jp-CIBench-prior")
    expect(prior.locator(".jp-CIBench-cellLabel")).to_have_text(re.compile("First turn, already run"))
    expect(prior.locator(".jp-OutputArea-output")).to_contain_text("day  temp")
    expect(prior.locator(".cm-content")).to_have_attribute("aria-readonly", "true")
    expect(prior.locator(".jp-InputPrompt")).to_have_text("[1]:")  # it ran
    prior.locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")  # refused: the lab ran it; nor does the answer below run
    expect(prior.locator(".jp-CIBench-badge")).to_have_text(re.compile("not run: a read-only cell"))
    expect(prior.locator(".jp-InputPrompt")).to_have_text("[1]:")
    expect(note(page)).to_have_text("3 runs allowed")
    expect(page.locator(".jp-CIBench-attempt-meta")).to_have_text(re.compile("^Qwen benchmark · "))
    run_in_cell(page, 0, "plt.plot(df['day'], df['temp'])\nplt.title('每日气温')\nplt.show()")
    expect(badge(page, 0)).to_have_attribute("data-state", "final", timeout=60_000)
    expect(badge(page, 0)).to_have_text(re.compile(r"not graded \(no judge configured\)"))
    expect(badge(page, 0)).to_have_class(re.compile("jp-CIBench-badge-recorded"))
    expect(answer_cell(page, 0).locator(".jp-InputPrompt")).to_have_text("[2]:")  # after the prior's [1]
    expect(answer_cell(page, 0).locator(".jp-OutputArea-output img")).to_have_count(1)


@pytest.mark.parametrize("lab", [{"turn_cap": 2}], indirect=True)
def test_a_lower_turn_cap_is_what_the_intro_counts(page: Page, lab):
    """The server's cap of 2 is below the easy item's 3 runs: the intro and the badge both say 2."""
    open_lab(page, lab.url)
    open_panel(page)
    pick(page, EASY)
    facts = page.locator(".jp-CIBench-detail .jp-CIBench-fact")
    expect(facts.last).to_have_text(re.compile(r"^2 runs allowed \(the turn cap; the item allows 3\)"))
    start(page)
    expect(note(page)).to_have_text("2 runs allowed")
