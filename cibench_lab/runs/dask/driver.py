"""The driver's loop of a distributed run (see :mod:`.cluster` for the design)."""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...play.attempt import Attempts
from ...players import PlayerError
from ...tasks.model import Task
from ..lease import Lease
from ..local import PlayContext, RunObserver, _leased, _open_attempt, ensure_run, pending_tasks, run_state
from ..spec import RunSpec
from . import replica
from .client import ClusterOptions, JobOptions, connect, task_data
from .stream import is_hello, live_name, queue_name, reply_name
from .worker import Job, play_attempt, task_key

if TYPE_CHECKING:
    from distributed import Client, Queue

POLL = 0.2  # seconds the driver waits for rows before looking at the attempts again
LAST_DELTA_WITHIN = 60.0  # seconds an ended attempt's last delta may take to be taken from the queue


@dataclass
class Tracked:
    """An attempt the driver submitted: its task, its Dask future, the worker it takes rows
    from (the nonce of the latest hello) and what it has applied of them."""

    task: Task
    future: Any
    nonce: str | None = None
    seq: int = 0
    status: str = "open"
    settled: set[int] = field(default_factory=set)
    replies: list[str] = field(default_factory=list)


async def run_on_cluster(
    attempts: Attempts,
    tasks: list[Task],
    spec: RunSpec,
    cluster: ClusterOptions,
    jobs: JobOptions,
    *,
    observer: RunObserver | None = None,
) -> list[str]:
    """:func:`..local.run_tasks` with the attempts played on the cluster's workers (``spec.jobs``
    and ``spec.kernel_pool`` are a local run's: ``jobs`` says what each worker's job gets)."""
    run_name = spec.name
    with tempfile.TemporaryDirectory(prefix="cibench-run-") as tmp:
        ctx = PlayContext.of(attempts, spec, Path(tmp), observer or RunObserver())
        lease = Lease(attempts.store, run_name)
        try:
            client = await connect(cluster, jobs.sandbox.get("enabled", True))
            try:
                await ctx.db(lease.take)
                try:
                    driver = ClusterDriver(ctx, client, run_name, lease.token, jobs)
                    state = await _leased(lease, driver.play(tasks, spec.config()))
                finally:
                    await ctx.db(lease.release)
            finally:
                await client.close()
        finally:
            ctx.pool.shutdown(wait=True)
            ctx.grader.close()
    return [i for i, status in state.values() if status == "done"]


