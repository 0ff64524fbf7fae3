"""The typed API boundary: ill-typed fields are 400s that name them, every error is
``{error, status}``, and the published OpenAPI document is the server's own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import PROBE_ID
from jupyter_server.auth.authorizer import AllowAllAuthorizer
from test_security import concrete

from cibench_lab.handlers.openapi import text

DOC = Path(__file__).parent.parent.parent / "docs" / "openapi.json"
AID = "attempts/" + "0" * 32
RUN = {"step": 0, "kernel_id": "k", "msg_id": "m"}

#: (route, body, what the error must say): one ill-typed field per POST body model.
ILL_TYPED = [
    ("attempts", {"task_id": [1], "mode": "e2e"}, "task_id: Input should be a valid string"),
    ("attempts", {"task_id": PROBE_ID, "mode": 3}, "mode: Input should be 'e2e' or 'oracle'"),
    (
        "attempts",
        {"task_id": PROBE_ID, "mode": "e2e", "settings": "x"},
        "settings: Input should be an object",
    ),
    (
        "attempts",
        {"task_id": PROBE_ID, "mode": "e2e", "settings": {"show_grades": 1}},
        "settings.show_grades",
    ),
    ("attempts", {"task_id": PROBE_ID, "mode": "e2e", "settings": {"nope": 1}}, "settings.nope"),
    ("attempts", {"task_id": PROBE_ID, "mode": "e2e", "player": 5}, "player: Input should be an object"),
    ("attempts", {"task_id": PROBE_ID, "mode": "e2e", "player": {"model": 3}}, "player.model: Input should"),
    ("attempts", {"task_id": PROBE_ID, "mode": "e2e", "player": {}}, 'player: must be {"model": NAME}'),
    (
        "attempts",
        {"task_id": PROBE_ID, "mode": "e2e", "player": {"transcript": "runs/a\x00.jsonl"}},
        "player.transcript: must not contain a NUL byte",
    ),
    (f"{AID}/kernel", {"kernel_id": 3}, "kernel_id: Input should be a valid string"),
    (f"{AID}/turns", {**RUN, "step": "1"}, "step: Input should be a valid integer"),
    (f"{AID}/turns", {**RUN, "msg_id": ["m"]}, "msg_id: Input should be a valid string"),
    (f"{AID}/turns", {"step": 0}, "kernel_id: Field required; msg_id: Field required"),
    (f"{AID}/next", {"step": "1"}, "step: Input should be a valid integer"),
    (f"{AID}/give-up", {"step": True}, "step: Input should be a valid integer"),
    (f"{AID}/propose", {"step": -1}, "step: Input should be greater than or equal to 0"),
    (f"{AID}/stop", [1], "request body: Input should be an object"),
    (f"{AID}/oracle", {**RUN, "kernel_id": 3}, "kernel_id: Input should be a valid string"),
    ("studies/pilot/consent", {"accept": "yes"}, "accept: Input should be a valid boolean"),
    ("studies/pilot/consent", {"accept": True, "code": 7}, "code: Input should be a valid string"),
    ("studies/pilot/consent", {"accept": True, "answers": []}, "answers: Input should be an object"),
    ("studies/pilot/start", [1], "request body: Input should be an object"),
]


class RecordingAuthorizer(AllowAllAuthorizer):
    """Allows everything, and keeps what each cibench-lab request was checked for."""

    asked: list[tuple[str, str, str, str]] = []

    def is_authorized(self, handler, user, action, resource) -> bool:
        if "/cibench-lab/" in handler.request.path:
            self.asked.append((handler.request.method, handler.request.path, action, resource))
        return True


@pytest.fixture
def jp_server_config(jp_server_config):
    """Every route reached: the caller holds every role (a role is checked before the authorizer)."""
    roles = {"participant": "tester", "instructors": ["tester"], "researchers": ["tester"]}
    return {
        **jp_server_config,
        "ServerApp": {**jp_server_config["ServerApp"], "authorizer_class": RecordingAuthorizer},
        "CIBenchLabApp": {**jp_server_config["CIBenchLabApp"], **roles},
    }


@pytest.fixture
def raw(jp_fetch):
    """A request with a raw body: (status, JSON body)."""

    async def call(method: str, path: str, body: bytes | None = None):
        resp = await jp_fetch(
            "cibench-lab", "api", *path.split("/"), method=method, body=body, raise_error=False
        )
        return resp.code, resp.headers.get("Content-Type", ""), json.loads(resp.body)

    return call


@pytest.mark.parametrize(
    "route,body,says", ILL_TYPED, ids=[f"{r.rsplit('/')[-1]}-{i}" for i, (r, *_) in enumerate(ILL_TYPED)]
)
async def test_an_ill_typed_field_is_a_400_naming_it(api, route, body, says):
    code, err = await api("POST", route, body)
    assert (code, err["status"]) == (400, 400) and says in err["error"], err
    assert set(err) == {"error", "status"}


async def test_a_body_that_is_not_json_is_a_400(raw):
    for body in (b"{not json", b"\xff\xfe", b'"a string"'):
        code, _, err = await raw("POST", "attempts", body)
        assert code == 400 and err["error"].startswith("request body: "), (body, err)


async def test_recordings_query_still_names_an_unknown_task(jp_fetch):
    resp = await jp_fetch("cibench-lab", "api", "recordings", params={"task": "nope"}, raise_error=False)
    assert resp.code == 400 and "unknown task 'nope'" in json.loads(resp.body)["error"]


@pytest.mark.parametrize(
    "method,path",
    [
        ("GET", "no-such-route"),
        ("GET", "attempts/not-an-attempt-id"),
        ("POST", "attempts/not-an-attempt-id/turns"),
        ("GET", f"{AID}/nothing-here"),
        ("GET", ""),
    ],
)
async def test_unknown_routes_are_json_404s(raw, method, path):
    code, kind, err = await raw(method, path, b"{}" if method == "POST" else None)
    assert (code, err["status"]) == (404, 404) and set(err) == {"error", "status"}, err
    assert kind.startswith("application/json") and "no such route" in err["error"]


async def test_a_method_a_route_lacks_is_a_json_405(raw):
    code, _, err = await raw("PUT", "tasks", b"{}")
    assert (code, err["status"]) == (405, 405) and set(err) == {"error", "status"}, err


async def test_unknown_ids_keep_their_json_404(api):
    code, err = await api("GET", AID)
    assert (code, err["status"]) == (404, 404) and "0" * 32 in err["error"], err
    code, err = await api("GET", "tasks/cibench_template/pandas/nope")
    assert (code, err["status"]) == (404, 404) and "unknown task" in err["error"]


async def test_the_committed_document_is_the_servers(api):
    code, served = await api("GET", "openapi.json")
    assert code == 200
    assert DOC.read_text() == text(), "docs/openapi.json drifted from the server: run scripts/gen-api"
    assert served == json.loads(DOC.read_text())


async def test_each_operation_checks_the_permission_it_documents(jp_serverapp, jp_fetch):
    doc = json.loads(DOC.read_text())
    for path, item in doc["paths"].items():
        for method, op in item.items():
            RecordingAuthorizer.asked.clear()
            parts = concrete(path).removeprefix("/").split("/")
            body = "{}" if method == "post" else None
            await jp_fetch(*parts, method=method.upper(), body=body, raise_error=False)
            want = op["x-permission"]
            assert [(a, r) for *_, a, r in RecordingAuthorizer.asked] == [
                (want["action"], want["resource"])
            ], (
                method,
                path,
            )
