"""A benchmark is a seam: what differs between the benchmarks the lab serves, asked of a task's own.

Everything generic — the step driver, the lab and headless executors, the views — asks the task's
benchmark (:func:`cibench_lab.benchmarks.benchmark_of`) instead of testing what a task is.  CIBench's
rules are :class:`~.cibench.CIBench`; Qwen's Code Interpreter Benchmark (:mod:`.qwen`) overrides what
differs; a third benchmark is a class that does the same, registered with
:func:`cibench_lab.benchmarks.register` (docs/architecture.md, "A benchmark").
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel

from ..grading import TurnOutput
from ..tasks.model import Step, Task
from ..tasks.vocabulary import Mode, Outcome


class Benchmark(Protocol):
    """What a benchmark answers for its tasks."""

    name: str
    #: how a line of output names the benchmark's tasks ("tasks of Qwen's benchmark")
    title: str
    #: the module (of :mod:`cibench_lab.cli`) whose ``SECTION`` reports the benchmark's runs in a
    #: table of their own (:mod:`cibench_lab.cli.sections`; None: CIBench's metrics report them)
    report_section: str | None
    #: the wire form (:mod:`.wire`) of its tasks' own item in the task list (``benchmark_item``) and
    #: of its attempts' own measures in a summary (``benchmark_measures``); None: it has none
    item_model: type[BaseModel] | None
    measures_model: type[BaseModel] | None

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

    def check_mode(self, task: Task, mode: Mode) -> None:
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

    def passes(self, step: Step, profile: str) -> str | None:
        """The pass rule of ``step`` under ``profile`` as the view names it (None: none but
        :meth:`criterion`)."""
        ...

    def session(self, player: Any, task: Task, mode: Mode) -> Any | None:
        """A model player's session of ``task`` when the benchmark plays its own loop (None: the
        player's own; :mod:`cibench_lab.players.own`)."""
        ...

    def reference_refusal(self, task: Task) -> str | None:
        """Why the reference player cannot play ``task`` (None: it can)."""
        ...

    def reference_view(self, step: Step) -> dict[str, Any] | None:
        """A settled step's reference as the reveal policy shows it (None: none to show)."""
        ...

    def notebook_words(self, task: Task) -> tuple[str, str] | None:
        """The attempt notebook's subtitle (before the mode) and instruction cell, when the benchmark
        words them itself (None: the task's own)."""
        ...

    def task_view(self, task: Task) -> dict[str, Any]:
        """What ``tasks show`` adds to the admin view of ``task`` (its own item in full, as
        ``benchmark_item``)."""
        ...

    def prompt(self, task: Task, step: Step) -> str:
        """The exact first user message a model receives for ``step``."""
        ...

    def show_lines(self, view: dict[str, Any]) -> tuple[str, str | None]:
        """``tasks show``'s line of the benchmark's limits ('' for none) and its words for a task
        without reference code (None: the reference is shown)."""
        ...
