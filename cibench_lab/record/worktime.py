"""Working time: a step's time net of the pauses a person took (wall time counts a walk away).

A step's activity points are its opening, each event of the working clock dated in it — an
``activity`` (the browser reports edits of the attempt's notebook, at most every 20 s: ``POST
attempts/{id}/activity``), a ``note``, a ``pause``, a ``resume`` — each run's start and finish
(its turns and every ``cell_run`` of the action trace), and its settle (an open step: now).
Between consecutive points:

- a run's interval counts whole (the kernel works for the person, paused or not);
- else time inside an explicit pause (a ``pause`` event to the next ``resume``, or to the
  settle of the step it paused) counts 0;
- else each gap counts at most ``pause_after`` seconds (the attempt's play setting: the idle rule).
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from ..store.tables import Event, StepRow, Turn
from ..store.times import as_utc, iso, parse_iso, utcnow

ACTIVITY = "activity"  # a person's edit of the attempt's notebook: {"step"}
NOTE = "note"  # a save of a step's note: {"step", "text"}
PAUSE = "pause"  # the clock paused: {"step", "cause": button | command | idle}
RESUME = "resume"  # the clock resumed: {"step", "cause": button | command | edit | run}
CELL_RUN = "cell_run"  # an execution on the attempt's kernel (the action trace)
CELL_EDITS = "cell_edits"  # edits counted per cell by the browser: {"step", "cell_id", "count"}
#: Events that are points of the working clock (at their ``at``; a ``cell_run`` by its times).
POINT_KINDS = (ACTIVITY, NOTE, PAUSE, RESUME, CELL_EDITS)

Interval = tuple[dt.datetime, dt.datetime]
Span = tuple[float, float]


def _merged(spans: Iterable[Interval], lo: float, hi: float) -> list[Span]:
    """Intervals as seconds in [lo, hi], merged where they overlap."""
    clipped = sorted((max(s.timestamp(), lo), min(f.timestamp(), hi)) for s, f in spans)
    merged: list[Span] = []
    for start, end in clipped:
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _covers(spans: list[Span], starts: list[float], p: float, q: float) -> bool:
    """Whether [p, q] (between two consecutive points) lies inside one of the merged ``spans``."""
    i = bisect.bisect_right(starts, p) - 1  # the last span that starts by p
    return i >= 0 and q <= spans[i][1]


def working_seconds(
    opened: dt.datetime,
    end: dt.datetime,
    activity: Iterable[dt.datetime],
    turns: Iterable[Interval],
    pause_after: float,
    paused: Iterable[Interval] = (),
) -> float:
    """Seconds of work from ``opened`` to ``end`` (the settle, or now for an open step); ``turns``:
    running intervals; ``paused``: explicit pause intervals."""
    lo, hi = opened.timestamp(), max(end.timestamp(), opened.timestamp())
    busy, off = _merged(turns, lo, hi), _merged(paused, lo, hi)
    points = {lo, hi, *(min(max(t.timestamp(), lo), hi) for t in activity)}
    points.update(x for span in busy + off for x in span)
    ordered = sorted(points)
    busy_starts, off_starts = [s for s, _ in busy], [s for s, _ in off]
    total = 0.0
    for p, q in zip(ordered, ordered[1:], strict=False):
        if _covers(busy, busy_starts, p, q):
            total += q - p
        elif not _covers(off, off_starts, p, q):
            total += min(q - p, pause_after)
    return total


@dataclass
class Pause:
    """One explicit pause of the clock: from its ``pause`` event to the next ``resume`` (``resumed_by``
    its cause), or to the settle of the step it paused (``resumed_by`` "settle"); open: ``end`` None."""

    step: int
    start: dt.datetime
    cause: str
    end: dt.datetime | None = None
    resumed_by: str | None = None

    def view(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "start": iso(self.start),
            "end": iso(self.end),
            "cause": self.cause,
            "resumed_by": self.resumed_by,
        }


@dataclass
class Clock:
    """What the working clock of one attempt reads: points and runs by step, the pauses."""

    points: dict[int, list[dt.datetime]] = field(default_factory=dict)
    runs: dict[int, list[Interval]] = field(default_factory=dict)
    pauses: list[Pause] = field(default_factory=list)

    @property
    def open_pause(self) -> Pause | None:
        last = self.pauses[-1] if self.pauses else None
        return last if last is not None and last.end is None else None

    def last_point(self, step: StepRow) -> dt.datetime:
        """The step's latest point so far (its opening when it has no other)."""
        times = [step.opened_at, *self.points.get(step.index, [])]
        times += [finished for _, finished in self.runs.get(step.index, [])]
        return max(times)

    def working(
        self, steps: Iterable[StepRow], pause_after: float, now: dt.datetime | None = None
    ) -> dict[int, float]:
        """Each step's working seconds (settled: final; open: up to ``now``), by step index."""
        current = as_utc(now) if now is not None else utcnow()
        paused = [(p.start, p.end or current) for p in self.pauses]
        out = {}
        for row in steps:
            end = row.settled_at if row.settled_at is not None else current
            seconds = working_seconds(
                as_utc(row.opened_at),
                as_utc(end),
                [as_utc(t) for t in self.points.get(row.index, [])],
                [(as_utc(s), as_utc(f)) for s, f in self.runs.get(row.index, [])],
                pause_after,
                [(as_utc(s), as_utc(f)) for s, f in paused],
            )
            out[row.index] = round(seconds, 1)
        return out


