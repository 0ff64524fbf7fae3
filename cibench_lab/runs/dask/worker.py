"""A Dask worker's side of a distributed run: one attempt played on kernels of its own.

:func:`play_attempt` is the Dask task :mod:`.cluster` submits, one per attempt.  The worker
says hello to the driver and gets the attempt's rows as the results database holds them
(:mod:`.stream`), loads them into a database of its own (a replica, :mod:`.replica`), copies
the task's data it was sent into a folder of its own, and plays through the same step driver
and headless kernel as a local run — its kernels in the sandbox, in the worker's kernel
environment; its player's model requests made from the worker, with the key of the worker's
own environment.  After every recorded transition it queues what changed for the driver; so a
worker lost mid-attempt leaves every recorded turn behind, and the attempt, started again by
Dask on another worker, goes on from them (the kernel's state rebuilt by a restore).
"""

from __future__ import annotations

import asyncio
import atexit
import dataclasses
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...grading.pool import Grader
from ...play.attempt import Attempts
from ...play.workspace import copy_data
from ...store import Store
from ...tasks.library import TaskLibrary
from ...tasks.model import Task
from ...tasks.vocabulary import Mode
from ..local import HeadlessKernel, P, PlayContext, R, task_kernel
from . import orphans, reaper, replica
from .stream import Link

WRITES = {"record_turn", "settle", "record_restore", "record_reference", "paths"}
_lock = threading.Lock()
_stores: dict[str, Any] = {}  # this process's replica store and grader


@dataclasses.dataclass(frozen=True)
class Job:
    """What a worker needs to play one attempt (no secret: keys come from its environment)."""

    session: str  # the driver's run session (names its Variables and queue)
    attempt_id: str
    task: Task
    mode: Mode  # the run's (its attempt's)
    data: dict[str, bytes]  # the task's data files, relative to its datasources
    player: str
    model_options: dict[str, Any]
    hide_env: tuple[str, ...]  # variables kept from kernels (the key's name, the judge's)
    judge: dict[str, str]  # the judge's model, base_url, api_key_env, api_key_file (no key)
    sandbox: dict[str, Any]  # enabled, network, limits (KernelLimits.flag(); empty: the defaults)
    timeout: float
    silence: float | None
    grading_workers: int
    refs: dict[str, Any]  # the run and participant rows the attempt refers to


def task_key(session: str, attempt_id: str) -> str:
    """The Dask key of the attempt's task in this driver session (ends with the attempt id)."""
    return f"cibench-lab-{session.rsplit(':', 1)[-1][:12]}-{attempt_id}"


def play_attempt(job: Job) -> dict[str, Any]:
    """The Dask task: play ``job``'s attempt to its end (or until its player gives out),
    streaming its rows to the driver (:mod:`.stream`); the nonce and number of its last delta."""
    link = Link(job.session, job.attempt_id)
    rows = link.hello()
    with tempfile.TemporaryDirectory(prefix="cibench-worker-") as tmp:
        task = _task_copy(job, Path(tmp) / "datasources")
        store = _replica_store(job.session)
        replica.load(store, rows, job.refs)

        def publish() -> None:
            link.publish(lambda: replica.dump(store, job.attempt_id))

        try:
            asyncio.run(_play(job, task, store, publish, Path(tmp) / "work"))
            publish()
            return link.last()
        finally:
            reaper.untrack(job.attempt_id)


def _task_copy(job: Job, folder: Path) -> Task:
    """The task with its data in ``folder`` (the worker's copy of what the driver sent)."""
    for rel, content in job.data.items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    folder.mkdir(parents=True, exist_ok=True)
    return dataclasses.replace(job.task, datasources=folder, data_files=())


def _replica_store(session: str) -> Store:
    """This worker process's replica database for a driver session (one file, shared by the
    session's attempts it plays: their run and participant rows are the driver's)."""
    with _lock:
        key = f"store:{session}"
        if key not in _stores:
            where = Path(tempfile.mkdtemp(prefix="cibench-replica-"))
            atexit.register(shutil.rmtree, where, True)
            _stores[key] = Store(f"sqlite:///{where / 'replica.sqlite'}")
        return _stores[key]


def _grader(workers: int) -> Grader:
    """This worker process's judge-less grader (its grading processes outlive one attempt)."""
    with _lock:
        if "grader" not in _stores:
            _stores["grader"] = Grader(None, workers)
        return _stores["grader"]


