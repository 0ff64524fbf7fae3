"""The trust boundary: every route authenticated, no reference material reachable while a step is open."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from conftest import SECRET_CODE, SECRET_OUT, SECRET_THOUGHT

SECRETS = (SECRET_CODE, SECRET_OUT, SECRET_THOUGHT)


def cibench_routes(serverapp) -> list[tuple[str, type]]:
    """Every (pattern, handler) the running server registered for cibench-lab."""
    found = []

    def walk(router):
        for rule in getattr(router, "rules", []):
            target = rule.target
            if hasattr(target, "rules"):
                walk(target)
            elif isinstance(target, type) and target.__module__.startswith("cibench_lab"):
                found.append((rule.matcher.regex.pattern, target))

    walk(serverapp.web_app.default_router)
    return found


def concrete(pattern: str) -> str:
    path = re.sub(r"\([^)]*\)", "0" * 32, pattern)
    return path.rstrip("$")


@pytest.mark.fast
async def test_every_route_needs_auth(jp_serverapp, http_server_client):
    routes = cibench_routes(jp_serverapp)
    assert len(routes) >= 9, routes
    checked = 0
    for pattern, handler in routes:
        for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
            if method.lower() not in handler.__dict__ and not any(
                method.lower() in base.__dict__
                for base in handler.__mro__[1:]
                if base.__module__.startswith("cibench_lab")
            ):
                continue
            resp = await http_server_client.fetch(
                concrete(pattern),
                method=method,
                body="{}" if method != "GET" else None,
                headers={"Cookie": "_xsrf=probe", "X-XSRFToken": "probe"},
                raise_error=False,
            )
            assert resp.code == 403, (method, pattern, resp.code)
            checked += 1
    assert checked >= 9


async def _scan_routes(api, attempt_id: str) -> list[str]:
    texts = []
    for path in (
        "tasks",
        "settings",
        "attempts",
        f"attempts/{attempt_id}",
        f"attempts/{attempt_id}/turns",
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
