"""A Qwen benchmark task's step graded in the lab (every turn, as CIBench steps are), in words.

The family decides what is measured, under both stored profiles (``cibench``'s grade of such a step
follows the original's rules, i.e. the ``qwen`` profile of docs/qwen.md; ``fair`` its fair rules):

* ``qwen-vis``: the judge's verdict on the step's figure, asked the original's right/wrong
  question (``qwen``: a reply containing "right"; ``fair``: :func:`.judge.fair_verdict`).  With no
  judge configured the step is *not graded* — :data:`NO_JUDGE`, no pass and no miss
  (:func:`not_graded`).  With no figure drawn by a run without an error there is nothing to judge:
  wrong, as the original counts an item it does not judge;
* ``qwen-math`` with a gold (a GSM8K row): accuracy — the turn's printed output read as the text
  after the original's ``Final Answer: `` (``qwen``: the original's pattern, quirks included, its
  gold read by the same pattern; ``fair``: :func:`.answer.fair_answer`, its gold by
  :func:`.answer.fair_gold`) against the gold.  The detail names the answer read and right or
  wrong, never the gold;
* any other item (``qwen-general``, a benchmark ``math`` item): executable only — the turn ran
  without an error (the original's stop strings ``error:`` / ``Traceback`` in its output count
  as one).  The benchmark's executable rate re-runs the code outside the kernel
  (``cibench-lab qwen score``); the lab says whether the run was clean.

A run that raised (or timed out, or whose kernel died) says so first ("raised ZeroDivisionError ·
…"); no answer is read from it, so a traceback's numbers never count (a headless run's table is
the original's, read from its completion: ``benchmarks/qwen/results.py``).
"""

from __future__ import annotations

from typing import Any

from ...tasks.model import Step
from ...tasks.qwen import STOP, qwen_step
from ..cibench import error_name
from ..fair import judged_image
from ..turn import Grade, TurnOutput
from .answer import INVALID, extract_answer, fair_answer, fair_gold, gold_answer
from .judge import fair_verdict, qwen_verdict

NO_JUDGE = "not graded (no judge configured)"
FINAL = "Final Answer: "
#: The metric of each kind of Qwen step's grade (the badges word them; src/grade.ts).
METRICS = {"vis": "qwen_judge", "math": "qwen_accuracy", "exec": "qwen_executable"}


def output_text(turn: TurnOutput, stderr: bool = True) -> str:
    """What the turn printed: its streams (stdout only unless ``stderr``), results' and displays'
    text, and errors' tracebacks."""
    parts = []
    for out in turn.outputs:
        kind = out.get("output_type")
        if kind == "stream" and (stderr or out.get("name") != "stderr"):
            parts.append(str(out.get("text", "")))
        elif kind in ("execute_result", "display_data"):
            parts.append(str((out.get("data") or {}).get("text/plain", "")))
        elif kind == "error":
            parts.append("\n".join(out.get("traceback") or [f"{out.get('ename')}: {out.get('evalue')}"]))
    return "".join(parts)


def _ran_clean(turn: TurnOutput) -> bool:
    return not turn.error and turn.status == "ok" and not any(s in output_text(turn) for s in STOP)


def raised(turn: TurnOutput) -> str | None:
    """How a run failed, said first in its grade ("raised KeyError", "timed out", "kernel died");
    None when it did not raise."""
    name = error_name([turn])
    if name in ("timed out", "kernel died"):
        return name
    if name or turn.error or turn.status != "ok":
        return f"raised {name or 'an error'}"
    return None


def not_graded(grade: dict[str, Any] | None) -> bool:
    """Whether a stored grade measured nothing (a visualization step without a judge's verdict):
    neither passed nor missed wherever steps are counted (src/grade.ts ``notGraded``)."""
    return grade is not None and grade.get("metric") == METRICS["vis"] and grade.get("score") is None


def grade_qwen(step: Step, turns: list[TurnOutput], profile: str, verdict: dict[str, Any] | None) -> Grade:
    """The step's grade under ``profile`` (cibench: the original's rules; fair) as of ``turns``."""
    qwen = qwen_step(step)
    assert qwen is not None, "grade_qwen grades a Qwen benchmark task's step"
    code = [t for t in turns if t.status != "no_action"]
    last = code[-1] if code else None
    tool, clean = float(bool(code)), float(last is not None and _ran_clean(last))
    base: dict[str, Any] = {"profile": profile, "kind": step.kind, "tool": tool, "exec": clean}
    measured = qwen.family == "qwen-vis" or (qwen.family == "qwen-math" and bool(qwen.answer))
    if last is None:  # nothing to judge or read: an accuracy item is wrong, as the original counts it
        score = 0.0 if measured else None
        return Grade(**base, score=score, metric=_metric(qwen.family, measured), detail="no code run")
    failed = raised(last)
    if qwen.family == "qwen-vis":
        said = _vis(profile, judged_image(step, turns) is not None, verdict)
        detail = _first(failed, said.pop("detail"))
        return Grade(**base, **said, detail=detail)
    if qwen.family == "qwen-math" and qwen.answer:
        return _math(base, profile, last, qwen.answer, failed)
    word = "executable" if clean else "not executable"
    if not clean and failed is None:
        word += " (its output holds error: or Traceback)"
    return Grade(**base, score=None, metric=METRICS["exec"], detail=_first(failed, word), passed=bool(clean))


