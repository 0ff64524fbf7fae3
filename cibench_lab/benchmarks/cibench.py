"""CIBench's own rules: the benchmark every task is unless another benchmark owns it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ..grading import TurnOutput
from ..grading.criterion import criterion, passes
from ..grading.fair import first_image
from ..grading.profile import VERSIONS
from ..tasks.model import Step, Task
from ..tasks.vocabulary import Mode, Outcome


class CIBench:
    """A player's step passes at its first run without error, or is out of turns at ``max_turn``;
    every mode, the warm pool, the kernel's common start code only."""

    name = "cibench"
    title = "CIBench"
    report_section: str | None = None
    item_model: type[BaseModel] | None = None
    measures_model: type[BaseModel] | None = None

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

    def check_mode(self, task: Task, mode: Mode) -> None:
        return None

    def pooled(self, task: Task) -> bool:
        return True

    def profile_versions(self) -> dict[str, int]:
        return dict(VERSIONS)

    def criterion(self, step: Step, profile: str, language: str) -> str:
        return criterion(profile, step.kind, language)

    def passes(self, step: Step, profile: str) -> str | None:
        return passes(profile, step.kind)

    def session(self, player: Any, task: Task, mode: Mode) -> Any | None:
        return None

    def reference_refusal(self, task: Task) -> str | None:
        return None

    def reference_view(self, step: Step) -> dict[str, Any] | None:
        """A vis step's plot as an image (from its outputs, else the graded reference PNG), not a line
        naming its size."""
        image = None
        if step.kind == "vis":
            image = first_image(list(step.outputs)) or step.reference.value or None
        return {
            "code": step.code,
            "thought": step.thought,
            "output": "" if image else step.reference.summary(),
            "image": image,
        }

    def notebook_words(self, task: Task) -> tuple[str, str] | None:
        return None

    def task_view(self, task: Task) -> dict[str, Any]:
        return {}

    def prompt(self, task: Task, step: Step) -> str:
        return step.prompt

    def show_lines(self, view: dict[str, Any]) -> tuple[str, str | None]:
        return "", None
