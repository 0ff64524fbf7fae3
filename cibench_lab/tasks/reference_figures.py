"""Reference figure structures recorded beside notebooks we must not change.

The ``fair`` profile grades a plot on what the figure shows: the turn's figure structure
(``FIGURE_MIME``) against the one in the reference cell's output.  A built task recorded it
when it was built; an imported official notebook was made without it.  ``tasks verify``
re-runs such a task's references in our kernel, and for each vis step that did not drift
records the fresh structure in ``<task dir>/.cibench-lab/figures/<task id>.json``::

    {"schema_version": 1,
     "tasks": {"cibench_template/pandas/wine": {"content_hash": "<sha256 of the notebook>",
                                                "steps": {"2": {<figure structure>}}}}}

(steps 0-based).  The loader attaches each to its step (:func:`attach`) — a copy of the
reference's image output with the structure added — only while the notebook's content hash
is the recorded one: an edited notebook is graded by SSIM again until it is verified again.
A structure recorded before shown images were captured (an axes drawing an image without its
``shown`` raster) counts as none: verify records a fresh one, which replaces it.
Like the rendering sidecar (:mod:`.sidecar`, whose helpers this uses), a task directory that
cannot be written gets its files in ``<jupyter data dir>/cibench_lab/figures/<hash of the
dir's path>/``, both are read (that one last), and a file that cannot be read is reported,
never fatal.  The structures come from task code: what is read is bounded here (file size,
``FIGURE_MAX_BYTES`` per structure) and checked against the figure schema by the grader
that reads it; what is written was validated by ``tasks verify``.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path
from typing import Any

from . import sidecar
from .model import Step, Task
from .plot import FIGURE_MAX_BYTES, FIGURE_MIME

log = logging.getLogger(__name__)

#: A task's file holds one structure per vis step: bounded by this many structures' worth.
MAX_FILE_BYTES = 32 * FIGURE_MAX_BYTES


def in_dir(root: Path, task_id: str) -> Path:
    return Path(root) / sidecar.FOLDER / "figures" / f"{task_id}.json"


def in_data_dir(root: Path, task_id: str) -> Path:
    return sidecar.data_dir("figures") / sidecar.dir_digest(root) / f"{task_id}.json"


def image_output(outputs: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> int | None:
    """The index of the output holding a cell's image (the first display_data with a PNG)."""
    for i, out in enumerate(outputs):
        if out.get("output_type") == "display_data" and "image/png" in (out.get("data") or {}):
            return i
    return None


def _entry(value: Any, where: str) -> tuple[str, dict[int, dict]]:
    if not isinstance(value, dict) or not isinstance(value.get("content_hash"), str):
        raise ValueError(f"{where}: expected an object with a content_hash")
    steps = value.get("steps")
    if not isinstance(steps, dict):
        raise ValueError(f"{where}.steps: expected an object")
    found = {}
    for key, bundle in steps.items():
        if not key.isdigit() or not isinstance(bundle, dict):
            raise ValueError(f"{where}.steps.{key}: expected a step number and a figure object")
        if len(json.dumps(bundle)) > FIGURE_MAX_BYTES:
            raise ValueError(f"{where}.steps.{key}: larger than {FIGURE_MAX_BYTES:,} bytes")
        found[int(key)] = bundle
    return value["content_hash"], found


def _read_one(path: Path, task_id: str) -> tuple[str, dict[int, dict]] | None:
    doc = sidecar.read_json(path, "reference figure", MAX_FILE_BYTES)
    if doc is None or task_id not in doc["tasks"]:
        return None
    try:
        return _entry(doc["tasks"][task_id], f"{path}: tasks.{task_id}")
    except (ValueError, TypeError, RecursionError) as err:
        log.warning("cibench-lab: reference figure sidecar entry skipped: %s", err)
        return None


def read(root: Path, task_id: str, content_hash: str) -> dict[int, dict]:
    """The structures recorded for ``task_id`` of ``root`` while its notebook hashed to
    ``content_hash``, by 0-based step (a data dir's file over the directory's)."""
    found: dict[int, dict] = {}
    for path in (in_dir(root, task_id), in_data_dir(root, task_id)):
        entry = _read_one(path, task_id)
        if entry is not None and entry[0] == content_hash:
            found.update(entry[1])
    return found


def record(root: Path, task_id: str, content_hash: str, figures: dict[int, dict]) -> Path:
    """Record ``figures`` (by 0-based step; merged over what is recorded for the same notebook
    content) for ``task_id`` of ``root``; returns the file written."""
    merged = {**read(root, task_id, content_hash), **figures}
    steps = {str(i): merged[i] for i in sorted(merged)}
    doc = {"schema_version": 1, "tasks": {task_id: {"content_hash": content_hash, "steps": steps}}}
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n"
    return sidecar.write_either(in_dir(root, task_id), in_data_dir(root, task_id), text)


def has_structure(step: Step) -> bool:
    """Whether the reference's image output carries a current figure structure (:func:`current`)."""
    i = image_output(step.outputs)
    return i is not None and current((step.outputs[i].get("data") or {}).get(FIGURE_MIME))


def current(bundle: Any) -> bool:
    """A structure captured as today: every axes that draws an image carries its ``shown`` raster (one
    recorded before shown images were captured is replaced by what ``tasks verify`` records)."""
    if not isinstance(bundle, dict):
        return False
    for ax in bundle.get("axes") or []:
        artists = ax.get("artists") if isinstance(ax, dict) else None
        if not isinstance(artists, list) or ax.get("kind") == "colorbar" or "shown" in ax:
            continue
        if any(isinstance(a, dict) and a.get("type") == "image" for a in artists):
            return False
    return True


def attach(task: Task, figures: dict[int, dict]) -> Task:
    """``task`` with each recorded structure added to its vis step's image output (steps whose
    reference has a structure of its own, or no image, are left as they are)."""
    steps = list(task.steps)
    for index, bundle in figures.items():
        if index >= len(steps) or steps[index].kind != "vis" or has_structure(steps[index]):
            continue
        step = steps[index]
        i = image_output(step.outputs)
        if i is None:
            continue
        out = step.outputs[i]
        shown = {**out, "data": {**out["data"], FIGURE_MIME: bundle}}
        outputs = step.outputs[:i] + (shown,) + step.outputs[i + 1 :]
        steps[index] = dataclasses.replace(step, outputs=outputs)
    return dataclasses.replace(task, steps=tuple(steps))


def with_recorded_figures(task: Task) -> Task:
    """``task`` with the structures recorded for its current content (none: as it is)."""
    if not any(s.kind == "vis" and not has_structure(s) for s in task.steps):
        return task
    root = task.path.resolve().parent.parent.parent
    figures = read(root, task.id, task.content_hash)
    return attach(task, figures) if figures else task
