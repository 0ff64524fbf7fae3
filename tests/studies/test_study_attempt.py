"""A study's researcher reads one participant's attempt of the study — ``GET
studies/{id}/attempts/{attempt_id}``, the record the class view shows an instructor (code, outputs,
grades, notes; no reference) — at a shared seat with the researcher key; nobody else does, and an
attempt that is not of the study does not exist there. A real server, roles from its settings."""

from __future__ import annotations

import hashlib
import json

import pytest
from conftest import PROBE_ID, SECRET_CODE, SECRET_OUT, SECRET_THOUGHT, server_config
from nbformat.v4 import new_output

from cibench_lab.grading import TurnOutput
from cibench_lab.play.attempt import NewAttempt, StudyAttempt
from cibench_lab.play.settings import PlaySettings

pytestmark = pytest.mark.fast

KEY = "a-long-random-researcher-key-for-the-study-attempt-test"
STUDY = {
    "title": "Lab machine study",
    "protocol": "model-parity",
    "consent": "Enter the code on your card.",
    "participant_code": True,
    "tasks": [{"task": PROBE_ID}],
}


@pytest.fixture
def jp_server_config(tmp_path, task_root, monkeypatch):
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    return server_config(
        tmp_path,
        [task_root],
        participant="rita",
        studies={"lab": STUDY},
        researchers=["rita"],
        researcher_key_sha256=hashlib.sha256(KEY.encode()).hexdigest(),
    )


@pytest.fixture
def call(jp_fetch):
    async def call(path: str, key: str | None = None, body: dict | None = None):
        kwargs = {"method": "POST" if body is not None else "GET", "raise_error": False}
        kwargs["headers"] = {"X-CIBench-Researcher-Key": key} if key else {}
        if body is not None:
            kwargs["body"] = json.dumps(body)
        resp = await jp_fetch("cibench-lab", "api", *path.split("/"), **kwargs)
        return resp.code, json.loads(resp.body or b"null")

    return call


def played(attempts, who: str, study: bool) -> str:
    """``who``'s attempt of the probe task (of the study when ``study``), its step 2 run once."""
    protocol = StudyAttempt("lab", "model-parity", PlaySettings()) if study else None
    task = attempts.library.get(PROBE_ID)
    aid = attempts.create(NewAttempt(task, "e2e", "human", who, PlaySettings(), {}, study=protocol))
    attempts.record_turn(aid, 0, TurnOutput("probe = 'x'"))
    attempts.settle(aid, 0, "next")
    out = [new_output("stream", name="stdout", text=f"{SECRET_OUT} alpha beta\n")]
    attempts.record_turn(aid, 1, TurnOutput(f"print('{SECRET_OUT} alpha beta')", out))
    return aid


async def test_the_researcher_reads_a_participants_attempt_of_the_study(jp_serverapp, call):
    services = jp_serverapp.web_app.settings["cibench_lab"]
    assert (await call("studies/lab/consent", body={"accept": True, "code": "P01"}))[0] == 200
    assert (await call("studies/lab/handover", body={}))[0] == 200
    mine, outside = played(services.attempts, "P01", True), played(services.attempts, "P01", False)

    code, records = await call("studies/lab/participants", KEY)
    assert code == 200 and records[0]["items"][0]["attempt_id"] == mine, records
    code, record = await call(f"studies/lab/attempts/{mine}", KEY)
    assert code == 200, record
    assert (record["participant"], record["title"], record["status"]) == ("P01", "Leak probe", "open")
    first, second = record["steps"]
    assert first["outcome"] == "next" and first["turns"][0]["code"] == "probe = 'x'"
    assert second["turns"][0]["output"] == f"{SECRET_OUT} alpha beta\n"
    assert SECRET_CODE not in repr(record) and SECRET_THOUGHT not in repr(record)  # no reference

    code, err = await call(f"studies/lab/attempts/{outside}", KEY)  # P01's, but not of the study
    assert (code, err["error"]) == (404, f"unknown attempt {outside!r} of study 'lab'")
    code, err = await call(f"studies/lab/attempts/{mine}")  # the seat without the key
    assert code == 403 and "needs the researcher role" in err["error"]
    code, err = await call(f"studies/nope/attempts/{mine}", KEY)
    assert code == 404, err
