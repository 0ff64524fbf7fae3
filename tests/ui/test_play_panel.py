"""The CIBench panel during a person's play, driven only through the UI (the API is read
afterwards to check what was stored): the grade rule, safe settling, references, the
action bar, the keyboard, and an accessibility scan in both themes."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from cibench_lab.tasks.library import TaskLibrary, builtin_dir

from .axe import axe_violations
from .lab import configured_lab as start_lab
from .test_lab_play import (
    answer_cell,
    badge,
    open_lab,
    open_panel,
    press_next,
    run_in_cell,
    settle_pending,
    start_task,
)

PENGUINS = "cibench_template/pandas/penguins_raw_tidy"
CANCER = "cibench_template/sklearn/breast_cancer_classifiers"
ORANGE = "cibench_template/scipy/orange_growth_curves"  # 15 steps
ASTRONAUT = "cibench_generation/opencv/astronaut_face_anonymise"  # 10 steps

BAR = ".jp-CIBench-actionBar"


def task(task_id: str):
    return TaskLibrary.load([builtin_dir()]).get(task_id)


def api(page: Page, route: str):
    """GET a route of the server's API from the page (its session cookie)."""
    text = page.evaluate(
        "async r => JSON.stringify(await (await fetch('/cibench-lab/api/' + r)).json())", route
    )
    return json.loads(text)


def attempt_of(page: Page, task_id: str) -> dict:
    rows = [a for a in api(page, "attempts") if a["task_id"] == task_id]
    assert len(rows) == 1, rows
    return api(page, f"attempts/{rows[0]['id']}")


@pytest.fixture
def configured_lab(tmp_path, request):
    """A lab whose server settings are locked to ``request.param`` (CIBenchLabApp traits)."""
    lab = start_lab(tmp_path, {"lock_settings": True, **request.param})
    yield lab
    lab.kill()


def give_up(page: Page, times: int) -> None:
    """Give up the open step ``times`` times, each through its Undo window ("Settle now")."""
    counter = page.locator(f"{BAR} .jp-CIBench-counter")
    for _ in range(times):
        before = counter.inner_text()
        page.locator(f"{BAR} .jp-CIBench-giveup").click()
        settle_pending(page)
        expect(counter).not_to_have_text(before, timeout=30_000)


def all_tasks(page: Page) -> None:
    page.locator(".jp-CIBench-attemptView .jp-CIBench-back").click()
    expect(page.locator(".jp-CIBench-filter")).to_be_focused()


@pytest.mark.parametrize(
    "configured_lab, rule, kept",
    [({}, "best", "passed"), ({"grade_rule": "settling"}, "settling", "missed")],
    indirect=["configured_lab"],
)
def test_the_grade_rule_is_named_and_applied(page: Page, configured_lab, rule, kept):
    """A match, then a worse run: the step keeps the best run (the default), or the last one
    under settling."""
    open_lab(page, configured_lab.url)
    open_panel(page)
    start_task(page, "penguins_raw_tidy", "end-to-end")
    words = {"best": "best run kept", "settling": "graded when you settle"}[rule]
    expect(page.locator(".jp-CIBench-attempt-meta")).to_contain_text(f"Grades: {words}")
    steps = task(PENGUINS).steps
    run_in_cell(page, 0, steps[0].code)
    expect(badge(page, 0)).to_have_class(re.compile("jp-CIBench-badge-pass"), timeout=60_000)
    press_next(page)
    run_in_cell(page, 1, steps[1].code)  # a match
    expect(badge(page, 1)).to_have_class(re.compile("jp-CIBench-badge-pass"), timeout=60_000)
    run_in_cell(page, 1, "print('island')")  # then a worse run
    expect(badge(page, 1)).to_have_class(re.compile("jp-CIBench-badge-miss"), timeout=60_000)
    press_next(page)
    row = page.locator('.jp-CIBench-step[data-step="1"]')
    expect(row.locator(".jp-CIBench-step-grade")).to_contain_text(f"{kept} (kept)", timeout=30_000)
    view = attempt_of(page, PENGUINS)
    assert view["settings"]["grade_rule"] == rule
    assert view["steps"][1]["grade"]["passed"] is (kept == "passed")
    assert view["steps"][1]["kept_turn"] == (0 if rule == "best" else 1)


