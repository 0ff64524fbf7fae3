"""The task library: every task under the configured task directories, by id.

A task directory holds CIBench's official layout::

    <dir>/<split>/<lib>/<stem>.ipynb      e.g. cibench_template/pandas/wine.ipynb
    <dir>/datasources/data/...            files the reference code reads

Task ids are ``<split>/<lib>/<stem>``; split folders are the ``cibench_*``
ones and ``classroom`` (tasks made from a teacher's notebook: ``tasks new``).  A task
source may also be the official zip (unpacked once into a cache)
or a single notebook (its id taken from its last two folders).  Editor
droppings (``.ipynb_checkpoints``, hidden folders, ``__MACOSX``) are ignored.
One bad notebook is reported (file, cell, problem) and skipped; the rest load.
A duplicate id in a later directory is refused.

Every task directory but the built-in one is watched: :meth:`TaskLibrary.rescan` loads the
notebooks written or changed since (``tasks new`` or ``tasks import`` while a server runs),
comparing each notebook's modification time and size, at most once every few seconds.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from . import sidecar
from .archive import DATASOURCES, cached_unpack, find_root, is_ignored
from .errors import TaskError
from .format import parse_notebook
from .model import Task
from .reference_figures import with_recorded_figures
from .rendering import TaskRendering, from_record

log = logging.getLogger(__name__)


def builtin_dir() -> Path:
    """The built-in tasks shipped in the package."""
    return Path(str(resources.files("cibench_lab"))) / "builtin"


#: Split folders are named like the official ones (cibench_template, cibench_generation, ...), or
#: ``classroom`` (:data:`CLASSROOM`); other folders (datasources/, templates/, ...) hold no tasks.
SPLIT_PREFIX = "cibench_"
#: The split of the tasks ``tasks new`` makes from a teacher's own solution notebook.
CLASSROOM = "classroom"


def is_split(name: str) -> bool:
    """A folder of a task directory that holds tasks (``cibench_*`` or ``classroom``)."""
    return name.startswith(SPLIT_PREFIX) or name == CLASSROOM


def task_notebooks(root: Path) -> list[Path]:
    """``root/<split>/<lib>/*.ipynb`` (:func:`is_split`) in id order, without editor droppings."""
    found = []
    for nb in root.glob("*/*/*.ipynb"):
        rel = nb.relative_to(root)
        if not is_split(rel.parts[0]) or any(is_ignored(p) for p in rel.parts):
            continue
        if nb.is_file():
            found.append(nb)
    return sorted(found, key=lambda p: p.relative_to(root).parts)


#: Seconds between two rescans of a library's watched directories (:meth:`TaskLibrary.rescan`).
RESCAN_INTERVAL = 3.0
#: A notebook's version as a rescan compares it: modification time (ns) and size.
Stamp = tuple[int, int]


@dataclass
class TaskLibrary:
    """Loaded tasks plus the problems met while loading, and the directories it watches."""

    tasks: dict[str, Task] = field(default_factory=dict)
    problems: list[TaskError] = field(default_factory=list)
    rescan_interval: float = RESCAN_INTERVAL
    #: watched root -> the stamp of each of its notebooks as last loaded (or refused)
    _watched: dict[Path, dict[Path, Stamp]] = field(default_factory=dict, init=False, repr=False)
    _scanned: float = field(default=float("-inf"), init=False, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)
    #: (task id, content hash) -> a version a rescan or refresh replaced (:meth:`version`)
    _earlier: dict[tuple[str, str], Task] = field(default_factory=dict, init=False, repr=False)

    @classmethod
    def load(cls, dirs: list[Path] | list[str]) -> TaskLibrary:
        lib = cls()
        for d in dirs:
            lib.add_path(Path(d))
        for p in lib.problems:
            log.warning("cibench-lab: skipped task: %s", p)
        return lib

    def add_path(self, path: Path) -> None:
        """A task directory, an official zip, or a single notebook; a directory other than the
        built-in one is watched (:meth:`rescan`)."""
        notebooks = None
        try:
            if path.is_file() and path.suffix == ".zip":
                path = cached_unpack(path, zip_cache_dir())
            elif path.is_file() and path.suffix == ".ipynb":
                self.add_notebook(path)
                return
            elif path.is_dir():
                # A plain task dir (any split names) is taken as is; otherwise look one level down.
                notebooks = task_notebooks(path)
                if not notebooks and not (path / DATASOURCES).is_dir() and any(path.iterdir()):
                    path, notebooks = find_root(path), None
                if path.resolve() not in (builtin_dir().resolve(), *self._watched):
                    self._watch(path)
                    return
        except TaskError as err:
            self.problems.append(err)
            return
        self.add_dir(path, notebooks)

    def add_dir(self, root: Path, notebooks: list[Path] | None = None) -> None:
        """The tasks under ``root`` (``notebooks``: its :func:`task_notebooks`, when known)."""
        if not root.is_dir():
            self.problems.append(TaskError(str(root), "task directory does not exist"))
            return
        datasources = root / DATASOURCES
        renderings = recorded_renderings(root)
        for nb in task_notebooks(root) if notebooks is None else notebooks:
            self.add_file(nb, _task_id(root, nb), datasources if datasources.is_dir() else None, renderings)

    def add_notebook(self, path: Path) -> Task | None:
        """One notebook on its own: id ``<parent of parent>/<parent>/<stem>``."""
        path = path.resolve()
        split, lib = path.parent.parent.name or "notebooks", path.parent.name or "local"
        root = path.parent.parent.parent
        datasources = root / DATASOURCES
        task_id = f"{split}/{lib}/{path.stem}"
        return self.add_file(
            path, task_id, datasources if datasources.is_dir() else None, recorded_renderings(root)
        )

    def add_file(
        self,
        path: Path,
        task_id: str,
        datasources: Path | None,
        renderings: dict[str, TaskRendering] | None = None,
    ) -> Task | None:
        """One notebook as task ``task_id``; ``renderings``: its directory's recorded ones.  The
        reference figure structures ``tasks verify`` recorded for it are attached to its steps."""
        try:
            if task_id in self.tasks:
                raise TaskError(
                    str(path),
                    f"duplicate task id {task_id!r} (already loaded from {self.tasks[task_id].path})",
                )
            task = parse_notebook(path.read_bytes(), path, task_id, datasources)
            _check_data(task)
            task = with_recorded_figures(with_recorded_rendering(task, renderings or {}))
        except TaskError as err:
            self.problems.append(err)
            return None
        except OSError as err:
            self.problems.append(TaskError(str(path), f"cannot read: {err.strerror}"))
            return None
        self.tasks[task_id] = task
        return task

    def watch(self, root: Path) -> None:
        """Serve task directory ``root`` (CIBench's layout, as it is: it may not exist yet) and
        keep it rescanned; its problems are logged."""
        problems = len(self.problems)
        self._watch(root)
        for p in self.problems[problems:]:
            log.warning("cibench-lab: skipped task: %s", p)

    def _watch(self, root: Path) -> None:
        root = root.resolve()
        if root not in self._watched:
            self._watched[root] = {}
            self._apply(*self._scan(root))

    def rescan(self) -> list[str]:
        """Load the watched directories' new and changed notebooks, at most once every
        ``rescan_interval`` seconds (a call meanwhile, or during another rescan, does nothing);
        returns the ids loaded. A task whose notebook is gone, or no longer loads, stays as it
        was (an attempt may still reference it); a problem is logged once per version of its
        notebook."""
        now = time.monotonic()
        if now - self._scanned < self.rescan_interval or not self._lock.acquire(blocking=False):
            return []
        found: list[str] = []
        problems = len(self.problems)
        try:
            self._scanned = now
            for root in list(self._watched):
                tasks, refused = self._scan(root)
                self._apply(tasks, refused)
                found += tasks
        finally:
            self._lock.release()
        for p in self.problems[problems:]:
            log.warning("cibench-lab: skipped task: %s", p)
        return sorted(found)

    def _scan(self, root: Path) -> tuple[dict[str, Task], list[TaskError]]:
        """The tasks of ``root``'s notebooks that are new or changed since its last scan, and
        the problems of those that do not load (a task id loaded from another notebook among
        them: refused as a duplicate)."""
        seen = self._watched[root]
        current = {nb: _stamp(nb) for nb in task_notebooks(root)} if root.is_dir() else {}
        fresh = {nb: stamp for nb, stamp in current.items() if stamp is not None and seen.get(nb) != stamp}
        one = TaskLibrary()
        if not fresh:
            return one.tasks, one.problems
        datasources = root / DATASOURCES if (root / DATASOURCES).is_dir() else None
        renderings = recorded_renderings(root)
        for nb, stamp in fresh.items():
            seen[nb] = stamp
            task_id = _task_id(root, nb)
            loaded = self.tasks.get(task_id)
            if loaded is not None and loaded.path != nb:
                why = f"duplicate task id {task_id!r} (already loaded from {loaded.path})"
                one.problems.append(TaskError(str(nb), why))
                continue
            one.add_file(nb, task_id, datasources, renderings)
        return one.tasks, one.problems

    def _apply(self, tasks: dict[str, Task], problems: list[TaskError]) -> None:
        """Add (or replace) ``tasks`` in a new dict, so a reader iterating the old one is safe; a
        replaced version is kept for the attempts begun on it (:meth:`version`)."""
        for task_id, task in tasks.items():
            old = self.tasks.get(task_id)
            if old is not None and old.content_hash != task.content_hash:
                self._earlier[(task_id, old.content_hash)] = old
        if tasks:
            self.tasks = {**self.tasks, **tasks}
        self.problems += problems

    def version(self, task_id: str, content_hash: str) -> Task:
        """Task ``task_id`` as it was when an attempt began on it (its ``content_hash``): a task
        changed while the server runs (a teacher's ``tasks new`` again) keeps playing, for the
        attempts already open, the steps they started with; the loaded version otherwise (a
        version from before the server started is not kept). KeyError when the id is unknown."""
        task = self.get(task_id)
        if task.content_hash == content_hash:
            return task
        return self._earlier.get((task_id, content_hash), task)

    def refresh(self, root: Path, task_id: str) -> Task | None:
        """(Re)load task ``task_id`` of task directory ``root``, written since the library loaded
        (``tasks new`` in the lab): it replaces the loaded one at once (None, and the problem
        kept, when it does not load)."""
        split, lib, stem = task_id.split("/")
        fresh = TaskLibrary()
        datasources = root / DATASOURCES
        path = root / split / lib / f"{stem}.ipynb"
        task = fresh.add_file(
            path, task_id, datasources if datasources.is_dir() else None, recorded_renderings(root)
        )
        if task is None:
            self.problems += fresh.problems
            return None
        stamp = _stamp(path)
        watched = self._watched.get(root.resolve())
        if watched is not None and stamp is not None:
            watched[path.resolve()] = stamp  # loaded: the next rescan skips it
        self._apply({task_id: task}, [])
        return task

    def find(self, task_id: str) -> Task | None:
        """Task ``task_id``, or None; an id not loaded rescans first (a task made since)."""
        task = self.tasks.get(task_id)
        if task is None and self.rescan():
            task = self.tasks.get(task_id)
        return task

    def get(self, task_id: str) -> Task:
        """Task ``task_id`` (:meth:`find`); KeyError naming it when there is none."""
        task = self.find(task_id)
        if task is None:
            raise KeyError(f"unknown task {task_id!r}")
        return task

    def select(self, patterns: list[str] | None) -> list[Task]:
        """Tasks whose id matches any glob pattern (all when none given), in id order."""
        from fnmatch import fnmatchcase

        tasks = self.tasks  # one dict, whatever a rescan swaps in meanwhile
        ids = sorted(tasks)
        if patterns:
            ids = [i for i in ids if any(i == p or fnmatchcase(i, p) for p in patterns)]
        return [tasks[i] for i in ids]


def _task_id(root: Path, nb: Path) -> str:
    """``<split>/<lib>/<stem>`` of notebook ``nb`` of task directory ``root``."""
    rel = nb.relative_to(root)
    return f"{rel.parts[0]}/{rel.parts[1]}/{nb.stem}"


def _stamp(nb: Path) -> Stamp | None:
    """The notebook's modification time and size (None: it is gone)."""
    try:
        st = nb.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def recorded_renderings(root: Path) -> dict[str, TaskRendering]:
    """The renderings recorded for ``root``'s tasks: its sidecar, and for the built-in set its
    declared default (under the key ``"*"``)."""
    found = sidecar.read(root) if root.is_dir() else {}
    if root.resolve() == builtin_dir().resolve():
        from cibench_lab.builtin import RENDERING

        found["*"] = TaskRendering(from_record(RENDERING, "cibench_lab.builtin.RENDERING"), "declared")
    return found


def with_recorded_rendering(task: Task, renderings: dict[str, TaskRendering]) -> Task:
    """``task`` with its recorded rendering, unless its notebook declares one."""
    if task.rendering.basis == "declared":
        return task
    recorded = renderings.get(task.id) or renderings.get("*")
    return task if recorded is None else dataclasses.replace(task, rendering=recorded)


def _check_data(task: Task) -> None:
    for rel in task.data_files:
        if task.datasources is None or not (task.datasources / rel).is_file():
            raise TaskError(str(task.path), f"data file {rel!r} not found under datasources/")


def user_tasks_dir() -> Path:
    """Where ``tasks import`` puts tasks: ``<jupyter data dir>/cibench_lab/tasks``."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "cibench_lab" / "tasks"


def zip_cache_dir() -> Path:
    """Where task zips named as task directories are unpacked (once per content)."""
    return user_tasks_dir().parent / "zip-cache"


def default_task_dirs() -> list[Path]:
    """The built-in tasks, plus the user's imported tasks when that folder exists."""
    dirs = [builtin_dir()]
    if user_tasks_dir().is_dir():
        dirs.append(user_tasks_dir())
    return dirs
