"""`cibench-lab tasks lint`: what the instructions do not say, from the notebooks alone."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import asdict
from pathlib import Path

from ..tasks.archive import is_ignored
from ..tasks.errors import TaskError
from ..tasks.library import TaskLibrary, builtin_dir, default_task_dirs, is_split, task_notebooks
from ..tasks.lint import LintFlag, lint_task
from ..tasks.model import Task


def _looks_like_path(arg: str) -> bool:
    """An existing file or folder, or what can only be one; else a task id or glob (``a/b/*``)."""
    return Path(arg).exists() or arg.endswith((".ipynb", ".zip")) or arg.startswith(("/", ".", "~"))


def _load(path: Path) -> TaskLibrary:
    """A task directory or zip as the library reads it; any other folder (a split's or a library's
    folder, say) notebook by notebook, each with the id its last two folders give it."""
    lib = TaskLibrary()
    if path.is_dir() and not task_notebooks(path) and not any(is_split(p.name) for p in path.iterdir()):
        for nb in sorted(path.rglob("*.ipynb")):
            if not any(is_ignored(part) for part in nb.relative_to(path).parts):
                lib.add_notebook(nb)
        return lib
    lib.add_path(path)
    return lib


def select(args: argparse.Namespace) -> tuple[list[Task], list[TaskError]] | str:
    """The tasks to lint and the load problems met; or the one-line error for a bad argument."""
    paths = [a for a in args.targets if _looks_like_path(a)]
    patterns = [a for a in args.targets if not _looks_like_path(a)]
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        return f"no such file or folder: {missing[0]}"
    lib, tasks = TaskLibrary(), []
    for path in paths:  # each on its own: a lint does not care that two paths hold the same task id
        one = _load(Path(path))
        tasks += one.select(None)
        lib.problems += one.problems
    if patterns or not paths:
        # ids and globs: among the served tasks (built-in + imported); nothing named: the built-in set
        served = TaskLibrary.load(args.task_dir or (default_task_dirs() if patterns else [builtin_dir()]))
        chosen = served.select(patterns or None)
        if patterns and not chosen:
            return f"no task matches {' '.join(patterns)}"
        tasks += chosen
        lib.problems += [] if patterns else served.problems
    return list({t.path: t for t in tasks}.values()), lib.problems


def _shown(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return path


def summary(tasks: list[Task], flags: dict[str, list[LintFlag]], problems: list[TaskError]) -> list[str]:
    flagged = {t: f for t, f in flags.items() if f}
    steps = {(t, f.step) for t, fs in flagged.items() for f in fs}
    lines = [
        f"{sum(map(len, flagged.values()))} flags in {len(steps)} steps of {len(flagged)} tasks "
        f"({len(tasks)} tasks linted, {len(problems)} did not load)"
    ]
    if flagged:
        by_kind = Counter(f.kind for fs in flagged.values() for f in fs)
        lines.append("by kind: " + ", ".join(f"{k} {n}" for k, n in by_kind.most_common()))
        lib_of = {str(t.path): t.lib for t in tasks}
        by_lib = Counter(lib_of[t] for t, fs in flagged.items() for _ in fs)
        lines.append("by library: " + ", ".join(f"{k} {n}" for k, n in by_lib.most_common()))
    return lines


def cmd_lint(args: argparse.Namespace) -> int:
    chosen = select(args)
    if isinstance(chosen, str):
        print(f"error: {chosen}", file=sys.stderr)
        return 2
    tasks, problems = chosen
    flags = {str(t.path): lint_task(t) for t in tasks}
    ids = {str(t.path): t.id for t in tasks}
    if args.json:
        rows = [{**asdict(f), "task": ids[key]} for key, fs in flags.items() for f in fs]
        print(
            json.dumps({"flags": rows, "problems": [str(p) for p in problems]}, indent=1, ensure_ascii=False)
        )
    else:
        for p in problems:
            where = _shown(p.path) if p.cell is None else f"{_shown(p.path)}:{p.cell}"
            print(f"{where}: does not load: {p.problem}")
        for fs in flags.values():
            for f in fs:
                print(f.line().replace(f.file, _shown(f.file), 1))
        print("\n".join(summary(tasks, flags, problems)))
    return 1 if problems or any(flags.values()) else 0


def register(tsub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tl = tsub.add_parser(
        "lint", help="flag instructions that do not say what their reference does (no code is run)"
    )
    tl.add_argument(
        "targets",
        nargs="*",
        metavar="PATH|ID|PATTERN",
        help="notebooks, task folders or zips, or task ids / globs among the served tasks "
        "(default: the built-in tasks, or the --task-dir directories)",
    )
    tl.add_argument("--json", action="store_true", help="print the flags as JSON")
    tl.set_defaults(fn=cmd_lint)
