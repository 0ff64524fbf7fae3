"""The ``fair`` profile: ours, documented case by case in docs/grading.md.

Same tool/exec as ``cibench``.  For a graded step it reads the *last output* of the
latest successful turn that has one — the last stdout (consecutive stream chunks
merged, as a notebook saves them) or ``execute_result`` text, scanning backwards:
exactly how the reference output is chosen — untrimmed, ANSI stripped.  Then:
num/general by :mod:`.values` (numbers on token boundaries, precision-fitted
tolerance, tables as values; the answer read from the end of the output, so a dump
of every number fails), text by CJK-aware ROUGE-1 (:mod:`.cjk`) or the answer named
in a sentence on the last line (:mod:`.sentence`), vis by
what the figure shows (its data, then the step's declared plot elements: :mod:`.plot`)
when both figures carry their structure, else SSIM on RGB with the aspect ratio kept
(:mod:`.fair_vis`) and the badge says why, plus the optional VLM
judge's verdict when one is given (:mod:`.judge` asks for it before grading).
Only the last ``READ_CHARS`` characters of an output are read (the answer is read from
its end); the badge says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..tasks.model import Step
from .cibench import PASS_SCORE, error_name, step_basis
from .cjk import rouge1_cjk
from .exec import failure_detail
from .fair_plot import structural
from .fair_vis import fair_ssim
from .images import ImageError, TooLarge
from .own import rules_of
from .plot import Comparison
from .render import ANSI, Rendered, join_text
from .sentence import last_lines, named
from .turn import Grade, TurnOutput
from .values import verdict

T = TypeVar("T")
_CONTROL = re.compile("[\x1b\x80-\x9f]")  # what every ANSI escape (render.ANSI) starts with
#: How much of an output the fair rules read: its last characters (the answer is read from the end), or
#: :data:`READ_TIMES` the reference's length when that is more.
READ_CHARS = 20_000
READ_TIMES = 4


@dataclass(frozen=True)
class Printed:
    """The end of an output as the fair rules read it, and how long the whole output was."""

    text: str
    size: int
    limit: int = READ_CHARS

    def cut(self) -> str:
        """Said in a badge when only the end was read."""
        if self.size <= self.limit:
            return ""
        return f" (read the last {self.limit:,} of {self.size:,} characters)"


def _ok(turn: TurnOutput) -> bool:
    return (
        turn.status == "ok"
        and not turn.error
        and not any(o.get("output_type") == "error" for o in turn.outputs)
    )


def last_output(outputs: list[dict[str, Any]], limit: int = READ_CHARS) -> Printed | None:
    """The last stdout (merged chunks) or execute_result text (its last ``limit`` characters), or None."""
    i = len(outputs) - 1
    while i >= 0:
        out = outputs[i]
        kind = out.get("output_type")
        if kind == "execute_result":
            return _bounded([join_text((out.get("data") or {}).get("text/plain", ""))], limit)
        if kind == "stream" and out.get("name") == "stdout":
            j = i
            while (
                j > 0
                and outputs[j - 1].get("output_type") == "stream"
                and outputs[j - 1].get("name") == "stdout"
            ):
                j -= 1
            return _bounded([join_text(o.get("text")) for o in outputs[j : i + 1]], limit)
        i -= 1
    return None


def _bounded(parts: list[str], limit: int) -> Printed:
    """The last ``limit`` characters of the joined parts, from a line (else a word) boundary."""
    size = sum(len(p) for p in parts)
    if size <= limit:
        return Printed(_plain("".join(parts)), size, limit)
    kept: list[str] = []
    held = 0
    for part in reversed(parts):
        kept.append(part)
        held += len(part)
        if held >= limit:
            break
    tail = "".join(reversed(kept))[-limit:]
    cut = tail.find("\n")
    cut = cut if cut >= 0 else tail.find(" ")
    return Printed(_plain(tail[cut + 1 :]), size, limit)


def _plain(text: str) -> str:
    return ANSI.sub("", text) if _CONTROL.search(text) else text


def first_figure(outputs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first output showing an image (with its plot structure, when it has one)."""
    for out in outputs:
        data = out.get("data") or {}
        if out.get("output_type") in ("display_data", "execute_result") and "image/png" in data:
            return out
    return None


def first_image(outputs: list[dict[str, Any]]) -> str | None:
    out = first_figure(outputs)
    return join_text(out["data"]["image/png"]) if out is not None else None