def open_palette(page: Page) -> None:
    """Ctrl+Shift+C until the command palette's input has the focus (the first press can come
    before the lab binds its shortcuts)."""
    palette = page.locator(".lm-CommandPalette-input")
    for _ in range(3):
        page.keyboard.press("Control+Shift+c")
        try:
            expect(palette).to_be_focused(timeout=3_000)
            expect(palette).to_be_visible(timeout=1_000)  # the modal palette, not a hidden one
            return
        except AssertionError:
            page.keyboard.press("Escape")
    expect(palette).to_be_focused()
    expect(palette).to_be_visible()


def run_command(page: Page, query: str, label: str | None = None) -> None:
    """Run the palette command whose active item shows ``label`` (``query`` by default). The
    palette is opened and filled again when it closed in between: just after a page load the lab
    can still move the focus (restoring its layout), which closes the modal palette."""
    palette = page.locator(".lm-CommandPalette-input")
    active = page.locator(".lm-CommandPalette-item.lm-mod-active")
    for _ in range(4):
        if not palette.is_visible():
            open_palette(page)
        try:
            palette.fill(query, timeout=2_000)
            expect(active).to_contain_text(label or query, timeout=3_000)
            expect(palette).to_be_focused(timeout=1_000)
            break
        except (AssertionError, PlaywrightError):
            continue
    expect(active).to_contain_text(label or query)
    page.keyboard.press("Enter")


def palette_labels(page: Page, query: str) -> list[str]:
    """The enabled palette items for ``query``, in their order. The palette is opened and filled
    again when the text did not land or it shows none: a notebook that opens just after Start can
    take the focus back and close the modal palette, and under load the palette can filter before
    the commands' enabled states are settled."""
    palette = page.locator(".lm-CommandPalette-input")
    items = page.locator(".lm-CommandPalette-item:not(.lm-mod-disabled) .lm-CommandPalette-itemLabel")
    for _ in range(3):
        open_palette(page)
        try:
            palette.fill(query, timeout=2_000)
            expect(palette).to_have_value(query, timeout=2_000)
            expect(items.first).to_be_visible(timeout=5_000)
            break
        except (AssertionError, PlaywrightError):
            page.keyboard.press("Escape")
    expect(palette).to_have_value(query)
    expect(items.first).to_be_visible()
    labels = items.all_inner_texts()
    page.keyboard.press("Escape")
    return labels


def test_next_step_without_a_run_asks_first_and_can_be_undone(page: Page, lab_server):
    open_lab(page, lab_server.url)
    open_panel(page)
    start_task(page, "penguins_raw_tidy", "end-to-end")
    # typing "CIBench" in the palette puts Next Step first (Enter does not give up)
    labels = palette_labels(page, "CIBench")
    assert labels[0] == "CIBench: Next Step", labels
    assert labels.index("CIBench: Give Up Step") > 0
    assert "CIBench: Play Step (attached player)" not in labels  # disabled for a person
    next_step = page.locator(f"{BAR} .jp-CIBench-next")
    next_step.click()
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_contain_text("Step 1 has no run yet.")
    dialog.get_by_role("button", name="Keep working").click()
    expect(dialog).to_have_count(0)
    assert attempt_of(page, PENGUINS)["current_step"] == 0

    # confirmed: the settle waits in its Undo window; Escape on Undo takes it back
    next_step.click()
    dialog.get_by_role("button", name="Next step").click()
    undo = page.locator(f"{BAR} .jp-CIBench-undo")
    expect(undo).to_be_focused()
    expect(page.locator(".jp-CIBench-countdown")).to_have_text(re.compile(r"Step 1 settles in [1-5] s"))
    page.keyboard.press("Escape")
    expect(undo).to_have_count(0)
    expect(next_step).to_be_focused()
    page.wait_for_timeout(6_000)  # past the window: nothing was sent
    assert attempt_of(page, PENGUINS)["current_step"] == 0

    # a failed last run asks too; this time the window runs out and the settle is sent
    run_in_cell(page, 0, "raise ValueError('not yet')")
    expect(badge(page, 0)).to_have_class(re.compile("jp-CIBench-badge-miss"), timeout=60_000)
    next_step.click()
    expect(dialog).to_contain_text("The last run of Step 1 raised an error.")
    dialog.get_by_role("button", name="Next step").click()
    settle_pending(page, wait=True)
    expect(answer_cell(page, 1)).to_be_visible(timeout=30_000)
    view = attempt_of(page, PENGUINS)
    assert view["current_step"] == 1
    assert view["steps"][0]["outcome"] == "next"


