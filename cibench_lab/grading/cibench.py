"""The ``cibench`` profile: OpenCompass's CIBenchEvaluator rules, quirks included.

tool/exec from the last interpreter turn (``exec``); num/general from the first
``execute_result`` else ``stdout`` block of the latest successful turn that has
one, searching back (``num``); text the same way with ROUGE-1 of the first fenced
block of any label (``text``); vis from the first image of the latest successful
turn only (``vis``) — all on the interpreter's rendering (``render``).  A
reference without a printed output (``None``) makes the original raise and score
0; so does ours.  Verified against the original code: tests/grading/test_grading_golden.py.
"""

from __future__ import annotations

from typing import Any

from ..tasks.model import Step
from . import num, text, vis
from .exec import exec_detail, failure_detail, tool_and_exec
from .images import TooLarge
from .render import Rendered, render
from .turn import Grade, TurnOutput

METRIC_OF_KIND = {
    "exec": "executable",
    "general": "general_correct",
    "num": "numeric_correct",
    "text": "text_score",
    "vis": "vis_sim",
}
#: A text/vis score at or above this shows as a pass in badges (summaries use the score).
PASS_SCORE = {"text": 0.999, "vis": 0.99}


def error_name(turns: list[TurnOutput]) -> str:
    actions = [t for t in turns if t.status != "no_action"]
    if not actions:
        return ""
    last = actions[-1]
    if last.status in ("timeout", "dead"):
        return "timed out" if last.status == "timeout" else "kernel died"
    for out in last.outputs:
        if out.get("output_type") == "error":
            return str(out.get("ename", ""))
    return ""


def none_detail(rendered: list[Rendered], what: str, turns: list[TurnOutput]) -> str:
    if any(r.succeed for r in rendered):  # a successful turn is an interpreter turn
        return f"expected {what}; your output had none"
    return failure_detail(rendered, error_name(turns))


def render_turns(turns: list[TurnOutput]) -> list[Rendered]:
    """Every turn as the interpreter renders it: what all profiles start from."""
    return [render(t.outputs, t.error, t.status) for t in turns]


def step_basis(
    profile: str, step: Step, turns: list[TurnOutput], rendered: list[Rendered] | None = None
) -> tuple[list[Rendered], dict, Grade | None]:
    """What every profile computes first: the rendered turns (``rendered`` when given,
    from :func:`render_turns`), the grade fields shared by all kinds (tool and executable
    rates), and the whole grade of an ``exec`` step."""
    if rendered is None:
        rendered = render_turns(turns)
    tool, exe = tool_and_exec(rendered)
    base: dict[str, Any] = dict(
        profile=profile, kind=step.kind, tool=tool, exec=exe, metric=METRIC_OF_KIND[step.kind]
    )
    if step.kind != "exec":
        return rendered, base, None
    detail = exec_detail(rendered, error_name(turns))
    return rendered, base, Grade(**base, score=None, detail=detail, passed=exe == 1.0)


def grade_cibench(step: Step, turns: list[TurnOutput], rendered: list[Rendered] | None = None) -> Grade:
    rendered, base, exec_grade = step_basis("cibench", step, turns, rendered)
    if exec_grade is not None:
        return exec_grade
    kind = step.kind
    target = step.reference.value
    if kind in ("num", "general"):
        return _grade_num(base, rendered, target, kind, turns)
    if kind == "text":
        return _grade_text(base, rendered, target, turns)
    return _grade_vis(base, rendered, target or "", turns)


def _grade_num(
    base: dict, rendered: list[Rendered], target: str | None, kind: str, turns: list[TurnOutput]
) -> Grade:
    out = num.answer_block(rendered)
    what = "a printed number" if kind == "num" else "printed output"
    if out is None:
        return Grade(**base, score=0.0, detail=none_detail(rendered, what, turns))
    if target is None:
        return Grade(**base, score=0.0, detail="the reference printed nothing to compare with (scores 0)")
    score = num.compare(out, target)
    if score:
        detail = "number matched" if kind == "num" else "output matched"
    else:
        detail = f"expected {what}; yours did not match"
    return Grade(**base, score=score, detail=detail, passed=score == 1.0)


def _grade_text(base: dict, rendered: list[Rendered], target: str | None, turns: list[TurnOutput]) -> Grade:
    out = text.first_block(rendered)
    if out is None:
        return Grade(**base, score=0.0, detail=none_detail(rendered, "printed text", turns))
    if target is None:
        return Grade(**base, score=0.0, detail="the reference printed nothing to compare with (scores 0)")
    score = text.rouge1(out, target)
    return Grade(**base, score=score, detail=f"text ROUGE-1 {score:.2f}", passed=score >= PASS_SCORE["text"])


def _grade_vis(base: dict, rendered: list[Rendered], target: str, turns: list[TurnOutput]) -> Grade:
    if not any(r.succeed for r in rendered):
        return Grade(**base, score=0.0, detail=none_detail(rendered, "a figure", turns))
    try:
        score, detail = vis.vis_score(rendered, target)
    except TooLarge as err:
        return Grade(**base, score=0.0, detail=f"ungradable: {err}", ungradable=str(err))
    return Grade(**base, score=score, detail=detail, passed=score >= PASS_SCORE["vis"])
