"""CSV formula injection: a task title, a participant's name, a turn's code and output, a note and a
questionnaire answer that start with ``=``, ``+``, ``-``, ``@``, a tab or a CR reach every CSV we write
— the class CSV route, ``cibench-lab export --format csv``, ``report --format csv`` and ``report
--compare --format csv`` — as text a spreadsheet shows, never as a formula it runs: such a cell
gets a leading ``'`` (docs/exports.md, "CSV cells"). Real numbers (a negative score) stay numbers."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import nbformat
import pytest
from conftest import server_config, write_probe_task
from nbformat.v4 import new_output

from cibench_lab.cli import main
from cibench_lab.grading import TurnOutput
from cibench_lab.play.attempt import NewAttempt, StudyAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.record.activity import save_note
from cibench_lab.runs.local import ensure_run
from cibench_lab.studies.enrolment import enrol
from cibench_lab.views.csvcells import neutral

pytestmark = pytest.mark.fast

TABLES = ("attempts", "steps", "turns", "events", "participants")
LEADS = ("=", "+", "-", "@", "\t", "\r")
TEACHER = "teach"
NUMBER = re.compile(r"^-?\d+(\.\d+)?(e[-+]?\d+)?$")
STUDY = {
    "title": "Pilot",
    "protocol": "practice",
    "consent": "We record your code.",
    "questionnaire": [{"name": "why", "label": "Why", "type": "text"}],
    "tasks": [{"task": "cibench_template/pandas/leak_probe_0"}],
}


def payload(i: int, what: str) -> str:
    return f"{LEADS[i]}{what}{i}+cmd|' /C calc'!A0"


def write_tasks(root: Path) -> None:
    """Six copies of the probe task, task i titled with lead i."""
    path = write_probe_task(root)
    for i in range(len(LEADS)):
        nb = nbformat.read(str(path), as_version=4)
        nb.metadata["cibench_lab"]["title"] = payload(i, "title")
        nbformat.write(nb, str(path.with_name(f"leak_probe_{i}.ipynb")))
    path.unlink()


@pytest.fixture
def task_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tasks")
    write_tasks(root)
    return root


@pytest.fixture
def jp_server_config(tmp_path, task_root):
    members = [TEACHER, *(payload(i, "who") for i in range(len(LEADS)))]
    return server_config(
        tmp_path,
        [task_root],
        participant=TEACHER,
        instructors=[TEACHER],
        class_members={"stats": members},
        studies={"pilot": STUDY},
    )


@pytest.fixture
def played(jp_serverapp, jp_server_config, task_root):
    """Person i plays task i in the study: a turn whose code and output carry lead i, a note, an
    answer; run i (named with lead i) plays task 0."""
    services = jp_serverapp.web_app.settings["cibench_lab"]
    attempts = services.attempts
    study = services.studies.study("pilot")
    runs = []
    for i in range(len(LEADS)):
        who, task = payload(i, "who"), attempts.library.get(f"cibench_template/pandas/leak_probe_{i}")
        enrol(attempts.store, attempts.library, study, who, {"why": payload(i, "answer")})
        play = StudyAttempt(study.id, study.protocol, study.settings)
        aid = attempts.create(NewAttempt(task, "e2e", "human", who, study.settings, {}, study=play))
        out = [new_output("stream", name="stdout", text=payload(i, "out") + "\n")]
        attempts.record_turn(aid, 0, TurnOutput(payload(i, "code"), out))
        save_note(attempts, aid, who, 0, payload(i, "note"))
        attempts.settle(aid, 0, "next")
        for step in task.steps[1:]:  # the attempt finishes: the comparison counts it
            attempts.record_turn(aid, step.index, TurnOutput(step.code, list(step.outputs)))
            attempts.settle(aid, step.index, "next")
        runs.append(payload(i, "run"))
        run_id = ensure_run(attempts, runs[-1], "reference", "e2e")
        first = attempts.library.get("cibench_template/pandas/leak_probe_0")
        new = NewAttempt(first, "e2e", "reference", "player:reference", PlaySettings(), {}, run_id=run_id)
        r = attempts.create(new)
        for step in first.steps:  # each settles at its first error-free turn: the run finishes
            attempts.record_turn(r, step.index, TurnOutput(step.code, list(step.outputs)))
    db = jp_server_config["CIBenchLabApp"]["database_url"]
    return {"db": db, "root": str(task_root), "runs": runs}


def cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text, newline="")) for cell in row]


def check(text: str, *kinds: str) -> None:
    """No cell of ``text`` starts with a lead (but a number); every payload of ``kinds`` is there, quoted."""
    found = cells(text)
    live = [c for c in found if c and c[0] in LEADS and not NUMBER.match(c)]
    assert live == [], live
    for kind in kinds:
        for i in range(len(LEADS)):
            assert any(c.startswith("'" + payload(i, kind)) for c in found), (kind, i, found)


async def test_the_class_csv_route(api, played):
    code, body = await api("GET", "classes/stats/csv")
    assert code == 200, body
    check(body["csv"], "who", "title")


async def test_the_cli_export(played, tmp_path):
    folder = tmp_path / "out"
    args = ["--db", played["db"], "--task-dir", played["root"], "export", "--format", "csv", "--real-names"]
    assert main([*args, str(folder)]) == 0
    text = {t: (folder / f"{t}.csv").open(encoding="utf-8", newline="").read() for t in TABLES}
    check(text["attempts"], "who")
    check(text["steps"], "note")
    check(text["turns"], "code", "out")
    check(text["events"])
    check(text["participants"], "who", "answer")


async def test_the_cli_reports(played, capsys):
    base = ["--db", played["db"], "--task-dir", played["root"], "report"]
    assert main([*base, "--format", "csv", "--", *played["runs"]]) == 0
    check(capsys.readouterr().out, "run")
    compare = ["--compare", "humans:pilot", "--format", "csv", "--allow-mismatch", "--", *played["runs"]]
    assert main([*base, *compare]) == 0
    check(capsys.readouterr().out, "run")


@pytest.mark.parametrize("lead", LEADS)
def test_the_neutraliser(lead):
    assert neutral(f"{lead}1+1") == f"'{lead}1+1"
    assert neutral(f"a{lead}") == f"a{lead}"
    assert neutral(-3) == -3 and neutral(-2.5) == -2.5  # a real number is no formula
    assert neutral("-3") == "'-3"  # text that looks like one is text
    assert neutral(None) is None and neutral("") == ""
