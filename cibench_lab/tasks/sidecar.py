"""The rendering sidecar: task renderings recorded beside notebooks we must not change.

Official CIBench notebooks carry no ``metadata.cibench_lab``, and an imported task stays
byte for byte what was imported; so ``tasks import`` records each task's detected rendering
in ``<task dir>/.cibench-lab/rendering.json`` and ``tasks verify`` marks it confirmed (or
records the preset that verifies)::

    {"schema_version": 1,
     "tasks": {"cibench_template/pandas/wine": {"preset": "stock", "dpi": 100,
                                                "basis": "pHYs", "verified": true,
                                                "detail": "3 of 3 PNGs at 100 dpi, ..."}}}

The key ``"*"`` (optional) is the directory's default for tasks not listed.  A task
directory that cannot be written (a read-only mount) gets its sidecar in the user's
data dir instead: ``<jupyter data dir>/cibench_lab/rendering/<hash of the dir's path>.json``;
both are read, that one last.  A sidecar that cannot be read is reported, never fatal: its
tasks fall back to detection.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

from .rendering import BASES, RenderingError, TaskRendering, from_record

log = logging.getLogger(__name__)

FOLDER = ".cibench-lab"
NAME = "rendering.json"


def in_dir(root: Path) -> Path:
    return Path(root) / FOLDER / NAME


def in_data_dir(root: Path) -> Path:
    from jupyter_core.paths import jupyter_data_dir

    digest = hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:16]
    return Path(jupyter_data_dir()) / "cibench_lab" / "rendering" / f"{digest}.json"


def _entry(task_id: str, value: object, where: str) -> TaskRendering:
    if not isinstance(value, dict):
        raise RenderingError(f"{where}: tasks.{task_id}: expected an object")
    rendering = from_record(value, f"{where}: tasks.{task_id}")
    basis = value.get("basis", "sidecar")
    if basis not in BASES:
        raise RenderingError(f"{where}: tasks.{task_id}.basis: expected one of {', '.join(BASES)}")
    return TaskRendering(rendering, basis, bool(value.get("verified")), str(value.get("detail", "")))


def _read_one(path: Path) -> dict[str, TaskRendering]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as err:
        log.warning("cibench-lab: rendering sidecar %s not read: %s", path, err)
        return {}
    tasks = doc.get("tasks") if isinstance(doc, dict) else None
    if not isinstance(tasks, dict):
        log.warning("cibench-lab: rendering sidecar %s not read: no 'tasks' object", path)
        return {}
    found = {}
    for task_id, value in tasks.items():
        try:
            found[task_id] = _entry(task_id, value, str(path))
        except RenderingError as err:
            log.warning("cibench-lab: rendering sidecar entry skipped: %s", err)
    return found


def read(root: Path) -> dict[str, TaskRendering]:
    """The renderings recorded for the tasks of task directory ``root``, by task id."""
    return {**_read_one(in_dir(root)), **_read_one(in_data_dir(root))}


def _as_json(entries: dict[str, TaskRendering]) -> str:
    tasks = {
        task_id: {**r.rendering.record(), "basis": r.basis, "verified": r.verified, "detail": r.detail}
        for task_id, r in sorted(entries.items())
    }
    return json.dumps({"schema_version": 1, "tasks": tasks}, indent=1, ensure_ascii=False) + "\n"


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".rendering-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def update(root: Path, entries: dict[str, TaskRendering]) -> Path:
    """Record ``entries`` (merged over what is recorded) for ``root``; returns the file written:
    the task directory's sidecar, or the data dir's when the directory cannot be written."""
    merged = {**read(root), **entries}
    target = in_dir(root)
    try:
        _write_atomic(target, _as_json(merged))
    except OSError:
        target = in_data_dir(root)
        _write_atomic(target, _as_json(merged))  # an OSError here names the data dir's file
        return target
    stale = in_data_dir(root)
    if stale.is_file():  # the directory is writable again: one record only
        stale.unlink(missing_ok=True)
    return target
