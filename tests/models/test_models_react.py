"""The cibench-react protocol against OpenCompass's own behaviour (no kernel, no server).

The goldens under tests/fixtures/react/ were recorded by running the ORIGINAL agent
(tests/fixtures/react/make_golden.py); the end-to-end comparison through a real run
is in tests/runs/test_run_models.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cibench_lab.grading import TurnOutput
from cibench_lab.models.client import Completion
from cibench_lab.models.react import (
    ReactProtocol,
    classify,
    extract_code,
    merge_roles,
    parse,
    reply_text,
    response,
    system_prompt,
)

pytestmark = pytest.mark.fast

GOLDEN = Path(__file__).parent.parent / "fixtures" / "react"


def golden(name: str) -> dict:
    return json.loads((GOLDEN / f"golden_{name}.json").read_text())


@pytest.mark.parametrize("name", ["e2e", "oracle", "e2e_merge", "oracle_merge"])
def test_system_prompt_is_the_originals_byte_for_byte(name):
    first = golden(name)["requests"][0]["messages"][0]
    assert first == {"role": "system", "content": system_prompt()}
    assert system_prompt().endswith("Let us begin from here!\n")
    assert "one of [['IPythonInterpreter']]." in system_prompt()


@pytest.mark.parametrize("mode", ["e2e", "oracle"])
def test_merge_roles_is_cireact_merge_role(mode):
    plain, merged = golden(mode)["requests"], golden(f"{mode}_merge")["requests"]
    assert len(plain) == len(merged)
    for a, b in zip(plain, merged, strict=True):
        assert merge_roles(a["messages"]) == b["messages"]
    assert all(m["role"] != "system" for r in merged for m in r["messages"][1:])


def test_questions_are_the_task_prompts():
    from cibench_lab.tasks.library import TaskLibrary

    lib = TaskLibrary.load([GOLDEN / "tasks"])
    task = lib.get("cibench_template/pandas/react_probe")
    assert [s.prompt for s in task.steps] == golden("e2e")["questions"]


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("Thought: t\nAction: IPythonInterpreter\nAction Input: ```python\nx = 1\n```", ("code", "x = 1\n")),
        ("Thought: t\nAction: IPythonInterpreter\nAction Input: `print(2)`", ("code", "print(2)")),
        ('Action: IPythonInterpreter\nAction Input: {"code": "print(3)"}', ("code", "print(3)")),
        ("Action: IPythonInterpreter\nAction Input: print(4)", ("code", "print(4)")),
        ('Action: IPythonInterpreter\nAction Input: "print(5)"', ("code", "print(5)")),
        ("Action: IPythonInterpreter\nAction Input:", ("empty", "")),
        ("Action: IPythonInterpreter\nAction Input: ``", ("empty", "")),
        ("Action: IPythonInterpreter", ("no_action", "")),  # no newline after the action line
        ("just words", ("no_action", "")),
        ("Action: Python\nAction Input: ```python\nx\n```", ("invalid", "")),
        ("Thought: done\nFinal Answer: 42", ("finish", "")),
        ("Action: IPythonInterpreter\nAction Input: x\nFinal Answer: y", ("finish", "")),
        # extracted twice, as the interpreter does: backticks inside a fenced block win
        ("Action: IPythonInterpreter\nAction Input: ```python\nprint(f'`{1}`')\n```", ("code", "{1}")),
        # the last Action line, everything after the first Action Input
        ("Action: A\nAction: IPythonInterpreter\nAction Input: `a`\nAction Input: `b`", ("code", "a")),
    ],
)
def test_parse_follows_lagent(reply, expected):
    got = classify(reply)
    assert (got["action"], got["code"]) == expected


def test_parse_texts():
    assert parse("Thought: hm\nFinal Answer: the mean is 2.5")[2] == " the mean is 2.5"
    assert classify("Action: NoAction\nAction Input: oops")["text"] == "oops"
    assert classify("nothing")["text"] == "Please follow the format"
    assert (
        classify("Action: X\nAction Input: y")["text"]
        == "The action is invalid, please check the action name."
    )
    assert extract_code("no code here") == "no code here"
    assert extract_code('{"code": "a = 1"}') == "a = 1"


def test_replies_are_stripped_and_reasoning_kept():
    assert reply_text(Completion(content="  Action: x \n\n")) == "Action: x"
    assert reply_text(Completion(content=" c ", reasoning="r")) == "r</think> c "
    assert reply_text(Completion(content="", reasoning="r")) == "r"


def test_responses_are_format_response():
    ok = TurnOutput("print(1)", [{"output_type": "stream", "name": "stdout", "text": "1\n"}])
    assert response("code", ok) == "Response:stdout:\n\n```\n1\n\n```\n"
    silent = TurnOutput("x = 1", [])
    assert response("code", silent) == "Response:The code is succeed without any outputs.\n"
    err = TurnOutput(
        "x",
        [{"output_type": "error", "ename": "NameError", "evalue": "x", "traceback": ["Name'Error"]}],
        True,
        "error",
    )
    assert response("code", err) == "Response:" + repr("error:\n\n```\nName'Error\n```") + "\n"
    assert response("empty", TurnOutput("", [], True)) == (
        "Response:The input code is empty. Please follow the format.\n"
    )
    assert response("finish", TurnOutput("", []), " 42") == "Response: 42\n"


def test_reference_turn_is_gt_response():
    from cibench_lab.tasks.library import TaskLibrary

    task = TaskLibrary.load([GOLDEN / "tasks"]).get("cibench_template/pandas/react_probe")
    gold = ReactProtocol().reference(task.steps[1], TurnOutput("print(len(df))", []))
    assert gold[0]["content"] == (
        "Thought:  \nAction: IPythonInterpreter\nAction Input:```python\nprint(len(df))\n```\n"
    )
    oracle = golden("oracle")["requests"][-1]["messages"]
    assert gold[0] in oracle
