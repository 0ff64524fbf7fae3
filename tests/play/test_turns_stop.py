"""Turns that stop: a turn over ``turn_timeout`` interrupts its kernel, or restarts it (and the
attempt's state is restored) when it will not stop; a kernel that dies is recorded at once; after
each, the next run is graded."""

from __future__ import annotations

import asyncio
import time

import pytest
from sqlalchemy import select
from test_resume import restores

from cibench_lab.store.tables import Turn

IGNORES_SIGINT = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"


@pytest.fixture
def jp_server_config(jp_server_config):
    jp_server_config["CIBenchLabApp"].update(turn_timeout=3.0, interrupt_grace=2.0)
    return jp_server_config


def turn_meta(serverapp, attempt_id: str, msg_id: str) -> dict:
    store = serverapp.web_app.settings["cibench_lab"].store
    with store.session() as s:
        return s.scalar(select(Turn.meta).where(Turn.attempt_id == attempt_id, Turn.msg_id == msg_id))


async def run_unanswered(b, step: int, code: str) -> tuple[str, int, dict]:
    """Send ``code`` without waiting for its reply (it may never come) and report it as a turn."""
    await b.kc.wait_for_ready(timeout=30)
    msg_id = await b.send(code)
    report = {"step": step, "kernel_id": b.kernel_id, "msg_id": msg_id}
    status, body = await b.api("POST", f"attempts/{b.attempt['id']}/turns", report)
    return msg_id, status, body


def reconnect(b, serverapp) -> None:
    """A new client for the (restarted) kernel, as the lab's kernel connection reconnects."""
    b.kc.stop_channels()
    b.kc = serverapp.kernel_manager.get_kernel(b.kernel_id).client()
    b.kc.start_channels()


def pid(serverapp, kernel_id: str) -> int:
    return serverapp.kernel_manager.get_kernel(kernel_id).provisioner.pid


async def settled_probe(start_attempt):
    """An attempt whose step 0 (``probe = 'p' * 17``) is settled, so a restore re-runs it."""
    b = await start_attempt()
    await b.turn(0, "probe = 'p' * 17")
    await b.next(0)
    return b


async def test_an_endless_loop_is_interrupted_and_the_kernel_kept(start_attempt, jp_serverapp):
    b = await start_attempt()
    await b.turn(0, "probe = 'p' * 17")
    before = pid(jp_serverapp, b.kernel_id)
    msg_id, code, r = await run_unanswered(b, 0, "while True:\n    pass")
    assert code == 200, r
    meta = turn_meta(jp_serverapp, b.attempt["id"], msg_id)
    assert meta["status"] == "timeout" and meta["stopped"] == "interrupted", meta
    assert r["stopped"] == "interrupted"  # the badge says the run was stopped at the limit
    kernel = jp_serverapp.kernel_manager.get_kernel(b.kernel_id)
    assert pid(jp_serverapp, b.kernel_id) == before and await kernel.is_alive()
    for _ in range(100):  # the server's own activity monitor reads the same idle status
        if kernel.execution_state == "idle":
            break
        await asyncio.sleep(0.1)
    assert kernel.execution_state == "idle"
    code, r = await b.turn(0, "print(len(probe))")  # the same kernel, its state kept
    assert code == 200 and r["grade"]["exec"] == 1, r


async def test_a_turn_that_ignores_the_interrupt_restarts_and_restores(start_attempt, jp_serverapp):
    b = await settled_probe(start_attempt)
    before = pid(jp_serverapp, b.kernel_id)
    msg_id, code, r = await run_unanswered(b, 1, IGNORES_SIGINT)
    assert code == 200, r
    meta = turn_meta(jp_serverapp, b.attempt["id"], msg_id)
    assert meta["status"] == "timeout" and meta["stopped"] == "restarted", meta
    assert r["stopped"] == "restarted"
    assert pid(jp_serverapp, b.kernel_id) != before
    assert [e["cells"] for e in restores(jp_serverapp, b.attempt["id"])] == [1]  # before the answer
    reconnect(b, jp_serverapp)
    code, r = await b.turn(1, "print(len(probe))")  # `probe` only exists if state was restored
    assert code == 200 and r["grade"]["exec"] == 1, r


async def test_a_kernel_that_dies_is_recorded_at_once_and_restored(start_attempt, jp_serverapp):
    jp_serverapp.web_app.settings["cibench_lab"].lab.config.turn_timeout = 60.0
    b = await settled_probe(start_attempt)
    began = time.monotonic()
    msg_id, code, r = await run_unanswered(b, 1, "import os\nos._exit(1)")
    assert code == 200 and time.monotonic() - began < 20, r
    meta = turn_meta(jp_serverapp, b.attempt["id"], msg_id)
    assert meta["status"] == "dead" and "exit code 1" in meta["kernel"]["died"], meta
    assert [e["cells"] for e in restores(jp_serverapp, b.attempt["id"])] == [1]
    reconnect(b, jp_serverapp)
    code, r = await b.turn(1, "print(len(probe))")
    assert code == 200 and r["grade"]["exec"] == 1, r
