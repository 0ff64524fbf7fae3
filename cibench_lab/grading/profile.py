"""Profiles: rules that turn a step's turns into a Grade.

``cibench`` — the official OpenCompass evaluator's rules, quirks included, so
numbers sit beside the leaderboard (:mod:`.cibench`).  ``fair`` — ours, the same
measurements without the quirks (:mod:`.fair`).  Every turn stores both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..tasks.model import Step
from .cibench import METRIC_OF_KIND, PASS_SCORE, grade_cibench, render_turns
from .fair import grade_fair
from .own import rules_of
from .render import Rendered
from .turn import Grade, TurnOutput

#: How a profile grades a step: (step, its turns, the turns rendered once for all
#: profiles, a VLM judge's verdict on the step's figure or None) -> Grade.
Grader = Callable[[Step, list[TurnOutput], list[Rendered], "dict[str, Any] | None"], Grade]

#: The profiles, in the order reports list them: adding one is one entry here.
_GRADERS: dict[str, Grader] = {
    "cibench": lambda step, turns, rendered, verdict: grade_cibench(step, turns, rendered),
    "fair": grade_fair,
}
PROFILES = tuple(_GRADERS)
#: Each profile's rules version, recorded with every attempt (``environment.profiles``): raise it with any
#: change that can change a stored grade, so reports refuse to compare grades made under other rules.
#: Kept per benchmark, so a change to one benchmark's rules leaves the other's attempts comparable.
#: fair 2: answers read from the end of the output; 3: vis images graded as shown, bars paired by their
#: category label, the x and y axis labels graded apart.
VERSIONS = {"cibench": 1, "fair": 3}
#: A benchmark grading its steps by rules of its own keeps its versions with them (:mod:`.own`).


__all__ = [
    "METRIC_OF_KIND",
    "PASS_SCORE",
    "PROFILES",
    "VERSIONS",
    "grade",
    "grade_all",
]


def _grader(step: Step, profile: str) -> Grader:
    """The profile's grader; a step graded by its benchmark's own rules is graded by them (:mod:`.own`)."""
    rules = rules_of(step)
    if rules is not None:
        return lambda step, turns, rendered, verdict: rules.grade(step, turns, profile, verdict)
    return _GRADERS[profile]


def grade(step: Step, turns: list[TurnOutput], profile: str = "cibench") -> Grade:
    if profile not in _GRADERS:
        raise ValueError(f"unknown grading profile {profile!r} (known: {', '.join(PROFILES)})")
    return _grader(step, profile)(step, turns, render_turns(turns), None)


def grade_all(step: Step, turns: list[TurnOutput], verdict: dict[str, Any] | None = None) -> dict[str, dict]:
    """Every profile's grade, as stored with each turn (the turns rendered once for all);
    ``verdict``: a VLM judge's on the step's figure (``judge.Verdicts``), for the fair grade."""
    rendered = render_turns(turns)
    return {name: _grader(step, name)(step, turns, rendered, verdict).as_dict() for name in _GRADERS}
