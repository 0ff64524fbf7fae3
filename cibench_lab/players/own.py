"""What a task's benchmark decides about its players, asked without naming the benchmark.

The players sit below the benchmarks (:mod:`cibench_lab.benchmarks`), so they cannot ask
``benchmark_of`` themselves: the benchmark registry installs it here (:func:`install`) when it is
imported, as everything that plays does.  Until then every task is played as CIBench's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ..tasks.model import Task
from ..tasks.vocabulary import Mode


class PlayRules(Protocol):
    """What a benchmark (:class:`cibench_lab.benchmarks.Benchmark`) answers the players."""

    def session(self, player: Any, task: Task, mode: Mode) -> Any | None:
        """A model player's session of ``task`` when the benchmark plays its own loop (None: the
        player's own CIBench session)."""
        ...

    def reference_refusal(self, task: Task) -> str | None:
        """Why the reference player cannot play ``task`` (None: it can)."""
        ...


_resolve: Callable[[Task], PlayRules] | None = None


def install(resolve: Callable[[Task], PlayRules]) -> None:
    """Ask ``resolve(task)`` (the task's benchmark) what differs."""
    global _resolve
    _resolve = resolve


def own_session(player: Any, task: Task, mode: Mode) -> Any | None:
    return None if _resolve is None else _resolve(task).session(player, task, mode)


def reference_refusal(task: Task) -> str | None:
    """Why the reference player cannot play ``task`` (None: it can)."""
    return None if _resolve is None else _resolve(task).reference_refusal(task)
