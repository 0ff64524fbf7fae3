"""The study's results view is readable at 1400×900, through the UI only: Results opens it in the main
area (not the panel's narrow sidebar; a reload reopens it there); after Compare no label of its charts
is clipped, overlaps another or lies under a dot, bar or line (bounding boxes in the page), the
scatter's axes have tick values, the nine steps tied at one point show as one labelled point and a
table of the tied steps, and no table cell's text spills out. The people and the run are recorded into
the results database before the lab starts (compare_ties)."""

from __future__ import annotations

import re

import pytest
from compare_ties import RUN, STUDY, TIED, record, study_definition, write_tie_tasks
from playwright.sync_api import Page, expect

from .lab import TOKEN, wait_until_saved
from .lab import configured_lab as start_lab
from .test_play_panel import use_theme

RESEARCHER = "the-researcher"


@pytest.fixture
def ties_lab(tmp_path):
    root = tmp_path / "tasks"
    tasks = write_tie_tasks(root)
    record(f"sqlite:///{tmp_path / 'results.sqlite'}", root)
    study = study_definition(tasks)
    traits = {"task_dirs": [str(root)], "studies": {STUDY: study}, "participant": RESEARCHER,
              "researchers": [RESEARCHER], "profile": "fair"}  # fmt: skip
    server = start_lab(tmp_path, traits)
    yield server
    server.kill()


#: every text of the view's charts: its box, the chart's box, its text (page coordinates)
TEXT_BOXES = """view => Array.from(view.querySelectorAll('svg')).map(svg => {
  const box = r => ({x: r.left, y: r.top, w: r.width, h: r.height});
  const texts = Array.from(svg.querySelectorAll('text')).filter(t => t.textContent.trim());
  const marks = Array.from(svg.querySelectorAll('circle, rect, line:not(.jp-CIBench-scatterAxis)'));
  return {chart: svg.getAttribute('aria-label') || svg.querySelector('title')?.textContent,
          box: box(svg.getBoundingClientRect()),
          texts: texts.map(t => ({text: t.textContent, box: box(t.getBoundingClientRect())})),
          marks: marks.map(m => ({text: m.getAttribute('class'), box: box(m.getBoundingClientRect())}))};
})"""


def overlap(a: dict, b: dict) -> float:
    """The area two boxes share (px²)."""
    w = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
    return max(w, 0) * max(h, 0)


def inside(inner: dict, outer: dict, slack: float = 0.5) -> bool:
    return (
        inner["x"] >= outer["x"] - slack
        and inner["y"] >= outer["y"] - slack
        and inner["x"] + inner["w"] <= outer["x"] + outer["w"] + slack
        and inner["y"] + inner["h"] <= outer["y"] + outer["h"] + slack
    )


def labels_are_readable(page: Page, where: str) -> None:
    """No chart text outside its chart, none over another or under a dot, bar or line (the axes
    aside); no table cell's text spills out."""
    view = page.locator(".jp-CIBench-resultsView")
    charts = view.evaluate(TEXT_BOXES)
    assert len(charts) == 2, charts
    for chart in charts:
        texts = chart["texts"]
        clipped = [t["text"] for t in texts if not inside(t["box"], chart["box"])]
        assert not clipped, f"{where}: {chart['chart']}: clipped {clipped}"
        crossed = [
            (a["text"], b["text"])
            for i, a in enumerate(texts)
            for b in texts[i + 1 :]
            if overlap(a["box"], b["box"]) > 1
        ]
        assert not crossed, f"{where}: {chart['chart']}: overlapping labels {crossed}"
        covered = [
            (t["text"], m["text"]) for t in texts for m in chart["marks"] if overlap(t["box"], m["box"]) > 1
        ]
        assert not covered, f"{where}: {chart['chart']}: labels under a dot, bar or line {covered}"
    spilled = view.locator(".jp-CIBench-compareTable td, .jp-CIBench-compareTable th").evaluate_all(
        "cells => cells.filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.textContent)"
    )
    assert not spilled, f"{where}: {spilled}"


def test_the_results_view_opens_in_the_main_area_with_readable_charts(page: Page, ties_lab, tmp_path):
    page.goto(f"{ties_lab.url}/lab?cibench-study={STUDY}&token={TOKEN}")
    study = page.locator(".jp-CIBench-studyView")
    expect(study.locator(".jp-CIBench-studyTitle")).to_have_text("Pilot", timeout=60_000)
    study.get_by_role("button", name="Results").click()
    view = page.locator("#jp-main-dock-panel .jp-CIBench-resultsView")
    expect(view).to_be_visible()
    tab = page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current")
    expect(tab).to_contain_text("Results: Pilot")
    assert view.bounding_box()["width"] > 900  # the main area, not the 250 px sidebar
    view.get_by_label(re.compile(rf"^{RUN} ")).check()
    view.get_by_role("button", name="Compare").click()
    expect(view.get_by_role("status")).to_have_text(f"2 people vs {RUN} · profile fair")

    scatter = view.get_by_role("img", name="Working time vs step difficulty")
    for axis in ("x", "y"):
        ticks = scatter.locator(f".jp-CIBench-scatterTick[data-axis='{axis}']").all_text_contents()
        assert len(ticks) >= 3 and all(re.fullmatch(r"[−-]?\d+(\.\d+)?( s)?", t) for t in ticks), (
            axis,
            ticks,
        )
    tied = scatter.locator("g.jp-CIBench-scatterPoint", has_text="tied")
    expect(tied).to_have_count(1)  # nine steps at one point: one label
    expect(tied.locator("text")).to_have_text(f"cmp_many #1 +{TIED - 1} tied")
    ties = view.get_by_role("table", name="Tied points")
    expect(ties.locator("tbody tr")).to_have_count(1)
    expect(ties.locator("tbody tr td").last).to_have_text(
        ", ".join(f"cmp_many #{i + 1}" for i in range(TIED))
    )
    page.screenshot(path=str(tmp_path / "8-results.png"))
    labels_are_readable(page, "JupyterLab Light")
    use_theme(page, "JupyterLab Dark")
    labels_are_readable(page, "JupyterLab Dark")
    scatter.scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "8-results-scatter-dark.png"))
    view.get_by_role("table", name="Per step").scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "8-results-tables-dark.png"))

    wait_until_saved(page, "cibench-lab-study-results")
    page.reload()  # the lab reopens the tab on its study
    expect(tab).to_contain_text("Results: Pilot", timeout=60_000)
    expect(view.get_by_label(re.compile(rf"^{RUN} "))).to_be_visible()
