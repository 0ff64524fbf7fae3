"""Attempt kernels the server stops: a finished attempt's once idle (after its last reference,
in oracle mode), an idle one's after
``kernel_idle_cull``; a new kernel is restored and told why the last one stopped."""

from __future__ import annotations

import asyncio
import subprocess
import time
import uuid

import pytest
from sqlalchemy import select

from cibench_lab.store.tables import Event

PROBE_ANSWERS = ["probe = 'x' * 17", "print('alpha beta')", "print(6 * 7)", "print(len(probe))"]
WAIT = 30.0  # seconds any awaited change may take at most


@pytest.fixture
def idle_cull() -> float:
    return 1800.0


@pytest.fixture
def jp_server_config(jp_server_config, idle_cull):
    lab = {**jp_server_config["CIBenchLabApp"], "kernel_idle_cull": idle_cull, "pause_after": 1}
    return {**jp_server_config, "CIBenchLabApp": lab}


async def until(check, what: str, timeout: float = WAIT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = await check()
        if value:
            return value
        await asyncio.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what}")


def events(serverapp, attempt_id: str, kind: str) -> list[tuple]:
    """(when, detail) of the attempt's events of ``kind``, oldest first."""
    store = serverapp.web_app.settings["cibench_lab"].store
    with store.session() as s:
        q = select(Event.at, Event.detail).where(Event.attempt_id == attempt_id, Event.kind == kind)
        return [tuple(row) for row in s.execute(q.order_by(Event.id))]


async def execution_count(b, code: str) -> int:
    """Run ``code`` as the lab does and return the execute reply's count."""
    msg = b.kc.session.msg("execute_request", {"code": code, "silent": False, "store_history": True})
    msg["header"]["msg_id"] = msg_id = uuid.uuid4().hex
    b.kc.shell_channel.send(msg)
    reply = await b.kc._async_get_shell_msg(timeout=60)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = await b.kc._async_get_shell_msg(timeout=60)
    return reply["content"]["execution_count"]


async def test_a_finished_attempts_kernel_is_shut_down(start_attempt, api, jp_serverapp):
    b = await start_attempt()
    await b.kc.wait_for_ready(timeout=30)
    assert await execution_count(b, "1 + 1") == 1  # the hidden start code is not counted
    code, view = await api("GET", f"attempts/{b.attempt['id']}")
    assert view["kernel"] == "running" and view["kernel_stopped"] is None
    km = jp_serverapp.kernel_manager
    for step, answer in enumerate(PROBE_ANSWERS):
        code, r = await b.turn(step, answer)
        assert code == 200, r
        code, settled = await b.next(step)
        assert code == 200, settled
        if step < 3:
            assert b.kernel_id in km  # an open attempt keeps its kernel
    assert settled["attempt"]["status"] == "done"

    async def gone():
        return b.kernel_id not in km

    await until(gone, "the finished attempt's kernel shut down")
    sessions = await jp_serverapp.session_manager.list_sessions()
    assert all(s["kernel"]["id"] != b.kernel_id for s in sessions)
    stops = events(jp_serverapp, b.attempt["id"], "kernel_stopped")
    assert [detail for _, detail in stops] == [{"reason": "finished", "kernel_id": b.kernel_id}]
    code, view = await api("GET", f"attempts/{b.attempt['id']}")
    assert view["kernel"] == "stopped" and view["kernel_stopped"] == "finished"


async def test_a_finished_oracle_attempts_kernel_runs_its_last_reference_first(
    start_attempt, api, jp_serverapp
):
    b = await start_attempt(mode="oracle")
    km = jp_serverapp.kernel_manager
    aid = b.attempt["id"]
    for step, answer in enumerate(PROBE_ANSWERS):
        code, r = await b.turn(step, answer)
        assert code == 200, r
        code, settled = await b.next(step)
        assert code == 200, settled
    nxt = settled["next"]
    assert settled["attempt"]["status"] == "done" and nxt["do"] == "done" and nxt["show"]["step"] == 3
    await asyncio.sleep(1.0)  # the browser inserts the last reference cell, then runs it
    assert b.kernel_id in km, "the kernel was shut down before the last reference ran"
    bind = f"attempts/{aid}/kernel"
    code, bound = await api("POST", bind, {"kernel_id": b.kernel_id})  # it still shows the last reference
    assert code == 200 and bound["restored_cells"] == 0, bound
    msg_id = await b.execute(nxt["show"]["code"])
    body = {"step": 3, "kernel_id": b.kernel_id, "msg_id": msg_id}
    code, r = await api("POST", f"attempts/{aid}/oracle", body)
    assert code == 200 and r["next"]["do"] == "done", r
    code, err = await api("POST", bind, {"kernel_id": b.kernel_id})  # reported: the attempt is closed
    assert code == 409 and err["error"] == (
        f"attempt {aid} is finished: its notebook is read only and no kernel can be bound to it"
    )

    async def gone():
        return b.kernel_id not in km

    await until(gone, "the finished attempt's kernel shut down after its last reference")
    b.close()
    assert [d for _, d in events(jp_serverapp, aid, "kernel_stopped")] == [
        {"reason": "finished", "kernel_id": b.kernel_id}
    ]