def turn_intervals(turns: Iterable[tuple[int, dt.datetime, dt.datetime]]) -> dict[int, list[Interval]]:
    """``(step, started_at, finished_at)`` of turns as running intervals by step index."""
    out: dict[int, list[Interval]] = {}
    for step, started, finished in turns:
        out.setdefault(step, []).append((as_utc(started), as_utc(finished)))
    return out


def read_clock(
    s: Session, attempt_id: str, steps: Iterable[StepRow], turns: dict[int, list[Interval]] | None = None
) -> Clock:
    """The attempt's clock from its turns (``turns`` when the caller read them: :func:`turn_intervals`;
    else one query) and its events (one query); ``steps``: every step row of the attempt."""
    return read_clocks(s, {attempt_id: steps}, None if turns is None else {attempt_id: turns})[attempt_id]


def read_clocks(
    s: Session,
    steps: Mapping[str, Iterable[StepRow]],
    turns: Mapping[str, dict[int, list[Interval]]] | None = None,
) -> dict[str, Clock]:
    """The clocks of the attempts ``steps`` names (attempt id: every step row of it), however many:
    their turns in one query (none when the caller read them: ``turns``, by attempt) and their
    events in one query (a ``cell_run``'s step and times read in SQL, never its code)."""
    ids = list(steps)
    clocks = {aid: Clock() for aid in ids}
    if not ids:
        return clocks
    for aid, by_step in (_turns_of(s, ids) if turns is None else turns).items():
        for step, spans in by_step.items():
            clocks[aid].runs[step] = [(as_utc(start), as_utc(end)) for start, end in spans]
    settled = {aid: {row.index: row.settled_at for row in rows} for aid, rows in steps.items()}
    for aid, at, kind, index, cause, started, finished in s.execute(_events(ids)):
        clock = clocks[aid]
        if not isinstance(index, int):
            continue
        if kind != CELL_RUN:
            clock.points.setdefault(index, []).append(at)
            _fold_pause(clock.pauses, settled[aid], at, kind, index, {"cause": cause or ""})
        elif (run := _run_interval({"started_at": started, "finished_at": finished})) is not None:
            clock.runs.setdefault(index, []).append(run)
    for aid, clock in clocks.items():
        _close_at_settle(clock.pauses, settled[aid], None)
    return clocks


def _turns_of(s: Session, attempt_ids: list[str]) -> dict[str, dict[int, list[Interval]]]:
    """The attempts' turns as running intervals by step (:func:`turn_intervals`), one query."""
    found: dict[str, list[tuple[int, dt.datetime, dt.datetime]]] = {aid: [] for aid in attempt_ids}
    q = select(Turn.attempt_id, Turn.step, Turn.started_at, Turn.finished_at)
    for aid, step, started, finished in s.execute(q.where(Turn.attempt_id.in_(attempt_ids))):
        found[aid].append((step, started, finished))
    return {aid: turn_intervals(rows) for aid, rows in found.items()}


