"""CIBench's own rules: the benchmark every task is unless another benchmark owns it."""

from __future__ import annotations

from typing import Any

from ..grading import TurnOutput
from ..grading.criterion import criterion
from ..grading.profile import VERSIONS
from ..tasks.model import Step, Task
from ..tasks.vocabulary import Outcome


class CIBench:
    """A player's step passes at its first run without error, or is out of turns at ``max_turn``;
    every mode, the warm pool, the kernel's common start code only."""

    name = "cibench"

    def owns(self, task: Task) -> bool:
        return True

    def person_limit(self, task: Task) -> int | None:
        return None

    def player_outcome(
        self, task: Task | None, turn: TurnOutput, n_turns: int, max_turn: int, meta: dict[str, Any]
    ) -> Outcome | None:
        if not turn.error:
            return "passed"
        return "out_of_turns" if n_turns >= max(max_turn, 1) else None

    def start_codes(self, task: Task, prior_turn: bool) -> list[str]:
        return []

    def prior_code(self, task: Task) -> str | None:
        return None

    def turn_timeout(self, task: Task, timeout: float) -> float:
        return timeout

    def check_mode(self, task: Task, mode: str) -> None:
        return None

    def pooled(self, task: Task) -> bool:
        return True

    def profile_versions(self) -> dict[str, int]:
        return dict(VERSIONS)

    def criterion(self, step: Step, profile: str, language: str) -> str:
        return criterion(profile, step.kind, language)
