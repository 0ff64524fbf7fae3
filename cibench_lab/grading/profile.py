"""Profiles: rules that turn a step's turns into a Grade.

``cibench`` — the official OpenCompass evaluator's rules, quirks included, so
numbers sit beside the leaderboard.  (The ``fair`` profile comes with the
grading issue.)
"""

from __future__ import annotations

from ..tasks.model import Step
from . import num, text, vis
from .exec import exec_detail, tool_and_exec
from .render import Rendered, render
from .turn import Grade, TurnOutput

METRIC_OF_KIND = {
    "exec": "executable",
    "general": "general_correct",
    "num": "numeric_correct",
    "text": "text_score",
    "vis": "vis_sim",
}
PROFILES = ("cibench",)
#: A text/vis score at or above this shows as a pass in badges (summaries use the score).
PASS_SCORE = {"text": 0.999, "vis": 0.99}


def _error_name(turns: list[TurnOutput]) -> str:
    if not turns:
        return ""
    last = turns[-1]
    if last.status in ("timeout", "dead"):
        return "timed out" if last.status == "timeout" else "kernel died"
    for out in last.outputs:
        if out.get("output_type") == "error":
            return out.get("ename", "")
    return ""


def grade_cibench(step: Step, turns: list[TurnOutput]) -> Grade:
    rendered = [render(t.outputs, t.error, t.status) for t in turns]
    tool, exe = tool_and_exec(rendered)
    kind = step.kind
    base = dict(profile="cibench", kind=kind, tool=tool, exec=exe, metric=METRIC_OF_KIND[kind])
    if kind == "exec":
        return Grade(**base, score=None, detail=exec_detail(rendered, _error_name(turns)), passed=exe == 1.0)
    target = step.reference.value or ""
    if kind in ("num", "general"):
        return _grade_num(base, rendered, target, kind, turns)
    if kind == "text":
        score, out = text.text_score(rendered, target)
        detail = f"text ROUGE-1 {score:.2f}" if out is not None else _none(rendered, "printed text", turns)
        return Grade(**base, score=score, detail=detail, passed=score >= PASS_SCORE["text"])
    score, detail = vis.vis_score(rendered, step.reference.value or "")
    if not any(r.succeed for r in rendered):
        detail = _none(rendered, "a figure", turns)
    return Grade(**base, score=score, detail=detail, passed=score >= PASS_SCORE["vis"])


def _grade_num(base: dict, rendered: list[Rendered], target: str, kind: str, turns) -> Grade:
    score, out = num.correct(rendered, target)
    what = "a printed number" if kind == "num" else "printed output"
    if out is None:
        detail = _none(rendered, what, turns)
    elif score:
        detail = "number matched" if kind == "num" else "output matched"
    else:
        detail = f"expected {what}; yours did not match"
    return Grade(**base, score=score, detail=detail, passed=score == 1.0)


def _none(rendered: list[Rendered], what: str, turns: list[TurnOutput]) -> str:
    if not rendered:
        return "not run yet"
    if not any(r.succeed for r in rendered):
        name = _error_name(turns)
        return f"raised an error ({name})" if name else "raised an error"
    return f"expected {what}; your output had none"


def grade(step: Step, turns: list[TurnOutput], profile: str = "cibench") -> Grade:
    if profile != "cibench":
        raise ValueError(f"unknown grading profile {profile!r} (known: {', '.join(PROFILES)})")
    return grade_cibench(step, turns)


def grade_all(step: Step, turns: list[TurnOutput]) -> dict[str, dict]:
    """Every profile's grade, as stored with each turn."""
    return {p: grade(step, turns, p).as_dict() for p in PROFILES}
