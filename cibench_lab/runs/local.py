"""Headless runs: attempts played through the step driver, on kernels this process owns.

A run is named; its attempts are played by ``jobs`` workers at once, each
attempt on its own kernel (asyncio; the engine's synchronous database calls go
through one worker thread, so SQLite sees one writer).  Playing the same run
again skips its finished attempts and resumes its open ones: the driver restores
the kernel state as on a lab resume and rebuilds the player's conversation from
the recorded turns, and play goes on from the open step — so a ``kill -9`` loses
at most the turns in flight.  A kernel that dies mid-turn fails that turn (the
reason in its meta), is replaced, gets the attempt's state back, and the attempt
goes on; so is a kernel a timed-out turn left busy after the interrupt.  One process
plays a run name at a time (:mod:`.lease`): a second one stops at once with RunBusy
naming the holder; a killed holder's run is taken over once its heartbeat is stale.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import shutil
import tempfile
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from sqlalchemy import select

from ..benchmarks import benchmark_of, pooled
from ..errors import BadInput
from ..grading import TurnOutput
from ..grading.pool import Grader
from ..kernels.environment import attempt_environment
from ..kernels.execution import Execution
from ..kernels.executor import COMPAT_SILENCE, KernelExecutor
from ..kernels.pool import KernelPool, pool_key
from ..kernels.preimport import task_imports
from ..play.attempt import Attempts, NewAttempt, _get
from ..play.driver import StepDriver
from ..play.settings import PlaySettings
from ..play.turns import TurnRecord
from ..play.workspace import copy_data
from ..players import Player, PlayerError
from ..store.tables import Attempt, Event, Run
from ..tasks.model import Task
from ..tasks.vocabulary import Mode
from .lease import Lease, RunBusy
from .spec import RunSpec

log = logging.getLogger(__name__)
_T = TypeVar("_T")
P = ParamSpec("P")
R = TypeVar("R")


class RunObserver:
    """What a run reports as it goes (the CLI draws a progress bar from it)."""

    def task_started(self, task: Task, attempt_id: str, resumed_at: int | None) -> None: ...

    def step_settled(self, task: Task, step: int, outcome: str) -> None: ...

    def task_finished(self, task: Task, status: str, detail: str = "") -> None: ...


@dataclass
class PlayContext:
    attempts: Attempts
    player: Player
    mode: Mode
    run_id: int | None
    workroot: Path
    timeout: float
    silence: float | None = None
    observer: RunObserver = field(default_factory=RunObserver)
    settings: PlaySettings = field(default_factory=PlaySettings)
    pool: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(1, "cibench-db"))
    grader: Grader = field(default_factory=Grader)  # grades turns off the database thread
    kernels: KernelPool | None = None  # warm kernels for new attempts (kernels/pool.py)
    queue: list[tuple[Task, str | None]] = field(default_factory=list)  # the tasks still to play
    driver: StepDriver = field(init=False)

    def __post_init__(self) -> None:
        self.driver = StepDriver(self.attempts, lambda spec: self.player, self.db, self.grader)

    @classmethod
    def of(cls, attempts: Attempts, spec: RunSpec, workroot: Path, observer: RunObserver) -> PlayContext:
        """The context of ``spec``'s run, its attempts played under ``workroot``."""
        silence = COMPAT_SILENCE if spec.compat_timeout else None
        return cls(
            attempts,
            spec.player,
            spec.mode,
            None,
            workroot,
            spec.timeout,
            silence,
            observer,
            spec.settings,
        )

    async def db(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """An engine call (the database) on the run's one database thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.pool, functools.partial(fn, *args, **kwargs))


# ---- runs ------------------------------------------------------------------------------
def ensure_run(attempts: Attempts, name: str, player: str, mode: Mode, config: dict | None = None) -> int:
    """The run's id; a new run records its config, an old one must match it."""
    with attempts.store.session() as s:
        run = s.scalar(select(Run).where(Run.name == name))
        if run is None:
            run = Run(name=name, player=player, mode=mode, config=config or {})
            s.add(run)
            s.flush()
            return run.id
        mine = (player, mode, _protocol(config or {}))
        theirs = (run.player, run.mode, _protocol(run.config or {}))
        if mine != theirs:
            raise BadInput(
                f"run {name!r} was played as {' '.join(map(str, theirs))}, not {' '.join(map(str, mine))}; "
                "choose another --run name"
            )
        return run.id


def _protocol(config: dict) -> str:
    model = config.get("model") or {}
    return f"{model.get('protocol', '-')}{'+merge-roles' if model.get('merge_roles') else ''}"


def run_state(attempts: Attempts, run_id: int) -> dict[str, tuple[str, str]]:
    """``{task_id: (attempt_id, status)}`` of the run's attempts (the latest per task)."""
    with attempts.store.session() as s:
        q = select(Attempt.task_id, Attempt.id, Attempt.status).where(Attempt.run_id == run_id)
        return {t: (i, st) for t, i, st in s.execute(q.order_by(Attempt.created_at)).all()}


def detach(attempts: Attempts, attempt_id: str, why: str) -> None:
    """Take an unfinishable attempt out of its run (kept, with the reason, for the record)."""
    with attempts.store.session() as s:
        _get(s, Attempt, attempt_id).run_id = None
        s.add(Event(attempt_id=attempt_id, kind="abandoned", detail={"reason": why}))


async def run_tasks(
    attempts: Attempts,
    tasks: list[Task],
    spec: RunSpec,
    *,
    observer: RunObserver | None = None,
    grader: Grader | None = None,
) -> list[str]:
    """Play every task not yet finished in the run ``spec`` names; return the run's finished
    attempt ids.

    ``grader`` (with the run's judge, if any) is the caller's to close; without one the
    run grades with a judge-less grader of its own.  ``spec.kernel_pool`` (enabled): new attempts
    take warm kernels, started while the task before them plays (kernels/pool.py)."""
    with tempfile.TemporaryDirectory(prefix="cibench-run-") as tmp:
        ctx = PlayContext.of(attempts, spec, Path(tmp), observer or RunObserver())
        if grader is not None:
            ctx.grader = ctx.driver.grader = grader
        if spec.kernel_pool is not None and spec.kernel_pool.enabled:
            ctx.kernels = KernelPool(Path(tmp), spec.kernel_pool)
        lease = Lease(attempts.store, spec.name)
        try:
            await ctx.db(lease.take)  # RunBusy: another process plays this run
            try:
                state = await _leased(lease, _play_run(ctx, tasks, spec.name, spec.config(), spec.jobs))
            finally:
                await ctx.db(lease.release)
        finally:
            if ctx.kernels is not None:
                await ctx.kernels.close()
            ctx.pool.shutdown(wait=True)
            if grader is None:
                ctx.grader.close()
    return [i for i, status in state.values() if status == "done"]


async def _play_run(
    ctx: PlayContext, tasks: list[Task], run_name: str, config: dict, jobs: int
) -> dict[str, tuple[str, str]]:
    ctx.run_id = await ctx.db(ensure_run, ctx.attempts, run_name, ctx.player.name, ctx.mode, config)
    state = await ctx.db(run_state, ctx.attempts, ctx.run_id)
    await _work(ctx, tasks, state, jobs)
    return await ctx.db(run_state, ctx.attempts, ctx.run_id)


async def _leased(lease: Lease, work: Coroutine[Any, Any, _T]) -> _T:
    """``work`` while the lease's heartbeat runs; cancelled (RunBusy) if the lease is lost."""
    loop = asyncio.get_running_loop()
    job = asyncio.ensure_future(work)
    beat = lease.hold(lambda: loop.call_soon_threadsafe(job.cancel))
    try:
        return await job
    except asyncio.CancelledError:
        if not beat.lost:
            raise
        holder = await asyncio.to_thread(lease.holder_now)
        raise RunBusy(
            f"run {lease.name} was taken over by {holder} (this process stopped renewing it)"
        ) from None
    finally:
        await asyncio.to_thread(beat.stop)


def pending_tasks(
    ctx: PlayContext, tasks: list[Task], state: dict[str, tuple[str, str]]
) -> list[tuple[Task, str | None]]:
    """The tasks still to play, each with its open attempt if any; a done one is reported skipped."""
    pending = []
    for task in tasks:
        attempt_id, status = state.get(task.id, (None, None))
        if status == "done":
            ctx.observer.task_finished(task, "skipped")
        else:
            pending.append((task, attempt_id))
    return pending


async def _work(ctx: PlayContext, tasks: list[Task], state: dict[str, tuple[str, str]], jobs: int) -> None:
    pending = ctx.queue = pending_tasks(ctx, tasks, state)
    if any(step.kind == "vis" for task, _ in pending for step in task.steps):
        ctx.grader.warm_processes()  # the first plot's grade then finds its process started
    # (no grader.warm() here: its loading thread kept an interrupted run from exiting as by Ctrl-C)

    async def worker() -> None:
        while pending:
            task, attempt_id = pending.pop(0)
            await _play_one(ctx, task, attempt_id)

    await asyncio.gather(*(worker() for _ in range(max(1, min(jobs, len(pending))))))


def _warm_next(ctx: PlayContext) -> None:
    """Start the kernel of the task to be played next, in the background (kernels/pool.py) — called
    once the attempt about to play holds its own kernel, which therefore cannot be that one."""
    if ctx.kernels is None or not ctx.queue:
        return
    task, attempt_id = ctx.queue[0]
    if attempt_id is None and pooled(task):
        ctx.kernels.expect(pool_key(task), imports=task_imports(task))


async def _play_one(ctx: PlayContext, task: Task, attempt_id: str | None) -> None:
    try:
        await _play(ctx, task, attempt_id)
    except PlayerError as err:
        ctx.observer.task_finished(task, "incomplete", str(err))
    except Exception as err:  # one attempt's failure must not stop the others
        log.exception("cibench-lab: %s failed", task.id)
        ctx.observer.task_finished(task, "failed", f"{type(err).__name__}: {err}")
    else:
        ctx.observer.task_finished(task, "done")


# ---- attempts ---------------------------------------------------------------------------
async def _open_attempt(ctx: PlayContext, task: Task, attempt_id: str | None) -> tuple[str, bool]:
    """(attempt id, resumed): the run's open attempt if it can go on, else a new one."""
    if attempt_id is not None:
        row, _ = await ctx.db(ctx.attempts.load, attempt_id)
        if row.task_hash == task.content_hash:
            return attempt_id, True
        await ctx.db(detach, ctx.attempts, attempt_id, "the task changed since the attempt began")
    new = NewAttempt(
        task=task,
        mode=ctx.mode,
        player=ctx.player.name,
        participant=f"player:{ctx.player.name}",
        settings=ctx.settings,
        environment=attempt_environment(task, benchmark_of(task).profile_versions()),
        run_id=ctx.run_id,
    )
    return await ctx.db(ctx.attempts.create, new), False


async def play_attempt(ctx: PlayContext, task: Task) -> str:
    """Play a new attempt of ``task`` in ``ctx``'s run on a kernel of its own; its id.  No lease: for
    a caller whose run name is its own (an Inspect AI eval: cibench_lab/inspectai/play.py)."""
    return await _play(ctx, task, None)


async def _play(ctx: PlayContext, task: Task, attempt_id: str | None) -> str:
    attempt_id, resumed = await _open_attempt(ctx, task, attempt_id)
    folder = ctx.workroot / f"{task.stem}-{attempt_id[:8]}"
    await ctx.db(ctx.attempts.paths, attempt_id, str(folder), "")
    kernel = HeadlessKernel(ctx.driver, attempt_id, await _kernel(ctx, task, folder, resumed))
    try:
        if resumed:
            await ctx.driver.restore(attempt_id, kernel.run_cells, "resumed run")
        row, _ = await ctx.db(ctx.attempts.load, attempt_id)
        ctx.observer.task_started(task, attempt_id, row.current_step if resumed else None)
        settled = functools.partial(_settled, ctx.observer, task)
        await ctx.driver.play(attempt_id, kernel, settled)
    finally:
        await kernel.executor.shutdown()
        shutil.rmtree(folder, ignore_errors=True)
    return attempt_id


async def _kernel(ctx: PlayContext, task: Task, folder: Path, resumed: bool) -> KernelExecutor:
    """The attempt's started kernel in ``folder`` (its data copied in): a warm one from the run's
    pool when it holds one (never for a resumed attempt, nor a task its benchmark keeps off the
    pool), else a fresh one, which runs the benchmark's own start code, each call bounded by its
    turn timeout."""
    rendering = task.rendering.rendering
    warm = None
    if ctx.kernels is not None and not resumed and pooled(task):
        copy = functools.partial(copy_data, task)
        warm = await ctx.kernels.take(
            pool_key(task),
            folder,
            copy,
            rendering=rendering,
            timeout=ctx.timeout,
            silence=ctx.silence,
            refill=False,
        )
    _warm_next(ctx)
    if warm is not None:
        return warm
    await asyncio.to_thread(copy_data, task, folder)
    timeout, prelude = task_kernel(task, ctx.timeout)
    fresh = KernelExecutor(folder, timeout=timeout, silence=ctx.silence, rendering=rendering, prelude=prelude)
    try:
        await fresh.start()
    except BaseException:
        await fresh.shutdown()
        raise
    return fresh


def task_kernel(task: Task, timeout: float) -> tuple[float, str]:
    """(turn timeout, prelude) of ``task``'s kernel, as its benchmark says (a player's attempt: no
    prior turn at the start, the player proposes it)."""
    benchmark = benchmark_of(task)
    return benchmark.turn_timeout(task, timeout), "".join(benchmark.start_codes(task, False))


def _settled(observer: RunObserver, task: Task, settled: dict) -> None:
    observer.step_settled(task, settled["step"], settled["outcome"])


class HeadlessKernel:
    """The headless executor of one attempt: runs what the driver says on its own kernel;
    a kernel that dies is replaced and given the attempt's state back (through the driver)."""

    def __init__(self, driver: StepDriver, attempt_id: str, executor: KernelExecutor):
        self.driver, self.attempt_id, self.executor = driver, attempt_id, executor

    async def turn(self, code: str) -> TurnRecord:
        ex = await self.executor.run(code)
        kernel = await self._recover(ex)
        started, finished = ex.times()
        meta: dict[str, Any] = {
            "seconds": round((ex.finished or ex.first_seen) - ex.first_seen, 4),
            **ex.facts(),
        }
        if kernel is not None:
            meta["kernel"] = kernel
        return TurnRecord(TurnOutput(code, ex.outputs, ex.error, ex.status), None, started, finished, meta)

    async def reference(self, code: str) -> TurnOutput:
        """Oracle: a reference run that kills the kernel is recorded once, by the restore
        that re-runs it on the new kernel."""
        ex = await self.executor.run(code)
        await self._recover(ex)
        return TurnOutput(code, ex.outputs, ex.error, ex.status)

    async def _recover(self, ex: Execution) -> dict[str, Any] | None:
        """A kernel the run left dead, or busy after the interrupt, is replaced and given the
        attempt's state back; what happened, for the turn's meta (None: nothing did)."""
        if ex.status == "dead":
            reason = await self.executor.death_reason()
            restored = await self._restart(f"kernel died: {reason}")
            return {"died": reason, "restarted": True, "restored_cells": restored}
        if ex.status == "timeout" and ex.stopped is None:
            restored = await self._restart("the turn did not stop when interrupted")
            ex.stopped = "restarted"
            return {"restarted": True, "restored_cells": restored}
        return None

    async def run_cells(self, codes: list[str]) -> list[TurnOutput]:
        ran = []
        for code in codes:
            ex = await self.executor.run(code)
            ran.append(TurnOutput(code, ex.outputs, ex.error, ex.status))
        return ran

    async def _restart(self, reason: str) -> int:
        log.warning(
            "cibench-lab: attempt %s: %s; restarting the kernel and restoring state", self.attempt_id, reason
        )
        await self.executor.restart()
        return await self.driver.restore(self.attempt_id, self.run_cells, reason)
