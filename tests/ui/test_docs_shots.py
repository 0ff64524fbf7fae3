"""The walk-through of docs/play/first-task.md, played in chromium in both themes: every step it tells a
newcomer to take works, and the screenshots beside its steps are taken here, so they follow the UI.

The shots go to the test's temporary folder; with ``CIBENCH_LAB_DOCS_SHOTS=1`` (``bash scripts/docs-shots``)
to ``docs/_static/shots/<theme>/``, where the site (and the README, ``light/3-graded.png``) shows them. Each
is the lab's window at 1280×720, quantized to 256 colours (tens of kB a shot)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Page, expect

from .test_lab_play import answer_cell, badge, open_lab, open_panel, reference_steps, run_in_cell
from .test_play_panel import BAR, give_up, settle_pending, use_theme

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "_static" / "shots"
SIZE = {"width": 1280, "height": 720}
#: the shots docs/play/first-task.md shows, in its order
NAMES = ["1-pick", "2-start", "3-graded", "4-settle", "5-missed", "6-summary"]
#: scrolls the panel to "1 of 12 steps passed" and the summary table; true once they stay in view (the panel
#: draws its finished attempt again as the server's view arrives, which may scroll it elsewhere)
SUMMARY_IN_VIEW = """() => {
  const done = document.querySelector('.jp-CIBench-done');
  const table = document.querySelector('.jp-CIBench-summary');
  if (!done || !table) return false;
  const box = table.getBoundingClientRect();
  if (box.top >= 0 && box.bottom <= innerHeight) return true;
  done.scrollIntoView({block: 'start'});
  return false;
}"""


def shots_dir(tmp_path: Path, theme: str) -> Path:
    folder = (SHOTS if os.environ.get("CIBENCH_LAB_DOCS_SHOTS") == "1" else tmp_path) / theme
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shot(page: Page, folder: Path, name: str) -> None:
    """The window as ``folder/name.png``, in 256 colours."""
    path = folder / f"{name}.png"
    page.mouse.move(0, SIZE["height"] - 1)  # no hover tooltip over what the shot shows
    page.screenshot(path=str(path))
    Image.open(path).convert("RGB").quantize(colors=256).save(path, optimize=True)


def pick_penguins(page: Page, folder: Path) -> None:
    """Steps 1–2: the panel, a task found by its words, its mode."""
    open_panel(page)
    page.locator(".jp-CIBench-filter").fill("penguins raw")
    expect(page.locator(".jp-CIBench-task")).to_have_count(1)
    page.locator(".jp-CIBench-task").first.click()
    page.get_by_label("end-to-end", exact=True).check()
    expect(page.locator(".jp-CIBench-detail-title")).to_be_visible()
    shot(page, folder, "1-pick")


def start_and_answer(page: Page, folder: Path) -> None:
    """Steps 3–4: Start, the first step's cell with the keyboard in it, a run graded in place."""
    page.locator(f"{BAR} .jp-CIBench-start").click()
    editor = answer_cell(page, 0).locator(".cm-content")
    expect(editor).to_be_focused(timeout=60_000)
    expect(page.locator("#jp-main-statusbar")).to_contain_text("| Idle", timeout=60_000)
    toolbar = page.locator(".jp-NotebookPanel:visible .jp-NotebookPanel-toolbar")
    expect(toolbar).not_to_contain_text("Restoring")  # the kernel is the attempt's, ready
    shot(page, folder, "2-start")
    run_in_cell(page, 0, reference_steps()[0][1])
    expect(badge(page, 0)).to_have_class(re.compile("jp-CIBench-badge-pass"), timeout=60_000)
    expect(badge(page, 0)).to_contain_text("ran without error")
    shot(page, folder, "3-graded")


def settle_and_miss(page: Page, folder: Path) -> None:
    """Steps 5–6: Next step's Undo window, then a miss — and Shift+Enter staying in the step's cell."""
    page.locator(f"{BAR} .jp-CIBench-next").click()
    expect(page.locator(".jp-CIBench-countdown")).to_contain_text("Undo")
    shot(page, folder, "4-settle")
    settle_pending(page)
    expect(answer_cell(page, 1).locator(".cm-content")).to_be_focused(timeout=30_000)
    cells = page.locator(".jp-NotebookPanel:visible .jp-Notebook .jp-Cell")
    before = cells.count()
    run_in_cell(page, 1, "print('no idea')", "Shift+Enter")
    expect(badge(page, 1)).to_have_class(re.compile("jp-CIBench-badge-miss"), timeout=60_000)
    expect(cells).to_have_count(before)  # no new cell below: the keyboard stays in the step's marked cell
    shot(page, folder, "5-missed")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_first_task_walk_through_plays_as_written(page: Page, lab_server, tmp_path, theme):
    folder = shots_dir(tmp_path, theme)
    page.set_viewport_size(SIZE)
    open_lab(page, lab_server.url)
    use_theme(page, f"JupyterLab {theme.title()}")
    pick_penguins(page, folder)
    start_and_answer(page, folder)
    settle_and_miss(page, folder)
    give_up(page, len(reference_steps()) - 1)
    expect(page.locator(".jp-CIBench-summary")).to_be_visible(timeout=30_000)
    expect(page.locator(".jp-NotebookPanel:visible .jp-CIBench-closedNote")).to_be_visible()
    expect(page.locator(".jp-mod-current .jp-mod-dirty")).to_have_count(0, timeout=30_000)  # saved
    page.wait_for_function(SUMMARY_IN_VIEW, polling=250)
    shot(page, folder, "6-summary")
    for name in NAMES:
        with Image.open(folder / f"{name}.png") as image:
            assert image.size == (SIZE["width"], SIZE["height"]), name
