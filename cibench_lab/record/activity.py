"""The participant record beyond turns: the working clock's pauses, notes, edits and runs.

Every transition here is one transaction of events on the attempt (``event``; kinds in
:mod:`.worktime`), run on the engine thread like the attempt's other transitions:

- ``pause`` / ``resume``: the person stops and restarts the working clock (button or command);
  an edit or a run while paused resumes it (cause ``edit`` / ``run``), decided here when the
  activity report, the run or the turn arrives (:func:`touch`). A gap over ``pause_after`` found
  then is recorded as a ``pause`` of cause ``idle`` dated where the idle rule starts it (its
  ``detected_at`` says when the server noticed), so the stored intervals show the idle pauses too.
- ``note``: every save of a step's note; ``step.note`` holds the latest text.
- ``cell_edits``: per cell, the edits (not keystrokes) the browser counted since its last report.
- ``cell_run``: an execution on the attempt's kernel, as the server's own capture read it.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..errors import BadInput, Conflict
from ..play.attempt import Attempts
from ..play.settings import PlaySettings
from ..store.tables import Attempt, Event, StepRow
from ..store.times import iso, parse_iso, utcnow
from ..tasks.vocabulary import HUMAN
from .quit import ended_word
from .worktime import ACTIVITY, CELL_EDITS, CELL_RUN, NOTE, PAUSE, RESUME, Clock, open_pause, read_clock

NOTE_MAX = 10_000  # characters of one step's note
PAUSE_CAUSES = ("button", "command")  # what a person pauses with (the server adds "idle")
CELL_EDITS_MAX = 500  # cells one activity report may count


def _clock(s: Session, attempt_id: str) -> tuple[list[StepRow], Clock]:
    rows = list(s.scalars(select(StepRow).where(StepRow.attempt_id == attempt_id).order_by(StepRow.index)))
    return rows, read_clock(s, attempt_id, rows)


def _person(row: Attempt) -> None:
    if row.player != HUMAN:
        raise Conflict("only a person's attempt has a working clock to pause")
    if row.status != "open":
        raise Conflict(f"attempt {row.id} is {ended_word(row.status)}")


def pause(attempts: Attempts, attempt_id: str, participant: str, cause: str) -> None:
    """The person pauses the working clock of their open attempt."""
    row, _ = attempts.load(attempt_id, participant)
    _person(row)
    with attempts.store.session() as s:
        if _clock(s, attempt_id)[1].open_pause is not None:
            raise Conflict("the working clock is already paused")
        s.add(Event(attempt_id=attempt_id, kind=PAUSE, detail={"step": row.current_step, "cause": cause}))


def resume(attempts: Attempts, attempt_id: str, participant: str, cause: str) -> None:
    """The person resumes the paused working clock."""
    row, _ = attempts.load(attempt_id, participant)
    _person(row)
    with attempts.store.session() as s:
        if _clock(s, attempt_id)[1].open_pause is None:
            raise Conflict("the working clock is not paused")
        s.add(Event(attempt_id=attempt_id, kind=RESUME, detail={"step": row.current_step, "cause": cause}))


def touch(attempts: Attempts, attempt_id: str, cause: str | None, running: bool = False) -> bool:
    """An edit (``cause`` "edit"), a run ("run") or a settle (None) of a person's open attempt:
    a paused clock resumes (not on a settle: the pause ends with its step); a gap over
    ``pause_after`` (while nothing ran: ``running`` False) is recorded as an idle pause ending
    now. True when the clock resumed."""
    row, _ = attempts.load(attempt_id)
    if row.player != HUMAN or row.status != "open":
        return False
    if running:  # no idle gap ends in a run in flight: only whether the clock is paused counts
        return cause is not None and _resume_if_paused(attempts, row, cause)
    now = utcnow()
    with attempts.store.session() as s:
        steps, clock = _clock(s, attempt_id)
        step = row.current_step
        resumed = Event(attempt_id=attempt_id, kind=RESUME, at=now, detail={"step": step, "cause": cause})
        if clock.open_pause is not None:
            if cause is not None:
                s.add(resumed)
            return cause is not None
        idle_from = clock.last_point(steps[step]) + dt.timedelta(seconds=_pause_after(row))
        if idle_from >= now:
            return False
        idle = {"step": step, "cause": "idle", "detected_at": iso(now)}
        s.add(Event(attempt_id=attempt_id, kind=PAUSE, at=idle_from, detail=idle))
        if cause is not None:
            s.add(resumed)
    return False


def _pause_after(row: Attempt) -> int:
    return PlaySettings.recorded(row.settings).pause_after


def record_activity(
    attempts: Attempts,
    attempt_id: str,
    step: int,
    participant: str,
    cells: dict[str, int],
    running: bool = False,
    ran: bool = False,
) -> dict[str, Any]:
    """A person edited (``cells``: edits per cell) or ran cells (``ran``) while step ``step`` was open:
    a paused clock resumes (cause ``edit``, or ``run`` for a report of runs alone); an edit report is
    an ``activity`` event plus one ``cell_edits`` event per counted cell. The step's working time
    (None for a report of runs alone: it is answered without reading the clock, as it comes with
    every run, just ahead of the turn's report)."""
    row, _ = attempts.load(attempt_id, participant)
    Attempts.check_open(row, step)
    if len(cells) > CELL_EDITS_MAX:
        raise BadInput(f"cells: at most {CELL_EDITS_MAX} cells per report")
    edits = {cell_id: count for cell_id, count in cells.items() if count > 0}
    if ran and not edits:  # runs alone: their start on the kernel touches the clock (touch_kernel)
        return {"step": step, "working_seconds": None, "resumed": _resume_if_paused(attempts, row, "run")}
    resumed = touch(attempts, attempt_id, "edit", running)
    with attempts.store.session() as s:
        now = utcnow()
        s.add(Event(attempt_id=attempt_id, kind=ACTIVITY, at=now, detail={"step": step}))
        for cell_id, count in edits.items():
            detail = {"step": step, "cell_id": cell_id, "count": count}
            s.add(Event(attempt_id=attempt_id, kind=CELL_EDITS, at=now, detail=detail))
        s.flush()
        steps, clock = _clock(s, attempt_id)
        seconds = clock.working([steps[step]], _pause_after(row))[step]
    return {"step": step, "working_seconds": seconds, "resumed": resumed}


def _resume_if_paused(attempts: Attempts, row: Attempt, cause: str) -> bool:
    """A paused clock resumes (``cause``), with nothing else of the clock read; True when it did."""
    with attempts.store.session() as s:
        if open_pause(s, row.id) is None:
            return False
        s.add(Event(attempt_id=row.id, kind=RESUME, detail={"step": row.current_step, "cause": cause}))
    return True


def save_note(attempts: Attempts, attempt_id: str, participant: str, step: int, text: str) -> dict[str, Any]:
    """The person's note on an opened step of their open attempt: ``step.note`` and a ``note`` event."""
    row, _ = attempts.load(attempt_id, participant)
    if row.status != "open":
        raise Conflict(f"attempt {row.id} is {ended_word(row.status)}")
    if not 0 <= step <= row.current_step:
        raise BadInput(f"step: must be an opened step, 0..{row.current_step}")
    if len(text) > NOTE_MAX:
        raise BadInput(f"text: a note holds at most {NOTE_MAX} characters (this one has {len(text)})")
    with attempts.store.session() as s:
        srow = s.scalar(select(StepRow).where(StepRow.attempt_id == attempt_id, StepRow.index == step))
        assert srow is not None, "an opened step has its row"
        srow.note = text
        s.add(Event(attempt_id=attempt_id, kind=NOTE, detail={"step": step, "text": text}))
    return {"step": step, "note": text}


def attempt_of_kernel(attempts: Attempts, kernel_id: str) -> str | None:
    """The attempt a kernel was last bound to (``attempt.kernel_id``), if any."""
    with attempts.store.session() as s:
        q = select(Attempt.id).where(Attempt.kernel_id == kernel_id).order_by(Attempt.created_at.desc())
        return s.scalar(q.limit(1))


def record_cell_run(attempts: Attempts, kernel_id: str, run: dict[str, Any]) -> str | None:
    """An execution on ``kernel_id`` (its capture's record, ``run``): a ``cell_run`` event of the
    kernel's attempt, at the step open when it started. The attempt id, or None (no attempt, or
    the run started after the attempt finished: its trace ends with it)."""
    attempt_id = attempt_of_kernel(attempts, kernel_id)
    if attempt_id is None:
        return None
    started = parse_iso(run["started_at"])
    with attempts.store.session() as s:
        finished = s.scalar(select(Attempt.finished_at).where(Attempt.id == attempt_id))
        if finished is not None and started >= finished:  # a done or quit attempt records nothing more
            return None
        q = select(StepRow.index).where(StepRow.attempt_id == attempt_id, StepRow.opened_at <= started)
        step = s.scalar(q.order_by(StepRow.index.desc()).limit(1))
        s.add(Event(attempt_id=attempt_id, kind=CELL_RUN, detail={"step": step or 0, **run}))
    return attempt_id


def touch_kernel(attempts: Attempts, kernel_id: str, cause: str) -> bool:
    """A run started on ``kernel_id``: :func:`touch` its attempt."""
    attempt_id = attempt_of_kernel(attempts, kernel_id)
    return attempt_id is not None and touch(attempts, attempt_id, cause)
