"""Playing Qwen benchmark tasks, kernel-free: the interpreter's observation text, the prompt over a
chat endpoint, the code an action runs, the settle rule, the warm pool's skip, the output rows.
(The whole loop on real kernels: tests/benchmarks/test_qwen_run.py.)  ~1 s.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from cibench_lab.benchmarks import pooled
from cibench_lab.benchmarks.qwen.results import file_task, output_row
from cibench_lab.benchmarks.qwen.start import QWEN_START
from cibench_lab.cli import main
from cibench_lab.grading import TurnOutput
from cibench_lab.kernels.pool import PoolSettings
from cibench_lab.lab.pool import LabKernels
from cibench_lab.models.qwen_react import (
    chat_messages,
    cut_at_stop,
    image_path,
    interpreter_observation,
    item_prompt,
    observation_images,
)
from cibench_lab.play.rules import settle_rule
from cibench_lab.play.settings import PlaySettings
from cibench_lab.players import Proposal
from cibench_lab.players.qwen import QwenSession, generation, interpreter_code
from cibench_lab.runs.local import task_kernel
from cibench_lab.tasks.library import TaskLibrary
from cibench_lab.tasks.qwen import qwen_item

pytestmark = pytest.mark.fast

BENCH = Path(__file__).parent.parent / "fixtures" / "qwen" / "benchmark"
PNG = "iVBORw0KGgo="  # any base64 text: the observation names it, nothing decodes it


@pytest.fixture(scope="module")
def lib(tmp_path_factory) -> TaskLibrary:
    into = tmp_path_factory.mktemp("qwen") / "tasks"
    assert main(["tasks", "import", str(BENCH), "--into", str(into)]) == 0
    return TaskLibrary.load([into])


def test_observation_is_the_original_interpreters_text():
    outputs = [
        {"output_type": "stream", "name": "stdout", "text": "a\n"},
        {"output_type": "stream", "name": "stderr", "text": "warn"},
        {"output_type": "display_data", "data": {"text/plain": "  x\n0 1"}},
        {"output_type": "display_data", "data": {"image/png": PNG, "text/plain": "<Figure>"}},
        {"output_type": "execute_result", "data": {"text/plain": "<Figure>", "image/png": PNG}},
    ]
    link = image_path(PNG)
    assert link.startswith("/tmp/workspace/") and link.endswith(".png") and link == image_path(PNG)
    assert interpreter_observation(outputs) == (
        "stdout:\n\n```\na\n\n```\n\nstderr:\n\n```\nwarn\n```\n\ndisplay_data:\n\n```\n  x\n0 1\n```"
        f"\n\n![fig-001]({link})\n\nexecute_result:\n\n```\n<Figure>\n```\n\n![fig-002]({link})"
    )
    assert observation_images(outputs) == {link: PNG}
    error = {"output_type": "error", "traceback": ["\x1b[0;31mTraceback\x1b[0m", "KeyError: 'x'"]}
    assert interpreter_observation([error]) == "error:\n\n```\nTraceback\nKeyError: 'x'\n```"
    interrupted = {"output_type": "error", "traceback": ["KeyboardInterrupt"]}
    timed_out = interpreter_observation([outputs[0], interrupted], "timeout", 30.0)
    timeout = "Timeout. No response after 30 seconds."
    assert timed_out == f"stdout:\n\n```\na\n\n```\n\nerror:\n\n```\n{timeout}\n```"
    dead = interpreter_observation([], "dead")
    assert dead == "error:\n\n```\nThe code interpreter encountered an unexpected error.\n```"
    assert interpreter_observation([]) == ""


def test_the_prompt_goes_as_chat_turns_the_open_assistant_turn_continued(lib):
    hard = item_prompt(qwen_item(lib.get("cibench_qwen/qwen-vis/ci_0001")))
    system, user = chat_messages(hard)
    assert system == {"role": "system", "content": "You are a helpful assistant."}
    assert user["role"] == "user" and user["content"].endswith(
        "Question: [Upload file sales_2023.csv]Draw a bar chart of the sales of each region."
    )
    text = "Thought: x\nAction: code_interpreter\nAction Input: 1\nObservation: 1\nThought:"
    assert chat_messages(hard + text)[2] == {"role": "assistant", "content": text}
    easy = chat_messages(item_prompt(qwen_item(lib.get("cibench_qwen/qwen-vis/ci_0002"))))
    assert [m["role"] for m in easy] == ["system", "user", "assistant"]
    assert easy[1]["content"].endswith("Plot the temperature of each day as a line chart.")
    assert easy[2]["content"].startswith("Thought: I should load the file first.")
    assert easy[2]["content"].endswith("Thought:")
    cut = cut_at_stop("Action Input: 1\nObservation: made up\nObservation: more")
    assert cut == "Action Input: 1\nObservation:"


def test_an_action_runs_the_code_the_original_interpreter_runs():
    assert interpreter_code("```py\nsns.set_theme()\nplt.plot()\n```") == (
        'sns.set_theme()\nplt.rcParams["font.sans-serif"] = ["SimHei"]\n'
        'plt.rcParams["axes.unicode_minus"] = False\nplt.plot()\n\n'
    )
    solution = "def solution():\n    return 1"
    assert interpreter_code(f"`{solution}`") == solution + "\n\nsolution()"
    assert interpreter_code('{"code": "print(1)"}') == "print(1)\n"


def _rule(lib, task_id: str, turn: TurnOutput, n: int, meta: dict | None = None, player: str = "openai:m"):
    return settle_rule(player, PlaySettings(), turn, n, lib.get(task_id), meta or {})


def test_the_settle_rule_of_qwen_tasks_is_the_original_loops_end(lib):
    vis, general = "cibench_qwen/qwen-vis/ci_0002", "cibench_qwen/qwen-general/ci_0004"  # 4 calls, 1
    ok, failed = TurnOutput("x", [], False), TurnOutput("x", [], True, "error")
    assert _rule(lib, vis, TurnOutput("", [], True, "no_action"), 2) == "answered"
    assert _rule(lib, vis, ok, 2, {"observation": "stdout:\n\n```\nerror: bad\n```"}) == "stopped"
    assert _rule(lib, vis, failed, 2, {"observation": "error:\n\n```\nTraceback ...\n```"}) == "stopped"
    assert _rule(lib, vis, failed, 1, {"observation": "Traceback", "prior_turn": True}) is None
    assert _rule(lib, vis, failed, 2, {"observation": ""}) is None  # an error flag alone stops nothing
    assert _rule(lib, vis, ok, 4, {"observation": "fine"}) == "out_of_turns"
    assert _rule(lib, general, ok, 1, {"observation": "fine"}) == "out_of_turns"
    stream = {"output_type": "stream", "name": "stdout", "text": "error: computed"}
    assert _rule(lib, vis, TurnOutput("x", [stream]), 2) == "stopped"  # observation made from outputs
    assert _rule(lib, vis, ok, 2, player="human") is None  # a person's step: Next, Give up, or
    assert _rule(lib, vis, ok, 3, player="human") == "turn_cap"  # the calls the prior turn left


def test_qwen_tasks_never_take_a_warm_kernel(lib, tmp_path):
    qwen = lib.get("cibench_qwen/qwen-vis/ci_0001")
    cibench = TaskLibrary.load([BENCH.parent.parent / "react" / "tasks"]).select(None)[0]
    assert not pooled(qwen) and pooled(cibench)
    assert task_kernel(qwen, 300.0) == (30.0, QWEN_START) and task_kernel(cibench, 300.0) == (300.0, "")

    class App:  # jupyter_server's app, as far as LabKernels reads it before starting a kernel
        kernel_manager = None

    kernels = LabKernels(App(), tmp_path, PoolSettings(size=1))
    assert kernels.pool is not None
    folder = tmp_path / "attempt"
    assert asyncio.run(kernels.place(qwen, folder)) is False
    assert (folder / "upload_file" / "sales" / "sales_2023.csv").is_file()
    assert kernels.pool.wanted == [] and kernels.pool.waiting() == 0  # nothing asked, nothing started


def test_a_played_item_becomes_the_row_the_original_writes(lib):
    gsm = qwen_item(lib.get("cibench_qwen/qwen-math/gsm8k_0001"))
    metas = [{"qwen_text": "Thought: a\n"}, {"qwen_text": "Final Answer: 31 apples."}]
    row = output_row(gsm, generation(metas))
    assert file_task(gsm) == "gsm8k" and row["completion"] == "Thought: a\nFinal Answer: 31 apples."
    assert row["acc"] is True and row["question"] == gsm["query"]
    vis = qwen_item(lib.get("cibench_qwen/qwen-vis/ci_0001"))
    assert file_task(vis) == "visualization" and output_row(vis, "g")["gen"] == "g"
    assert file_task(qwen_item(lib.get("cibench_qwen/qwen-math/ci_0006"))) == "math"
    assert file_task(qwen_item(lib.get("cibench_qwen/qwen-general/ci_0004"))) == "general"


def test_recorded_turns_rebuild_the_sessions_text(lib):
    """What play/history.py feeds a fresh session after a restart gives the same text."""
    task = lib.get("cibench_qwen/qwen-vis/ci_0002")  # easy: the prior turn adds nothing
    fresh = QwenSession(None, task)
    step = task.steps[0]
    out = [{"output_type": "stream", "name": "stdout", "text": "1\n"}]
    turns = [
        (Proposal("x", {"prior_turn": True}, "code"), TurnOutput("x", out)),
        (Proposal("y", {"output": "Thought: a\nAction: c\nAction Input: y"}, "code"), TurnOutput("y", out)),
        (Proposal("", {"output": "Final Answer: done"}, "no_action"), TurnOutput("", [], True, "no_action")),
    ]
    metas = [{**p.meta, **fresh.observe(step, p, r)} for p, r in turns]
    assert (
        fresh.text
        == generation(metas)
        == (
            "Thought: a\nAction: c\nAction Input: y\nObservation: stdout:\n\n```\n1\n\n```\nThought:"
            "Final Answer: done"
        )
    )
    assert metas[0]["observation"] == "stdout:\n\n```\n1\n\n```" and metas[0]["qwen_text"] == ""
