"""The driver's loop of a distributed run (see :mod:`.cluster` for the design)."""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..players import Player, PlayerError
from ..tasks.model import Task
from . import replica
from .attempt import Attempts
from .cluster import ClusterOptions, JobOptions, connect, task_data
from .executor import COMPAT_SILENCE
from .lease import Lease
from .remote import Job, live_name, play_attempt, queue_name, state_name, task_key
from .run import PlayContext, RunObserver, _leased, _open_attempt, ensure_run, pending_tasks, run_state
from .settings import PlaySettings

POLL = 0.2  # seconds the driver waits for rows before looking at the attempts again


@dataclass
class Tracked:
    """An attempt the driver submitted: its task, its Dask future, what it has applied."""

    task: Task
    future: Any
    seq: int = 0
    settled: set[int] = field(default_factory=set)


async def run_on_cluster(
    attempts: Attempts,
    tasks: list[Task],
    player: Player,
    mode: str,
    run_name: str,
    cluster: ClusterOptions,
    jobs: JobOptions,
    timeout: float = 120.0,
    *,
    compat_timeout: bool = False,
    observer: RunObserver | None = None,
    settings: PlaySettings | None = None,
) -> list[str]:
    """:func:`.run.run_tasks` with the attempts played on the cluster's workers."""
    settings = settings or PlaySettings()
    config = {
        **player.describe(),
        "max_turn": settings.max_turn,
        "timeout": timeout,
        "compat_timeout": compat_timeout,
    }
    silence = COMPAT_SILENCE if compat_timeout else None
    with tempfile.TemporaryDirectory(prefix="cibench-run-") as tmp:
        ctx = PlayContext(
            attempts, player, mode, None, Path(tmp), timeout, silence, observer or RunObserver()
        )
        ctx.settings = settings
        lease = Lease(attempts.store, run_name)
        try:
            client = await connect(cluster, jobs.sandbox.get("enabled", True))
            try:
                await ctx.db(lease.take)
                try:
                    driver = Driver(ctx, client, run_name, lease.token, jobs)
                    state = await _leased(lease, driver.play(tasks, config))
                finally:
                    await ctx.db(lease.release)
            finally:
                await client.close()
        finally:
            ctx.pool.shutdown(wait=True)
            ctx.grader.close()
    return [i for i, status in state.values() if status == "done"]


class Driver:
    """Submits the run's open attempts, applies the rows workers send, reports progress."""

    def __init__(self, ctx: PlayContext, client, run_name: str, session: str, jobs: JobOptions):
        self.ctx, self.client, self.run_name, self.jobs = ctx, client, run_name, jobs
        self.session = f"{run_name}:{session}"  # names this driver's Variables and queue only
        self.tracked: dict[str, Tracked] = {}

    async def play(self, tasks: list[Task], config: dict) -> dict[str, tuple[str, str]]:
        from distributed import Queue, Variable

        ctx = self.ctx
        ctx.run_id = await ctx.db(ensure_run, ctx.attempts, self.run_name, ctx.player.name, ctx.mode, config)
        state = await ctx.db(run_state, ctx.attempts, ctx.run_id)
        queue = Queue(queue_name(self.session), client=self.client)
        await Variable(live_name(self.session), client=self.client).set(True)
        pending = pending_tasks(ctx, tasks, state)
        try:
            await self.follow(queue, pending)
        finally:
            await self.forget(queue)
        return await ctx.db(run_state, ctx.attempts, ctx.run_id)

    async def submit(self, task: Task, attempt_id: str | None) -> str:
        from distributed import Variable

        ctx = self.ctx
        attempt_id, resumed = await _open_attempt(ctx, task, attempt_id)
        store = ctx.attempts.store
        rows = await ctx.db(replica.dump, store, attempt_id, 0)
        refs = await ctx.db(replica.owners, store, attempt_id)
        await Variable(state_name(self.session, attempt_id), client=self.client).set(rows)
        data = await asyncio.to_thread(task_data, task)
        job = Job(self.session, attempt_id, task, data, refs=refs, timeout=ctx.timeout, silence=ctx.silence,
                  **vars(self.jobs))  # fmt: skip
        tracked = Tracked(task, None, settled={s["index"] for s in rows["steps"] if s["settled_at"]})
        ctx.observer.task_started(task, attempt_id, rows["attempt"]["current_step"] if resumed else None)
        tracked.future = self.client.submit(
            play_attempt, job, key=task_key(self.session, attempt_id), pure=False
        )
        self.tracked[attempt_id] = tracked
        return attempt_id

    async def follow(self, queue, pending: list[tuple[Task, str | None]]) -> None:
        """Submit attempts as worker threads come free (so no attempt waits behind a long one
        on a busy worker while another is idle, as with ``--jobs``); apply rows as they come
        until every attempt's task has ended, then its last rows."""
        open_: dict[str, Tracked] = {}
        while open_ or pending:
            free = sum((await self.client.nthreads()).values()) - len(open_)
            for task, attempt_id in [pending.pop(0) for _ in range(min(max(free, 0), len(pending)))]:
                aid = await self.submit(task, attempt_id)
                open_[aid] = self.tracked[aid]
            for rows in await _take(queue):
                await self.apply(rows)
            for attempt_id, tracked in list(open_.items()):
                if tracked.future.done():
                    del open_[attempt_id]
                    await self.finish(attempt_id, tracked)

    async def finish(self, attempt_id: str, tracked: Tracked) -> None:
        try:
            rows = await tracked.future
        except PlayerError as err:
            self.ctx.observer.task_finished(tracked.task, "incomplete", str(err))
            return
        except Exception as err:  # one attempt's failure must not stop the others
            self.ctx.observer.task_finished(tracked.task, "failed", f"{type(err).__name__}: {err}")
            return
        await self.apply(rows)
        status = rows["attempt"]["status"]
        self.ctx.observer.task_finished(tracked.task, "done" if status == "done" else "incomplete", "")

    async def apply(self, rows: replica.Rows) -> None:
        """Record the rows (newer than what this attempt has had) and report steps settled."""
        tracked = self.tracked.get(rows["attempt"]["id"])
        if tracked is None or rows["seq"] <= tracked.seq:
            return
        tracked.seq = rows["seq"]
        await self.ctx.db(replica.apply, self.ctx.attempts.store, rows)
        for step in sorted(rows["steps"], key=lambda s: s["index"]):
            if step["settled_at"] and step["index"] not in tracked.settled:
                tracked.settled.add(step["index"])
                self.ctx.observer.step_settled(tracked.task, step["index"], step["outcome"])

    async def forget(self, queue) -> None:
        """Cancel what is still running (a lost lease, Ctrl-C) and drop the run's Dask state."""
        from distributed import Variable

        running = [t.future for t in self.tracked.values() if t.future is not None and not t.future.done()]
        if running:
            await self.client.cancel(running)
        Variable(live_name(self.session), client=self.client).delete()
        for attempt_id in self.tracked:
            Variable(state_name(self.session, attempt_id), client=self.client).delete()
        queue.close()


async def _take(queue) -> list[replica.Rows]:
    """The rows queued now, after waiting up to POLL seconds for the first."""
    try:
        first = await queue.get(timeout=POLL)
    except (asyncio.TimeoutError, TimeoutError):
        return []
    more = await queue.get(batch=True)
    return [first, *more]
