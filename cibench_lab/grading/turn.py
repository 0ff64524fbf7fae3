"""What a grader reads of a turn."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TurnOutput:
    """One executed submission: its code and what the kernel published for it."""

    code: str
    outputs: list[dict[str, Any]] = field(default_factory=list)
    error: bool = False
    status: str = "ok"  # ok | error | timeout | dead | no_action (a reply without an interpreter call)


@dataclass
class Grade:
    """A step's grade under one profile, as of the turns given."""

    profile: str
    kind: str
    tool: float  # 1 when the step has at least one code turn
    exec: float  # 1 when the last code turn ran without error
    score: float | None  # the kind's metric (None for exec steps)
    metric: str  # executable | numeric_correct | general_correct | text_score | vis_sim
    detail: str  # what was measured, said for a person (never the reference)
    passed: bool = False
    ungradable: str | None = None  # why no fair score could be computed (the score is then 0)
    judge: dict[str, Any] | None = None  # fair vis only, when a VLM judge is configured

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)
