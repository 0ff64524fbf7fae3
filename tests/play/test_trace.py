"""The action trace on a real kernel: every execution the server's capture sees is a ``cell_run``
of the attempt (lab/trace.py) — the step's reported runs graded, any other cell's runs
exploration — and a run while the clock is paused resumes it."""

from __future__ import annotations

import asyncio
import datetime as dt

from conftest import PROBE_ID
from sqlalchemy import select

from cibench_lab.store.tables import Attempt


async def _trace(api, attempt_id: str, runs: int) -> dict:
    """The trace once it holds ``runs`` runs (each is recorded a moment after it finishes)."""
    for _ in range(100):
        code, trace = await api("GET", f"attempts/{attempt_id}/trace")
        assert code == 200, trace
        if len(trace["runs"]) >= runs:
            return trace
        await asyncio.sleep(0.1)
    raise AssertionError(f"the trace did not reach {runs} runs: {trace}")


async def test_exploration_runs_are_traced_beside_the_graded_turn(start_attempt, api, jp_serverapp):
    b = await start_attempt()
    attempt_id = b.attempt["id"]
    scratch = await b.execute("scratch = sorted([3, 1, 2])\nprint(scratch)")
    code, body = await api(
        "POST", f"attempts/{attempt_id}/activity", {"step": 0, "runs": {scratch: "cell-x"}}
    )
    assert code == 200, body
    code, turn = await b.turn(0, "probe = 'x' * 17")
    assert code == 200 and turn["grade"]["passed"], turn
    failing = await b.execute("1 / 0")
    trace = await _trace(api, attempt_id, 3)
    runs = trace["runs"]
    assert [r["code"] for r in runs] == [
        "scratch = sorted([3, 1, 2])\nprint(scratch)",
        "probe = 'x' * 17",
        "1 / 0",
    ]
    explore, graded, error = runs
    assert explore["graded"] is False and explore["turn"] is None and explore["cell_id"] == "cell-x"
    assert explore["msg_id"] == scratch and explore["step"] == 0 and explore["error"] is False
    assert graded["graded"] is True and graded["turn"] == 0 and graded["cell_id"] is None
    assert error["msg_id"] == failing and error["error"] is True and error["status"] == "error"
    assert error["graded"] is False
    for run in runs:  # the start code the server ran on the kernel is not the person's
        assert run["started_at"] <= run["finished_at"] and "matplotlib" not in run["code"]
    assert [r["execution_count"] for r in runs] == [1, 2, 3]
    code, view = await api("GET", f"attempts/{attempt_id}")
    step = view["steps"][0]
    assert step["first_run_at"] == graded["started_at"] and step["turns"] == 1  # its first turn
    # the attempt keeps what makes it comparable: the task version, kernel environment, sandbox
    store = jp_serverapp.web_app.settings["cibench_lab"]
    with store.store.session() as s:
        row = s.scalar(select(Attempt).where(Attempt.id == attempt_id))
        assert row.task_hash == store.library.get(PROBE_ID).content_hash
        env = row.environment
    assert env["kernel"]["constraints_sha256"] and env["libraries"]["ipykernel"]
    assert set(env["sandbox"]) == {"enabled", "network", "tool"}


async def test_a_run_while_paused_resumes_the_clock(start_attempt, api):
    b = await start_attempt()
    attempt_id = b.attempt["id"]
    code, view = await api("POST", f"attempts/{attempt_id}/pause", {})
    assert code == 200 and view["paused"], view
    await b.execute("other = 1")  # any cell, not the step's
    for _ in range(100):
        code, view = await api("GET", f"attempts/{attempt_id}")
        if not view["paused"]:
            break
        await asyncio.sleep(0.1)
    (pause,) = view["pauses"]
    assert pause["resumed_by"] == "run" and pause["cause"] == "button", pause
    (run,) = (await _trace(api, attempt_id, 1))["runs"]
    assert run["code"] == "other = 1" and _time(run["started_at"]) <= _time(pause["end"])  # at its start


def _time(iso: str) -> dt.datetime:
    return dt.datetime.fromisoformat(iso.removesuffix("Z"))
