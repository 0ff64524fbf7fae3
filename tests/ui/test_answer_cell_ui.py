"""Which cell is graded, and nothing stale, driven only through the UI (the API is read afterwards):
the open step's answer cell is marked and named; Shift+Enter there runs it and stays (never into a
cell whose runs are not graded); a person's own cell says it is not graded and where the answer is;
a text step's badge says what passes; settled and finished steps' badges keep no "runs left"; a
finished attempt's notebook keeps its cells' types and stays saved when a reference is shown; the
panel's intro stands above Mode and Player, the mode is chosen anew per task, a reference plot fits
the sidebar and two attempts' tabs show their whole names. Small tasks of our own (tests/ui's
``tiny_tasks``) keep the kernels' work light."""

from __future__ import annotations

import base64
import io
import re
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from playwright.sync_api import Page, expect

from .lab import configured_lab as start_lab
from .test_lab_play import answer_cell, badge, open_lab, open_panel, press_next, run_in_cell
from .test_play_panel import give_up

STEM = "colour_votes_by_region"
VOTES = "votes = ['red', 'blue', 'red']"
INTRO = "Votes for a colour, by region. " * 12  # long: the intro box scrolls
NB = ".jp-NotebookPanel:visible"
EN, ZH = "Colour votes by region", "颜色投票"  # the two languages' titles


def _png(width: float) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(width, 2), dpi=100)
    ax.plot([1, 2, 3], [3, 1, 2])
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def _task(path: Path, language: str, steps: list[tuple[str, str, str, dict | None]], title: str) -> None:
    """A task notebook: (kind, instruction, code, reference output or None) per step."""
    cells = []
    for _, instruction, code, output in steps:
        cells += [new_markdown_cell(instruction), new_code_cell(code, outputs=[output] if output else [])]
    nb = new_notebook(cells=cells)
    nb.metadata["step_types"] = [kind for kind, *_ in steps]
    nb.metadata["cibench_lab"] = {"schema_version": 1, "title": title, "intro": INTRO, "language": language}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))


def tiny_tasks(root: Path) -> None:
    """``colour_votes_by_region`` in English and Chinese (exec, then text: print the colour with
    the most votes), and ``wide_plot`` (a vis step whose reference plot is 1,200 px wide)."""
    votes = ("exec", "Make a list `votes` of three colour votes.", VOTES, None)
    text = ("text", "Which colour has the most votes? Print its name.",
            "print(max(set(votes), key=votes.count))", new_output("stream", text="red\n"))  # fmt: skip
    _task(root / "cibench_template" / "demo" / f"{STEM}.ipynb", "en", [votes, text], EN)
    _task(root / "cibench_template_chinese" / "demo" / f"{STEM}.ipynb", "zh", [votes, text], ZH)
    plot = new_output("display_data", data={"image/png": _png(12), "text/plain": "<Figure>"})
    wide = ("vis", "Plot the votes.", "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])", plot)
    _task(root / "cibench_template" / "demo" / "wide_plot.ipynb", "en", [wide, votes], "A wide plot")
    (root / "datasources" / "data").mkdir(parents=True, exist_ok=True)


@pytest.fixture
def lab(tmp_path, request):
    """A lab serving the tiny tasks, its settings locked to ``request.param`` (if any)."""
    tiny_tasks(tmp_path / "tasks")
    traits = {"task_dirs": [str(tmp_path / "tasks")], "lock_settings": True, **getattr(request, "param", {})}
    server = start_lab(tmp_path, traits)
    yield server
    server.kill()


def stored(page: Page, route: str):
    return page.evaluate(f"async () => await (await fetch('/cibench-lab/api/{route}')).json()")