def test_a_reload_inside_the_undo_window_sends_the_settle(page: Page, lab_server):
    open_lab(page, lab_server.url)
    open_panel(page)
    start_task(page, "penguins_raw_tidy", "end-to-end")
    run_in_cell(page, 0, task(PENGUINS).steps[0].code)
    expect(badge(page, 0)).to_have_class(re.compile("jp-CIBench-badge-pass"), timeout=60_000)
    page.locator(f"{BAR} .jp-CIBench-giveup").click()
    expect(page.locator(f"{BAR} .jp-CIBench-undo")).to_be_visible()
    page.reload()
    page.wait_for_selector(".jp-LabShell")
    view = attempt_of(page, PENGUINS)
    assert view["current_step"] == 1
    assert view["steps"][0]["outcome"] == "gave_up"


def test_closing_the_notebook_then_next_touches_no_other_attempt(page: Page, lab_server):
    open_lab(page, lab_server.url)
    open_panel(page)
    start_task(page, "penguins_raw_tidy", "end-to-end")
    all_tasks(page)
    start_task(page, "breast_cancer_classifiers", "end-to-end")
    title = page.locator(".jp-CIBench-attempt-title")
    expect(title).to_have_text(task(CANCER).title)

    name = attempt_of(page, CANCER)["notebook_path"].rsplit("/", 1)[-1]
    tab = page.locator(".lm-DockPanel .lm-TabBar-tab", has_text=name)
    tab.hover()
    tab.locator(".lm-TabBar-tabCloseIcon").click()
    save = page.locator(".jp-Dialog").get_by_role("button", name="Save")
    if save.is_visible(timeout=2_000):  # a notebook with unsaved changes asks first
        save.click()
    expect(tab).to_have_count(0)
    # the lab shows the other attempt's notebook now; the panel still shows the closed one
    expect(answer_cell(page, 0)).to_be_visible()
    expect(title).to_have_text(task(CANCER).title)
    expect(page.locator(".jp-CIBench-notebookState")).to_have_text(f"Notebook closed: {name}")

    press_next_confirmed(page)
    expect(page.locator(f"{BAR} .jp-CIBench-counter")).to_have_text("Step 2 of 12", timeout=30_000)
    assert attempt_of(page, CANCER)["current_step"] == 1
    assert attempt_of(page, PENGUINS)["current_step"] == 0
    assert attempt_of(page, PENGUINS)["steps"][0]["turns"] == 0

    # working in the other notebook is what moves the panel to it
    page.locator(".lm-DockPanel .lm-TabBar-tab", has_text="penguins_raw_tidy.").click()
    expect(title).to_have_text(task(PENGUINS).title)


def press_next_confirmed(page: Page) -> None:
    page.locator(f"{BAR} .jp-CIBench-next").click()
    page.locator(".jp-Dialog").get_by_role("button", name="Next step").click()
    settle_pending(page)


@pytest.mark.parametrize("configured_lab", [{"reveal": "after-step"}], indirect=True)
def test_after_step_reveal_shows_the_reference_in_the_panel(page: Page, configured_lab):
    open_lab(page, configured_lab.url)
    open_panel(page)
    start_task(page, "breast_cancer_classifiers", "end-to-end")
    steps = task(CANCER).steps
    assert steps[4].kind == "vis"
    expect(page.locator(".jp-CIBench-reference")).to_have_count(0)  # nothing before it settles
    give_up(page, 1)
    ref = page.locator('.jp-CIBench-reference[data-step="0"]')
    ref.locator("summary").click()
    expect(ref.locator(".jp-CIBench-ref-code pre")).to_have_text(steps[0].code)
    expect(ref.locator(".jp-CIBench-ref-thought pre")).to_have_text(steps[0].thought)
    expect(page.locator('.jp-CIBench-reference[data-step="1"]')).to_have_count(0)  # open step

    give_up(page, 4)  # through the vis step: its reference has the plot
    plot = page.locator('.jp-CIBench-reference[data-step="4"]')
    plot.locator("summary").click()
    image = plot.locator("img.jp-CIBench-ref-image")
    expect(image).to_be_visible()
    assert image.evaluate("img => img.naturalWidth") > 0


def test_the_action_bar_stays_in_view_on_the_last_of_15_steps(page: Page, lab_server):
    assert len(task(ORANGE).steps) == 15
    open_lab(page, lab_server.url)
    open_panel(page)
    start_task(page, "orange_growth_curves template", "end-to-end")
    give_up(page, 14)
    expect(page.locator(f"{BAR} .jp-CIBench-counter")).to_have_text("Step 15 of 15")
    expect(page.locator(".jp-CIBench-step")).to_have_count(15)
    for name in ("next", "giveup", "counter"):
        expect(page.locator(f"{BAR} .jp-CIBench-{name}")).to_be_in_viewport()
    box = page.locator(f"{BAR} .jp-CIBench-next").bounding_box()
    assert box and box["y"] + box["height"] <= 900
    # the step list folds away
    page.locator(".jp-CIBench-stepList-summary").click()
    expect(page.locator(".jp-CIBench-step").first).to_be_hidden()


