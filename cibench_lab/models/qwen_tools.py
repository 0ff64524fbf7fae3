"""The ``qwen-tools`` protocol: a Qwen benchmark item played with native tool calling.

This mode is cibench-lab's, not the original's (which only ever sends its ReAct text,
:mod:`.qwen_react`); its messages carry what the ReAct prompt carries, in today's tool-calling
shape:

* a system message, the original's system turn (``You are a helpful assistant.``);
* a user message: the upload line and the question, as the ReAct prompt has them after its
  ``Question: `` (:func:`question_message`) — without the ReAct instruction and tool description;
* one tool, the original's code interpreter (:data:`TOOL_SPEC`: its name, description and ``code``
  parameter);
* an easy item's prior turn as an assistant message that already called the tool (id
  :data:`PRIOR_CALL_ID`) and the tool's answer: what running it on the attempt's kernel returned
  (:func:`prior_turn_messages`);
* each tool answer is the original interpreter's observation text; a reply's further calls are
  answered :data:`NOT_RUN`.

A turn's ``qwen_text`` is the ReAct text it stands for (:func:`call_text`, :func:`answer_text`),
so a run's rows are scored by the same code as a ReAct run's (``grading/qwen``).
"""

from __future__ import annotations

import json
from typing import Any

from ..grading.qwen.react import extract_code
from .qwen_react import (
    IM_START,
    INSTRUCTION,
    TOOL,
    TOOL_NAME,
    chat_messages,
    item_prompt,
    observation_text,
    prior_turn_code,
)

PROTOCOL = "qwen-tools"
SYSTEM_MESSAGE = {"role": "system", "content": "You are a helpful assistant."}
TOOL_SPEC = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": TOOL["description_for_model"],
        "parameters": {
            "type": "object",
            "properties": {"code": {"type": "string", "description": TOOL["parameters"][0]["description"]}},
            "required": ["code"],
        },
    },
}
PRIOR_CALL_ID = "prior-turn"
NOT_RUN = "Not run: only the first tool call of a reply is run."


def question_message(item: dict) -> dict[str, str]:
    """The user message: the ReAct prompt's user turn without its instruction (the upload line and
    the question; an easy item's prior turn is not in it)."""
    user = next(m for m in chat_messages(item_prompt(item)) if m["role"] == "user")
    return {"role": "user", "content": user["content"].removeprefix(INSTRUCTION)}


def call_message(content: str | None, code: str, call_id: str) -> dict[str, Any]:
    """An assistant message that calls the code interpreter with ``code``."""
    call = {
        "id": call_id,
        "type": "function",
        "function": {"name": TOOL_NAME, "arguments": json.dumps({"code": code}, ensure_ascii=False)},
    }
    return {"role": "assistant", "content": content or None, "tool_calls": [call]}


def prior_turn_messages(query: str, code: str, observation: str) -> list[dict[str, Any]]:
    """An easy item's prior turn: its Thought calling the tool with ``code``, and the answer."""
    turn = query.split(f"{IM_START}assistant\n", 1)[-1]
    thought = turn[: turn.rfind("\nAction:")].strip().removeprefix("Thought:").strip()
    return [call_message(thought, code, PRIOR_CALL_ID), tool_message(PRIOR_CALL_ID, observation)]


def tool_message(call_id: str, content: str) -> dict[str, str]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def tool_answers(calls: list[dict[str, Any]], observation: str) -> list[dict[str, str]]:
    """The tool messages of a reply's calls: the first one's observation, the others not run."""
    return [tool_message(c["id"], observation if i == 0 else NOT_RUN) for i, c in enumerate(calls)]


def call_code(call: dict[str, Any]) -> str:
    """The code a tool call asks to run: its ``code`` argument; arguments that are not a JSON
    object with a ``code`` string are read as the original reads an action input."""
    arguments = str(call.get("function", {}).get("arguments") or "")
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("code"), str):
        return parsed["code"]
    return extract_code(arguments)


def _lead(content: str | None, first: bool) -> str:
    text = (content or "").strip()
    head = "Thought:" if first else ""
    return f"{head} {text}" if text else head


def call_text(content: str | None, code: str, observation: str, first: bool) -> str:
    """The ReAct text a call turn stands for: its text as the Thought, ``Action: code_interpreter``,
    the code in a fence as the ``Action Input``, the observation and the next ``Thought:``."""
    action = f"\nAction: {TOOL_NAME}\nAction Input:\n```py\n{code}\n```"
    return _lead(content, first) + action + observation_text(observation)


def answer_text(content: str | None, first: bool) -> str:
    """The ReAct text of a reply that calls nothing: its text (the item's final answer)."""
    return _lead(content, first)


def prior_code_of(query: str, files: list[str]) -> str | None:
    """The code of an easy item's prior turn as the model would have called the tool with it."""
    action = prior_turn_code(query, files)
    return None if action is None else extract_code(action).rstrip("\n")