def _latest(turns: list[TurnOutput], pick: Callable[[list[dict[str, Any]]], T | None]) -> T | None:
    for turn in reversed(turns):
        if _ok(turn):
            found = pick(turn.outputs)
            if found is not None:
                return found
    return None


def judged_image(step: Step, turns: list[TurnOutput]) -> str | None:
    """The figure a VLM judge rates for a vis step (and a step whose benchmark's own rules judge
    its figure, :mod:`.own`): the one the fair SSIM reads."""
    rules = rules_of(step)
    judged = step.kind == "vis" or (rules is not None and rules.judges_figure(step))
    return _latest(turns, first_image) if judged else None


def grade_fair(
    step: Step,
    turns: list[TurnOutput],
    rendered: list[Rendered] | None = None,
    verdict: dict[str, Any] | None = None,
) -> Grade:
    """``verdict``: the judge's on :func:`judged_image`, recorded with a vis grade."""
    rendered, base, exec_grade = step_basis("fair", step, turns, rendered)
    if exec_grade is not None:
        return exec_grade
    kind = step.kind
    if not any(_ok(t) for t in turns):
        return Grade(**base, score=0.0, detail=failure_detail(rendered, error_name(turns)))
    if kind != "vis":
        return _textual(base, step, turns)
    try:
        return _vis(base, step, turns, verdict)
    except TooLarge as err:
        return Grade(**base, score=0.0, detail=f"ungradable: {err}", ungradable=str(err))


def _textual(base: dict, step: Step, turns: list[TurnOutput]) -> Grade:
    kind, target = step.kind, step.reference.value
    limit = max(READ_CHARS, READ_TIMES * len(target or ""))
    printed = _latest(turns, lambda outputs: last_output(outputs, limit))
    what = {"num": "a printed number", "general": "printed output", "text": "printed text"}[kind]
    if printed is None:
        return Grade(**base, score=0.0, detail=f"expected {what}; your output had none")
    if target is None or step.reference.kind != "general":
        return Grade(
            **base,
            score=0.0,
            detail="ungradable: the reference has no printed output",
            ungradable="the reference has no printed output",
        )
    if kind == "text":
        return _text(base, step, printed, target)
    found = verdict(printed.text, target, step.instruction)
    detail = found.detail if found.ok else f"expected {what}; {found.detail}"
    return Grade(**base, score=1.0 if found.ok else 0.0, detail=detail + printed.cut(), passed=found.ok)


def _text(base: dict, step: Step, printed: Printed, target: str) -> Grade:
    """ROUGE-1 of the output's last lines (as many as the reference has), or the answer named in a sentence
    on its last line (:mod:`.sentence`)."""
    read = last_lines(printed.text, len(target.strip().splitlines()) or 1)[-max(2_000, 20 * len(target)) :]
    score = rouge1_cjk(read, target)
    rouge = f"text ROUGE-1 {score:.2f} (CJK-aware)"
    if score >= PASS_SCORE["text"]:
        return Grade(**base, score=score, detail=rouge + printed.cut(), passed=True)
    said = named(read, target, step.instruction)
    detail = f"{said.detail}{printed.cut()}" if said.ok else f"{rouge}; {said.detail}{printed.cut()}"
    return Grade(**base, score=1.0 if said.ok else score, detail=detail, passed=said.ok)


def _vis(base: dict, step: Step, turns: list[TurnOutput], verdict: dict[str, Any] | None) -> Grade:
    out = _latest(turns, first_figure)
    if out is None:
        return Grade(**base, score=0.0, detail="expected a figure; your output had none")
    if step.reference.kind != "vis" or not step.reference.value:
        why = "the reference has no figure"
        return Grade(**base, score=0.0, detail=f"ungradable: {why}", ungradable=why, judge=verdict)
    judged = f"; judge {verdict['score']:.1f}" if verdict and verdict.get("score") is not None else ""
    found = structural(step, out)
    if isinstance(found, Comparison):
        detail = found.detail() + judged
        return Grade(**base, score=found.score, detail=detail, passed=found.passed, judge=verdict)
    try:
        score = fair_ssim(join_text(out["data"]["image/png"]), step.reference.value)
    except TooLarge:
        raise
    except ImageError as err:
        return Grade(**base, score=0.0, detail=f"figure could not be compared: {err}", judge=verdict)
    detail = f"plot SSIM {score:.2f} (RGB, aspect kept; {found}){judged}"
    return Grade(**base, score=score, detail=detail, passed=score >= PASS_SCORE["vis"], judge=verdict)
