"""`export --format notebooks`: one transcript notebook per attempt (nbformat 4, validated).

A title cell (task, mode, participant, study, protocol, times, settings, summary), then per step its
instruction, every run of it in time order — a graded turn as a code cell with its recorded outputs,
an exploration run (a ``cell_run`` event with ``graded`` false) as a hidden code cell after a line
saying so, an oracle mode's reference run — and a cell with the step's grade per profile (the kept
turn marked), its times, pauses and note.  docs/exports.md, "Notebooks".
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat

from ...store import Store
from ...store.tables import utcnow
from ...tasks.library import TaskLibrary
from ...tasks.model import Task
from . import rows
from .selection import Selection
from .steps import new_markdown_cell, step_cells, title_cell
from .trace import Recorded, recorded

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def transcript(
    attempt: dict[str, Any], steps: list[dict[str, Any]], rec: Recorded, task: Task | None
) -> dict[str, Any]:
    """The attempt's transcript as notebook JSON (plain dicts: validated whole before it is written)."""
    counter: Iterator[int] = itertools.count(1)
    cells = [title_cell(attempt, task)]
    for step in steps:
        cells += step_cells(step, attempt, rec, task, counter)
    reached = len(steps)
    if reached < attempt["n_steps"]:
        cells.append(new_markdown_cell(f"*Steps {reached + 1}–{attempt['n_steps']} were not reached.*"))
    meta = {
        "kernelspec": KERNELSPEC,
        "language_info": {"name": "python"},
        "cibench_lab": {"transcript": {"attempt_id": attempt["attempt_id"], "task_id": attempt["task_id"]}},
    }
    for n, cell in enumerate(cells):  # ids as nbformat 4.5 wants them, stable from export to export
        cell["id"] = f"c{n}"
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": meta, "cells": cells}


def notebook_name(attempt: dict[str, Any]) -> str:
    return f"{attempt['task_id'].rsplit('/', 1)[-1]}-{attempt['attempt_id']}.ipynb"


def write_notebooks(store: Store, sel: Selection, lib: TaskLibrary, folder: Path) -> int:
    """Write the selection's transcripts under ``folder``; how many were written."""
    folder.mkdir(parents=True, exist_ok=True)
    now, written = utcnow(), 0
    with store.session() as s:
        for attempt, steps in rows.attempts(s, sel, now):
            nb = transcript(
                attempt, steps, recorded(s, attempt["attempt_id"]), lib.tasks.get(attempt["task_id"])
            )
            try:
                nbformat.validate(nb)
            except nbformat.ValidationError as err:
                first = str(err).splitlines()[0]
                print(
                    f"warning: attempt {attempt['attempt_id']}: not valid nbformat ({first}); skipped",
                    file=sys.stderr,
                )
                continue
            with (folder / notebook_name(attempt)).open("w", encoding="utf-8") as f:
                json.dump(nb, f, ensure_ascii=False, indent=1, sort_keys=True)  # as nbformat writes them
                f.write("\n")
            written += 1
    return written


__all__ = ["transcript", "write_notebooks"]
