"""The class view in the lab: an instructor (roles from the server's settings) opens "CIBench: Class
View" from the panel's button (or the palette) while a scripted student plays through the engine,
into the same results database. The teacher, a member of the class with an attempt of their own,
is none of its participants: no row, no line of the CSV, no bar. Without a reload the student's cell moves on
(step and score) and the pass-rate chart grows; Enter on the cell drills down to each step's
outcome in the panel's words, its instruction's markdown rendered, the turn's code and grade; the
score counts the steps settled ("2 of 2 settled passed"); the status filter hides the row and says
so when no row is left; the CSV downloads the table; the view passes axe in both themes, its
code and output boxes showing on its ground in each. Before anyone starts, every participant has a
row, and a step given up without a run reads "gave up · no run" as the student's panel said; the
view chosen on another class is back on it after a reload."""

from __future__ import annotations

import csv
import io
import json
import re
import time

import nbformat
import pytest
from conftest import PROBE_ID, SECRET_OUT, write_probe_task
from nbformat.v4 import new_output
from playwright.sync_api import Page, expect

from cibench_lab.grading import TurnOutput
from cibench_lab.play.attempt import Attempts, NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.store import Store
from cibench_lab.tasks.library import TaskLibrary

from .axe import axe_violations
from .lab import TOKEN
from .lab import configured_lab as start_lab
from .test_lab_play import open_panel
from .test_play_panel import run_command, use_theme

TEACHER, STUDENT = "teach", "ada"
WORDS = f"print('{SECRET_OUT} alpha beta')"


def class_setup(tmp_path, classes: dict[str, list[str]]) -> tuple[Attempts, dict]:
    """The probe task (its instruction's markdown: `code`, **bold**), a results database and the
    lab's traits: the teacher, an instructor of ``classes``."""
    root = tmp_path / "tasks"
    path = write_probe_task(root)
    nb = nbformat.read(str(path), as_version=4)
    nb.cells[0].source = nb.cells[0].source.replace("a string", "a **string**")
    nbformat.write(nb, str(path))
    store = Store(f"sqlite:///{tmp_path / 'results.sqlite'}")
    attempts = Attempts(store, TaskLibrary.load([root]), "cibench")
    traits = {"task_dirs": [str(root)], "participant": TEACHER, "instructors": [TEACHER],
              "profile": "cibench", "class_members": classes}  # fmt: skip
    return attempts, traits


def start(attempts: Attempts, who: str) -> str:
    return attempts.create(
        NewAttempt(attempts.library.get(PROBE_ID), "e2e", "human", who, PlaySettings(), {})
    )


@pytest.fixture
def class_lab(tmp_path):
    attempts, traits = class_setup(tmp_path, {"demo": [STUDENT, "bob", TEACHER]})
    attempt_id = start(attempts, STUDENT)
    start(attempts, TEACHER)  # the teacher's own
    server = start_lab(tmp_path, traits)
    yield server, attempts, attempt_id
    server.kill()
    attempts.store.dispose()


@pytest.fixture
def new_class_lab(tmp_path):
    """Two classes and no attempt yet: nobody has started anything."""
    attempts, traits = class_setup(tmp_path, {"demo": [STUDENT, "bob", TEACHER], "zoo": ["dan", TEACHER]})
    server = start_lab(tmp_path, traits)
    yield server, attempts
    server.kill()
    attempts.store.dispose()


def background(locator) -> str:
    return locator.evaluate("e => getComputedStyle(e).backgroundColor")


def open_class_view(page: Page, url: str, by_button: bool = False):
    """The class view, opened from the palette or (``by_button``) the panel's Class View button."""
    page.goto(f"{url}/lab?token={TOKEN}")
    panel = page.locator("#cibench-lab-panel")
    expect(panel).to_be_attached(timeout=60_000)
    if by_button:
        open_panel(page)
        panel.get_by_role("button", name="Class View").click()
    else:
        run_command(page, "CIBench: Class View")
    view = page.locator(".jp-CIBench-classView")
    expect(view).to_be_visible()
    return view