class ClusterDriver:
    """Submits the run's open attempts, applies the rows workers send, reports progress."""

    def __init__(
        self, ctx: PlayContext, client: Client, run_name: str, session: str, jobs: JobOptions
    ) -> None:
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
        ctx = self.ctx
        attempt_id, resumed = await _open_attempt(ctx, task, attempt_id)
        refs = await ctx.db(replica.owners, ctx.attempts.store, attempt_id)
        data = await asyncio.to_thread(task_data, task)
        job = Job(self.session, attempt_id, task, ctx.mode, data, refs=refs, timeout=ctx.timeout,
                  silence=ctx.silence, **vars(self.jobs))  # fmt: skip
        tracked = Tracked(task, None)
        row = (await ctx.db(ctx.attempts.load, attempt_id))[0] if resumed else None
        ctx.observer.task_started(task, attempt_id, row.current_step if row is not None else None)
        tracked.future = self.client.submit(
            play_attempt, job, key=task_key(self.session, attempt_id), pure=False
        )
        self.tracked[attempt_id] = tracked
        return attempt_id

    async def follow(self, queue: Queue, pending: list[tuple[Task, str | None]]) -> None:
        """Submit attempts as worker threads come free (so no attempt waits behind a long one
        on a busy worker while another is idle, as with ``--jobs``); apply rows as they come
        until every attempt's task has ended, then its last rows."""
        open_: dict[str, Tracked] = {}
        while open_ or pending:
            free = sum((await self.client.nthreads()).values()) - len(open_)
            for task, attempt_id in [pending.pop(0) for _ in range(min(max(free, 0), len(pending)))]:
                aid = await self.submit(task, attempt_id)
                open_[aid] = self.tracked[aid]
            await self.take(queue, POLL)
            for attempt_id, tracked in list(open_.items()):
                if tracked.future.done():
                    del open_[attempt_id]
                    await self.finish(queue, tracked)
        await self.take(queue, 0)  # the deltas a failed attempt queued before it failed

    async def take(self, queue: Queue, wait: float) -> None:
        """Handle what the queue holds, in order, after waiting up to ``wait`` s for the first."""
        for message in await _take(queue, wait):
            if is_hello(message):
                await self.answer(message)
            else:
                await self.apply(message)

    async def finish(self, queue: Queue, tracked: Tracked) -> None:
        try:
            last = await tracked.future
        except PlayerError as err:
            self.ctx.observer.task_finished(tracked.task, "incomplete", str(err))
            return
        except Exception as err:  # one attempt's failure must not stop the others
            self.ctx.observer.task_finished(tracked.task, "failed", f"{type(err).__name__}: {err}")
            return
        deadline = asyncio.get_running_loop().time() + LAST_DELTA_WITHIN
        while tracked.nonce == last["nonce"] and tracked.seq < last["seq"]:  # queued before it ended
            if asyncio.get_running_loop().time() > deadline:
                self.ctx.observer.task_finished(tracked.task, "failed", "its last rows never came")
                return
            await self.take(queue, POLL)
        status = "done" if tracked.status == "done" else "incomplete"
        self.ctx.observer.task_finished(tracked.task, status, "")

    async def answer(self, hello: dict[str, Any]) -> None:
        """A worker starts the attempt: take its rows from now on, send it the attempt's."""
        from distributed import Variable

        tracked = self.tracked.get(hello["attempt_id"])
        if tracked is None:
            return
        tracked.nonce, tracked.seq = hello["hello"], 0
        rows = await self.ctx.db(replica.dump, self.ctx.attempts.store, hello["attempt_id"])
        tracked.settled = {s["index"] for s in rows["steps"] if s["settled_at"]}  # reported already
        name = reply_name(self.session, hello["hello"])
        tracked.replies.append(name)
        await Variable(name, client=self.client).set(rows)

    async def apply(self, rows: replica.Rows) -> None:
        """Record a delta of the attempt's worker (the next it sent) and report steps settled."""
        tracked = self.tracked.get(rows["attempt"]["id"])
        if tracked is None or rows["nonce"] != tracked.nonce or rows["seq"] <= tracked.seq:
            return
        tracked.seq, tracked.status = rows["seq"], rows["attempt"]["status"]
        await self.ctx.db(replica.apply, self.ctx.attempts.store, rows)
        for step in sorted(rows["steps"], key=lambda s: s["index"]):
            if step["settled_at"] and step["index"] not in tracked.settled:
                tracked.settled.add(step["index"])
                self.ctx.observer.step_settled(tracked.task, step["index"], step["outcome"])

    async def forget(self, queue: Queue) -> None:
        """Cancel what is still running (a lost lease, Ctrl-C) and drop the run's Dask state."""
        from distributed import Variable

        running = [t.future for t in self.tracked.values() if t.future is not None and not t.future.done()]
        if running:
            await self.client.cancel(running)
        Variable(live_name(self.session), client=self.client).delete()
        for tracked in self.tracked.values():  # answers a lost worker never read
            for name in tracked.replies:
                Variable(name, client=self.client).delete()
        queue.close()


async def _take(queue: Queue, wait: float) -> list[dict[str, Any]]:
    """The messages queued now, after waiting up to ``wait`` seconds for the first."""
    if wait > 0:
        try:
            first = await queue.get(timeout=wait)
        except (asyncio.TimeoutError, TimeoutError):
            return []
        return [first, *await queue.get(batch=True)]
    return list(await queue.get(batch=True))
