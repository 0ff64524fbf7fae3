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

``tasks verify`` also records the figure structure of each reference plot that was
recorded without one (an official notebook), so that the ``fair`` profile grades its plots
structurally: :mod:`.reference_figures` keeps them in ``.cibench-lab/figures/`` beside this
file, with the same fallback, atomic writes and helpers.
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


def dir_digest(root: Path) -> str:
    """The name a task directory's sidecars get in the user's data dir: a hash of its path."""
    return hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:16]


def data_dir(kind: str) -> Path:
    """``<jupyter data dir>/cibench_lab/<kind>``: where sidecars of read-only task dirs go."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "cibench_lab" / kind


def in_data_dir(root: Path) -> Path:
    return data_dir("rendering") / f"{dir_digest(root)}.json"


def _entry(task_id: str, value: object, where: str) -> TaskRendering:
    if not isinstance(value, dict):
        raise RenderingError(f"{where}: tasks.{task_id}: expected an object")
    rendering = from_record(value, f"{where}: tasks.{task_id}")
    basis = value.get("basis", "sidecar")
    if basis not in BASES:
        raise RenderingError(f"{where}: tasks.{task_id}.basis: expected one of {', '.join(BASES)}")
    return TaskRendering(rendering, basis, bool(value.get("verified")), str(value.get("detail", "")))


def read_json(path: Path, what: str, max_bytes: int | None = None) -> dict | None:
    """The object in sidecar ``path`` with a ``tasks`` object, or None (absent, or unreadable:
    then reported as the ``what`` sidecar, never raised)."""
    try:
        if max_bytes is not None and path.stat().st_size > max_bytes:
            raise ValueError(f"larger than {max_bytes:,} bytes")
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError) as err:
        log.warning("cibench-lab: %s sidecar %s not read: %s", what, path, err)
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("tasks"), dict):
        log.warning("cibench-lab: %s sidecar %s not read: no 'tasks' object", what, path)
        return None
    return doc


def _read_one(path: Path) -> dict[str, TaskRendering]:
    doc = read_json(path, "rendering")
    if doc is None:
        return {}
    tasks = doc["tasks"]
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


def write_atomic(path: Path, text: str) -> None:
    """``text`` into ``path`` whole or not at all (a temporary file renamed over it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", dir=path.parent)
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
    return write_either(in_dir(root), in_data_dir(root), _as_json(merged))


def write_either(target: Path, fallback: Path, text: str) -> Path:
    """``text`` into ``target`` (in the task directory), or into ``fallback`` (in the data dir)
    when that cannot be written; returns the file written."""
    try:
        write_atomic(target, text)
    except OSError:
        write_atomic(fallback, text)  # an OSError here names the data dir's file
        return fallback
    if fallback.is_file():  # the directory is writable again: one record only
        fallback.unlink(missing_ok=True)
    return target
