"""The one error type the task loader raises."""

from __future__ import annotations


class TaskError(ValueError):
    """A task file that cannot be used, with where and why.

    ``str(error)`` reads ``<file>: cell <n>: <problem>`` (cell omitted when the
    problem concerns the whole file).
    """

    def __init__(self, path: str, problem: str, cell: int | None = None):
        self.path = str(path)
        self.problem = problem
        self.cell = cell
        where = f"{self.path}: cell {cell}" if cell is not None else self.path
        super().__init__(f"{where}: {problem}")
