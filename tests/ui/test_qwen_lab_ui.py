"""A person plays a Qwen benchmark easy visualization item in the browser: no mode choice, the
prior turn as a labelled read-only cell with its output, an answer run that says it is not graded
without a judge."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from cibench_lab.cli import main

from .lab import configured_lab
from .test_lab_play import answer_cell, badge, open_lab, open_panel, run_in_cell

BENCH = Path(__file__).parent.parent / "fixtures" / "qwen" / "benchmark"
EASY = "ci_0002"


@pytest.fixture
def lab(tmp_path):
    tasks = tmp_path / "qwen-tasks"
    assert main(["tasks", "import", str(BENCH), "--into", str(tasks)]) == 0
    server = configured_lab(tmp_path, {"task_dirs": [str(tasks)]})
    yield server
    server.kill()


def test_an_easy_item_shows_its_prior_turn_and_is_not_graded_without_a_judge(page: Page, lab):
    open_lab(page, lab.url)
    open_panel(page)
    page.locator(".jp-CIBench-filter").fill(EASY)
    page.locator(".jp-CIBench-task").first.click()
    detail = page.locator(".jp-CIBench-detail")
    expect(detail.locator(".jp-CIBench-kinds")).to_have_text(
        "Qwen Code Interpreter Benchmark · one step · visualization"
    )
    expect(detail.locator(".jp-CIBench-modes")).to_have_count(0)  # no oracle mode
    page.locator(".jp-CIBench-start").click()
    prior = page.locator(".jp-NotebookPanel:visible .jp-CIBench-prior")
    expect(prior).to_be_visible(timeout=60_000)
    expect(prior.locator(".jp-CIBench-cellLabel")).to_have_text(re.compile("First turn, already run"))
    expect(prior.locator(".jp-OutputArea-output")).to_contain_text("day  temp")
    expect(prior.locator(".cm-content")).to_have_attribute("aria-readonly", "true")
    expect(page.locator(".jp-CIBench-attempt-meta")).to_have_text(re.compile("^Qwen benchmark · "))
    run_in_cell(page, 0, "plt.plot(df['day'], df['temp'])\nplt.title('每日气温')\nplt.show()")
    expect(badge(page, 0)).to_have_attribute("data-state", "final", timeout=60_000)
    expect(badge(page, 0)).to_have_text(re.compile(r"not graded \(no judge configured\)"))
    expect(badge(page, 0)).to_have_class(re.compile("jp-CIBench-badge-recorded"))
    expect(answer_cell(page, 0).locator(".jp-OutputArea-output img")).to_have_count(1)
