"""The data a new task carries (``tasks new``): the teacher's ``data/`` folder, as ``data/...``.

The solution reads its files as ``data/<name>`` (relative to the notebook), so each file keeps
that path: in the task directory's shared ``datasources/`` and, through the task's
``data_files``, in every attempt's folder.  A file of the same path that another task of the
directory already uses, with other bytes, is refused (it would change that task's data); a
symbolic link is copied only as the file it names inside the data folder.
"""

from __future__ import annotations

import json
from pathlib import Path

from .archive import DATASOURCES, is_ignored
from .library import task_notebooks
from .solution import Refusal

DATA = "data"


def data_folder(notebook: Path, given: Path | None) -> Path | None:
    """``given``, else the ``data/`` folder beside the notebook (None when there is none)."""
    if given is not None:
        return given
    beside = notebook.parent / DATA
    return beside if beside.is_dir() else None


def data_files(folder: Path | None) -> tuple[dict[str, Path], list[Refusal]]:
    """``data/<rel>`` -> the file, for every file under ``folder`` (editor droppings and hidden
    files aside), and the files refused."""
    if folder is None:
        return {}, []
    if not folder.is_dir():
        return {}, [Refusal(None, f"--data {folder}: not a folder")]
    files, refused = {}, []
    root = folder.resolve()
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if any(is_ignored(part) for part in rel.parts) or path.is_dir():
            continue
        if not path.resolve().is_relative_to(root):
            refused.append(Refusal(None, f"{DATA}/{rel.as_posix()}: a symbolic link out of the data folder"))
        elif path.is_file():
            files[f"{DATA}/{rel.as_posix()}"] = path
    return files, refused


def clashes(files: dict[str, Path], into: Path, task_id: str, shown: str = "") -> list[Refusal]:
    """Files of ``into/datasources`` that the new task would change while another task uses them
    (``into`` named as ``shown`` when given: the lab's answer names no folder of the server's)."""
    changed = [
        rel
        for rel, path in files.items()
        if (into / DATASOURCES / rel).is_file()
        and (into / DATASOURCES / rel).read_bytes() != path.read_bytes()
    ]
    if not changed:
        return []
    users = _users(into, task_id)
    refused = []
    for rel in changed:
        others = sorted(t for t, used in users.items() if used is None or rel in used)
        if others:
            named = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
            message = (
                f"{rel}: {shown or into}/{DATASOURCES}/{rel} is another file of that name, used by {named}; "
                "rename yours (and the solution's path to it)"
            )
            refused.append(Refusal(None, message))
    return refused


def _users(into: Path, task_id: str) -> dict[str, set[str] | None]:
    """Task id -> the data files it lists, for the other tasks of ``into`` (read from metadata
    only); None for a task that lists none (each of its attempts gets all of ``datasources/``)."""
    found: dict[str, set[str] | None] = {}
    for nb in task_notebooks(into) if into.is_dir() else []:
        rel = nb.relative_to(into)
        other = f"{rel.parts[0]}/{rel.parts[1]}/{nb.stem}"
        if other == task_id:
            continue
        try:
            meta = json.loads(nb.read_bytes()).get("metadata") or {}
            listed = (meta.get("cibench_lab") or {}).get("data_files") or []
        except (OSError, ValueError, AttributeError):
            continue
        found[other] = {f for f in listed if isinstance(f, str)} or None
    return found


def copy_files(files: dict[str, Path], dest: Path) -> list[str]:
    """Copy ``files`` under ``dest`` (``dest/data/...``); the ones written (new or changed)."""
    from .importer import _write_if_changed  # whole or not at all (a full disk leaves no half file)

    return [rel for rel, path in files.items() if _write_if_changed(path, dest / rel)]
