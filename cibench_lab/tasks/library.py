"""The task library: every task under the configured task directories, by id.

A task directory holds CIBench's official layout::

    <dir>/<split>/<lib>/<stem>.ipynb      e.g. cibench_template/pandas/wine.ipynb
    <dir>/datasources/data/...            files the reference code reads

Task ids are ``<split>/<lib>/<stem>``.  One bad notebook is reported (file,
cell, problem) and skipped; the rest load.  A duplicate id in a later directory
is refused.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from .errors import TaskError
from .format import parse_notebook
from .model import Task

log = logging.getLogger(__name__)


def builtin_dir() -> Path:
    """The built-in tasks shipped in the package."""
    return Path(str(resources.files("cibench_lab"))) / "builtin"


@dataclass
class TaskLibrary:
    """Loaded tasks plus the problems met while loading."""

    tasks: dict[str, Task] = field(default_factory=dict)
    problems: list[TaskError] = field(default_factory=list)

    @classmethod
    def load(cls, dirs: list[Path] | list[str]) -> TaskLibrary:
        lib = cls()
        for d in dirs:
            lib.add_dir(Path(d))
        for p in lib.problems:
            log.warning("cibench-lab: skipped task: %s", p)
        return lib

    def add_dir(self, root: Path) -> None:
        if not root.is_dir():
            self.problems.append(TaskError(str(root), "task directory does not exist"))
            return
        datasources = root / "datasources"
        for nb in sorted(root.glob("*/*/*.ipynb")):
            rel = nb.relative_to(root)
            if rel.parts[0] == "datasources" or ".ipynb_checkpoints" in rel.parts:
                continue
            task_id = f"{rel.parts[0]}/{rel.parts[1]}/{nb.stem}"
            self.add_file(nb, task_id, datasources if datasources.is_dir() else None)

    def add_file(self, path: Path, task_id: str, datasources: Path | None) -> Task | None:
        try:
            if task_id in self.tasks:
                raise TaskError(
                    str(path),
                    f"duplicate task id {task_id!r} (already loaded from {self.tasks[task_id].path})",
                )
            task = parse_notebook(path.read_bytes(), path, task_id, datasources)
            _check_data(task)
        except TaskError as err:
            self.problems.append(err)
            return None
        except OSError as err:
            self.problems.append(TaskError(str(path), f"cannot read: {err.strerror}"))
            return None
        self.tasks[task_id] = task
        return task

    def get(self, task_id: str) -> Task:
        try:
            return self.tasks[task_id]
        except KeyError:
            raise KeyError(f"unknown task {task_id!r}") from None

    def select(self, patterns: list[str] | None) -> list[Task]:
        """Tasks whose id matches any glob pattern (all when none given), in id order."""
        from fnmatch import fnmatchcase

        ids = sorted(self.tasks)
        if patterns:
            ids = [i for i in ids if any(i == p or fnmatchcase(i, p) for p in patterns)]
        return [self.tasks[i] for i in ids]


def _check_data(task: Task) -> None:
    for rel in task.data_files:
        if task.datasources is None or not (task.datasources / rel).is_file():
            raise TaskError(str(task.path), f"data file {rel!r} not found under datasources/")


def user_tasks_dir() -> Path:
    """Where ``tasks import`` puts tasks: ``<jupyter data dir>/cibench_lab/tasks``."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "cibench_lab" / "tasks"


def default_task_dirs() -> list[Path]:
    """The built-in tasks, plus the user's imported tasks when that folder exists."""
    dirs = [builtin_dir()]
    if user_tasks_dir().is_dir():
        dirs.append(user_tasks_dir())
    return dirs
