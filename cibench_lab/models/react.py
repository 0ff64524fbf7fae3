"""The ``cibench-react`` protocol: OpenCompass's CIBench agent, message for message.

What OpenCompass sends (``examples/eval_cibench_api.py``: ``CodeAgent`` with
``CIReAct``, ``max_turn=3``, lagent-cibench's ``ReActProtocol``, one
``IPythonInterpreter``, the OpenAI wrapper), reproduced from its behaviour —
the strings below are protocol data, the code is ours:

* the system prompt is the few-shot instruction rendered with the tool
  description (a Python dict repr) and the action names (a list repr);
* a reply (stripped, as the OpenAI wrapper strips it) is parsed with lagent's
  ReAct rules: ``Final Answer:`` anywhere finishes the step without code; else
  the last ``Action:`` line and everything after the first ``Action Input:``;
  code is extracted twice (fenced block, else single backticks, else a JSON5
  ``code`` field, else the text);
* each turn's observation is a *system* message ``Response:<text>\\n`` (the
  interpreter's rendering; ``repr`` of it when the code failed);
* within a step the failed turns stay in an inner history; the step ends at its
  first successful turn, whose reply and observation enter the session history,
  or after 3 turns with the fixed apology;
* oracle (``every_with_gt``): the history holds the reference turns, each
  ``Thought: …\\nAction: IPythonInterpreter\\nAction Input:```python …`` plus
  the observation of actually running it;
* ``merge_roles`` is ``CIReActMergeRole``: the first system message stays,
  every other non-assistant message becomes ``user``, and neighbours with the
  same role are joined with a newline.

Verified against the original code: tests/models/test_models_react.py (goldens made by
tests/fixtures/react/make_golden.py).
"""

from __future__ import annotations

import json
import re
import types
from typing import Any

from ..grading import TurnOutput
from ..grading.render import render
from ..tasks.model import Step
from .client import Completion

_json5: types.ModuleType
try:
    import json5 as _json5
except ImportError:  # pragma: no cover - json5 ships with jupyterlab
    _json5 = json

TOOL_NAME = "IPythonInterpreter"
TOOL_DESCRIPTION = (
    "It can run Python code in a manner as jupyter notebook. "
    "The code must be a valid code that contains only python method."
)
FEWSHOT_INSTRUCTION = """\
You are an assistant who can utilize external tools.
{tool_description}
To use a tool, please response with the following format:
```
{thought} Think what you need to solve, do you need to use tools?
{action} The tool name, should be one of [{action_names}].
{action_input} The input to the tool that you want to use.
```
The tool will give you response after your response using the following format:
```
{response} the results after call the tool.
```
Therefore DO NOT generate tool response by yourself.

Also please follow the guidelines:
1. Always use code interpreter to solve the problem.
2. The generated codes should always in a markdown code block format.
3. The generated codes will be executed in an ipython manner and the results will be cached.
4. Your responded code should always be simple and only solves the problem in current step.

For example:

File url: `xxxx`
### Step 1. Load the dataset from the url into a pandas DataFrame named `df`.

{thought} We should use `pandas` to solve this step.
{action} IPythonInterpreter
{action_input} ```python
import pandas as pd
url = "xxxx"
data = pd.read_csv(url)
```
{response} The code is succeed without any outputs.

Let us begin from here!
"""
THOUGHT, ACTION, ACTION_INPUT, RESPONSE, FINISH = (
    "Thought:",
    "Action:",
    "Action Input:",
    "Response:",
    "Final Answer:",
)
RESPONSE_END = "\n"
NO_ACTION_ERR = "Please follow the format"
INVALID_ERR = "The action is invalid, please check the action name."
EMPTY_ERR = "The input code is empty. Please follow the format."
GAVE_UP = "对不起，我无法回答你的问题"
NO_ACTION_NAME, FINISH_NAME = "NoAction", "FinishAction"


SYSTEM_PROMPT = FEWSHOT_INSTRUCTION.format(
    tool_description=str({TOOL_NAME: TOOL_DESCRIPTION}),
    action_names=str([TOOL_NAME]),
    thought=THOUGHT,
    action=ACTION,
    action_input=ACTION_INPUT,
    response=RESPONSE,
)


def system_prompt() -> str:
    return SYSTEM_PROMPT


