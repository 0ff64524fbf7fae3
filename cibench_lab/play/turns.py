"""A turn as it is recorded (``Attempts.record_turn``, ``StepDriver.record``): what ran and how it
ended, when, the kernel message it answered and facts for its record; and the step's grades as of
it when they were computed off the engine thread."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from ..grading import TurnOutput


@dataclass(frozen=True)
class TurnRecord:
    """One turn to record.  ``msg_id``: the kernel execution it was (the lab; a second record of it
    is refused), None headless or for a reply that ran nothing; ``started_at``/``finished_at``: when
    it ran (None: now); ``meta``: facts for its record (``truncated``, a kernel that died, what the
    player said of it ...)."""

    turn: TurnOutput
    msg_id: str | None = None
    started_at: dt.datetime | None = None
    finished_at: dt.datetime | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, turn: TurnRecord | TurnOutput) -> TurnRecord:
        """``turn`` as a record (a bare TurnOutput: a turn with nothing more to record)."""
        return turn if isinstance(turn, TurnRecord) else cls(turn)


@dataclass(frozen=True)
class Graded:
    """The step's grades (every profile's) as of a turn, computed from the step's first
    ``with_turns`` turns and it (by the step driver, off the engine thread)."""

    grades: dict[str, dict]
    with_turns: int
