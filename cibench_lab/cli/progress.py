"""`cibench-lab run`'s progress: a bar over the run's steps, a line per finished attempt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..models.redact import redact
from ..tasks.model import Task

if TYPE_CHECKING:
    from rich.progress import Progress

    from ..runs.local import RunObserver
else:  # a RunObserver to type checkers; the CLI starts without importing runs.local
    RunObserver = object


class ProgressObserver(RunObserver):
    """A rich progress bar over the run's steps (plain lines when stderr is not a terminal)."""

    def __init__(self, tasks: list[Task], live: bool = True):
        self.n_tasks = len(tasks)
        self.total = sum(len(t.steps) for t in tasks)
        from rich.console import Console

        self.console = Console(stderr=True)
        self.live = live and self.console.is_terminal
        self.finished: dict[str, str] = {}  # task id -> status
        self.progress: Progress | None = None

    def __enter__(self) -> ProgressObserver:
        if self.live:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.progress = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                console=self.console, transient=True,
            )  # fmt: skip
            self.progress.start()
            self.bar = self.progress.add_task("steps", total=self.total)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()

    def _say(self, text: str) -> None:
        """One line to the terminal; what a failed attempt says may quote an endpoint: redacted."""
        self.console.print(redact(text), markup=False, highlight=False, soft_wrap=True)

    def _advance(self, n: int, what: str | None = None) -> None:
        if self.progress is not None:
            self.progress.update(self.bar, advance=n, description=what or None)

    def task_started(self, task: Task, attempt_id: str, resumed_at: int | None) -> None:
        if resumed_at is not None:
            self._say(f"{task.id}: resuming attempt {attempt_id[:8]} at step {resumed_at + 1}")
            self._advance(resumed_at)

    def step_settled(self, task: Task, step: int, outcome: str) -> None:
        self._advance(1, f"{task.id} · step {step + 1}/{len(task.steps)}")

    def task_finished(self, task: Task, status: str, detail: str = "") -> None:
        self.finished[task.id] = status
        if status == "skipped":
            self._advance(len(task.steps))
        what = "skipped (already settled in this run)" if status == "skipped" else status
        self._say(f"[{len(self.finished)}/{self.n_tasks}] {task.id}: {what}{': ' + detail if detail else ''}")

    def report(self, run_name: str) -> int:
        """Say what is left open; the exit status (0: all finished)."""
        left = [t for t, status in self.finished.items() if status in ("incomplete", "failed")]
        if left:
            self._say(f"{len(left)} attempt(s) not finished: {', '.join(left)}")
            self._say(f"run the same command again (--run {run_name}) to resume them")
        return 1 if left else 0