def test_keyboard_only_start_answer_next(page: Page, lab_server):
    open_lab(page, lab_server.url)
    open_palette(page)
    page.keyboard.insert_text("Open CIBench Panel")
    page.keyboard.press("Enter")
    flt = page.locator(".jp-CIBench-filter")
    expect(flt).to_be_focused()
    page.keyboard.insert_text("penguins_raw_tidy")
    expect(page.locator(".jp-CIBench-task")).to_have_count(1)
    tab_to(page, ".jp-CIBench-task")
    page.keyboard.press("Enter")
    expect(page.locator(".jp-CIBench-detail-title")).to_have_text(task(PENGUINS).title)
    expect(page.locator(".jp-CIBench-task")).to_be_focused()  # the row keeps the focus
    expect(page.locator("#cibench-lab-panel")).to_have_attribute("aria-busy", "false")
    tab_to(page, f"{BAR} .jp-CIBench-start")
    page.keyboard.press("Enter")
    editor = answer_cell(page, 0).locator(".cm-content")
    expect(editor).to_be_focused(timeout=30_000)  # the answer cell, ready to type
    page.keyboard.insert_text(task(PENGUINS).steps[0].code)
    page.keyboard.press("Control+Enter")
    expect(badge(page, 0)).to_have_class(re.compile("jp-CIBench-badge-pass"), timeout=60_000)
    page.keyboard.press("Control+Alt+KeyN")
    expect(page.locator(f"{BAR} .jp-CIBench-undo")).to_be_visible()
    # a shortcut from the notebook leaves the focus there
    assert page.evaluate("() => !!document.activeElement.closest('.jp-NotebookPanel')")
    expect(answer_cell(page, 1).locator(".cm-content")).to_be_focused(timeout=15_000)
    assert attempt_of(page, PENGUINS)["current_step"] == 1


def tab_to(page: Page, selector: str, limit: int = 25) -> None:
    """Press Tab until ``selector`` has the focus."""
    target = page.locator(selector).first
    seen = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        if target.evaluate("el => el === document.activeElement"):
            return
        seen.append(page.evaluate("() => document.activeElement?.outerHTML.slice(0, 120)"))
    raise AssertionError(f"{selector} never got the focus: {seen}")


def use_theme(page: Page, theme: str) -> None:
    """Switch the theme from the command palette (apputils:change-theme)."""
    run_command(page, f"Use Theme: {theme}", theme)
    expect(page.locator("body")).to_have_attribute("data-jp-theme-name", theme, timeout=30_000)


def no_severe_violations(page: Page, where: str) -> None:
    found = axe_violations(page, ["#cibench-lab-panel"])
    assert not found, f"{where}: {json.dumps(found, indent=1)}"


TEACHER = {"participant": "teach", "instructors": ["teach"], "class_members": {"stats": ["teach", "ada"]}}


@pytest.mark.parametrize("configured_lab", [TEACHER], indirect=True)
def test_the_header_shows_the_users_role(page: Page, configured_lab, tmp_path):
    open_lab(page, configured_lab.url)
    open_panel(page)
    role = page.locator(".jp-CIBench-header .jp-CIBench-role")
    expect(role).to_have_text("instructor")
    expect(role).to_have_attribute("title", "teach: participant, instructor; teaches stats")
    no_severe_violations(page, "the header with a role")
    page.locator(".jp-CIBench-header").screenshot(path=str(tmp_path / "header.png"))
    classes = page.locator("#cibench-lab-panel").get_by_role("button", name="Class View")  # an instructor's
    expect(classes).to_be_visible()
    heading, shown = page.locator(".jp-CIBench-title").bounding_box(), classes.bounding_box()
    assert heading and shown, "laid out"
    beside = shown["x"] >= heading["x"] + heading["width"]
    below = shown["y"] >= heading["y"] + heading["height"]
    assert beside or below, (heading, shown)  # the heading and its role whole, not under the button