def _metric(family: str, measured: bool) -> str:
    if not measured:
        return METRICS["exec"]
    return METRICS["vis"] if family == "qwen-vis" else METRICS["math"]


#: the measures of :func:`qwen_measures` an export has a column for (``<profile>_qwen_<measure>``)
QWEN_MEASURES = ("executable", "accuracy", "accuracy_of", "not_graded")


def qwen_measures(grades: list[dict[str, Any]]) -> dict[str, Any] | None:
    """An attempt's Qwen measures (x100) of its steps' grades, as its summary holds them (None: no
    Qwen step): ``executable`` (runs without an error), ``accuracy`` over the graded steps of a
    family that has one (``accuracy_of``: math or visualization; None when none is graded), and the
    steps ``not_graded``."""
    mine = [g for g in grades if str(g.get("metric", "")).startswith("qwen_")]
    if not mine:
        return None
    measured = [g for g in mine if g["metric"] != METRICS["exec"]]
    graded = [g for g in measured if g.get("score") is not None]
    of = {METRICS["math"]: "math", METRICS["vis"]: "visualization"}
    return {
        "executable": round(100 * sum(float(g["exec"]) for g in mine) / len(mine), 2),
        "accuracy": round(100 * sum(float(g["score"]) for g in graded) / len(graded), 2) if graded else None,
        "accuracy_of": of[measured[0]["metric"]] if measured else None,
        "steps": len(mine),
        "not_graded": len(measured) - len(graded),
    }


def _first(failed: str | None, detail: str) -> str:
    return detail if failed is None else f"{failed} · {detail}"


def _vis(profile: str, figure: bool, verdict: dict[str, Any] | None) -> dict[str, Any]:
    """The verdict's part of a visualization grade (``figure``: a run without an error drew one)."""
    said: dict[str, Any] = {"metric": METRICS["vis"], "score": None}
    if not figure:  # the original judges no item without a clean image: it counts as not right
        return {**said, "score": 0.0, "detail": "no figure to judge · wrong"}
    if verdict is None:
        return {**said, "detail": NO_JUDGE, "ungradable": "no judge configured"}
    reply = verdict.get("reply")
    if not reply:
        why = f"the judge failed: {verdict.get('error') or 'no reply'}"
        return {**said, "detail": f"not graded ({why})", "ungradable": why}
    right = (fair_verdict if profile == "fair" else qwen_verdict)(str(reply))
    detail = f"judge: {'right' if right else 'wrong'} ({verdict.get('model', 'judge')})"
    return {**said, "score": float(right), "detail": detail, "passed": right, "judge": verdict}


def _math(base: dict, profile: str, last: TurnOutput, gold: str, failed: str | None) -> Grade:
    metric = METRICS["math"]
    if failed is not None:  # a traceback's numbers are never an answer
        return Grade(**base, score=0.0, metric=metric, detail=f"{failed} · no answer read · wrong")
    fair = profile == "fair"  # reads what the code printed, not its warnings
    completion = FINAL + output_text(last, stderr=not fair).strip()
    answer = fair_answer(completion) if fair else extract_answer(completion)
    right = answer != INVALID and answer == (fair_gold(gold) if fair else gold_answer(gold))
    said = "no number read" if answer == INVALID else f"answer read: {answer}"
    detail = f"{said} · {'right' if right else 'wrong'}"
    return Grade(**base, score=float(right), metric=metric, detail=detail, passed=right)


def qwen_criterion(step: Step) -> str:
    """What passes the step, in words (the same under both profiles; no gold)."""
    qwen = qwen_step(step)
    if qwen is not None and qwen.family == "qwen-vis":
        return "passes when the judge says the figure is right; without a judge it is not graded"
    if qwen is not None and qwen.family == "qwen-math" and qwen.answer:
        return (
            "passes when the last number of your output, read as the benchmark reads a final answer, is right"
        )
    return "executable: passes when it runs without an error"
