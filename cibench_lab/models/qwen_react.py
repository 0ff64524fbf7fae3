"""The ``qwen-react`` protocol: the prompt Qwen's Code Interpreter Benchmark sends, byte for byte.

Reproduced from the behaviour of Qwen-Agent's ``benchmark/`` at its 20231206 version
(``prompt/react.py`` + ``prompt/qwen_react.py``, ``parser/react_parser.py``,
``utils/code_utils.py``, ``inference_and_execute.py``); the strings are protocol data,
the code is ours:

* one text completion prompt in Qwen's chat markup: a fixed system turn, then a user turn
  holding the ReAct instruction with the code interpreter's description and
  ``Question: `` + the upload prefix + the query, then an open assistant turn;
* the upload prefix names the files by basename only: ``[Upload file a.csv, b.csv]``
  (``[上传文件a.csv]`` for ``zh``), with no separator before the question;
* an *easy* item's query already holds the first assistant turn (``<|im_end|>`` +
  ``<|im_start|>assistant`` + Thought / Action / Action Input / Observation + ``Thought:``):
  the prompt then opens no new assistant turn, and that turn's code runs before the model
  starts (:func:`prior_turn_code`);
* before an action runs, each listed file's basename in its code becomes the listed path
  when that path is not already in the code (:func:`rewrite_upload_names`; a plain text
  replace, so ``myorders.csv`` becomes ``myshop/orders.csv``, as in the original);
* each observation is appended as ``\\nObservation: <text>\\nThought:``; generation stops at
  ``Observation:``.

Verified against the original code: tests/benchmarks/test_qwen_prompt.py (goldens made by
tests/fixtures/qwen/prompts/make_goldens.py).
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import uuid
from typing import Any

IM_START, IM_END = "<|im_start|>", "<|im_end|>"
SYSTEM = f"{IM_START}system\nYou are a helpful assistant.{IM_END}"
STOP_WORDS = ("Observation:", "Observation:\n")

_TOOL: dict[str, Any] = {
    "name_for_human": "代码解释器",
    "name_for_model": "code_interpreter",
    "description_for_model": "代码解释器，可用于执行Python代码。",
    "parameters": [{"name": "code", "type": "string", "description": "待执行的代码"}],
}
TOOL_NAME = _TOOL["name_for_model"]

_TOOL_TEXT = (
    f"{_TOOL['name_for_model']}: Call this tool to interact with the {_TOOL['name_for_human']} API. "
    f"What is the {_TOOL['name_for_human']} API useful for? {_TOOL['description_for_model']} "
    f"Parameters: {json.dumps(_TOOL['parameters'], ensure_ascii=False)} "
    "Enclose the code within triple backticks (`) at the beginning and end of the code."
)

_INSTRUCTION = f"""Answer the following questions as best you can. You have access to the following tools:

{_TOOL_TEXT}

Use the following format:

Question: the input question you must answer
Thought: you should always think about what to do
Action: the action to take, should be one of [{TOOL_NAME}]
Action Input: the input to the action
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can be repeated zero or more times)
Thought: I now know the final answer
Final Answer: the final answer to the original input question

Begin!

Question: """

#: The original's tool and its ReAct instruction (``qwen-tools`` reuses the one, leaves out the other).
TOOL, INSTRUCTION = _TOOL, _INSTRUCTION

_UPLOAD = {"zh": "[上传文件{names}]", "en": "[Upload file {names}]"}


def upload_prefix(files: list[str], lang: str) -> str:
    """``[Upload file a.csv, b.csv]``: the listed files by basename ('' with none)."""
    if not files:
        return ""
    names = ", ".join(posixpath.basename(f) for f in files)
    return _UPLOAD["zh" if lang == "zh" else "en"].format(names=names)


def has_prior_turn(query: str) -> bool:
    """Does the query carry the first assistant turn (an easy visualization item)?"""
    return IM_START in query


def planning_prompt(query: str, lang: str = "en", files: list[str] | None = None) -> str:
    """The completion prompt the original sends first for one item (byte-exact)."""
    user = (_INSTRUCTION + upload_prefix(files or [], lang) + query).lstrip("\n").rstrip()
    prompt = f"{SYSTEM}\n{IM_START}user\n{user}{IM_END}"
    if f"{IM_START}assistant" not in user:
        prompt += f"\n{IM_START}assistant\n{IM_END}"
    return prompt[: -len(IM_END)]


def item_prompt(item: dict) -> str:
    """:func:`planning_prompt` of a task's Qwen item (``metadata.cibench_lab.qwen``)."""
    return planning_prompt(item["query"], item.get("lang", "en"), list(item.get("input_file_path", [])))


def observation_text(observation: str) -> str:
    """What follows a parsed action in the prompt: the observation and the next ``Thought:``."""
    return f"\nObservation: {observation}\nThought:"


