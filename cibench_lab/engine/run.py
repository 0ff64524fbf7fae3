"""Headless runs: the same attempt state machine, on kernels this process owns."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import select

from ..grading import TurnOutput
from ..store.tables import Attempt, Run
from ..tasks.model import Task
from .attempt import Attempts, NewAttempt
from .environment import environment
from .executor import KernelExecutor
from .players import Player
from .settings import PlaySettings
from .workspace import copy_data


def ensure_run(attempts: Attempts, name: str, player: str, mode: str) -> int:
    with attempts.store.session() as s:
        run = s.scalar(select(Run).where(Run.name == name))
        if run is None:
            run = Run(name=name, player=player, mode=mode)
            s.add(run)
            s.flush()
        return run.id


def settled_tasks(attempts: Attempts, run_id: int) -> set[str]:
    with attempts.store.session() as s:
        q = select(Attempt.task_id).where(Attempt.run_id == run_id, Attempt.status == "done")
        return set(s.scalars(q))


async def play_task(
    attempts: Attempts,
    task: Task,
    player: Player,
    mode: str,
    run_id: int | None,
    workroot: Path,
    timeout: float,
) -> str:
    """Play one task to the end; return the attempt id."""
    new = NewAttempt(
        task=task,
        mode=mode,
        player=player.name,
        participant=f"player:{player.name}",
        settings=PlaySettings(),
        environment=environment(),
        run_id=run_id,
    )
    attempt_id = attempts.create(new)
    folder = workroot / f"{task.stem}-{attempt_id[:8]}"
    copy_data(task, folder)
    attempts.paths(attempt_id, str(folder), "")
    executor = KernelExecutor(folder, timeout=timeout)
    await executor.start()
    try:
        for step in task.steps:
            await _play_step(attempts, attempt_id, task, step, player, executor)
    finally:
        await executor.shutdown()
    return attempt_id


async def _play_step(attempts, attempt_id, task, step, player, executor) -> None:
    turn_no = 0
    while True:
        proposal = await player.propose(task, step, turn_no)
        ex = await executor.run(proposal.code)
        turn = TurnOutput(proposal.code, ex.outputs, ex.error, ex.status)
        result = await asyncio.to_thread(
            attempts.record_turn, attempt_id, step.index, turn, meta=proposal.meta
        )
        turn_no += 1
        settled = result["settled"]
        if settled:
            if settled["oracle_code"] is not None:
                await executor.run(settled["oracle_code"])
            return


async def run_tasks(
    attempts: Attempts,
    tasks: list[Task],
    player: Player,
    mode: str,
    run_name: str,
    timeout: float = 120.0,
    progress: Callable[[Task, str], None] | None = None,
) -> list[str]:
    """Play every task not yet settled in ``run_name``; return the run's attempt ids."""
    run_id = ensure_run(attempts, run_name, player.name, mode)
    done = settled_tasks(attempts, run_id)
    with tempfile.TemporaryDirectory(prefix="cibench-run-") as tmp:
        for task in tasks:
            if task.id in done:
                if progress:
                    progress(task, "skipped (already settled in this run)")
                continue
            await play_task(attempts, task, player, mode, run_id, Path(tmp), timeout)
            if progress:
                progress(task, "done")
    with attempts.store.session() as s:
        return list(s.scalars(select(Attempt.id).where(Attempt.run_id == run_id, Attempt.status == "done")))
