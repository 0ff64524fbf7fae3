"""The study's results view in the lab, through the UI only: a researcher opens the study from its
link, presses Results (a main-area tab), ticks the recorded run and compares (from the keyboard); the
per-step table holds the people's hand-computed figures beside the run's, the notes say who settles,
the CSV downloads in the CLI's columns, and the view passes axe in both themes; in both, every column
header has a tooltip and no table widens the view: in a narrow window a table scrolls sideways in its
own (keyboard-scrollable) box, figures on one line.  The people and the run are recorded into the
results database before the lab starts (test_study_compare_server's, no kernel)."""

from __future__ import annotations

import csv
import io
import re

import pytest
from playwright.sync_api import Page, expect
from test_report_compare import ANSWERS, STUDY, A, people, write_tasks
from test_study_compare_server import model_run

from cibench_lab.store import Store
from cibench_lab.tasks.library import TaskLibrary

from .axe import axe_violations
from .lab import TOKEN
from .lab import configured_lab as start_lab
from .test_play_panel import use_theme

RESEARCHER = "the-researcher"


@pytest.fixture
def results_lab(tmp_path):
    root = tmp_path / "tasks"
    write_tasks(root)
    lib = TaskLibrary.load([root])
    store = Store(f"sqlite:///{tmp_path / 'results.sqlite'}")
    people(store, lib)
    model_run(store, lib)
    store.dispose()
    study = {"title": "Pilot", "protocol": "model-parity", "consent": "We record your code.",
             "tasks": [{"task": task} for task in ANSWERS]}  # fmt: skip
    traits = {"task_dirs": [str(root)], "studies": {STUDY: study}, "participant": RESEARCHER,
              "researchers": [RESEARCHER], "profile": "fair"}  # fmt: skip
    server = start_lab(tmp_path, traits)
    yield server
    server.kill()


def test_a_researcher_compares_the_people_with_a_run(page: Page, results_lab):
    page.goto(f"{results_lab.url}/lab?cibench-study={STUDY}&token={TOKEN}")
    study = page.locator(".jp-CIBench-studyView")
    expect(study.locator(".jp-CIBench-studyTitle")).to_have_text("Pilot", timeout=60_000)
    study.get_by_role("button", name="Results").click()
    view = page.locator(".jp-CIBench-resultsView")
    box = view.get_by_label("model (openai:scripted, e2e, 2 tasks)")
    box.focus()
    page.keyboard.press("Space")
    expect(box).to_be_checked()
    view.get_by_role("button", name="Compare").press("Enter")
    expect(view.get_by_role("status")).to_have_text("2 people vs model · profile fair")
    steps = view.locator("table", has=page.locator("caption", has_text="Per step"))
    row = steps.locator("tbody tr", has_text=A).nth(1)  # pandas #2: alice passed, bob gave up
    expect(row.locator("td")).to_have_text(
        [
            A,
            "2",
            "num",
            "2 people (+1 quit)",
            "50.0 [0.0–100.0]",
            "60.0 s [50.0–70.0]",
            "passed (100.0)",
            re.compile(r"^-?\d+\.\d\d \(3\)$"),
            "",
        ]  # fmt: skip
    )
    expect(view.locator(".jp-CIBench-compareNotes")).to_contain_text("a model at its first error-free turn")
    expect(view.locator("svg.jp-CIBench-compareBars rect")).to_have_count(4)  # 2 libraries x 2 groups
    expect(view.locator("svg.jp-CIBench-compareBars .jp-CIBench-barLabel")).to_have_text(["nltk", "pandas"])
    scatter = view.get_by_role("img", name="Working time vs step difficulty")
    expect(scatter.locator("circle")).to_have_count(5)  # every step has the people's times
    point = scatter.locator("g", has_text=f"{A.rsplit('/', 1)[-1]} #2")
    expect(point.locator("title")).to_have_text(
        re.compile(r"^cmp_a #2: difficulty -?\d+\.\d\d, 60.0 s \[50.0–70.0\]$")
    )
    for theme in ("JupyterLab Light", "JupyterLab Dark"):  # the lab opens in Light
        if theme != "JupyterLab Light":
            use_theme(page, theme)
        found = axe_violations(page, ["#cibench-lab-panel", "#cibench-lab-study-results"])
        assert not found, f"{theme}: {found}"
        fits_the_panel(page, theme)
    a_narrow_window_scrolls_the_tables_in_their_box(page)
    with page.expect_download() as download:
        view.get_by_role("button", name="Download CSV").click()
    rows = list(csv.DictReader(io.StringIO(open(download.value.path(), encoding="utf-8").read())))
    step = [r for r in rows if (r["section"], r["task"], r["step"]) == ("step", A, "1")]
    assert [(r["who"], r["rate"], r["rank"], r["time_median"]) for r in step] == [
        ("humans", "50", "3", "60"),
        ("model", "100", "3", ""),
    ]


