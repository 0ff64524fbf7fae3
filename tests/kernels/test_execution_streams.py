"""A stream the kernel split into several IOPub messages is one output (kernels/execution.py), so
its chunking never changes what is graded, recorded or shown to a model (no kernel: the
messages are fed as the capture and the headless executor would)."""

from __future__ import annotations

import pytest
from nbformat.v4 import output_from_msg
from rules_task import EN, write_task

from cibench_lab.grading import TurnOutput
from cibench_lab.grading.profile import grade_all
from cibench_lab.grading.render import render
from cibench_lab.kernels.execution import Execution, joined_streams
from cibench_lab.models.react import response
from cibench_lab.models.tools import ToolsProtocol
from cibench_lab.tasks.library import TaskLibrary

pytestmark = pytest.mark.fast


def msg(kind: str, **content) -> dict:
    return {"header": {"msg_type": kind}, "parent_header": {"msg_id": "m"}, "content": content}


def stream(text: str, name: str = "stdout") -> dict:
    return msg("stream", name=name, text=text)


def display(text: str) -> dict:
    return msg("display_data", data={"text/plain": text}, metadata={})


def executed(*messages: dict) -> Execution:
    ex = Execution("m")
    ex.add(msg("execute_input", code="print(x)"))
    for m in messages:
        ex.add(m)
    ex.add(msg("status", execution_state="idle"))
    assert ex.done
    return ex


def texts(ex: Execution) -> list[tuple[str, str]]:
    return [
        (o.get("name", o["output_type"]), o.get("text", o.get("data", {}).get("text/plain")))
        for o in ex.outputs
    ]


def test_a_print_split_in_two_messages_is_the_print_in_one():
    split, whole = executed(stream("2.5\n"), stream("\n")), executed(stream("2.5\n\n"))
    assert split.outputs == whole.outputs == [{"output_type": "stream", "name": "stdout", "text": "2.5\n\n"}]


def test_only_consecutive_chunks_of_the_same_stream_are_joined():
    messages = [
        stream("a"),
        stream("b"),
        stream("c", "stderr"),
        stream("d"),
        display("<x>"),
        stream("e"),
        stream("f"),
        stream("g"),
    ]
    ex = executed(*messages)
    assert texts(ex) == [
        ("stdout", "ab"),
        ("stderr", "c"),
        ("stdout", "d"),
        ("display_data", "<x>"),
        ("stdout", "efg"),
    ]
    # a task notebook's outputs (an oracle reference never run) are joined by the same rule
    assert joined_streams([output_from_msg(m) for m in messages]) == ex.outputs


def test_outputs_read_while_the_stream_goes_on_are_whole_each_time():
    ex = Execution("m")
    ex.add(stream("1"))
    ex.add(stream("2"))
    assert texts(ex) == [("stdout", "12")]
    ex.add(stream("3"))
    ex.add(stream("4", "stderr"))
    ex.add(stream("5", "stderr"))
    assert texts(ex) == [("stdout", "123"), ("stderr", "45")]
    ex.add(msg("clear_output", wait=False))
    ex.add(stream("6"))
    ex.add(stream("7"))
    assert texts(ex) == [("stdout", "67")]


def test_what_a_model_is_shown_and_the_grades_do_not_depend_on_the_chunking(tmp_path):
    write_task(tmp_path, EN, "en")
    step = TaskLibrary.load([tmp_path]).get(EN).steps[1]  # a num step: 42
    split = executed(stream("4"), stream("2\n"), stream("\n"), stream("done\n", "stderr"))
    whole = executed(stream("42\n\n"), stream("done\n", "stderr"))
    turns = [TurnOutput("print(42)", ex.outputs, ex.error, ex.status) for ex in (split, whole)]
    assert render(turns[0].outputs, False).text == render(turns[1].outputs, False).text
    blocks = "stdout:\n\n```\n42\n\n\n```\n\nstderr:\n\n```\ndone\n\n```"  # one block per stream
    assert render(turns[0].outputs, False).text == blocks
    assert response("code", turns[0]) == response("code", turns[1])  # cibench-react's observation
    reply = {"role": "assistant", "tool_calls": [{"id": "c1"}]}
    tools = [ToolsProtocol().observation({"action": "code", "reply": reply}, t) for t in turns]
    assert tools[0] == tools[1]
    assert grade_all(step, [turns[0]]) == grade_all(step, [turns[1]])