def test_the_class_view_follows_a_student_as_they_play(page: Page, class_lab):
    server, attempts, attempt_id = class_lab
    view = open_class_view(page, server.url, by_button=True)  # the panel's button, for an instructor
    row = view.locator(f"tr[data-member='{STUDENT}']")
    cell = row.locator(f"button[data-attempt='{attempt_id}']")
    expect(cell).to_contain_text("step 1 of 4")
    expect(cell).to_contain_text("none settled yet")  # on step 1: nothing passed, nothing missed
    expect(view.locator("tr[data-member='bob']")).to_contain_text("not started")
    expect(view.locator("tbody tr")).to_have_count(2)  # ada and bob: the teacher is no participant
    expect(view.locator(f"tr[data-member='{TEACHER}']")).to_have_count(0)

    attempts.record_turn(attempt_id, 0, TurnOutput("probe = 'x'"))  # the student plays two steps
    attempts.settle(attempt_id, 0, "next")
    attempts.record_turn(
        attempt_id, 1, TurnOutput(WORDS, [new_output("stream", name="stdout", text="nope\n")])
    )
    attempts.record_turn(
        attempt_id,
        1,
        TurnOutput(WORDS, [new_output("stream", name="stdout", text=f"{SECRET_OUT} alpha beta\n")]),
    )
    attempts.settle(attempt_id, 1, "next")
    expect(cell).to_contain_text("step 3 of 4", timeout=30_000)  # polled, no reload
    expect(cell).to_contain_text("2 of 2 settled passed")  # of the steps settled, not of all four
    expect(view.locator("rect.jp-CIBench-chartBar")).to_have_count(3)
    chart_text = view.locator(".jp-CIBench-passRates .jp-CIBench-srOnly")
    expect(chart_text).to_contain_text("step 1: 1 of 1 who settled it passed (100%)")
    expect(chart_text).to_contain_text("step 3: nobody settled it yet · 1 still on it")  # no miss
    expect(view.locator("text.jp-CIBench-chartLabel", has_text="/")).to_have_text(
        ["1/1", "1/1", "0/0 · 1 on it"]
    )

    cell.focus()
    page.keyboard.press("Enter")
    record = view.locator(f".jp-CIBench-memberAttempt[data-attempt='{attempt_id}']")
    first = record.locator(".jp-CIBench-memberStep[data-step='0']")
    expect(first.locator(".jp-CIBench-memberOutcome")).to_have_text("Step 1 (exec): settled")  # not "next"
    instruction = first.locator(".jp-CIBench-memberInstruction")
    expect(instruction.locator("strong")).to_have_text("string")  # markdown, rendered as JupyterLab does
    expect(instruction.locator("code")).to_have_text("probe")
    expect(instruction).to_have_class(re.compile(r"\bjp-RenderedMarkdown\b"))
    expect(instruction).not_to_contain_text("**")
    expect(record.locator(".jp-CIBench-memberStep[data-step='2'] .jp-CIBench-memberOutcome")).to_have_text(
        "Step 3 (num): open"
    )
    second = record.locator(".jp-CIBench-memberStep[data-step='1']")
    expect(second.locator(".jp-CIBench-memberTurn")).to_have_count(2)
    last = second.locator(".jp-CIBench-memberTurn[data-turn='1']")
    expect(last.locator(".jp-CIBench-memberCode")).to_have_text(WORDS)
    expect(last.locator(".jp-CIBench-memberOutput")).to_have_text(f"{SECRET_OUT} alpha beta")
    expect(last.locator(".jp-CIBench-memberTurnHead")).to_contain_text("passed")
    expect(
        second.locator(".jp-CIBench-memberTurn[data-turn='0'] .jp-CIBench-memberTurnHead")
    ).to_contain_text("missed")
    expect(second.locator(".jp-CIBench-memberGrade")).to_contain_text(re.compile(r"kept grade: passed"))
    for theme in ("JupyterLab Light", "JupyterLab Dark"):
        if theme != "JupyterLab Light":
            use_theme(page, theme)
        found = axe_violations(page, [".jp-CIBench-classView"])
        assert not found, f"{theme}: {found}"
        for block in (".jp-CIBench-memberCode", ".jp-CIBench-memberOutput"):  # a box on the view's ground
            shown = last.locator(block)
            assert background(shown) != background(view), (theme, block, background(view))
            assert shown.evaluate("e => getComputedStyle(e).borderTopStyle") == "solid", (theme, block)
    record.get_by_role("button", name="Back to the class").press("Enter")
    expect(cell).to_be_focused()

    view.get_by_label("Status").select_option("done")
    expect(row).to_have_count(0)
    expect(view.locator(".jp-CIBench-filterNote")).to_have_text(
        "No participant has a cell that is done. Choose Any status to see everyone."
    )
    view.get_by_label("Status").select_option("open")
    expect(row).to_have_count(1)
    expect(view.locator(".jp-CIBench-filterNote")).to_have_count(0)
    with page.expect_download() as download:
        view.get_by_role("button", name="Download CSV").click()
    assert download.value.suggested_filename == "cibench-class-demo.csv"
    lines = list(csv.DictReader(io.StringIO(open(download.value.path(), encoding="utf-8").read())))
    assert [
        (r["participant"], r["attempt_id"], r["status"], r["step"], r["passed"], r["settled"], r["score"])
        for r in lines
    ] == [(STUDENT, attempt_id, "open", "3/4", "2", "2", "100.0")]


