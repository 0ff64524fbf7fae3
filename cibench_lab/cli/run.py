"""`cibench-lab run`: play tasks headlessly through the engine and print CIBench's metrics."""

from __future__ import annotations

import asyncio
import sys

from sqlalchemy import select

from ..engine.attempt import PROFILE, Attempts
from ..grading.summary import METRICS, format_row, summarize
from ..store import Store
from ..store.tables import Attempt, StepRow
from ..tasks.model import Task
from .common import library


def cmd_run(args) -> int:
    from ..engine.players import make_player
    from ..engine.run import run_tasks

    lib = library(args)
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
    with store.session() as s:
        rows = s.execute(
            select(Attempt.task_id, StepRow.grade)
            .join(StepRow, StepRow.attempt_id == Attempt.id)
            .where(Attempt.id.in_(attempt_ids))
        ).all()
    by_task: dict[str, list] = {}
    for task_id, grade in rows:
        by_task.setdefault(task_id, []).append(grade[PROFILE])
    print(title)
    print(f"{'task':<48}" + "".join(f"{m:>8}" for m in METRICS))
    for task_id in sorted(by_task):
        print(f"{task_id:<48}" + "".join(f"{v:>8}" for v in format_row(summarize(by_task[task_id]))))
    every = [g for gs in by_task.values() for g in gs]
    print(f"{'all':<48}" + "".join(f"{v:>8}" for v in format_row(summarize(every))))


def register(sub) -> None:
    r = sub.add_parser("run", help="play tasks headlessly and print CIBench's metrics")
    r.add_argument("--player", default="reference", help="who plays: reference (default)")
    r.add_argument("--mode", choices=("e2e", "oracle"), default="e2e", help="end-to-end or oracle")
    r.add_argument("--tasks", nargs="+", metavar="ID", help="task ids or glob patterns (default: all)")
    r.add_argument("--run", help="run name; the same name again skips settled attempts")
    r.add_argument("--timeout", type=float, default=120.0, help="seconds per turn (default 120)")
    r.set_defaults(fn=cmd_run)
