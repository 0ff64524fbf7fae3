"""An attempt's folder: a private copy of the task's data and its notebook."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from ..tasks.model import Step, Task
from .kernel import KERNEL_NAME

NB_KEY = "cibench_lab_attempt"  # notebook metadata naming the attempt
CELL_KEY = "cibench_lab"  # cell metadata: {"role": title|instruction|answer|oracle, "step": n}


def copy_data(task: Task, dest: Path) -> None:
    """Copy the task's data files (all of datasources/ when it names none) into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    if task.datasources is None:
        return
    if not task.data_files:
        shutil.copytree(task.datasources, dest, dirs_exist_ok=True)
        return
    for rel in task.data_files:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(task.datasources / rel, target)


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


def write_notebook(task: Task, attempt_id: str, mode: str, path: Path, player: str = "human") -> None:
    """The attempt's notebook: title cell, the first instruction and an empty answer cell."""
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
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata[NB_KEY] = {"attempt_id": attempt_id, "task_id": task.id, "mode": mode}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
