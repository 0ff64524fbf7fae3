"""`run --run NAME` on Qwen tasks, interrupted and run again: the second run skips the finished item
and completes the open one where it stopped — the session and the kernel rebuilt from the recorded
turns, each request carrying exactly the messages an uninterrupted play sends, no turn lost or
doubled.  The interruption is a model endpoint that fails for good (HTTP 401), which leaves the
attempt open, as a killed run does.  Both protocols (the original's ReAct loop, native tool calls).
(~40 s: per protocol, two kernels, then one.)
"""

from __future__ import annotations

import json

import pytest
from openai_server import ScriptedServer
from test_qwen_run import BENCH, OUT, _turns, act
from test_qwen_tools_run import PRIOR, SYSTEM, answer, calls, reply, user

from cibench_lab.cli import main
from cibench_lab.models.qwen_react import chat_messages, item_prompt
from cibench_lab.tasks.library import TaskLibrary
from cibench_lab.tasks.qwen import qwen_item

GENERAL, EASY = "cibench_qwen/qwen-general/ci_0004", "cibench_qwen/qwen-vis/ci_0002"
CODES = ["print(df['temp'].mean())", "print(len(df))"]  # `len(df)`: the prior turn's df, on a new kernel
SEEN = [OUT.format(13.875), OUT.format(4)]
DONE = "The chart is drawn."


def react(lib: TaskLibrary) -> tuple[list[dict], list[dict]]:
    """(the first run's exchanges, the second's): the easy item's second request fails the first run."""

    def asked(task: str, text: str = "") -> list[dict]:
        return chat_messages(item_prompt(qwen_item(lib.get(task))) + text)

    one = act(CODES[0]).rstrip() + "\nObservation: " + SEEN[0] + "\nThought:"
    two = one + act(CODES[1]).rstrip() + "\nObservation: " + SEEN[1] + "\nThought:"
    general = {"messages": asked(GENERAL), "reply": act("print(1)")}
    first = {"messages": asked(EASY), "reply": act(CODES[0])}
    second = {"messages": asked(EASY, one), "reply": act(CODES[1])}
    end = f"Thought: I now know the final answer\nFinal Answer: {DONE}"
    third = {"messages": asked(EASY, two), "reply": end}
    return [general, first, {**second, "faults": ["401-echo"]}], [second, third]


def tools(lib: TaskLibrary) -> tuple[list[dict], list[dict]]:
    ask = "[Upload file orders.csv, items.csv]Join the two tables on item and save the result as merged.csv."
    general = [SYSTEM, user(ask)]
    easy = [
        SYSTEM,
        user("[Upload file weather.csv]Plot the temperature of each day as a line chart."),
        *PRIOR,
    ]
    made = [calls(CODES[0], tag="a"), calls(CODES[1], tag="b")]
    after_one = [*easy, made[0], answer("a0", SEEN[0])]
    after_two = [*after_one, made[1], answer("b0", SEEN[1])]
    t = {"tools": ["code_interpreter"]}
    second = {**t, "messages": after_one, "reply": reply(made[1])}
    return [
        {**t, "messages": general, "reply": reply(calls("print(1)", tag="g"))},
        {**t, "messages": easy, "reply": reply(made[0])},
        {**second, "faults": ["401-echo"]},
    ], [second, {**t, "messages": after_two, "reply": {"content": DONE}}]  # fmt: skip


@pytest.mark.parametrize("protocol", ["cibench-react", "tools"])
def test_an_interrupted_qwen_run_resumes_where_it_stopped(tmp_path, monkeypatch, capsys, protocol):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    for var in ("OPENAI_BASE_URL", "CIBENCH_LAB_JUDGE_MODEL", "CIBENCH_LAB_JUDGE_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    tasks, db = tmp_path / "tasks", f"sqlite:///{tmp_path / 'runs.sqlite'}"
    assert main(["tasks", "import", str(BENCH), "--into", str(tasks)]) == 0
    before, after = (tools if protocol == "tools" else react)(TaskLibrary.load([tasks]))
    args = [
        "--task-dir",
        str(tasks),
        "--db",
        db,
        "run",
        "--player",
        "openai:scripted",
        "--protocol",
        protocol,
    ]
    args += ["--tasks", GENERAL, EASY, "--run", "r", "--no-progress", "--jobs", "2"]

    with ScriptedServer(before) as server:
        assert main([*args, "--base-url", server.base_url]) == 1  # the easy item left open
    server.check(all_used=False)
    assert len(server.requests) == 3 and server.unused() == [2]
    first = _turns(db)
    assert first[GENERAL][0] == "out_of_turns" and first[EASY][0] is None  # open
    assert [t.number for t in first[EASY][1]] == [0, 1]  # the prior turn, the first call
    capsys.readouterr()

    with ScriptedServer(after) as server:
        assert main([*args, "--base-url", server.base_url]) == 0
    server.check()  # exactly the two requests left, each with an uninterrupted play's messages
    assert "cibench_qwen/qwen-general/ci_0004: skipped" in capsys.readouterr().err
    done = _turns(db)
    assert done[GENERAL][1][0].id == first[GENERAL][1][0].id  # the finished item untouched
    outcome, turns = done[EASY]
    assert outcome == "answered" and [t.number for t in turns] == [0, 1, 2, 3]
    assert [t.id for t in turns[:2]] == [t.id for t in first[EASY][1]]  # kept, not played again
    assert [t.meta.get("observation") for t in turns[1:3]] == SEEN  # df came back on the new kernel
    assert turns[0].meta["prior_turn"] and not any(t.meta.get("prior_turn") for t in turns[1:])
    assert json.dumps(turns[3].meta["qwen_text"]).count(DONE) == 1
