"""What every `cibench-lab` subcommand shares."""

from __future__ import annotations

import sys

from ..tasks.library import TaskLibrary, default_task_dirs


def library(args) -> TaskLibrary:
    """The task library the global ``--task-dir`` options name (default: built-in + imported)."""
    lib = TaskLibrary.load(args.task_dir or default_task_dirs())
    for problem in lib.problems:
        print(f"warning: skipped {problem}", file=sys.stderr)
    return lib