def parse_latest_call(text: str) -> tuple[str, str, str]:
    """The last ``Action:`` / ``Action Input:`` of ``text``: (tool, input, text up to the observation).

    No action: ``('', '', text)``.  A missing ``Observation:`` (the stop word was cut) is
    taken as present at the end, as the original does.
    """
    action, action_input, obs = "\nAction:", "\nAction Input:", "\nObservation:"
    i, j, k = text.rfind(action), text.rfind(action_input), text.rfind(obs)
    if not 0 <= i < j:
        return "", "", text
    if k < j:
        text = text.rstrip() + obs
        k = text.rfind(obs)
    return text[i + len(action) : j].strip(), text[j + len(action_input) : k].strip(), text[:k]


def rewrite_upload_names(code: str, files: list[str]) -> str:
    """Each listed file's basename in ``code`` replaced by its listed path, unless the path is there."""
    for path in files:
        base = posixpath.basename(path)
        if path not in code and base in code:
            code = code.replace(base, path)
    return code


def prior_turn_code(query: str, files: list[str]) -> str | None:
    """The action input of an easy item's first turn, rewritten as it is run (None: no prior turn)."""
    if not has_prior_turn(query):
        return None
    return rewrite_upload_names(parse_latest_call(query)[1], files)


# ---- the interpreter's observation (the original's ``code_interpreter.py``) ------------------------
#: Where the original publishes a call's images (``CODE_INTERPRETER_WORK_DIR``'s default).
IMAGE_DIR = "/tmp/workspace"
TIMEOUT_TEXT = "Timeout. No response after {seconds:g} seconds."
FAILED_TEXT = "The code interpreter encountered an unexpected error."
_ANSI = re.compile(r"(?:\x1B[@-_]|[\x80-\x9F])[0-?]*[ -/]*[@-~]")


def image_path(png_b64: str) -> str:
    """Where an image is said to be: ``/tmp/workspace/<uuid>.png``, the uuid made from the image
    (the original draws a random one; a stable one lets a score find the image again)."""
    digest = hashlib.sha256(png_b64.encode()).digest()[:16]
    return f"{IMAGE_DIR}/{uuid.UUID(bytes=digest)}.png"


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _block(kind: str, text: str) -> str:
    return f"\n\n{kind}:\n\n```\n{text}\n```"


def _piece(output: dict[str, Any], images: list[str]) -> str:
    """One output as the original renders its IOPub message (images numbered in order)."""
    kind, data = output.get("output_type"), output.get("data") or {}
    text, png = "", ""
    if kind == "stream":
        kind, text = str(output.get("name", "stdout")), _text(output.get("text"))
    elif kind == "execute_result":
        text, png = _text(data.get("text/plain", "")), _text(data.get("image/png", ""))
    elif kind == "display_data":
        png = _text(data.get("image/png", ""))
        text = "" if png else _text(data.get("text/plain", ""))
    elif kind == "error":
        text = _ANSI.sub("", "\n".join(output.get("traceback") or []))
    out = _block(str(kind), text) if text else ""
    if png:
        images.append(png)
        out += f"\n\n![fig-{len(images):03d}]({image_path(png)})"
    return out


def interpreter_observation(outputs: list[dict[str, Any]], status: str = "ok", timeout: float = 30.0) -> str:
    """What the original's code interpreter returns for a call that published ``outputs``:
    ``stdout:``/``stderr:``/``execute_result:``/``display_data:``/``error:`` blocks of fenced text
    and ``![fig-NNN](path)`` image links, in order.  A call over its time ends with the original's
    timeout text (the interrupt's traceback left out); a kernel that died, with its failure text."""
    images: list[str] = []
    shown = [o for o in outputs if not (status == "timeout" and o.get("output_type") == "error")]
    result = "".join(_piece(o, images) for o in shown)
    if status == "timeout":
        result += _block("error", TIMEOUT_TEXT.format(seconds=timeout))
    elif status == "dead":
        result += _block("error", FAILED_TEXT)
    return result.lstrip("\n")


def observation_images(outputs: list[dict[str, Any]]) -> dict[str, str]:
    """``{path: PNG base64}`` of the images :func:`interpreter_observation` links to."""
    found: dict[str, str] = {}
    for output in outputs:
        png = _text((output.get("data") or {}).get("image/png", ""))
        if png and output.get("output_type") in ("execute_result", "display_data"):
            found[image_path(png)] = png
    return found


# ---- over a chat endpoint ----------------------------------------------------------------------
def chat_messages(prompt: str) -> list[dict[str, str]]:
    """The completion prompt as chat messages: each ``<|im_start|>ROLE`` turn one message, the
    open assistant turn (an easy item's prior turn, the text generated so far) a final assistant
    message to continue (left out while it is empty)."""
    messages = []
    for part in prompt.split(IM_START)[1:]:
        role, _, content = part.partition("\n")
        closed = content.rstrip("\n")
        if closed.endswith(IM_END):
            content = closed[: -len(IM_END)]
        messages.append({"role": role, "content": content})
    if messages and messages[-1]["role"] == "assistant" and not messages[-1]["content"]:
        messages.pop()
    return messages


def cut_at_stop(output: str) -> str:
    """The reply up to and with its first stop word, as the original's ``generate`` cuts it."""
    for stop in STOP_WORDS:
        at = output.find(stop)
        if at != -1:
            output = output[: at + len(stop)]
    return output
