"""A benchmark's own grading rules, found without naming the benchmark.

A step whose benchmark grades it by rules of its own (not CIBench's profiles) is owned by a
:class:`StepRules`: a subpackage of :mod:`cibench_lab.grading` that sets ``RULES`` (discovered on
first use, so grading a step needs nothing but this package).  The generic graders, the judge, the
summaries and the grade words ask :func:`rules_of` / :func:`all_rules` instead of testing a step's
benchmark.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import Any, Protocol

from ..tasks.model import Step
from .turn import Grade, TurnOutput


class StepRules(Protocol):
    """What a benchmark's own grading answers for the steps it owns."""

    #: the key of its measures in an attempt's summary (``summary[name]``)
    name: str
    #: the profiles' rules versions recorded with its attempts
    versions: dict[str, int]
    #: its measures an export has a column for (``<profile>_<name>_<measure>``)
    measure_names: tuple[str, ...]
    #: outcomes only its steps settle with, in words
    outcome_words: dict[str, str]

    def owns(self, step: Step) -> bool:
        """Whether ``step`` is graded by these rules."""
        ...

    def grade(
        self, step: Step, turns: list[TurnOutput], profile: str, verdict: dict[str, Any] | None
    ) -> Grade:
        """The step's grade under ``profile`` as of ``turns``."""
        ...

    def judge_prompt(self, step: Step) -> str | None:
        """The judge's question on the step's figure, read from the words of its reply (None: the
        generic 1..10 question)."""
        ...

    def judges_figure(self, step: Step) -> bool:
        """Whether a VLM judge rates the step's figure (besides every vis step)."""
        ...

    def measures(self, grades: list[dict[str, Any]]) -> dict[str, Any] | None:
        """An attempt's own measures of its steps' grades (None: no step of these rules)."""
        ...

    def not_graded(self, grade: dict[str, Any]) -> bool:
        """Whether a stored grade measured nothing (neither passed nor missed)."""
        ...


@cache
def all_rules() -> tuple[StepRules, ...]:
    """Every benchmark's own rules: each subpackage of :mod:`cibench_lab.grading` with ``RULES``."""
    package = importlib.import_module(__package__ or "cibench_lab.grading")
    found = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.ispkg:
            rules = getattr(importlib.import_module(f"{package.__name__}.{info.name}"), "RULES", None)
            if rules is not None:
                found.append(rules)
    return tuple(found)


def rules_of(step: Step) -> StepRules | None:
    """The own rules grading ``step`` (None: CIBench's profiles)."""
    return next((rules for rules in all_rules() if rules.owns(step)), None)


def not_graded(grade: dict[str, Any] | None) -> bool:
    """Whether a stored grade measured nothing (e.g. a figure no judge rated): neither passed nor
    missed wherever steps are counted (src/grade.ts ``notGraded``)."""
    return grade is not None and any(rules.not_graded(grade) for rules in all_rules())
