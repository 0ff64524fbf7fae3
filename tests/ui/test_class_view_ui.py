"""The class view in the lab: an instructor (roles from the server's settings) opens "CIBench: Class
View" from the palette while a scripted student plays through the engine, into the same results
database. The teacher, a member of the class with an attempt of their own, is none of its
participants: no row, no line of the CSV, no bar. Without a reload the student's cell moves on
(step and score) and the pass-rate chart grows; Enter on the cell drills down to each step's
outcome in the panel's words, its instruction's markdown rendered, the turn's code and grade; the
status filter hides the row; the CSV downloads the table; the view passes axe in both themes."""

from __future__ import annotations

import csv
import io
import re

import nbformat
import pytest
from conftest import PROBE_ID, SECRET_OUT, write_probe_task
from nbformat.v4 import new_output
from playwright.sync_api import Page, expect

from cibench_lab.engine.attempt import Attempts, NewAttempt
from cibench_lab.engine.settings import PlaySettings
from cibench_lab.grading import TurnOutput
from cibench_lab.store import Store
from cibench_lab.tasks.library import TaskLibrary

from .axe import axe_violations
from .lab import TOKEN
from .lab import configured_lab as start_lab
from .test_play_panel import open_palette, use_theme

TEACHER, STUDENT = "teach", "ada"
WORDS = f"print('{SECRET_OUT} alpha beta')"


@pytest.fixture
def class_lab(tmp_path):
    root = tmp_path / "tasks"
    path = write_probe_task(root)
    nb = nbformat.read(str(path), as_version=4)  # markdown the drill-down renders: `code`, **bold**
    nb.cells[0].source = nb.cells[0].source.replace("a string", "a **string**")
    nbformat.write(nb, str(path))
    library = TaskLibrary.load([root])
    store = Store(f"sqlite:///{tmp_path / 'results.sqlite'}")
    attempts = Attempts(store, library, "cibench")
    task = library.get(PROBE_ID)
    attempt_id = attempts.create(NewAttempt(task, "e2e", "human", STUDENT, PlaySettings(), {}))
    attempts.create(NewAttempt(task, "e2e", "human", TEACHER, PlaySettings(), {}))  # the teacher's own
    traits = {"task_dirs": [str(root)], "participant": TEACHER, "instructors": [TEACHER],
              "profile": "cibench", "class_members": {"demo": [STUDENT, "bob", TEACHER]}}  # fmt: skip
    server = start_lab(tmp_path, traits)
    yield server, attempts, attempt_id
    server.kill()
    store.dispose()


def open_class_view(page: Page, url: str):
    page.goto(f"{url}/lab?token={TOKEN}")
    expect(page.locator("#cibench-lab-panel")).to_be_attached(timeout=60_000)
    open_palette(page)
    page.locator(".lm-CommandPalette-input").fill("CIBench: Class View")
    expect(page.locator(".lm-CommandPalette-item.lm-mod-active")).to_contain_text("Class View")
    page.keyboard.press("Enter")
    view = page.locator(".jp-CIBench-classView")
    expect(view).to_be_visible()
    return view


def test_the_class_view_follows_a_student_as_they_play(page: Page, class_lab):
    server, attempts, attempt_id = class_lab
    view = open_class_view(page, server.url)
    row = view.locator(f"tr[data-member='{STUDENT}']")
    cell = row.locator(f"button[data-attempt='{attempt_id}']")
    expect(cell).to_contain_text("step 1 of 4")
    expect(cell).to_contain_text("score 0.0")
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
    expect(cell).to_contain_text("score 50.0")
    expect(view.locator("rect.jp-CIBench-chartBar")).to_have_count(3)
    chart_text = view.locator(".jp-CIBench-passRates .jp-CIBench-srOnly")
    expect(chart_text).to_contain_text("step 1: 1 of 1 passed (100%)")
    expect(chart_text).to_contain_text("step 3: 0 of 1 passed (0%)")

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
    record.get_by_role("button", name="Back to the class").press("Enter")
    expect(cell).to_be_focused()

    view.get_by_label("Status").select_option("done")
    expect(row).to_have_count(0)
    view.get_by_label("Status").select_option("open")
    expect(row).to_have_count(1)
    with page.expect_download() as download:
        view.get_by_role("button", name="Download CSV").click()
    assert download.value.suggested_filename == "cibench-class-demo.csv"
    lines = list(csv.DictReader(io.StringIO(open(download.value.path(), encoding="utf-8").read())))
    assert [
        (r["participant"], r["attempt_id"], r["status"], r["step"], r["passed"], r["score"]) for r in lines
    ] == [(STUDENT, attempt_id, "open", "3/4", "2", "50.0")]
