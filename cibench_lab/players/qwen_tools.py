"""An ``openai:NAME`` player's session on a Qwen benchmark task with native tool calling
(protocol ``tools``; the messages: :mod:`cibench_lab.models.qwen_tools`).

cibench-lab's mode, not the original's: the item's question goes as the user message and the
original's code interpreter as the one tool.  Everything else is the ReAct loop's
(:mod:`.qwen`): a call's code has each upload's basename rewritten to its listed path and the
interpreter's own additions (SimHei's lines after ``sns.set_theme(``, ``solution()``); its tool
answer is the interpreter's observation text; an easy item's prior turn is the first turn, run
before the model is asked, and enters the conversation as an already-made call with what it
returned; when the step ends is the settle rule's (call limit, stop words, a reply without a call).
Each turn's ``qwen_text`` is the ReAct text it stands for, so the recorded turns give a row the
original's scorer reads (:func:`.qwen.generation`) and rebuild the session after a restart.
"""

from __future__ import annotations

from typing import Any

from ..grading import TurnOutput
from ..models.client import ModelError
from ..models.qwen_react import interpreter_observation, rewrite_upload_names
from ..models.qwen_tools import (
    PROTOCOL,
    SYSTEM_MESSAGE,
    TOOL_SPEC,
    answer_text,
    call_code,
    call_text,
    prior_code_of,
    prior_turn_messages,
    question_message,
    tool_answers,
)
from ..tasks.model import Step, Task
from ..tasks.qwen import CALL_TIMEOUT, qwen_item
from .base import PlayerError, Proposal, QuietSession
from .qwen import tool_code


class QwenToolsSession(QuietSession):
    """One attempt's tool-calling conversation on a Qwen item (see the module's docstring)."""

    def __init__(self, player: Any, task: Task):
        item = qwen_item(task)
        assert item is not None, f"{task.id} is not a Qwen benchmark task"
        self.player = player
        self.query = str(item["query"])
        self.files = [str(f) for f in item.get("input_file_path", [])]
        self.prior = prior_code_of(self.query, self.files)
        self.messages: list[dict[str, Any]] = [SYSTEM_MESSAGE, question_message(item)]
        self.text = ""

    async def propose(self, step: Step, turn: int) -> Proposal:
        if turn == 0 and self.prior is not None:
            meta = {"protocol": PROTOCOL, "prior_turn": True, "action": "code"}
            return Proposal(tool_code(self.prior), meta, "code")
        sent = [dict(m) for m in self.messages]
        try:
            completion = await self.player.client.complete(sent, [TOOL_SPEC])
        except ModelError as err:
            raise PlayerError(str(err)) from err
        reply: dict[str, Any] = {"role": "assistant", "content": completion.content or None}
        meta = {
            "protocol": PROTOCOL,
            "model": self.player.config.model,
            "prompt": sent,
            "response": completion.content,
            "reply": reply,
            "action": "code" if completion.tool_calls else "no_action",
            **completion.meta(),
        }
        if not completion.tool_calls:
            return Proposal("", meta, "no_action")
        reply["tool_calls"] = completion.tool_calls
        first = completion.tool_calls[0]
        code = call_code(first)
        meta.update(tool=first["function"]["name"], call_code=code)
        return Proposal(tool_code(rewrite_upload_names(code, self.files)), meta, "code")

    def observe(self, step: Step, proposal: Proposal, result: TurnOutput) -> dict[str, Any]:
        meta, first = proposal.meta, not self.text and self.prior is None
        if meta.get("prior_turn"):
            observation = interpreter_observation(result.outputs, result.status, CALL_TIMEOUT)
            self.messages += prior_turn_messages(self.query, self.prior or "", observation)
            return {"observation": observation, "qwen_text": ""}
        reply = dict(meta["reply"])
        self.messages.append(reply)
        if proposal.action != "code":
            piece = answer_text(reply.get("content"), first)
            self.text += piece
            return {"qwen_text": piece}
        observation = interpreter_observation(result.outputs, result.status, CALL_TIMEOUT)
        self.messages += tool_answers(reply["tool_calls"], observation)
        piece = call_text(reply.get("content"), str(meta["call_code"]), observation, first)
        self.text += piece
        return {"observation": observation, "qwen_text": piece}
