"""Qwen's Code Interpreter Benchmark's grading rules as the generic grading asks them
(:class:`cibench_lab.grading.own.StepRules`)."""

from __future__ import annotations

from typing import Any

from ...tasks.model import Step
from ...tasks.qwen import qwen_step
from ..turn import Grade, TurnOutput
from .lab import METRICS, QWEN_MEASURES, grade_qwen, not_graded, qwen_measures

#: The profiles' versions for Qwen benchmark tasks. 2: the gold read by the profile's own rule, a
#: run that raised reads no answer, a figureless visualization run is a miss.
QWEN_VERSIONS = {"cibench": 2, "fair": 2}


class QwenRules:
    name = "qwen"
    versions = QWEN_VERSIONS
    measure_names = QWEN_MEASURES
    outcome_words = {
        "stopped": "stopped at an observation holding error: or Traceback (Qwen's benchmark)",
        "answered": "answered without a further call (Qwen's benchmark)",
    }

    def owns(self, step: Step) -> bool:
        return qwen_step(step) is not None

    def grade(
        self, step: Step, turns: list[TurnOutput], profile: str, verdict: dict[str, Any] | None
    ) -> Grade:
        return grade_qwen(step, turns, profile, verdict)

    def judge_prompt(self, step: Step) -> str | None:
        """The original's right/wrong question (its verdict is read from the reply's words)."""
        qwen = qwen_step(step)
        return qwen.judge_prompt if qwen is not None else None

    def judges_figure(self, step: Step) -> bool:
        qwen = qwen_step(step)
        return qwen is not None and qwen.family == "qwen-vis"

    def measures(self, grades: list[dict[str, Any]]) -> dict[str, Any] | None:
        return qwen_measures(grades)

    def not_graded(self, grade: dict[str, Any]) -> bool:
        return not_graded(grade)


__all__ = ["METRICS", "QWEN_VERSIONS", "QwenRules"]
