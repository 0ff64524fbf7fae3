"""A real lab server in a process of its own (``jupyter server`` with cibench_lab, sandboxed kernels),
played through its REST API and a kernel's websocket as JupyterLab does, for the tests that bomb
it or kill it with SIGKILL."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

import psutil
from conftest import PROBE_ID, server_config, write_probe_task
from kernel_socket import KernelSocket
from test_two_servers import TOKEN, OtherServer


def lab_server(tmp_path: Path, **options) -> OtherServer:
    """A started server on the probe task (``options``: more CIBenchLabApp traits)."""
    tasks, root = tmp_path / "tasks", tmp_path / "root"
    root.mkdir()
    write_probe_task(tasks)
    config = server_config(tmp_path, [tasks], turn_timeout=60.0, **options)
    server = OtherServer(root, config, tmp_path / "server.log")
    server.start()
    return server


def start_attempt(server: OtherServer) -> dict:
    code, attempt = server.call("POST", "/cibench-lab/api/attempts", {"task_id": PROBE_ID, "mode": "e2e"})
    assert code == 201, attempt
    assert isinstance(attempt, dict)
    return attempt


async def _execute(server: OtherServer, kernel_id: str, code: str) -> str:
    app = SimpleNamespace(port=server.port, base_url="/", identity_provider=SimpleNamespace(token=TOKEN))
    socket = await KernelSocket.to(app, kernel_id)
    try:
        return await socket.execute(code)
    finally:
        socket.close()


def play(server: OtherServer, attempt: dict, step: int, code: str) -> tuple[int, object]:
    """Run ``code`` in the attempt's kernel (through the server), then record it as ``step``'s turn."""
    msg_id = asyncio.run(_execute(server, attempt["kernel_id"], code))
    body = {"step": step, "kernel_id": attempt["kernel_id"], "msg_id": msg_id}
    return server.call("POST", f"/cibench-lab/api/attempts/{attempt['id']}/turns", body)


def tree(pid: int) -> list[psutil.Process]:
    """The process ``pid`` and all its descendants (by parent PID), now."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def commands(processes: list[psutil.Process]) -> str:
    found = []
    for p in processes:
        try:
            found.append(" ".join(p.cmdline()))
        except psutil.Error:
            continue
    return "\n".join(found)


def kill_all(processes: list[psutil.Process]) -> None:
    """SIGKILL what is left of ``processes`` (a failed test must not leave them behind)."""
    for p in processes:
        try:
            p.kill()
        except psutil.Error:
            continue