#: what each column's tooltip must say (a header's title), by its header text
TOOLTIPS = {
    "Pass % [95% CI]": re.compile(r"pass rate.*95%.*bootstrap", re.S),
    "Time": re.compile(r"median.*quartile", re.S),
    "model": re.compile(r"Run model’s score"),
    "model pass %": re.compile(r"Run model’s score"),
    "Difficulty (rank)": re.compile(r"difficulty estimate"),
}


def fits_the_panel(page: Page, theme: str) -> None:
    """Every header has a tooltip; the view (a main-area tab) never scrolls sideways: a table wider
    than the tab scrolls inside its own box; a figure stays on one line and no cell's text spills."""
    view = page.locator(".jp-CIBench-resultsView")
    heads = view.locator(".jp-CIBench-compareTable th").evaluate_all(
        "ths => ths.map(th => [th.textContent, th.title])"
    )
    assert len(heads) >= 15, heads
    for text, title in heads:
        assert len(title) > 15, f"{text!r} has no tooltip"
        if text in TOOLTIPS:
            assert TOOLTIPS[text].search(title), (text, title)
    layout = view.evaluate(
        """view => {
          const area = view.closest('.jp-CIBench-resultsArea');
          const boxes = Array.from(view.querySelectorAll('.jp-CIBench-compareScroll'));
          const cells = Array.from(view.querySelectorAll('.jp-CIBench-compareTable td, th'));
          const figures = Array.from(view.querySelectorAll('td.jp-CIBench-col-num'));
          const lines = td => {  // the line boxes of a cell's text
            const range = document.createRange();
            range.selectNodeContents(td);
            return new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top))).size;
          };
          return {
            area: [area.scrollWidth, area.clientWidth],
            view: [view.getBoundingClientRect().width, area.clientWidth],
            boxes: boxes.map(b => [b.scrollWidth, b.clientWidth, getComputedStyle(b).overflowX]),
            spilled: cells.filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.textContent),
            wrapped: figures.filter(td => lines(td) > 1).map(td => td.textContent),
          };
        }"""
    )
    assert layout["area"][0] <= layout["area"][1] + 1, f"{theme}: the view scrolls sideways: {layout}"
    assert layout["view"][0] <= layout["view"][1] + 1, f"{theme}: the view is wider than its tab: {layout}"
    assert all(overflow == "auto" for *_, overflow in layout["boxes"]), layout
    assert not layout["spilled"] and not layout["wrapped"], f"{theme}: {layout}"


def a_narrow_window_scrolls_the_tables_in_their_box(page: Page) -> None:
    """In a narrow window the per-step table scrolls in its own (focusable) box, from the keyboard."""
    page.set_viewport_size({"width": 760, "height": 900})
    box = page.locator(".jp-CIBench-resultsView .jp-CIBench-compareScroll").last
    wide, shown = box.evaluate("b => [b.scrollWidth, b.clientWidth]")
    assert wide > shown, (wide, shown)
    box.focus()
    page.keyboard.press("ArrowRight")  # the focusable box scrolls from the keyboard
    expect(box).not_to_have_js_property("scrollLeft", 0)
    box.evaluate("b => { b.scrollLeft = 0; }")
    page.set_viewport_size({"width": 1400, "height": 900})
