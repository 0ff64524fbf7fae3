"""`cibench-lab tasks new SOLUTION.ipynb`: a task from a teacher's own solution notebook.

Prints each step's kind (tagged or inferred) and answer for the teacher to confirm, then writes
the task (``--check``: writes nothing).  Each refusal is one line naming the cell, on stderr;
exit status 2 when anything was refused.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..tasks.solution import LIBRARIES

if TYPE_CHECKING:  # imported where used: the command's start skips the authoring imports
    from ..authoring.new import NewTask

INTO_HELP = (
    "task directory (default: <jupyter data dir>/cibench_lab/tasks, the user's imported tasks; "
    "on a class's JupyterHub the class's is \"$CIBENCH_CLASS_DIR/tasks\")"
)


def cmd_new(args: argparse.Namespace) -> int:
    from ..authoring.new import NewTaskOptions, new_task
    from ..errors import EngineError
    from ..tasks.library import user_tasks_dir
    from .common import start_sandbox

    if not start_sandbox(args):
        return 2
    into = (args.into or user_tasks_dir()).resolve()
    options = NewTaskOptions(args.lib, args.lang, args.data, args.check, args.timeout)
    try:
        result = asyncio.run(new_task(args.notebook.resolve(), into, options))
    except EngineError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print_steps(result)
    for refusal in result.refusals:
        print(refusal.line(), file=sys.stderr)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if result.refusals:
        print(f"{len(result.refusals)} refused: nothing written", file=sys.stderr)
        return 2
    if result.written:
        state = "updated" if result.updated else "written"
        print(f"{state} {result.task_id} -> {result.path}")
    else:
        print(f"check only: nothing written ({result.task_id} would be written to {result.path})")
    return 0


def print_steps(result: NewTask) -> None:
    """The steps as the teacher confirms them: cell, kind (tagged or inferred), answer."""
    print(f"{result.task_id} — {result.title} ({len(result.steps)} steps, {result.language})")
    print(f"{'step':>4}  {'cell':>4}  {'kind':<5} {'how':<8}  answer")
    for row in result.steps:
        kind = row.kind or "?"
        how = "tagged" if row.tagged else "inferred" if row.kind else "-"
        answer = row.answer or ("not run" if row.seconds is None else "refused")
        if row.plot_elements:
            answer += f" ({', '.join(row.plot_elements)})"
        print(f"{row.step + 1:>4}  {row.cell:>4}  {kind:<5} {how:<8}  {answer}")


def register(tsub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from .common import add_sandbox_options

    tn = tsub.add_parser(
        "new",
        help="make a task from a teacher's solution notebook (instruction + code cell per step)",
        description="Run a solution notebook in the task kernel and write it as a task "
        "classroom/<lib>/<stem> (docs/tasks-new.md).",
    )
    tn.add_argument("notebook", type=Path, help="the solution notebook (.ipynb)")
    tn.add_argument("--into", type=Path, help=INTO_HELP)
    tn.add_argument(
        "--lib", help=f"the task's library, one of {', '.join(LIBRARIES)} (default: the one used most)"
    )
    tn.add_argument(
        "--lang", choices=("en", "zh"), default="en", help="the instructions' language (default en)"
    )
    tn.add_argument(
        "--data", type=Path, help="the folder copied as the task's data/ (default: data/ beside it)"
    )
    tn.add_argument("--check", action="store_true", help="run and print the steps, write nothing")
    tn.add_argument("--timeout", type=float, default=120.0, help="seconds per step (default 120)")
    add_sandbox_options(tn, network=False)
    tn.set_defaults(fn=cmd_new)