def extract_code(text: Any) -> Any:
    """The interpreter's code extraction: fenced block, single backticks, JSON5 ``code``, text."""
    fenced = re.search(r"```[^\n]*\n(.+?)```", text, re.DOTALL)
    if fenced:
        return fenced.group(1)
    ticked = re.search(r"`([^`]*)`", text, re.DOTALL)
    if ticked:
        return ticked.group(1)
    try:
        return _json5.loads(text)["code"]
    except Exception:
        return text


def reply_text(completion: Completion) -> str:
    """What the OpenAI wrapper hands the agent: reasoning + ``</think>`` + content, or content stripped."""
    if completion.reasoning:
        return (
            completion.reasoning + "</think>" + completion.content
            if completion.content
            else completion.reasoning
        )
    return completion.content.strip()


def parse(message: str) -> tuple[str, str, str]:
    """(thought, action name, action input) by lagent's ReAct rules."""
    thought = message.split(ACTION)[0].split(THOUGHT)[-1].split(FINISH)[0]
    if FINISH in message:
        return thought, FINISH_NAME, message.split(FINISH)[-1]
    actions = re.findall(f"{ACTION}(.*?)\n", message)
    inputs = re.findall(f"{ACTION_INPUT}(.*)", message, re.DOTALL)
    if not actions or not inputs:
        return thought, NO_ACTION_NAME, ""
    return thought, actions[-1].strip(), inputs[-1].strip().strip('"')


def classify(message: str) -> dict[str, Any]:
    """The proposal a reply makes: {action, code, thought, text (for non-code actions)}."""
    thought, name, arg = parse(message)
    out: dict[str, Any] = {"thought": thought, "tool": name}
    if name == TOOL_NAME:
        first = extract_code(arg)
        if not first:
            return {**out, "action": "empty", "code": ""}
        code = extract_code(first)
        return {**out, "action": "code", "code": code if isinstance(code, str) else str(code)}
    if name == FINISH_NAME:
        return {**out, "action": "finish", "code": "", "text": arg}
    if name == NO_ACTION_NAME:
        return {**out, "action": "no_action", "code": "", "text": arg or NO_ACTION_ERR}
    return {**out, "action": "invalid", "code": "", "text": INVALID_ERR}


def response(action: str, result: TurnOutput, text: str = "") -> str:
    """``format_response``: the observation the model reads after a turn."""
    if action == "code":
        r = render(result.outputs, result.error, result.status)
        body = r.text if r.succeed else repr(r.errmsg)
    elif action == "empty":
        body = EMPTY_ERR
    else:
        body = text
    return RESPONSE + body + RESPONSE_END


def merge_roles(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """CIReActMergeRole: first system kept, other non-assistant turns become user, neighbours joined."""
    merged: list[dict[str, Any]] = []
    for i, m in enumerate(messages):
        role = m["role"] if m["role"] == "assistant" or (i == 0 and m["role"] == "system") else "user"
        if merged and merged[-1]["role"] == role:
            merged[-1]["content"] += "\n" + m["content"]
        else:
            merged.append({"role": role, "content": m["content"]})
    return merged


class ReactProtocol:
    """Messages and parsing of the cibench-react protocol (state lives in ModelSession)."""

    name = "cibench-react"

    def __init__(self, merge: bool = False):
        self.merge = merge

    def system(self) -> list[dict[str, Any]]:
        return [{"role": "system", "content": system_prompt()}]

    def user(self, step: Step) -> dict[str, Any]:
        return {"role": "user", "content": step.prompt}

    def request(self, messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list | None]:
        return (merge_roles(messages) if self.merge else [dict(m) for m in messages]), None

    def parse(self, completion: Completion) -> dict[str, Any]:
        text = reply_text(completion)
        return {**classify(text), "reply": {"role": "assistant", "content": text}, "response": text}

    def observation(self, meta: dict[str, Any], result: TurnOutput) -> list[dict[str, Any]]:
        text = response(meta.get("action", "code"), result, meta.get("text", ""))
        return [{"role": "system", "content": text}]

    def gave_up(self) -> list[dict[str, Any]]:
        return [{"role": "assistant", "content": GAVE_UP}]

    def reference(self, step: Step, result: TurnOutput) -> list[dict[str, Any]]:
        gold = f"{THOUGHT} {step.thought}\n{ACTION} {TOOL_NAME}\n{ACTION_INPUT}```python\n{step.code}\n```\n"
        return [{"role": "assistant", "content": gold}, *self.observation({"action": "code"}, result)]
