"""An attempt's folder: a private copy of the task's data and its notebook.

A folder that cannot be written is said in one line naming it and the fix
(:func:`unwritable`); the server checks its attempts folder when it starts
(:func:`check_writable`).  Data files are copied from inside the task's
``datasources/`` only: a symbolic link leading out of it is skipped (and logged).
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import tempfile
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from ..errors import Forbidden, Unwritable
from ..kernels.spec import KERNEL_NAME
from ..tasks.links import LinkRefused, write_no_link
from ..tasks.model import Step, Task
from ..tasks.vocabulary import Mode

NB_KEY = "cibench_lab_attempt"  # notebook metadata naming the attempt
CELL_KEY = "cibench_lab"  # cell metadata: {"role": title|instruction|answer|oracle, "step": n}
FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)

log = logging.getLogger(__name__)
T = TypeVar("T")


def unwritable(err: OSError, what: str, setting: str) -> str:
    """One line: ``what`` cannot be written, the system's reason, and the fix."""
    reason = err.strerror or type(err).__name__
    if err.errno in FULL:
        fix = "free space on its disk"
    else:
        fix = f"make it writable or set {setting} to a writable folder"
    return f"cannot write {what}: {reason}; {fix}"


async def written(rel: Path, work: Awaitable[T]) -> T:
    """Await file work in the attempt folder ``rel`` (relative to the server root); a folder that
    cannot be written is :class:`.errors.Unwritable`, a link there :class:`.errors.Forbidden`, in one line."""
    try:
        return await work
    except LinkRefused as err:
        raise Forbidden(f"the attempt folder {rel.as_posix()}: {err}") from None
    except OSError as err:
        what = f"the attempt folder {rel.as_posix()}"
        raise Unwritable(unwritable(err, what, "CIBenchLabApp.attempts_dir")) from None


def check_writable(folder: Path) -> None:
    """OSError unless a file can be made in ``folder`` (or, while it does not exist yet, in its
    nearest existing parent, where it would be made)."""
    target = folder
    while not target.exists() and target != target.parent:
        target = target.parent
    if not target.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(target))
    with tempfile.TemporaryFile(dir=target, prefix=".cibench-lab-probe-"):
        pass


def _leaves(path: Path, source: Path) -> bool:
    """True (and logged) when ``path`` resolves outside ``source``: it is not copied."""
    if path.resolve().is_relative_to(source.resolve()):
        return False
    log.warning("cibench-lab: not copying %s: a link out of %s", path, source)
    return True


def _copy_tree(source: Path, dest: Path) -> None:
    """Every file under ``source`` into ``dest``, one at a time (so a full disk fails with its own
    errno); a link out of ``source`` is skipped, a linked folder is made but not followed."""
    for path in sorted(source.rglob("*")):
        if path.is_symlink() and _leaves(path, source):
            continue
        target = dest / path.relative_to(source)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif path.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)


def copy_data(task: Task, dest: Path) -> None:
    """Copy the task's data files (all of datasources/ when it names none) into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    if task.datasources is None:
        return
    if not task.data_files:
        _copy_tree(task.datasources, dest)
        return
    for rel in task.data_files:
        source = task.datasources / rel
        if _leaves(source, task.datasources):
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def instruction_markdown(step: Step, n_steps: int) -> str:
    libs = f"\n\n*Libraries: {', '.join(step.modules)}*" if step.modules else ""
    return f"**Step {step.index + 1} of {n_steps}** · `{step.kind}`\n\n{step.instruction}{libs}"


def step_cells(step: Step, n_steps: int) -> list:
    locked = {"deletable": False, "editable": False}
    return [
        new_markdown_cell(
            instruction_markdown(step, n_steps),
            metadata={**locked, CELL_KEY: {"role": "instruction", "step": step.index}},
        ),
        new_code_cell("", metadata={"deletable": False, CELL_KEY: {"role": "answer", "step": step.index}}),
    ]


#: A split's word for a language, left out of a notebook's name when the language says it.
_LANGUAGE_WORD = {"zh": "chinese", "en": "english"}


def notebook_name(task: Task, number: int = 1) -> str:
    """The attempt notebook's file name, which the lab's tab shows: the task's stem, its split and
    language, so same-named tasks of two splits or languages differ
    (``tips.template-en.ipynb``, ``tips.template-zh.ipynb``, ``tips.generation-en.ipynb``); from a
    participant's second attempt of the task on, its ``number`` right after the stem, where a
    narrow tab still shows it (``tips-2.template-en.ipynb``)."""
    split = task.split.removeprefix("cibench_")
    word = _LANGUAGE_WORD.get(task.language)
    if word:
        split = split.removesuffix(f"_{word}")
    stem = task.stem if number <= 1 else f"{task.stem}-{number}"
    return f"{stem}.{split}-{task.language}.ipynb"


def write_notebook_text(path: Path, nb: nbformat.NotebookNode) -> None:
    """``nb`` at ``path`` as nbformat writes it, whole, never through a link (:mod:`..tasks.links`)."""
    text = nbformat.writes(nb)
    write_no_link(path, text if text.endswith("\n") else text + "\n")


def attempt_notebook(
    task: Task, attempt_id: str, mode: Mode, player: str = "human", language: dict | None = None
) -> nbformat.NotebookNode:
    """The attempt's notebook: title cell, the first instruction and an empty answer cell.
    ``language``: the kernel's ``language_info``, as JupyterLab would record it (so that opening
    the notebook changes nothing: it is not dirty)."""
    mode_name = "end-to-end" if mode == "e2e" else "oracle"
    how = (
        "run each step's cell to have it graded; use the CIBench panel for Next step"
        if player == "human"
        else f"played by {player}: press Play step or Play all in the CIBench panel"
    )
    title = new_markdown_cell(
        f"# {task.title}\n\n{task.intro}\n\n"
        f"*CIBench attempt · {mode_name} mode · {len(task.steps)} steps · {how}.*",
        metadata={"deletable": False, "editable": False, CELL_KEY: {"role": "title"}},
    )
    nb = new_notebook(cells=[title, *step_cells(task.steps[0], len(task.steps))])
    nb.metadata["kernelspec"] = {
        "name": KERNEL_NAME,
        "display_name": "Python 3 (CIBench)",
        "language": "python",
    }
    nb.metadata["language_info"] = language or {"name": "python"}
    nb.metadata[NB_KEY] = {"attempt_id": attempt_id, "task_id": task.id, "mode": mode}
    return nb


def write_notebook(nb: nbformat.NotebookNode, path: Path) -> None:
    """Write ``nb`` at ``path`` (its folder made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_notebook_text(path, nb)
