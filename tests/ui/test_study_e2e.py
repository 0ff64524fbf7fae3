"""A study end to end, through the UI only, then exported: a participant opens the study's link,
answers the questionnaire and accepts the consent, starts the task, runs step 1 and a scratch cell,
pauses and resumes the clock, writes a note, settles step 1, gives up step 2 (the attempt finishes);
then `cibench-lab export` writes CSV tables that hold the working time net of the pause, the note, the
give-up and the action trace, and a transcript notebook that nbformat reads with the run's real output."""

from __future__ import annotations

import csv
import datetime as dt
import json
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import Page, expect

from cibench_lab.tasks.library import builtin_dir

from .lab import TOKEN, configured_lab
from .test_lab_play import answer_cell, badge, press_next, run_in_cell, settle_pending
from .test_play_time import get, until, write_clock_task
from .test_record_ui import run_scratch_cell

BAR = ".jp-CIBench-actionBar"
PAUSED = 3  # seconds the clock is paused, at least
NOTE = "summed in a scratch cell first"
TASK = "cibench_template/pandas/clock_probe"
STUDY = f"""
id = "e2e"
title = "End-to-end study"
protocol = "practice"
consent = "We record the code you run, its outputs and your working time."
participant_code = true
tasks = [{{ task = "{TASK}" }}]

[[questionnaire]]
name = "expertise"
label = "Your Python expertise"
type = "choice"
choices = ["beginner", "expert"]
required = true
"""


@pytest.fixture
def study_lab(tmp_path):
    tasks = tmp_path / "tasks"
    write_clock_task(tasks)
    study = tmp_path / "e2e.toml"
    study.write_text(STUDY)
    traits = {"task_dirs": [str(builtin_dir()), str(tasks)], "study_files": [str(study)]}
    server = configured_lab(tmp_path, traits)
    yield server
    server.kill()


def export(server, fmt: str, out: Path) -> None:
    """`cibench-lab export` of the study, as a researcher runs it (its own process, the lab's database)."""
    cmd = [sys.executable, "-m", "cibench_lab.cli", "--db", f"sqlite:///{server.db}"]
    cmd += ["export", "--format", fmt, "--study", "e2e", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def rows(path: Path) -> list[dict]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def stamp(iso: str) -> float:
    return dt.datetime.fromisoformat(iso.removesuffix("Z")).timestamp()


def consent_and_start(page: Page, url: str) -> None:
    page.goto(f"{url}/lab?cibench-study=e2e&token={TOKEN}")
    view = page.locator(".jp-CIBench-studyView")
    form = view.get_by_role("form", name="Consent")
    expect(form).to_contain_text("We record the code you run", timeout=60_000)
    expect(page.locator(".jp-Launcher")).to_be_visible()  # the lab's launcher took the focus first
    form.get_by_label("Your participant code").fill("P07")
    form.get_by_label("Your Python expertise (required)").select_option("expert")
    form.get_by_label("I have read the text above and agree to take part").check()
    form.get_by_role("button", name="Accept and continue").click()
    expect(view.get_by_role("status")).to_have_text("Task 1 of 1 · next")
    view.get_by_role("button", name="Start next task").click()
    page.wait_for_selector(".jp-NotebookPanel .jp-CIBench-answer", timeout=60_000)


def play(page: Page) -> None:
    """Step 1 run, a scratch run, a pause, a note, Next; step 2 given up."""
    run_in_cell(page, 0, "x = 1")
    expect(badge(page, 0)).to_contain_text("ran without error", timeout=60_000)
    run_scratch_cell(page, "scratch = x + 41")
    page.locator(f"{BAR} .jp-CIBench-pause").click()
    expect(page.locator(f"{BAR} .jp-CIBench-clock-paused")).to_be_visible()
    page.wait_for_timeout(PAUSED * 1000 + 300)
    page.locator(f"{BAR} .jp-CIBench-resume").click()
    expect(page.locator(f"{BAR} .jp-CIBench-clock")).to_have_text("Clock running")
    note = page.get_by_label("Note on Step 1")
    note.fill(NOTE)
    note.press("Tab")  # leaving the box saves it
    expect(page.locator(".jp-CIBench-note-status")).to_have_text("Saved")
    press_next(page)
    expect(answer_cell(page, 1)).to_be_visible()
    run_in_cell(page, 1, "print(x)")  # a wrong answer (1, not 2): then Give up
    expect(badge(page, 1)).to_be_visible(timeout=60_000)
    page.locator(f"{BAR} .jp-CIBench-giveup").click()
    settle_pending(page)


def test_a_study_played_in_the_lab_exports_what_happened(page: Page, study_lab, tmp_path):
    consent_and_start(page, study_lab.url)
    attempt_id = get(page, "/cibench-lab/api/attempts")[0]["id"]
    play(page)
    until(lambda: get(page, f"/cibench-lab/api/attempts/{attempt_id}")["status"] == "done", "finished")
    view = get(page, f"/cibench-lab/api/attempts/{attempt_id}")
    (pause,) = view["pauses"]
    paused = stamp(pause["end"]) - stamp(pause["start"])
    assert paused >= PAUSED, pause
    time.sleep(1.5)  # the trace's last run is recorded a second after it ends (for its cell id)

    out = tmp_path / "csv"
    export(study_lab, "csv", out)
    (attempt,) = rows(out / "attempts.csv")
    assert attempt["attempt_id"] == attempt_id and attempt["study"] == "e2e", attempt
    assert attempt["participant"].startswith("p-") and "P07" not in attempt["participant"]  # pseudonymised
    steps = {int(s["step"]): s for s in rows(out / "steps.csv")}
    first = steps[0]
    wall = stamp(first["settled_at"]) - stamp(first["opened_at"])
    assert abs(wall - float(first["working_seconds"]) - paused) <= 2, (first, paused)
    assert first["note"] == NOTE and first["outcome"] == "next", first
    assert steps[1]["outcome"] == "gave_up", steps[1]
    events = rows(out / "events.csv")
    kinds = [e["kind"] for e in events]
    assert kinds.count("pause") == 1 and kinds.count("resume") == 1 and "note" in kinds, kinds
    runs = [json.loads(e["detail"]) for e in events if e["kind"] == "cell_run"]
    codes = {r["code"]: r for r in runs}
    assert {"x = 1", "scratch = x + 41", "print(x)"} <= set(codes), codes
    assert codes["x = 1"]["graded"] is True and codes["scratch = x + 41"]["graded"] is False, codes
    (who,) = rows(out / "participants.csv")
    assert who["participant"] == attempt["participant"] and who["answer_expertise"] == "expert", who
    assert who["consent_at"], who

    notebooks = tmp_path / "notebooks"
    export(study_lab, "notebooks", notebooks)
    (path,) = list(notebooks.rglob("*.ipynb"))
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    printed = [
        o.get("text", "")
        for c in nb.cells
        if c.cell_type == "code" and c.source == "print(x)"
        for o in c.outputs
        if o.output_type == "stream"
    ]
    assert printed == ["1\n"], printed  # the kernel's own output of that run
    assert any(NOTE in c.source for c in nb.cells if c.cell_type == "markdown")