def warm_grader(nthreads: int) -> None:
    """Load the text-grading libraries on this worker process's grader (in the background)."""
    _grader(max(1, nthreads)).warm()


def prepare_worker(nthreads: int) -> None:
    """In the worker's main thread, once (:class:`.reaper.KernelReaper`): its grading processes
    (one per worker thread: each plays one attempt) started now, from a forkserver that dies
    with the worker (:mod:`.orphans`)."""
    import multiprocessing
    import os

    os.environ[orphans.WORKER_VAR] = str(os.getpid())
    if "forkserver" in multiprocessing.get_all_start_methods():
        multiprocessing.get_context("forkserver").set_forkserver_preload([orphans.__name__])
    if not multiprocessing.current_process().daemon:  # else check_worker says why it cannot play
        _grader(max(1, nthreads)).warm_processes()


def check_worker(sandboxed: bool) -> str | None:
    """On a worker (``client.run``): None when it can play attempts, else why not."""
    import multiprocessing

    from ...kernels.interpreter import check_kernel_python
    from ...kernels.sandbox import prepare

    if multiprocessing.current_process().daemon:
        return (
            "its worker processes are daemonic (they cannot start grading processes): start the "
            "workers with DASK_DISTRIBUTED__WORKER__DAEMON=False"
        )
    return check_kernel_python() or (prepare() if sandboxed else None)


def _configure(job: Job) -> None:
    from ...kernels.limits import KernelLimits
    from ...kernels.sandbox import SandboxSetting, configure
    from ...kernels.spec import hide_from_kernels

    hide_from_kernels(*job.hide_env)
    limits = KernelLimits.parse(job.sandbox.get("limits", ""))
    configure(SandboxSetting(enabled=job.sandbox["enabled"], network=job.sandbox["network"], limits=limits))


class WorkerContext(PlayContext):
    """A play context whose database writes are published to the driver."""

    publish: Any = None
    kernel: HeadlessKernel | None = None

    async def db(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        out = await super().db(fn, *args, **kwargs)
        if getattr(fn, "__name__", "") in WRITES:
            kernel = self.kernel
            if kernel is not None:
                reaper.track(kernel.attempt_id, kernel.executor.pid())
            await asyncio.to_thread(self.publish)
        return out


async def _play(job: Job, task: Task, store: Store, publish: Callable[[], None], workroot: Path) -> None:
    from ...models.judge import VisionJudge
    from ...players import PlayerContext, make_player

    _configure(job)
    library = TaskLibrary(tasks={task.id: task})
    player = make_player(job.player, PlayerContext(store=store, model_options=dict(job.model_options)))
    judge = VisionJudge.from_env(None, **job.judge)
    grader = _grader(job.grading_workers) if judge is None else Grader(judge, job.grading_workers)
    ctx = WorkerContext(Attempts(store, library), player, job.mode, None, workroot, job.timeout, job.silence)
    ctx.grader = ctx.driver.grader = grader
    ctx.publish = publish
    try:
        await _run_attempt(ctx, task, job.attempt_id)
    finally:
        ctx.pool.shutdown(wait=True)
        if judge is not None:
            grader.close()
            await judge.aclose()
        close = getattr(player, "aclose", None)
        if close is not None:
            await close()


async def _run_attempt(ctx: WorkerContext, task: Task, attempt_id: str) -> None:
    from ...kernels.executor import KernelExecutor

    row, _ = await ctx.db(ctx.attempts.load, attempt_id)
    folder = ctx.workroot / f"{task.stem}-{attempt_id[:8]}"
    await asyncio.to_thread(copy_data, task, folder)
    timeout, prelude = task_kernel(task, ctx.timeout)
    executor = KernelExecutor(
        folder, timeout=timeout, silence=ctx.silence, rendering=task.rendering.rendering, prelude=prelude
    )
    ctx.kernel = HeadlessKernel(ctx.driver, attempt_id, executor)
    try:
        await executor.start()
        reaper.track(attempt_id, executor.pid())
        if row.current_step > 0 or await ctx.db(_has_turns, ctx.attempts, attempt_id):
            await ctx.driver.restore(attempt_id, ctx.kernel.run_cells, "resumed on a worker")
        await ctx.driver.play(attempt_id, ctx.kernel)
    finally:
        await executor.shutdown()
        shutil.rmtree(folder, ignore_errors=True)


def _has_turns(attempts: Attempts, attempt_id: str) -> bool:
    row, _ = attempts.load(attempt_id)
    return bool(attempts.turns(attempt_id, row.current_step))
