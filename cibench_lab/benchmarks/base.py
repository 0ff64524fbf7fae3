"""A benchmark is a seam: what differs between the benchmarks the lab serves, asked of a task's own.

Everything generic — the step driver, the lab and headless executors, the views — asks the task's
benchmark (:func:`cibench_lab.benchmarks.benchmark_of`) instead of testing what a task is.  CIBench's
rules are :class:`~.cibench.CIBench`; Qwen's Code Interpreter Benchmark (:mod:`.qwen`) overrides what
differs; a third benchmark is a class that does the same, registered with
:func:`cibench_lab.benchmarks.register` (docs/architecture.md, "A benchmark").
"""

from __future__ import annotations

from typing import Any, Protocol

from ..grading import TurnOutput
from ..tasks.model import Step, Task
from ..tasks.vocabulary import Outcome


class Benchmark(Protocol):
    """What a benchmark answers for its tasks."""

    name: str

    def owns(self, task: Task) -> bool:
        """Whether ``task`` is this benchmark's."""
        ...

    def person_limit(self, task: Task) -> int | None:
        """A person's run limit on a step, besides the server's turn cap (None: none)."""
        ...

    def player_outcome(
        self, task: Task | None, turn: TurnOutput, n_turns: int, max_turn: int, meta: dict[str, Any]
    ) -> Outcome | None:
        """The outcome a player's step settles with after ``turn``, its ``n_turns``-th (None: open)."""
        ...

    def start_codes(self, task: Task, prior_turn: bool) -> list[str]:
        """What the task's kernel runs after the common start code, before the first step
        (``prior_turn``: a person's attempt, which also runs an item's prior turn at setup)."""
        ...

    def prior_code(self, task: Task) -> str | None:
        """The code of a turn the benchmark plays before the person's first (None: none)."""
        ...

    def turn_timeout(self, task: Task, timeout: float) -> float:
        """A turn's time limit on the task, given the server's ``timeout``."""
        ...

    def check_mode(self, task: Task, mode: str) -> None:
        """Refuse (BadInput) a mode the task cannot be played in."""
        ...

    def pooled(self, task: Task) -> bool:
        """Whether the task may take a warm kernel of the pool."""
        ...

    def profile_versions(self) -> dict[str, int]:
        """The grading profiles' versions an attempt of the benchmark records."""
        ...

    def criterion(self, step: Step, profile: str, language: str) -> str:
        """What passes ``step`` under ``profile``, in words a participant reads."""
        ...
