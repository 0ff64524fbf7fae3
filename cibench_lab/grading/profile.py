"""Profiles: rules that turn a step's turns into a Grade.

``cibench`` — the official OpenCompass evaluator's rules, quirks included, so
numbers sit beside the leaderboard (:mod:`.cibench`).  ``fair`` — ours, the same
measurements without the quirks (:mod:`.fair`).  Every turn stores both.
"""

from __future__ import annotations

from typing import Any

from ..tasks.model import Step
from .cibench import METRIC_OF_KIND, PASS_SCORE, grade_cibench, render_turns
from .fair import grade_fair
from .turn import Grade, TurnOutput

PROFILES = ("cibench", "fair")
_GRADERS = {"cibench": grade_cibench, "fair": grade_fair}

__all__ = ["METRIC_OF_KIND", "PASS_SCORE", "PROFILES", "grade", "grade_all"]


def grade(step: Step, turns: list[TurnOutput], profile: str = "cibench") -> Grade:
    try:
        grader = _GRADERS[profile]
    except KeyError:
        raise ValueError(f"unknown grading profile {profile!r} (known: {', '.join(PROFILES)})") from None
    return grader(step, turns)


def grade_all(step: Step, turns: list[TurnOutput], verdict: dict[str, Any] | None = None) -> dict[str, dict]:
    """Every profile's grade, as stored with each turn (the turns rendered once for all);
    ``verdict``: a VLM judge's on the step's figure (``judge.Verdicts``), for the fair grade."""
    rendered = render_turns(turns)
    return {
        "cibench": grade_cibench(step, turns, rendered).as_dict(),
        "fair": grade_fair(step, turns, rendered, verdict).as_dict(),
    }
