"""Where ``tasks import`` keeps the lint's flags of the tasks it imported.

An imported task stays byte for byte what was imported, so its flags live beside the
rendering sidecar: ``<task dir>/.cibench-lab/lint.json``::

    {"schema_version": 1,
     "tasks": {"cibench_template/pandas/wine": [
         {"cell": 5, "step": 2, "kind": "title", "message": "title set by the reference ..."}]}}

``tasks list`` marks the tasks listed there.  A store that cannot be read is treated as empty.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict
from pathlib import Path

from .lint import LintFlag
from .model import Task

STORE_FOLDER, STORE_NAME = ".cibench-lab", "lint.json"


def store_path(root: Path) -> Path:
    """Where ``tasks import`` keeps the flags of a task directory's tasks (beside the rendering
    sidecar: the notebooks stay byte for byte what was imported)."""
    return Path(root) / STORE_FOLDER / STORE_NAME


def store_flags(root: Path, flags: dict[str, list[LintFlag]]) -> None:
    """Record ``flags`` (task id -> its flags; an empty list forgets the task) in ``root``'s store."""
    path = store_path(root)
    doc = _read_store(path)
    for task_id, found in flags.items():
        rows = [{k: v for k, v in asdict(f).items() if k != "file"} for f in found]
        if rows:
            doc[task_id] = rows
        else:
            doc.pop(task_id, None)
    text = json.dumps({"schema_version": 1, "tasks": dict(sorted(doc.items()))}, indent=1, ensure_ascii=False)
    if not doc and not path.exists():
        return
    if path.exists() and path.read_text(encoding="utf-8") == text + "\n":
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".lint-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_store(path: Path) -> dict[str, list[dict]]:
    try:
        tasks = json.loads(path.read_text(encoding="utf-8"))["tasks"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return tasks if isinstance(tasks, dict) else {}


def stored_flags(task: Task) -> list[LintFlag] | None:
    """The flags ``tasks import`` stored for ``task`` (None: none stored, or not an imported task)."""
    rows = _read_store(store_path(task.path.parents[2])).get(task.id) if len(task.path.parents) > 2 else None
    if not isinstance(rows, list):
        return None
    try:
        return [LintFlag(file=str(task.path), **row) for row in rows]
    except TypeError:
        return None