def saved_class_view(page: Page) -> str | None:
    """The class the lab's saved layout reopens the class view on (None: not in the layout yet)."""
    data = page.evaluate("async () => (await (await fetch('/lab/api/workspaces/default')).json()).data")
    main = json.dumps(data.get("layout-restorer:data", {}).get("main", {}))
    saved = data.get("cibench-lab-class-view:class-view", {}).get("data", {})
    return saved.get("class") if "cibench-lab-class-view:class-view" in main else None


def test_the_class_is_listed_before_anyone_starts_and_comes_back_after_a_reload(page: Page, new_class_lab):
    server, attempts = new_class_lab
    view = open_class_view(page, server.url)
    expect(view.locator("tbody tr")).to_have_count(2)  # ada and bob at once: nobody has started
    expect(view.locator(".jp-CIBench-classNote")).to_contain_text("No attempts yet")
    expect(view.locator("thead th")).to_have_text(["Participant"])
    view.get_by_label("Status").select_option("none")
    expect(view.locator("tbody tr")).to_have_count(2)  # both not started
    view.get_by_label("Status").select_option("")

    aid = start(attempts, STUDENT)  # ada starts: the task gets its column, polled
    expect(view.locator(f"tr[data-member='{STUDENT}'] button[data-attempt='{aid}']")).to_contain_text(
        "step 1 of 4", timeout=30_000
    )
    expect(view.locator("tr[data-member='bob']")).to_contain_text("not started")
    expect(view.locator(".jp-CIBench-classNote")).to_have_count(0)
    attempts.settle(aid, 0, "gave_up")  # she gives step 1 up without a run: her panel said "gave up · no run"
    cell = view.locator(f"button[data-attempt='{aid}']")
    expect(cell).to_contain_text("step 2 of 4", timeout=30_000)
    expect(cell).to_contain_text("0 of 1 settled passed")
    cell.click()
    first = view.locator(
        f".jp-CIBench-memberAttempt[data-attempt='{aid}'] .jp-CIBench-memberStep[data-step='0']"
    )
    expect(first.locator(".jp-CIBench-memberOutcome")).to_have_text("Step 1 (exec): gave up · no run")
    expect(first).not_to_contain_text("No turn yet")
    view.get_by_role("button", name="Back to the class").click()

    view.get_by_label("Class", exact=True).select_option("zoo")
    expect(view.locator("tbody tr[data-member='dan']")).to_have_count(1)
    deadline = time.monotonic() + 30  # the lab saves its layout a moment after a change
    while saved_class_view(page) != "zoo":
        assert time.monotonic() < deadline, "the lab never saved the class view in its layout"
        time.sleep(0.5)
    page.reload()
    restored = page.locator(".jp-CIBench-classView")
    expect(restored).to_be_visible(timeout=60_000)  # back without the palette
    expect(restored.get_by_label("Class", exact=True)).to_have_value("zoo")
    expect(restored.locator("tbody tr")).to_have_count(1)  # dan, zoo's one participant
    expect(restored.locator(".jp-CIBench-classNote")).to_contain_text("No attempts yet")
