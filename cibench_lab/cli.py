"""The `cibench-lab` command: tasks and headless runs."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from pathlib import Path

from .engine.attempt import PROFILE, Attempts
from .engine.errors import EngineError
from .grading.summary import METRICS, format_row, summarize
from .store import Store
from .store.tables import Attempt, StepRow
from .tasks.library import TaskLibrary, default_task_dirs
from .tasks.model import Task


def _library(args) -> TaskLibrary:
    lib = TaskLibrary.load(args.task_dir or default_task_dirs())
    for problem in lib.problems:
        print(f"warning: skipped {problem}", file=sys.stderr)
    return lib


def cmd_tasks_list(args) -> int:
    tasks = _library(args).select(None)
    rows = [t.summary() for t in tasks]
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    for r in rows:
        print(f"{r['id']:<50} {r['language']:<3} {r['steps']:>3} steps  {r['title']}")
    return 0


def task_admin_view(task: Task) -> dict:
    """Everything about a task, reference material included (admin view)."""
    return {
        **task.summary(),
        "intro": task.intro,
        "path": str(task.path),
        "content_hash": task.content_hash,
        "data_files": list(task.data_files),
        "steps": [
            {
                "index": s.index,
                "kind": s.kind,
                "detected_kind": s.reference.kind,
                "instruction": s.instruction,
                "thought": s.thought,
                "modules": list(s.modules),
                "code": s.code,
                "reference_output": s.reference.summary(),
                "prompt": s.prompt,
            }
            for s in task.steps
        ],
    }


def cmd_tasks_show(args) -> int:
    try:
        task = _library(args).get(args.id)
    except KeyError as err:
        print(f"error: {err.args[0]}", file=sys.stderr)
        return 2
    view = task_admin_view(task)
    if args.json:
        print(json.dumps(view, indent=2, ensure_ascii=False))
        return 0
    print(f"{task.id} — {task.title} ({len(task.steps)} steps)\n{task.intro}\n")
    for s in view["steps"]:
        print(
            f"--- step {s['index'] + 1} [{s['kind']}]\n{s['prompt']}reference:\n{s['code']}\n"
            f"output: {s['reference_output']}\n"
        )
    return 0


def cmd_run(args) -> int:
    from .engine.players import make_player
    from .engine.run import run_tasks

    lib = _library(args)
    tasks = lib.select(args.tasks)
    if not tasks:
        print(f"error: no task matches {' '.join(args.tasks or [])}", file=sys.stderr)
        return 2
    try:
        player = make_player(args.player)
    except ValueError as err:
        print(f"error: --player: {err}", file=sys.stderr)
        return 2
    store = Store(args.db)
    attempts = Attempts(store, lib)
    run_name = args.run or f"{player.name}-{args.mode}"
    counter = iter(range(1, len(tasks) + 1))

    def progress(task: Task, what: str) -> None:
        print(f"[{next(counter)}/{len(tasks)}] {task.id}: {what}", file=sys.stderr, flush=True)

    ids = asyncio.run(
        run_tasks(attempts, tasks, player, args.mode, run_name, timeout=args.timeout, progress=progress)
    )
    print_table(store, ids, f"run {run_name} · {args.mode} · profile {PROFILE}")
    return 0


def print_table(store: Store, attempt_ids: list[str], title: str) -> None:
    from sqlalchemy import select

    with store.session() as s:
        rows = s.execute(
            select(Attempt.task_id, StepRow.grade)
            .join(StepRow, StepRow.attempt_id == Attempt.id)
            .where(Attempt.id.in_(attempt_ids))
        ).all()
    by_task: dict[str, list] = {}
    for task_id, grade in rows:
        by_task.setdefault(task_id, []).append(grade[PROFILE])
    header = f"{'task':<48}" + "".join(f"{m:>8}" for m in METRICS)
    print(title)
    print(header)
    for task_id in sorted(by_task):
        print(f"{task_id:<48}" + "".join(f"{v:>8}" for v in format_row(summarize(by_task[task_id]))))
    every = [g for gs in by_task.values() for g in gs]
    print(f"{'all':<48}" + "".join(f"{v:>8}" for v in format_row(summarize(every))))


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cibench-lab", description=__doc__)
    p.add_argument(
        "--task-dir",
        action="append",
        type=Path,
        help="task directory (repeatable; default: built-in + imported tasks)",
    )
    p.add_argument(
        "--db", help="SQLAlchemy URL of the results store (default: SQLite in the Jupyter data dir)"
    )
    sub = p.add_subparsers(dest="command", required=True)
    tasks = sub.add_parser("tasks", help="list and inspect tasks").add_subparsers(dest="sub", required=True)
    tl = tasks.add_parser("list", help="list the tasks")
    tl.add_argument("--json", action="store_true", help="JSON output")
    tl.set_defaults(fn=cmd_tasks_list)
    ts = tasks.add_parser("show", help="one task with its references and prompts (admin view)")
    ts.add_argument("id")
    ts.add_argument("--json", action="store_true", help="JSON output")
    ts.set_defaults(fn=cmd_tasks_show)
    r = sub.add_parser("run", help="play tasks headlessly and print CIBench's metrics")
    r.add_argument("--player", default="reference", help="who plays: reference (default)")
    r.add_argument("--mode", choices=("e2e", "oracle"), default="e2e", help="end-to-end or oracle")
    r.add_argument("--tasks", nargs="+", metavar="ID", help="task ids or glob patterns (default: all)")
    r.add_argument("--run", help="run name; the same name again skips settled attempts")
    r.add_argument("--timeout", type=float, default=120.0, help="seconds per turn (default 120)")
    r.set_defaults(fn=cmd_run)
    return p


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args)
    except EngineError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