def wait_for(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the server never got there"
        time.sleep(0.5)


def pick(page: Page, words: str, title: str) -> None:
    page.locator(".jp-CIBench-filter").fill(words)
    page.locator(".jp-CIBench-task", has_text=title).click()
    expect(page.locator(".jp-CIBench-detail-title")).to_have_text(title)


def start(page: Page, words: str, title: str = EN, mode: str = "end-to-end") -> None:
    pick(page, words, title)
    page.get_by_label(mode, exact=True).check()
    page.locator(".jp-CIBench-actionBar .jp-CIBench-start").click()
    page.wait_for_selector(f"{NB} .jp-CIBench-answer")


def label(page: Page, step: int):
    return answer_cell(page, step).locator(".jp-CIBench-answerLabel")


def toast(page: Page, text: str):
    return page.get_by_text(text).first


def test_shift_enter_stays_in_the_marked_answer_cell_and_other_cells_say_so(page: Page, lab):
    open_lab(page, lab.url)
    open_panel(page)
    start(page, STEM)
    cells = page.locator(f"{NB} .jp-Notebook .jp-Cell")
    expect(answer_cell(page, 0)).to_have_class(re.compile("jp-CIBench-answer-current"))
    expect(page.get_by_role("article", name=re.compile(r"^Step 1 · graded"))).to_have_count(1)
    expect(label(page, 0)).to_contain_text("Shift+Enter runs it and stays")
    editor = answer_cell(page, 0).locator(".cm-content")
    expect(editor).to_be_focused()
    before = cells.count()
    page.keyboard.insert_text(VOTES)
    page.keyboard.press("Shift+Enter")  # runs, and the keyboard stays in the step's cell
    expect(badge(page, 0)).to_have_text(re.compile("passed · ran without error"), timeout=60_000)
    expect(cells).to_have_count(before)
    expect(editor).to_be_focused()
    # command mode: Shift+Enter stays too; a cell-type key leaves the answer cell a code cell
    page.keyboard.press("Escape")
    page.keyboard.press("Shift+Enter")
    attempt = f"attempts/{stored(page, 'attempts')[0]['id']}"
    wait_for(lambda: stored(page, attempt)["steps"][0]["turns"] == 2)
    expect(cells).to_have_count(before)
    expect(answer_cell(page, 0)).to_have_class(re.compile("jp-mod-active"))
    page.keyboard.press("m")
    expect(toast(page, "The lab's cells (steps, instructions, references) keep their type.")).to_be_visible()
    expect(answer_cell(page, 0)).to_have_class(re.compile("jp-CodeCell"))
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    # a cell of the person's own says at once that its runs are not graded, and where the answer is
    page.keyboard.press("b")
    scratch = page.locator(f"{NB} .jp-CodeCell:not([class*='jp-CIBench-'])")
    expect(scratch).to_have_class(re.compile("jp-mod-active"))
    note = "not graded — step 1's answer is in the marked cell"
    expect(scratch.locator(".jp-CIBench-badge")).to_have_text(note)
    page.keyboard.press("Enter")
    page.keyboard.insert_text("print(votes[0])")
    page.keyboard.press("Control+Enter")
    expect(scratch.locator(".jp-OutputArea-output")).to_contain_text("red", timeout=60_000)
    expect(scratch.locator(".jp-CIBench-badge")).to_have_text(note)
    assert stored(page, attempt)["steps"][0]["turns"] == 2  # not a turn
    press_next(page)
    # the marker and the notes move with the step
    expect(answer_cell(page, 1)).to_have_class(re.compile("jp-CIBench-answer-current"))
    expect(answer_cell(page, 0)).not_to_have_class(re.compile("jp-CIBench-answer-current"))
    expect(label(page, 0)).to_contain_text("Step 1 · settled")
    expect(scratch.locator(".jp-CIBench-badge")).to_have_text(
        "not graded — step 2's answer is in the marked cell"
    )
    # a text step's badge says what passes
    run_in_cell(page, 1, "print('The answer is red')")
    expect(badge(page, 1)).to_have_class(re.compile("jp-CIBench-badge-pass"), timeout=60_000)
    expect(badge(page, 1).locator(".jp-CIBench-badge-passes")).to_have_text(
        "to pass: print only the answer, or a sentence naming it, as your last line"
    )
    page.screenshot(path=str(lab.root.parent / "answer-cell.png"))


@pytest.mark.parametrize("lab", [{"turn_cap": 3, "grade_rule": "settling"}], indirect=True)
def test_a_finished_attempts_cells_keep_no_stale_text_nor_change(page: Page, lab):
    open_lab(page, lab.url)
    open_panel(page)
    start(page, STEM)
    run_in_cell(page, 0, VOTES)
    rule = badge(page, 0).locator(".jp-CIBench-badge-rule")
    expect(rule).to_have_text("graded when you settle · 2 runs left", timeout=60_000)
    press_next(page)
    expect(rule).to_have_text("graded when you settled")  # settled: no runs left
    run_in_cell(page, 1, "print('red')")
    expect(badge(page, 1).locator(".jp-CIBench-badge-rule")).to_have_text(
        "graded when you settle · 2 runs left", timeout=60_000
    )
    press_next(page)  # the last step: the attempt ends
    expect(page.locator(f"{NB} .jp-CIBench-closedNote")).to_be_visible(timeout=30_000)
    for step in (0, 1):
        expect(badge(page, step).locator(".jp-CIBench-badge-rule")).to_have_text("graded when you settled")
        expect(label(page, step)).to_contain_text(f"Step {step + 1} · settled")
    expect(page.locator(f"{NB} .jp-CIBench-answer-current")).to_have_count(0)
    # the finished notebook is saved; showing a reference leaves it so
    dirty = page.locator(".lm-DockPanel .lm-TabBar-tab.jp-mod-dirty")
    expect(dirty).to_have_count(0, timeout=30_000)
    toggle = page.locator(f'{NB} .jp-CIBench-reference[data-step="0"] .jp-CIBench-cellLabel-toggle')
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    expect(dirty).to_have_count(0)
    # a stray cell-type key on every cell: one note, no dialog, the cells and their badges kept
    markdown = page.locator(f"{NB} .jp-MarkdownCell").count()
    answer_cell(page, 1).locator(".jp-InputPrompt").click()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+a")
    page.keyboard.press("m")
    expect(toast(page, "This attempt is finished: its cells keep their type.")).to_be_visible()
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    expect(page.locator(f"{NB} .jp-MarkdownCell")).to_have_count(markdown)
    expect(page.locator(f"{NB} .jp-CIBench-answer .jp-CIBench-badge")).to_have_count(2)
    expect(dirty).to_have_count(0)


@pytest.mark.parametrize("lab", [{"reveal": "after-step"}], indirect=True)
def test_the_panel_intro_mode_reference_plot_and_tabs(page: Page, lab):
    open_lab(page, lab.url)
    open_panel(page)
    pick(page, STEM, EN)
    intro = page.locator(".jp-CIBench-detail .jp-CIBench-intro")
    modes = page.locator(".jp-CIBench-modes")
    expect(intro).to_be_in_viewport()
    expect(modes).to_be_in_viewport()
    assert intro.bounding_box()["y"] < modes.bounding_box()["y"]  # the intro first
    page.get_by_label("oracle", exact=True).check()
    page.locator(".jp-CIBench-actionBar .jp-CIBench-start").click()
    page.wait_for_selector(f"{NB} .jp-CIBench-answer")
    page.locator(".jp-CIBench-attemptView .jp-CIBench-back").click()
    # the next task preselects the default mode, not the last attempt's
    pick(page, STEM, ZH)
    expect(page.locator("input.jp-CIBench-mode:checked")).to_have_value("e2e")
    page.locator(".jp-CIBench-actionBar .jp-CIBench-start").click()
    page.wait_for_selector(f"{NB} .jp-CIBench-answer")
    names = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.jp-CIBench-attemptTab .lm-TabBar-tabLabel")
    expect(names).to_have_count(2)
    shown = names.evaluate_all("ls => ls.map(l => [l.textContent, l.scrollWidth <= l.clientWidth])")
    assert sorted(shown) == [[f"{STEM}.template-en.ipynb", True], [f"{STEM}.template-zh.ipynb", True]]
    # a 1,200 px reference plot fits the sidebar: nothing scrolls sideways
    page.locator(".jp-CIBench-attemptView .jp-CIBench-back").click()
    start(page, "wide_plot", "A wide plot")
    give_up(page, 1)
    ref = page.locator('.jp-CIBench-panel .jp-CIBench-reference[data-step="0"]')
    ref.locator("summary").click()
    image = ref.locator("img.jp-CIBench-ref-image")
    expect(image).to_be_visible()
    body = page.locator(".jp-CIBench-body")
    width = body.evaluate("b => [b.scrollWidth, b.clientWidth]")
    assert width[0] <= width[1], width
    assert image.bounding_box()["width"] <= body.bounding_box()["width"]
