"""The lab's side of the participant record: the working clock's routes, notes, and the action
trace — every execution on an attempt's kernel, read by the server's own IOPub capture.

The capture (:mod:`.capture`) tells :class:`LabRecord` when an execution starts
(its first ``execute_input``: a paused clock resumes, cause ``run``) and when it finishes (its idle
status, or its kernel's death): a ``cell_run`` event of the kernel's attempt, with the code of the
request the server forwarded (:mod:`.sent`), its times and whether it failed. The server's own
hidden work (start code, restores: :mod:`.hidden`) is not the person's and is left out. Which cell
ran is the browser's word (``runs`` of its activity report: msg_id -> cell id, sent when it
schedules the run), so the record waits ``CELL_ID_GRACE`` seconds after the run for it. Whether
a run was graded is not stored: a run is graded when a turn holds its msg_id (``graded`` in
:func:`trace_view`, joined when read), so nothing is written twice.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..kernels.execution import Execution
from ..play.attempt import Attempts
from ..record.activity import pause, record_activity, record_cell_run, resume, save_note, touch, touch_kernel
from ..record.worktime import CELL_EDITS, CELL_RUN
from ..store.tables import Event, Turn
from ..store.times import iso
from .capture import Captures
from .hidden import is_hidden

log = logging.getLogger(__name__)
CELL_ID_GRACE = 1.0  # seconds a finished run waits for the browser to say which cell it was
KEEP_CELL_IDS = 1024  # msg_id -> cell id pairs remembered


class LabRecord:
    """Pause, resume, notes, activity and the action trace of the lab's attempts."""

    def __init__(self, attempts: Attempts, call: Callable[..., Awaitable[Any]], captures: Captures):
        self.attempts = attempts
        self.call = call  # runs a transition on the engine thread
        self.captures = captures
        self.cell_ids: OrderedDict[str, str] = OrderedDict()
        self.background: set[asyncio.Future] = set()
        self.timers: set[asyncio.TimerHandle] = set()
        self.closed = False
        captures.listener = self

    # ---- routes --------------------------------------------------------------------------
    async def pause(self, attempt_id: str, participant: str, cause: str) -> None:
        await self.call(pause, self.attempts, attempt_id, participant, cause)

    async def resume(self, attempt_id: str, participant: str, cause: str) -> None:
        await self.call(resume, self.attempts, attempt_id, participant, cause)

    async def note(self, attempt_id: str, participant: str, step: int, text: str) -> dict[str, Any]:
        return await self.call(save_note, self.attempts, attempt_id, participant, step, text)

    async def activity(
        self, attempt_id: str, step: int, participant: str, cells: dict[str, int], runs: dict[str, str]
    ) -> dict[str, Any]:
        """The person edited (``cells``: edits per cell id) or ran (``runs``: msg_id -> cell id)."""
        for msg_id, cell_id in list(runs.items())[:KEEP_CELL_IDS]:
            self.cell_ids[msg_id] = cell_id
        while len(self.cell_ids) > KEEP_CELL_IDS:
            self.cell_ids.popitem(last=False)
        row, _ = await self.call(self.attempts.load, attempt_id, participant)
        running = self.running(row.kernel_id)
        return await self.call(
            record_activity, self.attempts, attempt_id, step, participant, cells, running, bool(runs)
        )

    async def ran(self, attempt_id: str) -> None:
        """A turn was reported: a paused clock resumes (the run's start already did, as a rule)."""
        await self.call(touch, self.attempts, attempt_id, "run", True)

    async def settling(self, attempt_id: str) -> None:
        """A person settles the open step: an idle gap before it is recorded as such."""
        row, _ = await self.call(self.attempts.load, attempt_id)
        await self.call(touch, self.attempts, attempt_id, None, self.running(row.kernel_id))

    def running(self, kernel_id: str | None) -> bool:
        """Whether an execution is in flight on the kernel (its time counts as work, not idle)."""
        cap = self.captures.get(kernel_id) if kernel_id else None
        return cap is not None and any(ex.began and not ex.done for ex in cap.executions.values())

    # ---- the capture's listener ------------------------------------------------------------
    def started(self, kernel_id: str, ex: Execution) -> None:
        if not (self.closed or is_hidden(ex.session)):
            self._spawn(lambda: self.call(touch_kernel, self.attempts, kernel_id, "run"))

    def finished(self, kernel_id: str, ex: Execution) -> None:
        if self.closed or not ex.began or is_hidden(ex.session):
            return
        run = run_record(ex)

        def record() -> None:
            self.timers.discard(timer)
            run["cell_id"] = self.cell_ids.get(run["msg_id"])
            self._spawn(lambda: self.call(record_cell_run, self.attempts, kernel_id, run))

        timer = asyncio.get_running_loop().call_later(CELL_ID_GRACE, record)
        self.timers.add(timer)

    def _spawn(self, work: Callable[[], Awaitable[Any]]) -> None:
        if self.closed:
            return
        job = asyncio.ensure_future(work())
        self.background.add(job)
        job.add_done_callback(self._done)

    def _done(self, job: asyncio.Future) -> None:
        self.background.discard(job)
        if not job.cancelled() and job.exception() is not None:
            log.error("cibench-lab: recording a run failed: %s", job.exception())

    def close(self) -> None:
        """The server stops: runs not yet recorded are dropped (their kernels stop too)."""
        self.closed = True
        for timer in self.timers:
            timer.cancel()
        self.timers.clear()


def run_record(ex: Execution) -> dict[str, Any]:
    """What a ``cell_run`` event holds of an execution (its ``step`` is added when recorded)."""
    started, finished = ex.times()
    return {
        "cell_id": None,
        "msg_id": ex.msg_id,
        "code": ex.code or "",
        "started_at": iso(started),
        "finished_at": iso(finished) if ex.done else None,
        "error": ex.error,
        "status": ex.status,
        "execution_count": ex.execution_count,
    }


def turn_numbers(s: Session, attempt_id: str) -> dict[str, int]:
    """msg_id -> turn number of the attempt's turns: a ``cell_run`` whose msg_id is here was graded."""
    q = select(Turn.msg_id, Turn.number).where(Turn.attempt_id == attempt_id, Turn.msg_id.is_not(None))
    return {msg_id: number for msg_id, number in s.execute(q) if msg_id is not None}


def with_graded(detail: dict[str, Any], number: int | None) -> dict[str, Any]:
    """A ``cell_run`` event's detail as read: ``graded`` (a turn holds its msg_id) and that ``turn``."""
    return {**detail, "graded": number is not None, "turn": number}


def trace_view(attempts: Attempts, attempt_id: str, participant: str | None) -> dict[str, Any]:
    """The attempt's action trace: every recorded run (``graded``: a turn holds its msg_id; ``turn``:
    which) and every per-cell edit count, in time order."""
    attempts.load(attempt_id, participant)
    with attempts.store.session() as s:
        turns = turn_numbers(s, attempt_id)
        q = select(Event.at, Event.kind, Event.detail).where(
            Event.attempt_id == attempt_id, Event.kind.in_((CELL_RUN, CELL_EDITS))
        )
        rows = s.execute(q.order_by(Event.at, Event.id)).all()
    runs, edits = [], []
    for at, kind, detail in rows:
        if kind == CELL_RUN:
            runs.append(with_graded(detail, turns.get(detail.get("msg_id"))))
        else:
            edits.append({**detail, "at": iso(at)})
    return {"runs": runs, "edits": edits}
