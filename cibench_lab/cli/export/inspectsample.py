"""One attempt as an Inspect AI sample: the conversation, its scores, usage, times and metadata.

Per opened step, its instruction as a user message; per turn, an assistant message (the model's
recorded reply, if any) calling the ``python`` tool with the turn's code, and the tool's message
with what the kernel printed (stdout, stderr, results, errors; images as images; a plot's figure
structure for the grader left out); in oracle mode the step's reference run after it settled, as
a user message.  docs/exports.md, "Inspect AI".
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from inspect_ai.log import EvalSample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    Content,
    ContentImage,
    ContentText,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.tool import ToolCall, ToolCallError

from ...inspectai.scores import sample_scores
from ...store import times as store_times
from ...store.times import parse_iso
from ...tasks.model import Task
from .columns import SETTINGS
from .trace import Recorded
from .values import output_text, shown_outputs

TOOL = "python"
#: The attempt row's columns a sample's metadata holds as they are.
ATTEMPT_KEYS = (
    *("attempt_id", "task_id", "split", "lib", "task_hash", "mode", "player", "participant"),
    *("study", "protocol", "run", "status", "n_steps", "steps_settled", "working_seconds"),
)


def aware(iso: str | None) -> dt.datetime | None:
    """An export time (ISO with ``Z``) as an aware UTC datetime."""
    if iso is None:
        return None
    return parse_iso(iso)


@dataclass
class SampleExtra:
    """What a sample needs beside the attempt's rows: its turns and trace, the task, the model
    name, the profile, the recorded environment and its epoch (the attempt's number among the
    attempts of its task in its log, from 1)."""

    rec: Recorded
    task: Task | None
    model: str
    profile: str
    environment: dict[str, Any]
    epoch: int = 1


def eval_sample(
    attempt: dict[str, Any], steps: list[dict[str, Any]], grades: list[dict[str, Any]], extra: SampleExtra
) -> EvalSample:
    """The attempt as a sample of model ``extra.model`` (its scores only when it is done)."""
    task = extra.task
    messages = conversation(steps, extra)
    started, finished = aware(attempt["created_at"]), aware(attempt["finished_at"])
    code = [
        m.tool_calls[0].arguments["code"]
        for m in messages
        if isinstance(m, ChatMessageAssistant) and m.tool_calls
    ]
    return EvalSample(
        id=attempt["task_id"],
        epoch=extra.epoch,
        input=task.steps[0].instruction if task is not None and task.steps else attempt["task_id"],
        target=[s.code for s in task.steps] if task is not None else "",
        messages=messages,
        output=ModelOutput.from_content(extra.model, code[-1] if code else ""),
        scores=sample_scores(grades) if attempt["status"] == "done" else None,
        metadata=metadata(attempt, steps, extra),
        model_usage=usage(extra.rec, extra.model),
        started_at=started.isoformat() if started else None,
        completed_at=finished.isoformat() if finished else None,
        total_time=(finished - started).total_seconds() if started and finished else None,
        working_time=attempt["working_seconds"],
        uuid=attempt["attempt_id"],
    )


def metadata(attempt: dict[str, Any], steps: list[dict[str, Any]], extra: SampleExtra) -> dict[str, Any]:
    p = extra.profile
    step_keys = (
        "step",
        "kind",
        "outcome",
        "opened_at",
        "first_run_at",
        "settled_at",
        "turns",
        "working_seconds",
    )
    return {
        **{k: attempt[k] for k in ATTEMPT_KEYS},
        "title": extra.task.title if extra.task is not None else None,
        "profile": p,
        "settings": {k: attempt[k] for k in SETTINGS},
        "environment": extra.environment,
        "steps": [
            {
                **{k: s[k] for k in step_keys},
                **{f: s[f"{p}_{f}"] for f in ("score", "passed", "kept_turn")},
                "note": s["note"],
            }
            for s in steps
        ],
    }


def conversation(steps: list[dict[str, Any]], extra: SampleExtra) -> list[ChatMessage]:
    messages: list[ChatMessage] = []
    task = extra.task
    for step in steps:
        i = step["step"]
        known = task is not None and i < len(task.steps)
        instruction = task.steps[i].instruction if task is not None and known else "(not available)"
        messages.append(ChatMessageUser(content=instruction, metadata={"step": i, "kind": step["kind"]}))
        for turn in extra.rec.turns.get(i, []):
            messages += turn_messages(turn, step, extra)
        if i in extra.rec.oracle:
            messages.append(oracle_message(extra.rec.oracle[i], i))
    return messages


def turn_messages(turn: dict[str, Any], step: dict[str, Any], extra: SampleExtra) -> list[ChatMessage]:
    """The turn's assistant message and, when it ran code, the tool's."""
    i, n, meta = step["step"], turn["number"], turn["meta"] or {}
    p = extra.profile
    grade = (turn["grade"] or {}).get(p) or {}
    about = {
        "step": i,
        "turn": n,
        "status": meta.get("status", "error" if turn["error"] else "ok"),
        "score": grade.get("score"),
        "passed": grade.get("passed"),
        "kept": step[f"{p}_kept_turn"] == n,
        "started_at": store_times.iso(turn["started_at"]),
        "finished_at": store_times.iso(turn["finished_at"]),
    }
    reply = meta.get("response")
    text = reply if isinstance(reply, str) else ""
    if not turn["code"]:
        said = text or f"(no code run: {about['status']})"
        return [ChatMessageAssistant(content=said, model=extra.model, metadata=about)]
    call = ToolCall(id=f"s{i}t{n}", function=TOOL, arguments={"code": turn["code"]})
    shown = {k: v for k, v in about.items() if not k.endswith("_at")}  # Inspect View shows the assistant's
    assistant = ChatMessageAssistant(content=text, tool_calls=[call], model=extra.model, metadata=shown)
    printed = output_text(turn["outputs"])
    error = ToolCallError("unknown", printed["error_text"] or about["status"]) if turn["error"] else None
    tool = ChatMessageTool(
        content=output_content(turn["outputs"]),
        tool_call_id=call.id,
        function=TOOL,
        error=error,
        metadata=about,
    )
    return [assistant, tool]


def output_content(outputs: list[dict[str, Any]] | None) -> list[Content]:
    """What the kernel printed as text, then each image (PNG, JPEG) as an image."""
    printed = output_text(outputs)
    text = "".join(printed[k] or "" for k in ("stdout", "stderr"))
    text += "\n".join(printed[k] for k in ("result", "error_text") if printed[k])
    content: list[Content] = [ContentText(text=text)]
    for out in shown_outputs(outputs):
        for mime, value in (out.get("data") or {}).items():
            if mime in ("image/png", "image/jpeg"):
                data = "".join(value) if isinstance(value, list) else str(value)
                content.append(ContentImage(image=f"data:{mime};base64,{data.strip()}"))
    return content


def oracle_message(ref: dict[str, Any], i: int) -> ChatMessageUser:
    code = str(ref.get("code", ""))
    printed = output_content(ref.get("outputs"))
    head = ContentText(text=f"Reference for step {i + 1} (oracle mode: ran after the step settled):\n{code}")
    return ChatMessageUser(content=[head, *printed], metadata={"step": i, "oracle": True})


def usage(rec: Recorded, model: str) -> dict[str, ModelUsage]:
    """The model's tokens summed over the attempt's turns; empty when none were recorded."""
    total, seen = ModelUsage(), False
    for turns in rec.turns.values():
        for turn in turns:
            tokens = (turn["meta"] or {}).get("tokens") or {}
            if not any(isinstance(v, int) for v in tokens.values()):
                continue
            seen = True
            total += ModelUsage(
                input_tokens=tokens.get("prompt") or 0,
                output_tokens=tokens.get("completion") or 0,
                total_tokens=tokens.get("total") or 0,
            )
    return {model: total} if seen else {}
