"""The ReAct text of a recorded generation, read as the original's parser reads it.

A generation is ``Thought: … Action: … Action Input: … Observation: …`` repeated; the original
finds a marker with ``str.find`` and cuts to the next end marker (or to the end of the text), and
takes the code out of an action input by its first fenced block, else its first backtick span,
else the ``code`` field of a JSON5 object, else the text as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import json5


@dataclass(frozen=True)
class Markers:
    """The markers of one ReAct dialect (the original's ``ReActParser`` and its InternLM one)."""

    action_input: str = "\nAction Input:"
    action_input_stop: str = "\nObservation:"
    observation: str = "\nObservation:"
    observation_stop: str = "\nThought:"


QWEN = Markers()
INTERNLM = Markers("\nActionInput:", "<eoa>", "<|System|>:Response:", "<TOKENS_UNUSED_2>\n<|Bot|>:")


def markers_for(model: str) -> Markers:
    """The dialect the original picks for a model name (InternLM's for ``internlm*``)."""
    return INTERNLM if model.lower().startswith("internlm") else QWEN


def first_between(text: str, start: str, stop: str) -> str:
    """The stripped text after the first ``start`` up to the next ``stop`` (or the end); ""."""
    at = text.find(start)
    if at == -1:
        return ""
    end = text.find(stop, at)
    return (text[at + len(start) : end] if end != -1 else text[at + len(start) :]).strip()


def first_observation(text: str, markers: Markers = QWEN) -> str:
    return first_between(text, markers.observation, markers.observation_stop)


def action_inputs(text: str, markers: Markers = QWEN, first_only: bool = False) -> list[str]:
    """The action inputs in order, found as the original walks them.

    After each one the original goes on with ``text.split(found)[1]``: the text between the
    first and the second occurrence of that input (not after the one it found), and stops at
    an empty rest.
    """
    found: list[str] = []
    rest = text
    while True:
        one = first_between(rest, markers.action_input, markers.action_input_stop)
        if not one:
            break
        found.append(one)
        rest = rest.split(one)[1]
        if not rest or first_only:
            break
    return found


_FENCED = re.compile(r"```[^\n]*\n(.+?)```", re.DOTALL)
_TICKED = re.compile(r"`([^`]*)`", re.DOTALL)


def extract_code(text: str) -> str:
    """An action input's code: first fenced block, else first backtick span, else JSON5 ``code``."""
    fenced = _FENCED.search(text)
    if fenced:
        return fenced.group(1)
    ticked = _TICKED.search(text)
    if ticked:
        return ticked.group(1)
    try:
        code = json5.loads(text)["code"]
    except Exception:  # the original keeps the text for anything that is not such an object
        return text
    return code if isinstance(code, str) else text


def action_code(text: str, markers: Markers = QWEN, first_only: bool = False) -> str:
    """The code the executable rate runs: each input's code after a ``# concat`` line."""
    return "".join(f"# concat\n{extract_code(one)}\n" for one in action_inputs(text, markers, first_only))
