"""Tasks of a benchmark of their own, as the generic task code asks about them.

A benchmark whose tasks carry an item of their own (in ``metadata.cibench_lab``) registers a
:class:`TaskKind` when its task module is imported (the notebook reader, :mod:`.format`, imports
every one it detects); the listing and the linter ask :func:`kind_of` instead of testing what a
task is.  A task no kind owns is CIBench's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .model import Task

CIBENCH = "cibench"


class TaskKind(Protocol):
    """What a benchmark's own tasks answer to the generic task code."""

    #: the benchmark's name (the listing's ``benchmark``)
    name: str
    #: whether its tasks hold reference code (the linter reads it; a replay needs it)
    reference_code: bool

    def listing(self, metadata: dict[str, Any]) -> dict[str, Any] | None:
        """The task's own item as the task list shows it (None: not this benchmark's task)."""
        ...


_kinds: list[TaskKind] = []


def register_kind(kind: TaskKind) -> None:
    if all(k.name != kind.name for k in _kinds):
        _kinds.append(kind)


def kind_of(task: Task) -> TaskKind | None:
    """The benchmark of its own ``task`` belongs to (None: a CIBench task)."""
    return next((k for k in _kinds if k.listing(task.metadata) is not None), None)


def listing(task: Task) -> dict[str, Any]:
    """The task list's benchmark columns: ``benchmark`` (whose rules play it) and
    ``benchmark_item``, its own item (None: a CIBench task)."""
    for kind in _kinds:
        item = kind.listing(task.metadata)
        if item is not None:
            return {"benchmark": kind.name, "benchmark_item": item}
    return {"benchmark": CIBENCH, "benchmark_item": None}
