"""``tasks import``: the official CIBench zip or folder into a task directory.

Every notebook of the three splits is loaded and validated first; only tasks
that load are copied (byte for byte), with ``datasources/`` merged in.  Running
the same import again changes nothing (files whose bytes already match are left
alone), so it is idempotent.  A task whose id is already served by another task
directory (the built-in set, say) is rejected, as the library would refuse it.

Each imported task is linted (:mod:`cibench_lab.tasks.lint`): an import only warns, and
keeps the flags in ``<task dir>/.cibench-lab/lint.json`` (``tasks list`` marks the flagged
tasks); the task imports and plays unchanged.

Each file is written whole or not at all (a temporary file renamed into place), the data before
the notebooks: an import a full disk stops leaves no half-written file and no task without its data.

Nothing from outside the source is imported: a symbolic link is followed only when
it is a file link whose target lies inside the source (its bytes are copied); a
link leading out of it, or to a folder, is rejected by name.  Otherwise a link to
``/etc/passwd`` in ``datasources/`` would be copied into the task directory and from
there into every attempt's folder.

Qwen's Code Interpreter Benchmark (a ``.jsonl`` file, or a folder of them with
``upload_file_clean/``) is imported by :mod:`cibench_lab.tasks.qwenimport`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import sidecar
from .archive import DATASOURCES, find_root, has_layout, is_ignored, unpack
from .errors import TaskError
from .library import TaskLibrary, task_notebooks
from .lint import LintFlag, lint_task
from .lintstore import store_flags
from .rendering import TaskRendering


@dataclass
class ImportReport:
    imported: list[str] = field(default_factory=list)  # new task ids
    updated: list[str] = field(default_factory=list)  # ids whose notebook changed
    unchanged: list[str] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (file, why)
    data_files: int = 0  # datasources files written (new or changed)
    lint: dict[str, list[LintFlag]] = field(default_factory=dict)  # task id -> its flags (flagged only)
    #: the imported tasks whose rendering no `tasks verify` confirmed yet, with what was detected
    unverified: dict[str, TaskRendering] = field(default_factory=dict)


def _write_if_changed(src: Path | bytes, dest: Path) -> bool:
    data = src if isinstance(src, bytes) else src.read_bytes()
    if dest.is_file() and dest.read_bytes() == data:
        return False
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".import-", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, dest)
    except OSError as err:  # a full disk, say: no half-written file stays, and the error names it
        Path(tmp).unlink(missing_ok=True)
        raise OSError(err.errno, err.strerror, str(dest)) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True


def refused_link(path: Path, source: Path) -> str | None:
    """Why ``path`` may not be imported from ``source``: a link to a folder or out of it."""
    if path.is_symlink() and path.is_dir():
        return "a symbolic link to a folder: not followed (copy the folder in instead)"
    if not _inside(path, source):
        return f"a symbolic link leading out of the import source (to {path.resolve()}): not imported"
    return None


def _copy_datasources(root: Path, into: Path, source: Path, report: ImportReport) -> int:
    src = root / DATASOURCES
    if not src.is_dir():
        return 0
    why = refused_link(src, source)
    if why is not None:
        report.rejected.append((str(src), why))
        return 0
    written = 0
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        if any(is_ignored(p) for p in rel.parts):
            continue
        why = refused_link(path, source)
        if why is not None:
            report.rejected.append((str(path), why))
        elif path.is_file():
            written += _write_if_changed(path, into / DATASOURCES / rel)
    return written


def _notebooks(root: Path, source: Path, report: ImportReport) -> list[Path]:
    """The task notebooks under ``root`` that may be imported (no links out of ``source``)."""
    keep = []
    for nb in task_notebooks(root):
        why = refused_link(nb, source)
        if why is None:
            keep.append(nb)
        else:
            report.rejected.append((str(nb), why))
    return keep


def _import_root(root: Path, into: Path, served: TaskLibrary, source: Path) -> ImportReport:
    report = ImportReport()
    notebooks = _notebooks(root, source, report)
    lib = TaskLibrary()
    lib.add_dir(root, notebooks)
    report.data_files = _copy_datasources(root, into, source, report)  # first: no task without its data
    for p in lib.problems:
        report.rejected.append((p.path, p.problem if p.cell is None else f"cell {p.cell}: {p.problem}"))
    for nb in notebooks:
        rel = nb.relative_to(root)
        task_id = f"{rel.parts[0]}/{rel.parts[1]}/{nb.stem}"
        if task_id not in lib.tasks:
            continue
        other = served.tasks.get(task_id)
        if other is not None and not _inside(other.path, into):
            report.rejected.append((str(nb), f"task id {task_id!r} is already served from {other.path}"))
            continue
        dest = into / rel
        existed = dest.is_file()
        if not _write_if_changed(nb, dest):
            report.unchanged.append(task_id)
        else:
            (report.updated if existed else report.imported).append(task_id)
    _record_renderings(into, lib, report)
    _lint(root, into, lib, report)
    return report


def _lint(root: Path, into: Path, lib: TaskLibrary, report: ImportReport) -> None:
    """Lint each imported task and keep its flags in ``<into>/.cibench-lab/lint.json``: an import
    only warns, so the official dataset imports and plays unchanged, and the flags stay visible."""
    flags = {}
    for task_id in report.imported + report.updated + report.unchanged:
        task = lib.tasks[task_id]
        flags[task_id] = lint_task(replace(task, path=into / task.path.relative_to(root)))
    report.lint = {task_id: found for task_id, found in flags.items() if found}
    store_flags(into, flags)


def _record_renderings(into: Path, lib: TaskLibrary, report: ImportReport) -> None:
    """Each imported task's detected rendering into the sidecar (the notebooks stay as they were);
    a confirmed entry of a notebook that did not change is kept."""
    recorded = sidecar.read(into)
    fresh = {}
    for task_id in report.imported + report.updated + report.unchanged:
        detected = lib.tasks[task_id].rendering
        if detected.basis == "declared":
            continue
        kept = recorded.get(task_id)
        if task_id in report.unchanged and kept is not None and kept.verified:
            continue
        fresh[task_id] = detected
        if detected.needs_verify:
            report.unverified[task_id] = detected
    if fresh:
        sidecar.update(into, fresh)


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True


def _is_qwen(source: Path) -> bool:
    """Qwen's Code Interpreter Benchmark (its JSONL files, ``upload_file_clean/``), not CIBench."""
    from .qwenimport import is_qwen_source

    return is_qwen_source(source) and not (source.is_dir() and has_layout(source))


def import_tasks(source: Path, into: Path, served: TaskLibrary | None = None) -> ImportReport:
    """Import the zip or folder ``source`` into ``into``; ``served`` = tasks already served elsewhere."""
    served = served or TaskLibrary()
    if _is_qwen(source):
        from .qwenimport import import_qwen  # it builds on this module's helpers

        return import_qwen(source, into, served)
    if source.is_file() and source.suffix == ".zip":
        with tempfile.TemporaryDirectory(prefix="cibench-import-") as tmp:
            return _import_root(unpack(source, Path(tmp)), into, served, Path(tmp))
    if source.is_file() and source.suffix == ".ipynb":
        raise TaskError(str(source), "import takes the official zip or a folder holding its splits")
    if not source.is_dir():
        raise TaskError(str(source), "no such file or folder")
    return _import_root(find_root(source), into, served, source)


def remove_empty(into: Path) -> None:
    """Tidy a task directory an import wrote nothing into."""
    if into.is_dir() and not any(into.iterdir()):
        shutil.rmtree(into, ignore_errors=True)
