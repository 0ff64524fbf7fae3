"""The grade a step keeps of its turns' grades, by the attempt's grade rule.

Each turn stores the step's grade as of it (every profile).  ``settling``: the profile
applied to the turns at settle — the last turn's stored grade, as for models.  ``best``: the
best stored grade so far — passed, then score (None counts 0), then exec, then tool; a tie
keeps the later turn.  Chosen per profile: two profiles may keep different turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..tasks.vocabulary import GRADE_RULES


def _rank(grade: dict[str, Any] | None) -> tuple[bool, float, float, float]:
    if grade is None:  # a turn recorded before the profile existed
        return (False, -1.0, -1.0, -1.0)
    return (bool(grade.get("passed")), float(grade.get("score") or 0.0), grade["exec"], grade["tool"])


def kept_turn(grades: Sequence[dict[str, Any] | None], rule: str) -> int | None:
    """The 0-based turn whose grade (one profile's, one per turn in order) the step keeps;
    None without turns."""
    if rule not in GRADE_RULES:
        raise ValueError(f"grade rule: must be one of {', '.join(GRADE_RULES)}")
    if not grades:
        return None
    if rule == "settling":
        return len(grades) - 1
    best = 0
    for i in range(1, len(grades)):
        if _rank(grades[i]) >= _rank(grades[best]):
            best = i
    return best


def kept_grades(turn_grades: Sequence[dict[str, dict[str, Any]]], rule: str) -> dict[str, dict[str, Any]]:
    """Every profile's kept grade of a step's turns (each turn's ``{profile: grade}``), each
    with ``kept_turn``: the turn it comes from.  Profiles every turn holds only."""
    profiles = set.intersection(*(set(g) for g in turn_grades)) if turn_grades else set()
    out: dict[str, dict[str, Any]] = {}
    for profile in sorted(profiles, key=list(turn_grades[0]).index):
        k = kept_turn([g[profile] for g in turn_grades], rule)
        assert k is not None
        out[profile] = {**turn_grades[k][profile], "kept_turn": k}
    return out
