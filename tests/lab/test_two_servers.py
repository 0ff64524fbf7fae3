"""Ownership across servers: two Jupyter servers, two participants, one results database.

B plays in this process's server; A is a `jupyter server` process of its own, with its own
root, on the same SQLite file.  A notebook at B's attempt path in A's root is just a notebook
to A's server: B's attempt keeps its kernel and state, and no route of A's reads or plays it.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from sqlalchemy import select

from cibench_lab.kernels.spec import KERNEL_NAME
from cibench_lab.store.tables import Attempt, Event

HERE = Path(__file__).parent.parent
TOKEN = "cibench-two-servers"
QUIET_SECONDS = 8.0  # how long A's server gets to (wrongly) restore B's attempt


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class OtherServer:
    """`jupyter server` in its own process, as participant ``participant`` on ``db``."""

    def __init__(self, root: Path, config: dict, log: Path):
        self.root, self.log, self.port = root, log, _free_port()
        self.config_file = root.parent / "other_config.json"
        self.config_file.write_text(json.dumps(config))
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        cmd = [
            *(sys.executable, "-m", "jupyter", "server", "--no-browser", f"--port={self.port}"),
            *("--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={TOKEN}"),
            *(f"--ServerApp.root_dir={self.root}", "--ServerApp.allow_root=True"),
            f"--config={self.config_file}",
        ]
        env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
        out = self.log.open("ab")
        self.proc = subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        deadline = time.time() + 90
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter server exited: {self.log.read_text()[-3000:]}")
            if self.call("GET", "/api/status")[0] == 200:
                return
            time.sleep(0.3)
        raise RuntimeError(f"jupyter server did not start: {self.log.read_text()[-3000:]}")

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, object]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method)
        req.add_header("Authorization", f"token {TOKEN}")
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"null")
        except OSError:
            return 0, None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, 15)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait(timeout=10)


@pytest.fixture
def jp_server_config(jp_server_config):
    """This process's server plays as participant bea."""
    config = json.loads(json.dumps(jp_server_config))
    config["CIBenchLabApp"]["participant"] = "bea"
    return config


@pytest.fixture
def other_server(jp_server_config, tmp_path):
    """Participant ari's server: its own root, the same database and tasks."""
    root = tmp_path / "ari-root"
    root.mkdir()
    lab = {**jp_server_config["CIBenchLabApp"], "participant": "ari"}
    config = {"ServerApp": {"jpserver_extensions": {"cibench_lab": True}}, "CIBenchLabApp": lab}
    server = OtherServer(root, config, tmp_path / "ari-server.log")
    yield server
    server.stop()


def _state(store, attempt_id: str) -> tuple[str | None, list[dict]]:
    with store.session() as s:
        kernel_id = s.scalar(select(Attempt.kernel_id).where(Attempt.id == attempt_id))
        events = s.scalars(
            select(Event.detail).where(Event.attempt_id == attempt_id, Event.kind == "restore")
        )
        return kernel_id, list(events)


async def _untouched_for(store, attempt_id: str, seconds: float) -> tuple[str | None, list[dict]]:
    """B's attempt as it stays while A's server has its chance (returns early on a change)."""
    before = _state(store, attempt_id)
    deadline = time.time() + seconds
    while time.time() < deadline:
        now = _state(store, attempt_id)
        if now != before:
            return now
        await asyncio.sleep(0.25)
    return before


async def test_a_notebook_at_another_participants_attempt_path_is_not_their_attempt(
    jp_serverapp, start_attempt, other_server, tmp_path
):
    b = await start_attempt()
    attempt_id, kernel_b = b.attempt["id"], b.kernel_id
    code, _ = await b.turn(0, "probe = 'bea'")
    assert code == 200
    assert (await b.next(0))[0] == 200  # step 1 open: a restore would now re-run step 0's code
    store = jp_serverapp.web_app.settings["cibench_lab"].store
    before = _state(store, attempt_id)

    # A opens a notebook at B's attempt path in A's own root and starts a kernel for it
    path = b.attempt["notebook_path"]
    (other_server.root / path).parent.mkdir(parents=True)
    shutil.copy(Path(jp_serverapp.root_dir) / path, other_server.root / path)
    await asyncio.to_thread(other_server.start)
    session = {"path": path, "type": "notebook", "name": Path(path).name, "kernel": {"name": KERNEL_NAME}}
    code, made = await asyncio.to_thread(other_server.call, "POST", "/api/sessions", session)
    assert code == 201, made
    kernel_a = made["kernel"]["id"]  # type: ignore[index]

    assert await _untouched_for(store, attempt_id, QUIET_SECONDS) == before == (kernel_b, [])
    await _every_route_refuses(other_server, attempt_id, kernel_a)
    code, body = await b.turn(1, "print(probe)")  # B plays on, on B's kernel
    assert code == 200, body
    assert _state(store, attempt_id) == before


async def _every_route_refuses(server: OtherServer, attempt_id: str, kernel_id: str) -> None:
    """Every route of an attempt answers A with 403 for B's attempt; A's list has none of B's."""
    code, doc = await asyncio.to_thread(server.call, "GET", "/cibench-lab/api/openapi.json")
    assert code == 200
    body = {"step": 1, "kernel_id": kernel_id, "msg_id": "m" * 32, "text": "a note"}
    routes = [
        (
            method.upper(),
            path.replace("{attempt_id}", attempt_id)
            .replace("{class_name}", "demo")
            .replace("{study_id}", "a-study"),
        )
        for path, item in doc["paths"].items()  # type: ignore[index]
        if "{attempt_id}" in path
        for method in item
    ]
    assert len(routes) >= 9, routes
    for method, path in routes:
        sent = body if method == "POST" else None
        code, answer = await asyncio.to_thread(server.call, method, path, sent)
        assert code == 403, (method, path, code, answer)
    code, mine = await asyncio.to_thread(server.call, "GET", "/cibench-lab/api/attempts")
    assert code == 200 and mine == []
