"""A person plays two Qwen benchmark items to their end in the browser, under the lab's default profile
(fair): a GSM8K item whose gold is ``#### 2,100`` passes on ``2100`` everywhere the panel says so, its
answer its only reference; a visualization item without a judge is neither passed nor missed in the step
list, the summary and My attempts, with no reference cell."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from cibench_lab.cli import main

from .lab import configured_lab
from .test_lab_play import badge, open_lab, open_panel, press_next, run_in_cell

BENCH = Path(__file__).parent.parent / "fixtures" / "qwen" / "benchmark"


@pytest.fixture
def lab(tmp_path):
    tasks = tmp_path / "qwen-tasks"
    assert main(["tasks", "import", str(BENCH), "--into", str(tasks)]) == 0
    server = configured_lab(tmp_path, {"task_dirs": [str(tasks)]})
    yield server
    server.kill()


def _all_tasks(page: Page) -> None:
    page.locator(".jp-CIBench-panel .jp-CIBench-back:visible").first.click()
    expect(page.locator(".jp-CIBench-filter")).to_be_visible()


def _play(page: Page, task: str, code: str, said: str) -> None:
    page.locator(".jp-CIBench-filter").fill(task)
    page.locator(".jp-CIBench-task").first.click()
    page.locator(".jp-CIBench-start").click()
    # the new attempt's notebook is the current tab (not the finished one before it), its badge ready
    current = page.locator("#jp-main-dock-panel .lm-TabBar-tab.jp-mod-current")
    expect(current).to_contain_text(f"{task}.", timeout=60_000)
    expect(badge(page, 0)).to_have_text(re.compile("runs allowed"), timeout=60_000)  # before its first run
    run_in_cell(page, 0, code)
    expect(badge(page, 0)).to_have_attribute("data-state", "final", timeout=60_000)
    expect(badge(page, 0)).to_have_text(re.compile(re.escape(said)))
    press_next(page)
    expect(page.locator(".jp-CIBench-done")).to_be_visible(timeout=30_000)


def test_one_verdict_in_the_panel_for_a_gsm8k_and_a_visualization_item(page: Page, lab):
    open_lab(page, lab.url)
    open_panel(page)
    _play(page, "gsm8k_0003", "print(1050 * 2)", "answer read: 2100 · right")
    panel = page.locator(".jp-CIBench-panel")
    expect(panel.locator(".jp-CIBench-passed")).to_have_text("1 of 1 step passed")
    expect(panel.locator(".jp-CIBench-step-grade")).to_have_text("✓ passed (kept): answer read: 2100 · right")
    expect(panel.locator(".jp-CIBench-step-kind")).to_have_text("math")
    rows = panel.locator(".jp-CIBench-summary tr")
    expect(rows).to_have_text(["Executable100.0", "Accuracy (math)100.0"])
    reference = page.locator(".jp-NotebookPanel:visible .jp-CIBench-reference")
    expect(reference).to_have_count(1)
    expect(reference).to_contain_text("Reference for step 1: the task's answer (read-only).")
    reference.get_by_role("button").first.click()  # collapsed: its label shows it
    expect(reference).to_contain_text("#### 2,100")

    _all_tasks(page)
    _play(page, "ci_0001", "plt.plot([1, 2])\nplt.show()", "not graded (no judge configured)")
    expect(panel.locator(".jp-CIBench-passed")).to_have_text("Not graded: neither passed nor missed")
    line = panel.locator(".jp-CIBench-step-grade")
    expect(line).to_have_text("– not graded (no judge configured)")
    expect(line).to_have_class(re.compile("jp-CIBench-grade-none"))
    expect(panel.locator(".jp-CIBench-step-kind")).to_have_text("visualization")
    expect(rows).to_have_text(["Executable100.0", "Accuracy (visualization)not graded"])
    expect(page.locator(".jp-NotebookPanel:visible .jp-CIBench-reference")).to_have_count(0)
    expect(panel.locator(".jp-CIBench-reference")).to_have_count(0)
    # My attempts (the task list's, rendered while the panel follows the open notebook's attempt)
    metas = panel.locator(".jp-CIBench-attempt .jp-CIBench-task-meta")
    expect(metas.first).to_have_text(re.compile(r"^Qwen benchmark · finished .* · not graded$"))
    expect(metas.nth(1)).to_have_text(re.compile(r"^Qwen benchmark · finished .* · 1/1 passed$"))
