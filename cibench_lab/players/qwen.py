"""An ``openai:NAME`` player's session on a task of Qwen's Code Interpreter Benchmark.

It plays the original's loop (``llm_with_plugin`` in ``inference_and_execute.py``, 20231206):
the prompt is :func:`~cibench_lab.models.qwen_react.item_prompt` plus the text generated so far;
each reply is cut at its first stop word and its last ``Action:`` / ``Action Input:`` parsed;
an action's input (upload names rewritten to their listed paths) becomes the interpreter's
code — its first fenced block, else backtick span, else JSON5 ``code``, with seaborn's
SimHei lines after ``sns.set_theme(`` and ``solution()`` after ``def solution()`` — and its
observation is appended as ``\\nObservation: …\\nThought:``; a reply without an action ends the
item.  An easy item's prior turn (the query's own action) is the first turn, run before the
model is asked, and is a call; its observation stays out of the prompt, as in the original,
whose prompt already holds the query's recorded observation.

Over a chat endpoint the prompt is sent as its chat turns (:func:`~.qwen_react.chat_messages`:
the open assistant turn a final assistant message) with the stop words as ``stop``.  When the
step ends is the settle rule's (:mod:`cibench_lab.play.rules`: call limit, stop words, no
call); every turn's ``qwen_text`` is what it added to the text, so the recorded turns rebuild
the session and give the original's ``gen`` (:func:`generation`).
"""

from __future__ import annotations

from typing import Any

from ..grading import TurnOutput
from ..grading.qwen.react import extract_code
from ..models.client import ModelError
from ..models.qwen_react import (
    STOP_WORDS,
    chat_messages,
    cut_at_stop,
    interpreter_observation,
    item_prompt,
    observation_text,
    parse_latest_call,
    prior_turn_code,
    rewrite_upload_names,
)
from ..tasks.model import Step, Task
from ..tasks.qwen import CALL_TIMEOUT, qwen_item
from .base import PlayerError, Proposal, QuietSession

PROTOCOL = "qwen-react"
_SNS_FIX = ('plt.rcParams["font.sans-serif"] = ["SimHei"]', 'plt.rcParams["axes.unicode_minus"] = False')


def interpreter_code(action_input: str) -> str:
    """The code the original's ``code_interpreter`` runs for one action input."""
    return tool_code(extract_code(action_input))


def tool_code(code: str) -> str:
    """What the original's interpreter makes of the code it is given: SimHei's lines after a line
    starting ``sns.set_theme(``, ``solution()`` after ``def solution()``."""
    lines = []
    for line in (code + "\n").split("\n"):
        lines.append(line)
        if line.startswith("sns.set_theme("):
            lines.extend(_SNS_FIX)
    code = "\n".join(lines)
    return code + "\nsolution()" if "def solution()" in code else code


def generation(metas: list[dict[str, Any]]) -> str:
    """The original's ``gen`` (GSM8K's ``completion``) from an attempt's turns' meta, in order."""
    return "".join(str(m.get("qwen_text", "")) for m in metas)


class QwenSession(QuietSession):
    """One attempt's ReAct text (see the module's docstring)."""

    def __init__(self, player: Any, task: Task):
        item = qwen_item(task)
        assert item is not None, f"{task.id} is not a Qwen benchmark task"
        self.player = player
        self.files = [str(f) for f in item.get("input_file_path", [])]
        self.prompt = item_prompt(item)
        self.prior = prior_turn_code(str(item["query"]), self.files)
        self.text = ""

    async def propose(self, step: Step, turn: int) -> Proposal:
        if turn == 0 and self.prior is not None:
            meta = {"protocol": PROTOCOL, "prior_turn": True, "action": "code"}
            return Proposal(interpreter_code(self.prior), meta, "code")
        sent = chat_messages(self.prompt + self.text)
        try:
            completion = await self.player.client.complete(sent, None, list(STOP_WORDS))
        except ModelError as err:
            raise PlayerError(str(err)) from err
        tool, action_input, output = parse_latest_call(cut_at_stop(completion.content))
        meta = {
            "protocol": PROTOCOL,
            "model": self.player.config.model,
            "prompt": sent,
            "response": completion.content,
            "output": output,
            "action": "code" if tool else "no_action",
            **completion.meta(),
        }
        if not tool:
            return Proposal("", meta, "no_action")
        meta["tool"] = tool
        return Proposal(interpreter_code(rewrite_upload_names(action_input, self.files)), meta, "code")

    def observe(self, step: Step, proposal: Proposal, result: TurnOutput) -> dict[str, Any]:
        meta = proposal.meta
        if proposal.action != "code":
            self.text += str(meta.get("output", ""))
            return {"qwen_text": str(meta.get("output", ""))}
        observation = interpreter_observation(result.outputs, result.status, CALL_TIMEOUT)
        piece = "" if meta.get("prior_turn") else str(meta.get("output", "")) + observation_text(observation)
        self.text += piece
        return {"observation": observation, "qwen_text": piece}