async def test_a_finished_attempts_notebook_gets_no_kernel(start_attempt, api, jp_serverapp):
    """A kernel started on a finished attempt's notebook (JupyterLab reopening it) is stopped, and
    no kernel is bound to the attempt again."""
    b = await start_attempt()
    aid, km = b.attempt["id"], jp_serverapp.kernel_manager
    for step, answer in enumerate(PROBE_ANSWERS):
        await b.turn(step, answer)
        code, settled = await b.next(step)
    assert settled["attempt"]["status"] == "done"
    b.close()
    session = await jp_serverapp.session_manager.create_session(
        path=b.attempt["notebook_path"], type="notebook", kernel_name="cibench-lab"
    )
    reopened = session["kernel"]["id"]

    async def gone():
        return reopened not in km and b.kernel_id not in km

    await until(gone, "the kernel on the finished attempt's notebook stopped")
    assert await jp_serverapp.session_manager.list_sessions() == []
    stops = [d for _, d in events(jp_serverapp, aid, "kernel_stopped")]
    assert {"reason": "finished", "kernel_id": reopened} in stops and len(stops) == 2
    assert events(jp_serverapp, aid, "restore") == []  # nothing was restored on it
    for kernel_id in (reopened, b.kernel_id):
        code, err = await api("POST", f"attempts/{aid}/kernel", {"kernel_id": kernel_id})
        assert code == 409 and err["error"].startswith(f"attempt {aid} is finished: "), err
    code, view = await api("GET", f"attempts/{aid}")
    assert view["kernel_id"] == b.kernel_id and view["kernel"] == "stopped"


@pytest.mark.parametrize("idle_cull", [2.5])
async def test_an_idle_kernel_is_culled_but_not_while_a_turn_runs(start_attempt, api, jp_serverapp):
    b = await start_attempt()
    km = jp_serverapp.kernel_manager
    code, settings = await api("GET", "settings")
    assert settings["kernel_idle_cull"] == 2.5 and settings["defaults"]["pause_after"] == 1
    code, r = await b.turn(0, "import time; time.sleep(4); probe = 'y' * 17")  # longer than the limit
    assert code == 200 and r["grade"]["passed"], r
    assert b.kernel_id in km, "culled during a turn"
    code, r = await b.next(0)
    code, _ = await api("POST", f"attempts/{b.attempt['id']}/activity", {"step": 1})
    assert code == 200

    async def gone():
        return b.kernel_id not in km

    await until(gone, "the idle kernel culled")
    b.close()
    stops = events(jp_serverapp, b.attempt["id"], "kernel_stopped")
    assert [detail for _, detail in stops] == [{"reason": "idle", "kernel_id": b.kernel_id}]
    edit, _ = events(jp_serverapp, b.attempt["id"], "activity")[-1]
    assert (stops[0][0] - edit).total_seconds() >= 2.5  # idle counted from the last edit
    code, view = await api("GET", f"attempts/{b.attempt['id']}")
    assert view["kernel"] == "stopped" and view["kernel_stopped"] == "idle" and view["status"] == "open"
    assert await jp_serverapp.session_manager.list_sessions() == []


@pytest.mark.parametrize("idle_cull", [2.5])
async def test_the_next_kernel_is_restored_and_told_why_the_last_stopped(start_attempt, api, jp_serverapp):
    b = await start_attempt()
    km = jp_serverapp.kernel_manager
    await b.turn(0, "probe = 'z' * 17")
    await b.next(0)

    async def gone():
        return b.kernel_id not in km

    await until(gone, "the idle kernel culled")
    b.close()
    # the notebook's next run starts a kernel for it, as JupyterLab does when it has none
    session = await jp_serverapp.session_manager.create_session(
        path=b.attempt["notebook_path"], type="notebook", kernel_name="cibench-lab"
    )
    new_id = session["kernel"]["id"]
    path = f"attempts/{b.attempt['id']}/kernel"
    for _ in range(2):  # every bind of the first kernel since the stop answers it
        code, bound = await api("POST", path, {"kernel_id": new_id})
        assert code == 200 and bound["previous_stop"] == "idle", bound
    assert [r["cells"] for _, r in events(jp_serverapp, b.attempt["id"], "restore")] == [1]
    code, view = await api("GET", f"attempts/{b.attempt['id']}")
    assert view["kernel"] == "running" and view["kernel_id"] == new_id and view["kernel_stopped"] is None
    b.kernel_id, b.kc = new_id, km.get_kernel(new_id).client()
    b.kc.start_channels()
    code, r = await b.turn(1, "print(len(probe) * 'alpha beta ')")  # `probe` came back
    assert code == 200 and r["grade"]["score"] > 0, r


def test_the_server_refuses_a_cull_that_comes_before_the_pause(tmp_path):
    from test_faults import CHILD_TIMEOUT, a_database, a_task, env_for, free_port, refusal, server_argv

    root = tmp_path / "root"
    root.mkdir()
    options = {"database_url": a_database(tmp_path), "task_dirs": [str(a_task(tmp_path))]}
    argv = server_argv(tmp_path, root, free_port(), kernel_idle_cull=60, pause_after=300, **options)
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=CHILD_TIMEOUT, env=env_for(tmp_path))
    assert refusal(proc) == (
        "CIBenchLabApp.pause_after: must be less than CIBenchLabApp.kernel_idle_cull (60 s): "
        "an idle kernel is culled only after the working clock paused"
    )
