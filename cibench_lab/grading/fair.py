"""The ``fair`` profile: ours, documented case by case in docs/grading.md.

Same tool/exec as ``cibench``.  For a graded step it reads the *last output* of the
latest successful turn that has one — the last stdout (consecutive stream chunks
merged, as a notebook saves them) or ``execute_result`` text, scanning backwards:
exactly how the reference output is chosen — untrimmed, ANSI stripped.  Then:
num/general by :mod:`.values` (numbers on token boundaries, precision-fitted
tolerance, tables as values), text by CJK-aware ROUGE-1 (:mod:`.cjk`), vis by
what the figure shows (its data, then the step's declared plot elements: :mod:`.plot`)
when both figures carry their structure, else SSIM on RGB with the aspect ratio kept
(:mod:`.fair_vis`) and the badge says why, plus the optional VLM
judge's verdict when one is given (:mod:`.judge` asks for it before grading).
Outputs beyond ``MAX_CHARS`` are ungradable, not scored 0.
"""

from __future__ import annotations

from typing import Any

from ..tasks.model import Step
from .cibench import PASS_SCORE, error_name, step_basis
from .cjk import rouge1_cjk
from .exec import failure_detail
from .fair_plot import structural
from .fair_vis import fair_ssim
from .images import ImageError, TooLarge
from .plot import Comparison
from .render import ANSI, Rendered, join_text
from .turn import Grade, TurnOutput
from .values import asked_decimals, match

#: Longest output the fair rules read (characters); beyond it the step is ungradable.
MAX_CHARS = 1_000_000


class TooLong(ValueError):
    pass


def _ok(turn: TurnOutput) -> bool:
    return (
        turn.status == "ok"
        and not turn.error
        and not any(o.get("output_type") == "error" for o in turn.outputs)
    )


def last_output(outputs: list[dict[str, Any]]) -> str | None:
    """The last stdout (merged chunks) or execute_result text, or None."""
    i = len(outputs) - 1
    while i >= 0:
        out = outputs[i]
        kind = out.get("output_type")
        if kind == "execute_result":
            return _bounded([join_text((out.get("data") or {}).get("text/plain", ""))])
        if kind == "stream" and out.get("name") == "stdout":
            j = i
            while (
                j > 0
                and outputs[j - 1].get("output_type") == "stream"
                and outputs[j - 1].get("name") == "stdout"
            ):
                j -= 1
            return _bounded([join_text(o.get("text")) for o in outputs[j : i + 1]])
        i -= 1
    return None


def _bounded(parts: list[str]) -> str:
    size = sum(len(p) for p in parts)
    if size > MAX_CHARS:
        raise TooLong(f"output too large to compare ({size:,} characters; limit {MAX_CHARS:,})")
    return ANSI.sub("", "".join(parts))


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


def _latest(turns: list[TurnOutput], pick) -> Any:
    for turn in reversed(turns):
        if _ok(turn):
            found = pick(turn.outputs)
            if found is not None:
                return found
    return None


def judged_image(step: Step, turns: list[TurnOutput]) -> str | None:
    """The figure a VLM judge rates for a vis step (a Qwen visualization item's too): the one the
    fair SSIM reads."""
    qwen_vis = step.qwen is not None and step.qwen.family == "qwen-vis"
    return _latest(turns, first_image) if step.kind == "vis" or qwen_vis else None


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
    try:
        if kind == "vis":
            return _vis(base, step, turns, verdict)
        return _textual(base, step, turns)
    except (TooLong, TooLarge) as err:
        return Grade(**base, score=0.0, detail=f"ungradable: {err}", ungradable=str(err))


def _textual(base: dict, step: Step, turns: list[TurnOutput]) -> Grade:
    kind, target = step.kind, step.reference.value
    out = _latest(turns, last_output)
    what = {"num": "a printed number", "general": "printed output", "text": "printed text"}[kind]
    if out is None:
        return Grade(**base, score=0.0, detail=f"expected {what}; your output had none")
    if target is None or step.reference.kind != "general":
        return Grade(
            **base,
            score=0.0,
            detail="ungradable: the reference has no printed output",
            ungradable="the reference has no printed output",
        )
    if kind == "text":
        score = rouge1_cjk(out, target)
        return Grade(
            **base,
            score=score,
            detail=f"text ROUGE-1 {score:.2f} (CJK-aware)",
            passed=score >= PASS_SCORE["text"],
        )
    ok, rule = match(out, target, asked_decimals(step.instruction))
    noun = {"table": "table values", "numbers": "numbers", "words": "output"}[rule]
    detail = f"{noun} matched" if ok else f"expected {what}; your {noun} did not match"
    return Grade(**base, score=1.0 if ok else 0.0, detail=detail, passed=ok)


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
