"""The ``tools`` protocol: native function calling with one ``python`` tool.

For current models, which are trained to call tools rather than to write ReAct
text.  Same turn rules as ``cibench-react`` (at most ``max_turn`` turns, the step
ends at its first turn that runs without error, only that turn enters the
history, the failed ones stay in the step's inner history); same 1,024-character
rendering of outputs.  Messages:

* system: what the notebook is and how to use the tool; user: the step's prompt;
* a reply with a ``python`` call runs its ``code`` (the first call; further calls
  in the same reply are answered "not run"); the tool message holds the rendered
  outputs (or the error text);
* a reply without a call is answered by a user nudge; an unknown tool or
  arguments that are not ``{"code": str}`` by a tool message saying so;
* oracle: the reference turns appear as the model's own ``python`` calls
  (ids ``reference-<step>``) with the outputs of running them.
"""

from __future__ import annotations

import json
from typing import Any

from ..grading import TurnOutput
from ..grading.render import NO_OUTPUT as RENDER_NO_OUTPUT
from ..grading.render import render
from ..tasks.model import Step
from .client import Completion

TOOL = "python"
SYSTEM = (
    "You are a data scientist working through a task step by step in a Jupyter notebook. "
    "Each user message is the next step. Solve it by calling the `python` tool with code for "
    "that step only. The code runs in a persistent IPython kernel (variables and imports are "
    "kept between calls) whose working directory holds the task's data files (e.g. `data/...`). "
    "Print the values the step asks for; show plots with matplotlib. input() and shell commands "
    "are disabled."
)
TOOL_SPEC = {
    "type": "function",
    "function": {
        "name": TOOL,
        "description": "Run Python code in the notebook's IPython kernel and return what it printed, "
        "displayed or raised.",
        "parameters": {
            "type": "object",
            "properties": {"code": {"type": "string", "description": "The Python code to run."}},
            "required": ["code"],
        },
    },
}
NUDGE = "Please call the `python` tool with the code for this step."
NOT_RUN = "Not run: only the first tool call of a reply is run."
BAD_ARGS = 'The tool arguments must be a JSON object with a "code" string.'
EMPTY = "The code is empty."
NO_OUTPUT = "The code ran without any output."
GAVE_UP = "I could not complete this step."
FAILED = "The code failed without any output."


def _arguments(call: dict[str, Any]) -> str | None:
    try:
        args = json.loads(call["function"]["arguments"] or "{}")
    except (TypeError, ValueError):
        return None
    code = args.get("code") if isinstance(args, dict) else None
    return code if isinstance(code, str) else None


def _rendered(result: TurnOutput) -> str:
    r = render(result.outputs, result.error, result.status)
    if r.succeed:
        return NO_OUTPUT if r.text == RENDER_NO_OUTPUT else r.text
    return r.errmsg or FAILED


class ToolsProtocol:
    name = "tools"
    merge = False

    def system(self) -> list[dict[str, Any]]:
        return [{"role": "system", "content": SYSTEM}]

    def user(self, step: Step) -> dict[str, Any]:
        return {"role": "user", "content": step.prompt}

    def request(self, messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list | None]:
        return [dict(m) for m in messages], [TOOL_SPEC]

    def parse(self, completion: Completion) -> dict[str, Any]:
        reply: dict[str, Any] = {"role": "assistant", "content": completion.content or None}
        out: dict[str, Any] = {"response": completion.content, "reply": reply, "code": ""}
        calls = completion.tool_calls
        if not calls:
            return {**out, "action": "no_action", "text": NUDGE}
        reply["tool_calls"] = calls
        first = calls[0]
        if first["function"]["name"] != TOOL:
            name = first["function"]["name"]
            return {**out, "action": "invalid", "text": f"Unknown tool {name!r}; the only tool is `python`."}
        code = _arguments(first)
        if code is None:
            return {**out, "action": "invalid", "text": BAD_ARGS}
        if not code.strip():
            return {**out, "action": "empty", "text": EMPTY}
        return {**out, "action": "code", "code": code}

    def observation(self, meta: dict[str, Any], result: TurnOutput) -> list[dict[str, Any]]:
        calls = meta["reply"].get("tool_calls") or []
        if not calls:
            return [{"role": "user", "content": meta.get("text") or NUDGE}]
        if meta.get("action") == "code":
            first = _rendered(result)
        else:
            first = meta.get("text") or BAD_ARGS
        texts = [first] + [NOT_RUN] * (len(calls) - 1)
        return [
            {"role": "tool", "tool_call_id": c["id"], "content": t} for c, t in zip(calls, texts, strict=True)
        ]

    def gave_up(self) -> list[dict[str, Any]]:
        return [{"role": "assistant", "content": GAVE_UP}]

    def reference(self, step: Step, result: TurnOutput) -> list[dict[str, Any]]:
        call = {
            "id": f"reference-{step.index}",
            "type": "function",
            "function": {"name": TOOL, "arguments": json.dumps({"code": step.code})},
        }
        thought = step.thought.strip() or None
        reply = {"role": "assistant", "content": thought, "tool_calls": [call]}
        return [reply, *self.observation({"action": "code", "reply": reply}, result)]
