"""The seat between participants: on a server whose studies sign participants in with codes, the
seat with no code signed in holds the participant role only — Hand over leaves nobody's researcher
or instructor role behind at the machine. A researcher there shows the researcher key
(``CIBenchLabApp.researcher_key_sha256``, the ``X-CIBench-Researcher-Key`` header)."""

from __future__ import annotations

import hashlib
import json

import pytest
from conftest import server_config

KEY_HEADER = "X-CIBench-Researcher-Key"  # the researcher key, as a researcher sends it (docs/studies.md)

pytestmark = pytest.mark.fast

KEY = "a-long-random-researcher-key-for-this-test-0123456789"
STUDY = {
    "title": "Lab machine study",
    "protocol": "model-parity",
    "consent": "Enter the code on your card.",
    "participant_code": True,
    "tasks": [{"task": "cibench_template/pandas/leak_probe"}],
}
RESEARCHER_ROUTES = ("studies/lab/participants", "studies/lab/runs", "studies/lab/compare", "runs/attempts")


@pytest.fixture
def jp_server_config(tmp_path, task_root, monkeypatch):
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    me = "the-researcher"  # the server's own user, a researcher and an instructor
    return server_config(
        tmp_path,
        [task_root],
        participant=me,
        studies={"lab": STUDY},
        researchers=[me],
        instructors=[me],
        class_members={"stats": [me, "ada"]},
        researcher_key_sha256=hashlib.sha256(KEY.encode()).hexdigest(),
    )


@pytest.fixture
def call(jp_fetch):
    async def call(method: str, path: str, body: dict | None = None, key: str | None = None):
        headers = {KEY_HEADER: key} if key is not None else {}
        kwargs = {"method": method, "raise_error": False, "headers": headers}
        if body is not None:
            kwargs["body"] = json.dumps(body)
        resp = await jp_fetch("cibench-lab", "api", *path.split("/"), **kwargs)
        return resp.code, json.loads(resp.body or b"null")

    return call


async def _refused(call, key: str | None = None) -> None:
    for path in RESEARCHER_ROUTES:
        code, err = await call("GET", path, key=key)
        assert code == 403 and "needs the researcher role" in err["error"], (path, code, err)
    code, err = await call("GET", "classes", key=key)
    assert code == 403 and "needs the instructor role" in err["error"]


async def test_hand_over_leaves_the_participant_role_only(call):
    code, view = await call("POST", "studies/lab/consent", {"accept": True, "code": "P01"})
    assert code == 200 and view["participant"] == "P01"
    code, view = await call("POST", "studies/lab/handover", {})
    assert code == 200 and view["participant"] is None and view["researcher"] is False
    code, me = await call("GET", "me")
    assert code == 200 and me["roles"] == ["participant"] and me["classes"] == []
    await _refused(call)
    await _refused(call, key="not-the-key")  # a wrong key is no key
    await _refused(call, key="")


async def test_the_researcher_key_gives_the_servers_roles_back(call):
    await call("POST", "studies/lab/consent", {"accept": True, "code": "P02"})
    await call("POST", "studies/lab/handover", {})
    code, records = await call("GET", "studies/lab/participants", key=KEY)
    assert code == 200 and [r["participant"] for r in records] == ["P02"]
    code, me = await call("GET", "me", key=KEY)
    assert me["roles"] == ["participant", "instructor", "researcher"]
    code, view = await call("GET", "studies/lab", key=KEY)
    assert code == 200 and view["researcher"] is True
    # a code signed in: the key does not lend its roles to the participant at the seat
    await call("POST", "studies/lab/consent", {"accept": True, "code": "P03"})
    code, me = await call("GET", "me", key=KEY)
    assert me == {"name": "P03", "roles": ["participant"], "classes": []}
    code, err = await call("GET", "studies/lab/participants", key=KEY)
    assert code == 403
