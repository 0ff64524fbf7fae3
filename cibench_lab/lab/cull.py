"""Attempt kernels the lab stops: a finished attempt's once it is done with it, an open one's
after ``kernel_idle_cull`` idle seconds (``CIBenchLabApp.kernel_idle_cull``; 0 = never).

Done with it: the kernel is idle and, when the finishing answer shows a last reference (oracle
mode: the browser runs it), that reference was reported (``POST .../oracle``) — each wait at
most ``FINISH_GRACE`` seconds, so a page that went away does not keep the kernel.

Idle: neither the kernel (its ``last_activity``: any message it published) nor the attempt (its
latest event — an edit, a settle, a restore — or turn) did anything for that long, and no turn or
restore is in flight.  A stop deletes the notebook's session (which shuts its kernel down): the
lab then shows "No Kernel" and the notebook's next run starts a fresh kernel of its kernelspec
without a dialog, which the lab restores (``LabPlay._auto_bind``).  Each stop is an event
``kernel_stopped`` ``{reason, kernel_id}``; the attempt view says why (``kernel_stopped``) and the
next bind of a new kernel answers it once per new kernel (``previous_stop``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Container
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..errors import BadInput
from ..play.answers import NextMove
from ..play.attempt import Attempts
from ..store.tables import Attempt, Event, OracleReference, Turn
from ..store.times import utcnow

log = logging.getLogger(__name__)

STOPPED = "kernel_stopped"  # the Event kind of a kernel the server stopped
IDLE, FINISHED = "idle", "finished"  # why
SWEEP_MAX = 60.0  # seconds between idle checks, at most
FINISH_GRACE = 60.0  # seconds a finished attempt's kernel waits, at most, for its last reference / idle

Call = Callable[..., Awaitable[Any]]


def check_cull(kernel_idle_cull: float, pause_after: int, field: str = "settings.pause_after") -> None:
    """BadInput unless idle kernels are culled later than the working clock pauses (or never);
    ``field`` names the pause_after being checked."""
    if kernel_idle_cull < 0:
        raise BadInput("CIBenchLabApp.kernel_idle_cull: must be >= 0 seconds (0: never)")
    if kernel_idle_cull and pause_after >= kernel_idle_cull:
        raise BadInput(
            f"{field}: must be less than CIBenchLabApp.kernel_idle_cull ({kernel_idle_cull:g} s): "
            "an idle kernel is culled only after the working clock paused"
        )


def last_activity(attempts: Attempts, attempt_id: str) -> dt.datetime:
    """When the attempt last did something: its start, latest event or latest turn (aware UTC)."""
    with attempts.store.session() as s:
        times = [
            s.scalar(select(Attempt.created_at).where(Attempt.id == attempt_id)),
            s.scalar(select(func.max(Event.at)).where(Event.attempt_id == attempt_id)),
            s.scalar(select(func.max(OracleReference.at)).where(OracleReference.attempt_id == attempt_id)),
            s.scalar(select(func.max(Turn.finished_at)).where(Turn.attempt_id == attempt_id)),
        ]
    return max(t for t in times if t is not None)


def _last_stop(s: Session, attempt_id: str) -> Event | None:
    q = select(Event).where(Event.attempt_id == attempt_id, Event.kind == STOPPED)
    return s.scalar(q.order_by(Event.id.desc()).limit(1))


def kernel_state(s: Session, row: Attempt, running: Container[str]) -> dict[str, Any]:
    """The view's ``kernel`` (running | stopped | none) and ``kernel_stopped`` (why the server
    stopped it: idle | finished; null when it did not, e.g. a kernel that died or was shut down)."""
    if row.kernel_id is None:
        return {"kernel": "none", "kernel_stopped": None}
    if row.kernel_id in running:
        return {"kernel": "running", "kernel_stopped": None}
    stop = _last_stop(s, row.id)
    mine = stop is not None and (stop.detail or {}).get("kernel_id") == row.kernel_id
    return {"kernel": "stopped", "kernel_stopped": stop.detail.get("reason") if mine and stop else None}


def previous_stop(attempts: Attempts, attempt_id: str, kernel_id: str) -> str | None:
    """Why the server stopped the attempt's kernel before ``kernel_id``, when ``kernel_id`` is the
    first kernel bound since (every bind of that kernel answers it; a later kernel gets None)."""
    with attempts.store.session() as s:
        stop = _last_stop(s, attempt_id)
        if stop is None:
            return None
        detail = dict(stop.detail or {})
        if detail.get("kernel_id") == kernel_id or detail.get("replaced_by", kernel_id) != kernel_id:
            return None
        if "replaced_by" not in detail:
            stop.detail = {**detail, "replaced_by": kernel_id}
        return detail.get("reason")


async def session_of(session_manager: Any, kernel_id: str, tries: int = 1) -> dict | None:
    """The session running ``kernel_id`` (asked ``tries`` times, 50 ms apart: a session row is
    written just after its kernel starts)."""
    for attempt in range(tries):
        for session in await session_manager.list_sessions():
            if (session.get("kernel") or {}).get("id") == kernel_id:
                return session
        if attempt + 1 < tries:
            await asyncio.sleep(0.05)
    return None


class Culler:
    """Stops attempt kernels: finished attempts' at once, idle ones' on a periodic check."""

    def __init__(
        self,
        serverapp: Any,
        attempts: Attempts,
        call: Call,
        idle_after: float,
        bound: dict[str, str],
        busy: Callable[[str], bool],
        finish_grace: float = FINISH_GRACE,
    ):
        self.app = serverapp
        self.attempts = attempts
        self.call = call  # the lab's engine thread
        self.idle_after = idle_after  # seconds; 0: never
        self.bound = bound  # kernel id -> attempt id whose state it holds (the lab's)
        self.busy = busy  # a turn report or a restore in flight on the kernel
        self.sweeper: asyncio.Task | None = None
        self.stopping: set[asyncio.Future] = set()
        self.finish_grace = finish_grace
        self.finishing: set[asyncio.Future] = set()  # finished attempts' kernels waiting to stop
        self.shown: dict[str, tuple[int, asyncio.Event]] = {}  # attempt id -> last step, reported

    def start(self) -> None:
        """Check for idle kernels from now on (on the server's event loop; once)."""
        if self.idle_after and self.sweeper is None:
            self.sweeper = asyncio.ensure_future(self._sweep_forever())

    def after(self, attempt_id: str, kernel_id: str | None, nxt: NextMove) -> None:
        """An answer said what comes next: when the attempt is done, stop its kernel once it
        is done with it (the last reference shown, when the answer shows one, and idle)."""
        if nxt["do"] != "done" or not kernel_id:
            return
        shown, show = None, nxt.get("show")
        if show:
            shown = self.shown.setdefault(attempt_id, (show["step"], asyncio.Event()))[1]
        job = asyncio.ensure_future(self._finish(attempt_id, kernel_id, shown))
        self.finishing.add(job)
        job.add_done_callback(self.finishing.discard)

    def referenced(self, attempt_id: str, step: Any) -> None:
        """Step ``step``'s reference was reported: when it is a finished attempt's last, its
        kernel may stop."""
        last, shown = self.shown.get(attempt_id, (None, None))
        if shown is not None and step == last:
            shown.set()

    async def _finish(self, attempt_id: str, kernel_id: str, shown: asyncio.Event | None) -> None:
        """Wait (each at most ``finish_grace``) for the last reference and an idle kernel; stop it."""
        try:
            if shown is not None:
                await asyncio.wait_for(shown.wait(), self.finish_grace)
        except asyncio.TimeoutError:
            log.info("cibench-lab: attempt %s did not report its last reference", attempt_id)
        finally:
            self.shown.pop(attempt_id, None)
        deadline = asyncio.get_running_loop().time() + self.finish_grace
        while not self._quiet(kernel_id) and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.1)
        await asyncio.shield(self._stopping(attempt_id, kernel_id, FINISHED))

    def _quiet(self, kernel_id: str) -> bool:
        """The kernel is gone, or idle with no turn report or restore in flight."""
        km = self.app.kernel_manager
        if kernel_id not in km:
            return True
        state = getattr(km.get_kernel(kernel_id), "execution_state", "idle")
        return state == "idle" and not self.busy(kernel_id)

    def _stopping(self, attempt_id: str, kernel_id: str, reason: str) -> asyncio.Future:
        """Stop the kernel in a task of its own: never cancelled halfway (jupyter_client cannot
        shut down a kernel whose shutdown was cancelled), awaited when the server stops."""
        job = asyncio.ensure_future(self.stop(attempt_id, kernel_id, reason))
        self.stopping.add(job)
        job.add_done_callback(self.stopping.discard)
        return job

    async def stop(self, attempt_id: str, kernel_id: str, reason: str) -> None:
        """Record why, then close the kernel's session (or, with none, shut the kernel down)."""
        km = self.app.kernel_manager
        if kernel_id not in km:
            return
        await self.call(self.attempts.event, attempt_id, STOPPED, {"reason": reason, "kernel_id": kernel_id})
        log.info("cibench-lab: stopping kernel %s of attempt %s (%s)", kernel_id, attempt_id, reason)
        try:
            session = await session_of(self.app.session_manager, kernel_id)
            if session is not None:
                await self.app.session_manager.delete_session(session["id"])
            elif kernel_id in km:
                await km.shutdown_kernel(kernel_id)
        except Exception:
            log.exception("cibench-lab: stopping kernel %s failed", kernel_id)

    async def sweep(self) -> None:
        """Stop every bound kernel idle for ``idle_after`` seconds."""
        now = utcnow()
        for kernel_id, attempt_id in list(self.bound.items()):
            if await self._idle(kernel_id, attempt_id, now):
                await asyncio.shield(self._stopping(attempt_id, kernel_id, IDLE))

    async def _idle(self, kernel_id: str, attempt_id: str, now: dt.datetime) -> bool:
        km = self.app.kernel_manager
        if kernel_id not in km or self.busy(kernel_id):
            return False
        kernel = km.get_kernel(kernel_id)
        if getattr(kernel, "execution_state", "idle") != "idle":
            return False
        limit = dt.timedelta(seconds=self.idle_after)
        kernel_last = getattr(kernel, "last_activity", None)
        if kernel_last is not None and now - kernel_last < limit:
            return False
        return now - await self.call(last_activity, self.attempts, attempt_id) >= limit

    async def _sweep_forever(self) -> None:
        every = min(SWEEP_MAX, max(0.2, self.idle_after / 10))
        while True:
            await asyncio.sleep(every)
            try:
                await self.sweep()
            except Exception:
                log.exception("cibench-lab: the idle-kernel check failed")

    async def close(self, wait: float = 30.0) -> None:
        """No more checks; the stops under way finish (up to ``wait`` seconds) before the
        server shuts its kernels down."""
        if self.sweeper is not None:
            self.sweeper.cancel()
        for job in list(self.finishing):  # still waiting: the server shuts the kernel down
            job.cancel()
        if self.stopping:
            await asyncio.wait(list(self.stopping), timeout=wait)
