"""`GET studies/{id}/compare` and `GET studies/{id}/runs` on an in-process server: a researcher gets
what `report --compare --format json` prints for the same database, anyone else a 403; a mismatch is a
409 naming the field and both values, or marked rows with ``allow_mismatch``.

The people are test_report_compare's (two participants, a quitter, a replaced attempt: its
hand-computed table); the model run is recorded through the engine's Attempts API without a kernel
(each reply runs without error, so each step settles at its first turn, CIBench's rule), passing
pandas #1 and #2 only, as that module's scripted model does.
"""

from __future__ import annotations

import json

import pytest
from conftest import server_config
from sqlalchemy import select
from test_report_compare import ANSWERS, STUDY, A, out, people, write_tasks

from cibench_lab.auth.roles import RoleSettings
from cibench_lab.benchmarks import benchmark_of
from cibench_lab.cli import main
from cibench_lab.kernels.environment import attempt_environment
from cibench_lab.play.attempt import Attempts, NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.store.tables import Attempt, Run
from cibench_lab.tasks.library import TaskLibrary

MODEL = {A: ["11", "22", "0"], "cibench_template/nltk/cmp_b": ["0", "0"]}
URL = f"studies/{STUDY}/compare?runs=model&profile=fair"


@pytest.fixture
def api(jp_fetch):
    """conftest's JSON calls, with a query string: returns (status, body)."""

    async def call(method: str, path: str):
        path, _, query = path.partition("?")
        params = dict(part.split("=", 1) for part in query.split("&") if part)
        resp = await jp_fetch("cibench-lab", "api", *path.split("/"), params=params, raise_error=False)
        return resp.code, json.loads(resp.body or b"null")

    return call


@pytest.fixture
def jp_server_config(tmp_path, monkeypatch):
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    root = tmp_path / "tasks"
    write_tasks(root)
    study = {
        "title": "Pilot",
        "protocol": "model-parity",
        "consent": "We record your code and your time.",
        "tasks": [{"task": task} for task in ANSWERS],
    }
    return server_config(
        tmp_path, [root], studies={STUDY: study}, researchers=["the-researcher"], profile="fair"
    )


def model_run(store, lib: TaskLibrary) -> None:
    """Run ``model``: the scripted model's replies recorded without a kernel (each runs without an
    error, so each step settles at its first turn)."""
    with store.session() as s:
        run = Run(name="model", player="openai:scripted", mode="e2e", config={})
        s.add(run)
        s.flush()
        run_id = run.id
    attempts = Attempts(store, lib)
    for task_id, answers in sorted(MODEL.items(), key=lambda kv: kv[0]):
        task = lib.get(task_id)
        env = attempt_environment(task, benchmark_of(task).profile_versions())
        new = NewAttempt(task, "e2e", "openai:scripted", "model", PlaySettings(), env, run_id=run_id)
        attempt_id = attempts.create(new)
        for step, answer in enumerate(answers):
            assert attempts.record_turn(attempt_id, step, out(answer))["settled"] is not None


@pytest.fixture
def recorded(jp_serverapp, tmp_path):
    """The people and the model run in the server's results database; its URL."""
    services = jp_serverapp.web_app.settings["cibench_lab"]
    store = services.store
    lib = TaskLibrary.load([tmp_path / "tasks"])
    salt = people(store, lib)
    model_run(store, lib)
    return {"services": services, "db": str(store.url), "salt": salt}


def cli_json(db: str, capsys, *extra: str) -> dict:
    rc = main(["--db", db, "report", "--compare", f"humans:{STUDY}", "model", "--profile", "fair",
               "--format", "json", *extra])  # fmt: skip
    got = capsys.readouterr()
    assert rc == 0, got.err
    return json.loads(got.out)


@pytest.mark.fast
async def test_a_researcher_gets_the_cli_report_and_others_a_403(api, recorded, capsys):
    services = recorded["services"]
    code, err = await api("GET", URL)
    assert code == 403 and err["error"] == "GET /studies/{study_id}/compare needs the researcher role", err
    code, err = await api("GET", f"studies/{STUDY}/runs")
    assert code == 403, err
    code, view = await api("GET", f"studies/{STUDY}")
    assert code == 200 and view["researcher"] is False
    services.roles.settings = RoleSettings.of([], [services.participant], {})  # a researcher now
    code, view = await api("GET", f"studies/{STUDY}")
    assert view["researcher"] is True
    code, runs = await api("GET", f"studies/{STUDY}/runs")
    assert code == 200 and [(r["run"], r["player"], r["tasks"]) for r in runs] == [
        ("model", "openai:scripted", 2)
    ]
    code, rep = await api("GET", URL)
    assert code == 200, rep
    assert rep == cli_json(recorded["db"], capsys)
    steps = {(row["task"], row["step"]): row for row in rep["steps"]}  # the hand-computed table
    assert [steps[A, i]["humans"]["passed"] for i in range(3)] == [2, 1, 0]
    assert [steps[A, i]["runs"]["model"]["passed"] for i in range(3)] == [True, True, False]
    assert steps[A, 0]["humans"]["time"] == {"n": 2, "median": 25.0, "q1": 22.5, "q3": 27.5}
    assert [(i["task"], i["step"], i["rank"]) for i in rep["difficulty"]["items"]][:1] == [(A, 2, 1)]
    code, cibench = await api("GET", URL.replace("fair", "cibench"))
    assert code == 200 and cibench["profile"] == "cibench"
    code, default = await api("GET", f"studies/{STUDY}/compare?runs=model")
    assert code == 200 and default["profile"] == "fair"  # the lab's profile


@pytest.mark.fast
async def test_bad_queries_and_a_mismatch(api, recorded, capsys):
    services = recorded["services"]
    services.roles.settings = RoleSettings.of([], [services.participant], {})
    code, err = await api("GET", f"studies/{STUDY}/compare?runs=nope")
    assert code == 404 and "no run named 'nope' (known: model)" in err["error"]
    code, err = await api("GET", f"studies/{STUDY}/compare?runs=,")
    assert code == 400 and "runs: name at least one run" in err["error"]
    code, err = await api("GET", f"studies/{STUDY}/compare?runs=model&profile=best")
    assert code == 400 and err["error"].startswith("profile: ")
    code, err = await api("GET", "studies/nope/compare?runs=model")
    assert code == 404 and "unknown study 'nope'" in err["error"]
    with services.store.session() as s:  # one person played the pandas task without the turn cap
        row = s.scalars(select(Attempt).where(Attempt.study_id == STUDY, Attempt.task_id == A)).first()
        row.settings = {**row.settings, "turn_cap": 0}
    code, err = await api("GET", URL)
    assert code == 409
    assert (
        "humans:pilot and run model are not comparable: turn limit: humans turn_cap 0 (no cap), "
        f"turn_cap 3; model max_turn 3 (1 task: {A})" in err["error"]
    )
    code, rep = await api("GET", f"{URL}&allow_mismatch=true")
    assert code == 200 and rep["comparability"]["allowed"] is True
    assert rep == cli_json(recorded["db"], capsys, "--allow-mismatch")
    assert all(row["mismatch"] == (["model: turn limit"] if row["task"] == A else []) for row in rep["steps"])
