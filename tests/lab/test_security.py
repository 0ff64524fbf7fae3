"""The trust boundary: every route authenticated, no reference material reachable while a step is open."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from conftest import SECRET_CODE, SECRET_OUT, SECRET_THOUGHT

SECRETS = (SECRET_CODE, SECRET_OUT, SECRET_THOUGHT)
API = "/cibench-lab/api"


def cibench_routes(serverapp) -> list[tuple[str, type]]:
    """Every (pattern, handler) the running server registered for cibench-lab."""
    found = []

    def walk(router):
        for rule in getattr(router, "rules", []):
            target = rule.target
            if hasattr(target, "rules"):
                walk(target)
            elif isinstance(target, type) and target.__module__.startswith("cibench_lab.handlers"):
                found.append((rule.matcher.regex.pattern, target))

    walk(serverapp.web_app.default_router)
    return found


#: A value for each path parameter of the OpenAPI document that its route's pattern matches.
EXAMPLES = {
    "attempt_id": "0" * 32,
    "task_id": "cibench_template/pandas/leak_probe",
    "study_id": "pilot",
    "class_name": "stats",
}


def concrete(path: str) -> str:
    return re.sub(r"{(\w+)}", lambda m: EXAMPLES[m.group(1)], path)


@pytest.mark.fast
async def test_every_route_needs_auth(jp_serverapp, http_server_client, api):
    """Every operation of the served OpenAPI document refuses an unauthenticated caller, and
    the document lists every route the server registered for cibench-lab."""
    code, doc = await api("GET", "openapi.json")
    assert code == 200
    operations = [(path, method, op) for path, item in doc["paths"].items() for method, op in item.items()]
    assert len(operations) >= 15, operations
    base = jp_serverapp.base_url.rstrip("/")
    registered = [p for p, h in cibench_routes(jp_serverapp) if h.__name__ != "NotFoundHandler"]
    assert len(registered) >= 14, registered
    for pattern in registered:
        assert any(re.fullmatch(pattern, base + concrete(path)) for path in doc["paths"]), pattern
    for path, method, op in [*operations, ("/cibench-lab/api/no-such-route", "post", {})]:
        assert op.get("x-permission", {"resource": "cibench-lab"})["resource"] == "cibench-lab", path
        resp = await http_server_client.fetch(
            base + concrete(path),
            method=method.upper(),
            body="{}" if method != "get" else None,
            headers={"Cookie": "_xsrf=probe", "X-XSRFToken": "probe"},
            raise_error=False,
        )
        assert resp.code == 403, (method, path, resp.code)
        assert json.loads(resp.body)["status"] == 403, (method, path, resp.body)


@pytest.mark.fast
async def test_every_route_needs_its_role(jp_serverapp, api, jp_fetch):
    """Every operation documents its role (x-role); a caller without it gets 403 before anything
    runs, and the same caller given the role (the server's setting) gets past the check. Every
    caller is a participant, so a participant's route refuses nobody for the role."""
    from cibench_lab.auth.roles import ROLES, RoleSettings

    doc = (await api("GET", "openapi.json"))[1]
    operations = [(path, method, op) for path, item in doc["paths"].items() for method, op in item.items()]
    named = [op["x-role"] for *_, op in operations]
    assert {r for role in named for r in ([role] if isinstance(role, str) else role)} == set(ROLES)
    services = jp_serverapp.web_app.settings["cibench_lab"]
    assert (await api("GET", "me"))[1]["roles"] == ["participant"]

    async def call(path: str, method: str) -> tuple[int, dict]:
        parts = concrete(path).removeprefix("/").split("/")
        body = "{}" if method == "post" else None
        resp = await jp_fetch(*parts, method=method.upper(), body=body, raise_error=False)
        return resp.code, json.loads(resp.body)

    for path, method, op in operations:
        role = op["x-role"] if isinstance(op["x-role"], str) else " or ".join(op["x-role"])
        if role == "participant":
            continue
        code, err = await call(path, method)
        assert (code, err["error"]) == (
            403,
            f"{method.upper()} {path.removeprefix(API)} needs the {role} role",
        )
    name = services.participant
    services.roles.settings = RoleSettings(frozenset({name}), frozenset({name}))
    for path, method, _ in operations:
        code, err = await call(path, method)
        assert code != 403 or "role" not in err["error"], (method, path, err)


async def _scan_routes(api, attempt_id: str) -> list[str]:
    texts = []
    for path in (
        "tasks",
        "settings",
        "attempts",
        f"attempts/{attempt_id}",
        f"attempts/{attempt_id}/turns",
        f"attempts/{attempt_id}/trace",
        "models",
        "tasks/cibench_template/pandas/leak_probe",
    ):
        code, body = await api("GET", path)
        assert code == 200, path
        texts.append(json.dumps(body))
    return texts


async def test_no_reference_reaches_the_browser_while_open(start_attempt, api, jp_fetch, jp_ws_fetch):
    b = await start_attempt()
    ws = await jp_ws_fetch("api", "kernels", b.kernel_id, "channels")
    frames: list[str] = []

    async def read():
        while True:
            msg = await ws.read_message()
            if msg is None:
                return
            frames.append(msg if isinstance(msg, str) else msg.decode("utf-8", "replace"))

    reader = asyncio.ensure_future(read())
    texts = []
    for step, code in enumerate(["probe = 'p' * 17", "print('alpha beta')", "print(6 * 7)"]):
        _, r = await b.turn(step, code)
        texts.append(json.dumps(r))
        texts += await _scan_routes(api, b.attempt["id"])
        _, r = await b.next(step)
        texts.append(json.dumps(r))
    texts += await _scan_routes(api, b.attempt["id"])
    folder = b.attempt["notebook_path"].rsplit("/", 1)[0]
    for parts in (
        ("api", "contents", folder),
        ("api", "contents", *b.attempt["notebook_path"].split("/")),
        ("files", *b.attempt["notebook_path"].split("/")),
        ("api", "contents"),
    ):
        resp = await jp_fetch(*parts, raise_error=False)
        texts.append(resp.body.decode())
    await asyncio.sleep(0.5)
    ws.close()
    reader.cancel()
    assert frames, "no kernel websocket frames were seen"
    for secret in SECRETS:
        for text in texts + frames:
            assert secret not in text


@pytest.mark.fast
@pytest.mark.parametrize("reveal", ["after-step", "after-task", "never"])
def test_the_reference_plot_reaches_the_view_only_when_revealed(tmp_path, reveal):
    """A vis step's reference PNG (``Reference.image``) is in no view of the attempt before
    the reveal policy shows that step's reference: not while it is open, not once it settled
    under after-task until the attempt is done, never under never."""
    from rules_task import REFERENCE_PNG, attempts_for, printed, start

    from cibench_lab.grading import TurnOutput
    from cibench_lab.views.attempt import attempt_view, turns_view

    attempts = attempts_for(tmp_path)
    aid = start(attempts, reveal=reveal)
    seen: list[tuple[str, str]] = []

    def look(moment: str) -> None:
        view = attempt_view(attempts, aid, "pat")
        texts = json.dumps(view) + json.dumps(turns_view(attempts, aid, "pat"))
        if REFERENCE_PNG in texts:
            assert view["steps"][2]["reference"]["image"] == REFERENCE_PNG
            seen.append((moment, reveal))

    for step in (0, 1):
        attempts.record_turn(aid, step, printed("x"))
        attempts.settle(aid, step, "next")
    look("vis step open")
    attempts.record_turn(
        aid, 2, TurnOutput("plot()", [{"output_type": "stream", "name": "stdout", "text": "."}])
    )
    look("vis step open, run")
    attempts.settle(aid, 2, "next")
    look("vis step settled")
    attempts.settle(aid, 3, "next")
    look("attempt done")
    expected = {
        "after-step": [("vis step settled", reveal), ("attempt done", reveal)],
        "after-task": [("attempt done", reveal)],
        "never": [],
    }
    assert seen == expected[reveal]
    view = attempt_view(attempts, aid, "pat")
    for step in view["steps"]:  # no image for a step that is not a plot
        if "reference" in step and step["kind"] != "vis":
            assert step["reference"]["image"] is None
    attempts.store.dispose()
