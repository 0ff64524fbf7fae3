"""A Qwen benchmark task's step graded in the lab (every turn, as CIBench steps are), in words.

The family decides what is measured, under both stored profiles (``cibench``'s grade of such a step
follows the original's rules, i.e. the ``qwen`` profile of docs/qwen.md; ``fair`` its fair rules):

* ``qwen-vis``: the judge's verdict on the turn's figure, asked the original's right/wrong
  question (``qwen``: a reply containing "right"; ``fair``: :func:`.judge.fair_verdict`).  With no
  judge configured the step is *not graded* — :data:`NO_JUDGE`, no pass and no miss;
* ``qwen-math`` with a gold (a GSM8K row): accuracy — the turn's printed output read as the text
  after the original's ``Final Answer: `` (``qwen``: the original's pattern, quirks included;
  ``fair``: :func:`.answer.fair_answer`) against the gold.  The detail names the answer read and
  right or wrong, never the gold;
* any other item (``qwen-general``, a benchmark ``math`` item): executable only — the turn ran
  without an error (the original's stop strings ``error:`` / ``Traceback`` in its output count
  as one).  The benchmark's executable rate re-runs the code outside the kernel
  (``cibench-lab qwen score``); the lab says whether the run was clean.
"""

from __future__ import annotations

from typing import Any

from ...tasks.model import Step
from ...tasks.qwen import STOP
from ..turn import Grade, TurnOutput
from .answer import INVALID, extract_answer, fair_answer, gold_answer
from .judge import fair_verdict, qwen_verdict

NO_JUDGE = "not graded (no judge configured)"
FINAL = "Final Answer: "
#: The metric of each kind of Qwen step's grade (the badges word them; src/grade.ts).
METRICS = {"vis": "qwen_judge", "math": "qwen_accuracy", "exec": "qwen_executable"}


def output_text(turn: TurnOutput) -> str:
    """What the turn printed: its streams, results' and displays' text, and errors' tracebacks."""
    parts = []
    for out in turn.outputs:
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(str(out.get("text", "")))
        elif kind in ("execute_result", "display_data"):
            parts.append(str((out.get("data") or {}).get("text/plain", "")))
        elif kind == "error":
            parts.append("\n".join(out.get("traceback") or [f"{out.get('ename')}: {out.get('evalue')}"]))
    return "".join(parts)


def _ran_clean(turn: TurnOutput) -> bool:
    return not turn.error and turn.status == "ok" and not any(s in output_text(turn) for s in STOP)


def grade_qwen(step: Step, turns: list[TurnOutput], profile: str, verdict: dict[str, Any] | None) -> Grade:
    """The step's grade under ``profile`` (cibench: the original's rules; fair) as of ``turns``."""
    qwen = step.qwen
    assert qwen is not None, "grade_qwen grades a Qwen benchmark task's step"
    code = [t for t in turns if t.status != "no_action"]
    last = code[-1] if code else None
    tool, clean = float(bool(code)), float(last is not None and _ran_clean(last))
    base: dict[str, Any] = {"profile": profile, "kind": step.kind, "tool": tool, "exec": clean}
    if last is None:
        return Grade(**base, score=None, metric=METRICS["exec"], detail="no code run")
    if qwen.family == "qwen-vis":
        return _vis(base, profile, verdict)
    if qwen.family == "qwen-math" and qwen.answer:
        return _math(base, profile, last, qwen.answer)
    word = "executable" if clean else "not executable (the run raised an error)"
    return Grade(**base, score=None, metric=METRICS["exec"], detail=word, passed=bool(clean))


def _vis(base: dict, profile: str, verdict: dict[str, Any] | None) -> Grade:
    metric = METRICS["vis"]
    if verdict is None:
        return Grade(**base, score=None, metric=metric, detail=NO_JUDGE, ungradable="no judge configured")
    reply = verdict.get("reply")
    if not reply:
        why = f"the judge failed: {verdict.get('error') or 'no reply'}"
        return Grade(**base, score=None, metric=metric, detail=f"not graded ({why})", ungradable=why)
    right = (fair_verdict if profile == "fair" else qwen_verdict)(str(reply))
    detail = f"judge: {'right' if right else 'wrong'} ({verdict.get('model', 'judge')})"
    return Grade(**base, score=float(right), metric=metric, detail=detail, passed=right, judge=verdict)


def _math(base: dict, profile: str, last: TurnOutput, gold: str) -> Grade:
    completion = FINAL + output_text(last).strip()
    answer = fair_answer(completion) if profile == "fair" else extract_answer(completion)
    right = answer != INVALID and answer == gold_answer(gold)
    said = "no number read" if answer == INVALID else f"answer read: {answer}"
    detail = f"{said} · {'right' if right else 'wrong'}"
    return Grade(**base, score=float(right), metric=METRICS["math"], detail=detail, passed=right)