@pytest.mark.parametrize("theme", ["JupyterLab Light", "JupyterLab Dark"])
def test_the_panel_passes_axe_in_both_themes(page: Page, lab_server, theme):
    open_lab(page, lab_server.url)
    use_theme(page, theme)
    open_panel(page)
    expect(page.locator(".jp-CIBench-task").first).to_be_visible()  # the panel has its tasks (and me)
    expect(page.locator("#cibench-lab-panel").get_by_role("button", name="Class View")).to_have_count(0)
    page.locator(".jp-CIBench-filter").fill("astronaut")
    page.locator(".jp-CIBench-task").first.click()
    expect(page.locator(".jp-CIBench-detail-title")).to_be_visible()
    no_severe_violations(page, f"{theme}: task list")
    page.locator(f"{BAR} .jp-CIBench-start").click()
    page.wait_for_selector(".jp-NotebookPanel .jp-CIBench-answer")
    give_up(page, 1)
    page.locator(f"{BAR} .jp-CIBench-giveup").click()
    expect(page.locator(f"{BAR} .jp-CIBench-undo")).to_be_visible()
    no_severe_violations(page, f"{theme}: undo countdown")
    page.locator(f"{BAR} .jp-CIBench-settle-now").click()
    no_severe_violations(page, f"{theme}: attempt mid-way")
    # a step given up without a run says so, in the step list and on its cell alike
    outcome = page.locator('.jp-CIBench-step[data-step="0"] .jp-CIBench-step-outcome')
    expect(outcome).to_have_text("gave up · no run", timeout=30_000)
    expect(badge(page, 0)).to_contain_text("gave up · no run")
    give_up(page, 8)
    expect(page.locator(".jp-CIBench-summary")).to_be_visible(timeout=30_000)
    no_severe_violations(page, f"{theme}: done summary")
    heads = page.locator(".jp-CIBench-times thead th").all_inner_texts()
    assert heads == ["Step", "Outcome", "Kept grade", "Time (working / wall)"]
    expect(page.locator(".jp-CIBench-times tbody tr").first).to_contain_text("gave up")


@pytest.mark.parametrize("configured_lab", [{"reveal": "after-step"}], indirect=True)
def test_the_keyboard_picks_a_task_settles_and_undoes_and_the_panel_fits(page: Page, configured_lab):
    """Filter + Enter picks the only match (the focus on its mode; Mode and Start in view at
    1400×900), Ctrl+Alt+N in the notebook then Ctrl+Alt+Z undoes, and a vis reference shows
    its plot, its code unwrapped."""
    open_lab(page, configured_lab.url)
    open_panel(page)
    page.locator(".jp-CIBench-filter").fill("breast_cancer_classifiers")
    expect(page.locator(".jp-CIBench-task")).to_have_count(1)
    page.locator(".jp-CIBench-filter").press("Enter")
    mode = page.locator("input.jp-CIBench-mode:checked")
    expect(mode).to_be_focused()
    body = page.locator(".jp-CIBench-body").bounding_box()
    assert body and page.locator(".jp-CIBench-body").evaluate("b => b.scrollTop") == 0
    for control in (page.locator(".jp-CIBench-modes"), page.locator(f"{BAR} .jp-CIBench-start")):
        expect(control).to_be_in_viewport()
    modes = page.locator(".jp-CIBench-modes").bounding_box()
    assert modes and modes["y"] + modes["height"] <= body["y"] + body["height"], (modes, body)
    page.locator(f"{BAR} .jp-CIBench-start").click()
    page.wait_for_selector(".jp-NotebookPanel .jp-CIBench-answer")

    answer_cell(page, 0).locator(".cm-content").click()
    page.keyboard.press("Control+Alt+n")
    page.locator(".jp-Dialog").get_by_role("button", name="Next step").click()
    countdown = page.locator(".jp-CIBench-countdown")
    expect(countdown).to_have_text(re.compile(r"Step 1 settles in [1-5] s — Undo: Ctrl\+Alt\+Z"))
    answer_cell(page, 0).locator(".cm-content").click()
    page.keyboard.press("Control+Alt+z")
    expect(countdown).to_have_count(0)
    expect(page.locator(f"{BAR} .jp-CIBench-next")).to_be_visible()
    assert attempt_of(page, CANCER)["current_step"] == 0

    give_up(page, 5)  # through the vis step (Step 5)
    plot = page.locator('.jp-CIBench-reference[data-step="4"]')
    plot.locator("summary").click()
    expect(plot.locator("img.jp-CIBench-ref-image")).to_be_visible()
    expect(plot.locator(".jp-CIBench-ref-output")).to_have_count(0)  # no "image/png (N bytes)"
    code = plot.locator(".jp-CIBench-ref-code pre")
    assert code.evaluate("p => getComputedStyle(p).whiteSpace") == "pre"