def open_pause(s: Session, attempt_id: str) -> Pause | None:
    """The clock's open pause, if any, read from its pause and resume events alone (and the steps'
    settles, which end a pause): what a run needs to know, without the rest of the clock."""
    steps = s.execute(select(StepRow.index, StepRow.settled_at).where(StepRow.attempt_id == attempt_id))
    settled = {index: at for index, at in steps}
    q = select(Event.at, Event.kind, Event.detail).where(
        Event.attempt_id == attempt_id, Event.kind.in_((PAUSE, RESUME))
    )
    pauses: list[Pause] = []
    for at, kind, detail in s.execute(q.order_by(Event.at, Event.id)):
        index = (detail or {}).get("step")
        if isinstance(index, int):
            _fold_pause(pauses, settled, at, kind, index, detail)
    _close_at_settle(pauses, settled, None)
    return pauses[-1] if pauses and pauses[-1].end is None else None


def _events(
    attempt_ids: list[str],
) -> Select[str, dt.datetime, str, int | None, str | None, str | None, str | None]:
    """The attempts' clock events in time order: each one's attempt, time, kind and, read in SQL,
    its step, cause and (a ``cell_run``) times; no event's whole detail is loaded (an attempt's
    trace holds every run's code, and the clock is read on every run)."""
    detail = Event.detail
    fields = (
        detail["step"].as_integer(),
        detail["cause"].as_string(),
        detail["started_at"].as_string(),
        detail["finished_at"].as_string(),
    )
    return (
        select(Event.attempt_id, Event.at, Event.kind, *fields)
        .where(Event.attempt_id.in_(attempt_ids), Event.kind.in_((*POINT_KINDS, CELL_RUN)))
        .order_by(Event.at, Event.id)
    )


def _fold_pause(
    pauses: list[Pause],
    settled: dict[int, dt.datetime | None],
    at: dt.datetime,
    kind: str,
    step: int,
    detail: dict[str, Any],
) -> None:
    """One ``pause``/``resume`` event (in time order) into the list of pauses."""
    _close_at_settle(pauses, settled, at)
    is_open = bool(pauses) and pauses[-1].end is None
    if kind == PAUSE and not is_open:
        pauses.append(Pause(step=step, start=at, cause=str(detail.get("cause", ""))))
    elif kind == RESUME and is_open:
        pauses[-1].end, pauses[-1].resumed_by = at, str(detail.get("cause", ""))


def _close_at_settle(
    pauses: list[Pause], settled: dict[int, dt.datetime | None], before: dt.datetime | None
) -> None:
    """An open pause ends when the step it paused settled (if that is before ``before``)."""
    if not pauses or pauses[-1].end is not None:
        return
    last = pauses[-1]
    at = settled.get(last.step)
    if at is not None and (before is None or at <= before):
        last.end, last.resumed_by = max(at, last.start), "settle"


def _run_interval(detail: dict[str, Any]) -> Interval | None:
    """A ``cell_run`` event's running interval (aware UTC, as the database's times read)."""
    try:
        started = _stored_time(detail["started_at"])
        finished = _stored_time(detail.get("finished_at") or detail["started_at"])
    except (KeyError, ValueError):
        return None
    return started, finished


def _stored_time(text: Any) -> dt.datetime:
    """An ISO time as the views write it (``...Z``), aware UTC."""
    return parse_iso(str(text))


def attempt_working_seconds(
    s: Session, attempt_id: str, steps: Iterable[StepRow], pause_after: float, now: dt.datetime | None = None
) -> dict[int, float]:
    """Each of the attempt's ``steps``' working seconds (settled: final; open: up to ``now``), by step
    index (two queries)."""
    rows = list(steps)
    return read_clock(s, attempt_id, rows).working(rows, pause_after, now)
