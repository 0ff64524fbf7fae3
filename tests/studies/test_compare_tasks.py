"""The comparison lists every task of its study, and words its figures one way.

* Every task: a study of four tasks (its definition recorded by the engine at the first consent, two
  participants enrolled with their plans) where the people finish the pandas and nltk tasks, one
  person only quits the matplotlib task and nobody plays the sklearn one; the model run (recorded
  through the Attempts API, no kernel) plays pandas and matplotlib.  `report --compare` and
  `GET studies/{id}/compare` both list all four tasks (``studies/comparison.py: study_tasks``), the
  unplayed ones as "not played" and "—", never a missing row.
* Words: one person is "1 person"; a value with its bounds is one rounding rule in the table, the
  JSON and the CSV ("8.3 [8.3–8.3]": one person passing 1 of 12 steps).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import nbformat
import pytest
from conftest import server_config
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from test_report_compare import PARITY, STUDY, out
from test_study_compare_server import api  # noqa: F401  # the fixture

from cibench_lab.auth.roles import RoleSettings
from cibench_lab.benchmarks import benchmark_of
from cibench_lab.cli import main
from cibench_lab.cli.compare import emit
from cibench_lab.grading.compare import Played, RunInfo, StepResult, build
from cibench_lab.kernels.environment import attempt_environment
from cibench_lab.play.attempt import Attempts, NewAttempt, StudyAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.record.quit import quit_attempt
from cibench_lab.store.tables import Run
from cibench_lab.studies.definition import parse_study
from cibench_lab.studies.enrolment import enrol
from cibench_lab.tasks.library import TaskLibrary

PANDAS, NLTK = "cibench_template/pandas/cmp_a", "cibench_template/nltk/cmp_b"
QUIT, NEVER = "cibench_template/matplotlib/cmp_c", "cibench_template/sklearn/cmp_d"
TASKS = {PANDAS: ["11", "22"], NLTK: ["33"], QUIT: ["44", "55"], NEVER: ["66", "77"]}
DEFINITION = {
    "title": "Four tasks",
    "protocol": "model-parity",
    "consent": "We record your code and your time.",
    "tasks": [{"task": task} for task in TASKS],
}


def write_tasks(root: Path) -> None:
    for task_id, answers in TASKS.items():
        cells = []
        for i, answer in enumerate(answers):
            cells.append(new_markdown_cell(f"Step {i + 1}: print the number {answer}."))
            cells.append(
                new_code_cell(f"print({answer})", outputs=[new_output("stream", text=answer + "\n")])
            )
        nb = new_notebook(cells=cells)
        nb.metadata["step_types"] = ["num"] * len(answers)
        nb.metadata["cibench_lab"] = {"schema_version": 1, "title": task_id.rsplit("/")[-1], "language": "en"}
        path = root / f"{task_id}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, str(path))
    (root / "datasources" / "data").mkdir(parents=True, exist_ok=True)


def record(store, lib: TaskLibrary) -> None:
    """Alice and bob enrol (the study's row and their plans); both finish pandas and nltk, bob opens
    the matplotlib task and quits it after its first step; the model plays pandas and matplotlib."""
    study = parse_study(DEFINITION, "test", STUDY)
    attempts = Attempts(store, lib)
    play = StudyAttempt(STUDY, "model-parity", PARITY)

    def attempt(task_id: str, who: str, answers: list[str]) -> str:
        task = lib.get(task_id)
        new = NewAttempt(
            task,
            "e2e",
            "human",
            who,
            PARITY,
            attempt_environment(task, benchmark_of(task).profile_versions()),
            study=play,
        )
        attempt_id = attempts.create(new)
        for step, answer in enumerate(answers):
            attempts.record_turn(attempt_id, step, out(answer))
            attempts.settle(attempt_id, step, "next")
        return attempt_id

    for who in ("alice", "bob"):
        enrol(store, lib, study, who, {})
        attempt(PANDAS, who, ["11", "22" if who == "alice" else "0"])
        attempt(NLTK, who, ["33"])
    quit_attempt(attempts, attempt(QUIT, "bob", ["44"]), "bob")
    with store.session() as s:
        run = Run(name="model", player="openai:scripted", mode="e2e", config={})
        s.add(run)
        s.flush()
        run_id = run.id
    for task_id, answers in ((PANDAS, ["11", "0"]), (QUIT, ["44", "55"])):
        task = lib.get(task_id)
        env = attempt_environment(task, benchmark_of(task).profile_versions())
        attempt_id = attempts.create(
            NewAttempt(task, "e2e", "openai:scripted", "model", PlaySettings(), env, run_id=run_id)
        )
        for step, answer in enumerate(answers):
            attempts.record_turn(attempt_id, step, out(answer))


@pytest.fixture
def jp_server_config(tmp_path, monkeypatch):
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    write_tasks(tmp_path / "tasks")
    return server_config(
        tmp_path, [tmp_path / "tasks"], studies={STUDY: DEFINITION}, researchers=[], profile="fair"
    )


@pytest.fixture
def recorded(jp_serverapp, tmp_path):
    services = jp_serverapp.web_app.settings["cibench_lab"]
    record(services.store, TaskLibrary.load([tmp_path / "tasks"]))
    services.roles.settings = RoleSettings.of([], [services.participant], {})  # a researcher
    return {"db": str(services.store.url), "tasks": str(tmp_path / "tasks")}


def cli(capsys, db: str, *extra: str, task_dir: str | None = None) -> str:
    where = ["--task-dir", task_dir] if task_dir else []
    rc = main(
        [*where, "--db", db, "report", "--compare", f"humans:{STUDY}", "model", "--profile", "fair", *extra]
    )
    got = capsys.readouterr()
    assert rc == 0, got.err
    return got.out


@pytest.mark.fast
async def test_every_task_of_the_study_has_its_rows(api, recorded, capsys):  # noqa: F811
    code, rep = await api("GET", f"studies/{STUDY}/compare?runs=model&profile=fair")
    assert code == 200, rep
    assert [row["task"] for row in rep["tasks"]] == sorted(TASKS)
    steps = {(row["task"], row["step"]): row for row in rep["steps"]}
    assert sorted(steps) == sorted((t, i) for t, answers in TASKS.items() for i in range(len(answers)))
    never = steps[NEVER, 1]
    assert never["humans"]["n"] == 0 and never["humans"]["rate"] is None and never["humans"]["quit"] == 0
    assert never["runs"] == {"model": None} and (never["difficulty"], never["rank"]) == (None, None)
    assert steps[QUIT, 0]["humans"]["quit"] == 1 and steps[QUIT, 0]["runs"]["model"]["passed"] is True
    assert steps[QUIT, 0]["rank"] is not None  # the model answered it: it has a difficulty
    assert len(rep["difficulty"]["items"]) == len(steps) - 2  # the sklearn steps have no response
    libs = {row["lib"]: row for row in rep["libraries"]}
    assert set(libs) == {"pandas", "nltk", "matplotlib", "sklearn"}
    assert libs["sklearn"]["runs"]["model"]["tasks"] == 0
    assert any("2 task(s) of the study no person finished" in note for note in rep["notes"])
    # the CLI lists the same tasks; with the task directory, the same steps too
    assert json.loads(cli(capsys, recorded["db"], "--format", "json", task_dir=recorded["tasks"])) == rep
    text = cli(capsys, recorded["db"], task_dir=recorded["tasks"])
    (line,) = [ln for ln in text.splitlines() if f"{NEVER} #2" in ln]
    assert line.count("not played") == 2 and "—" in line  # the people, the model; time, difficulty
    line = next(ln for ln in text.splitlines() if f"{QUIT} #1" in ln)  # the per-step table's
    assert "0 people (+1 quit)" in line and "pass 100.0" in line
    (line,) = [ln for ln in text.splitlines() if ln.startswith("│ sklearn")]
    assert line.count("not played") == 2
    rows = list(csv.DictReader(io.StringIO(cli(capsys, recorded["db"], "--format", "csv"))))
    assert {r["task"] for r in rows if r["section"] == "task"} == set(TASKS)


def _one_person_report() -> dict:
    """One person passes 1 of 12 steps (8.3%, its CI 8.3–8.3) in 10.25 s each; a run passes 2."""
    person = [StepResult("num", i == 0, float(i == 0), "next", 1, 10.25) for i in range(12)]
    run = [StepResult("num", i < 2, float(i < 2), "passed", 1) for i in range(12)]
    humans = [Played("p-1", "humans", PANDAS, "done", {}, person)]
    played = {"model": [Played("model", "model", PANDAS, "done", {}, run)]}
    return build("solo", "fair", [RunInfo("model", "openai:m", "e2e")], humans, played, {}, False)


@pytest.mark.fast
def test_one_person_and_one_rounding_rule(capsys):
    rep = _one_person_report()
    (task,) = rep["tasks"]
    assert (task["humans"]["rate"], task["humans"]["ci"]) == (8.3, [8.3, 8.3])
    assert task["runs"]["model"]["rate"] == 16.7 and rep["steps"][0]["humans"]["time"]["median"] == 10.2
    emit(rep, "table", None)
    text = capsys.readouterr().out
    assert "humans:solo (1 person) vs model" in text and "1 people" not in text
    assert "│ 1 person" in text or " 1 person │" in text
    assert "8.3 [8.3–8.3]" in text and "16.7 (2/12)" in text  # the task's rate, as the JSON has it
    emit(rep, "csv", None)
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    (people,) = [r for r in rows if (r["section"], r["who"]) == ("task", "humans")]
    assert (people["rate"], people["ci_lo"], people["ci_hi"]) == ("8.3", "8.3", "8.3")
