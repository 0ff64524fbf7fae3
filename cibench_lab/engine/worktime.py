"""Working time: a step's time net of the pauses a person took (wall time counts a walk away).

A step's activity points are its opening, each ``activity`` event (the browser reports edits of
the open step's notebook, at most every 20 s: ``POST attempts/{id}/activity``), each turn's start
and finish, and its settle (an open step: now).  Each gap between consecutive points counts at
most ``pause_after`` seconds (the attempt's play setting); a turn's running interval counts whole.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Iterable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..store.tables import Event, StepRow, Turn, utcnow
from .attempt import Attempts
from .settings import PlaySettings

ACTIVITY = "activity"  # the Event kind of a person's edit

Interval = tuple[dt.datetime, dt.datetime]


def _merged(turns: Iterable[Interval], lo: float, hi: float) -> list[tuple[float, float]]:
    """The turns' running intervals as seconds in [lo, hi], merged where they overlap."""
    spans = sorted((max(s.timestamp(), lo), min(f.timestamp(), hi)) for s, f in turns)
    merged: list[tuple[float, float]] = []
    for start, end in spans:
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def working_seconds(
    opened: dt.datetime,
    end: dt.datetime,
    activity: Iterable[dt.datetime],
    turns: Iterable[Interval],
    pause_after: float,
) -> float:
    """Seconds of work from ``opened`` to ``end`` (the settle, or now for an open step)."""
    lo, hi = opened.timestamp(), max(end.timestamp(), opened.timestamp())
    busy = _merged(turns, lo, hi)
    points = {lo, hi, *(min(max(t.timestamp(), lo), hi) for t in activity)}
    points.update(x for span in busy for x in span)
    ordered = sorted(points)
    starts = [s for s, _ in busy]
    total = 0.0
    for p, q in zip(ordered, ordered[1:], strict=False):
        i = bisect.bisect_right(starts, p) - 1  # the last running interval that starts by p
        running = i >= 0 and q <= busy[i][1]
        total += (q - p) if running else min(q - p, pause_after)
    return total


def turn_intervals(turns: Iterable[tuple[int, dt.datetime, dt.datetime]]) -> dict[int, list[Interval]]:
    """``(step, started_at, finished_at)`` of turns as running intervals by step index."""
    out: dict[int, list[Interval]] = {}
    for step, started, finished in turns:
        out.setdefault(step, []).append((_aware(started), _aware(finished)))
    return out


def activity_times(s: Session, attempt_id: str) -> dict[int, list[dt.datetime]]:
    """When the person edited each step (its ``activity`` events), by step index: one query."""
    edits: dict[int, list[dt.datetime]] = {}
    for at, detail in s.execute(
        select(Event.at, Event.detail).where(Event.attempt_id == attempt_id, Event.kind == ACTIVITY)
    ):
        index = (detail or {}).get("step")
        if isinstance(index, int):
            edits.setdefault(index, []).append(_aware(at))
    return edits


def step_working_seconds(
    steps: Iterable[StepRow],
    turns: dict[int, list[Interval]],
    edits: dict[int, list[dt.datetime]],
    pause_after: float,
    now: dt.datetime | None = None,
) -> dict[int, float]:
    """Each step's working seconds (settled: final; open: up to ``now``), by step index, from
    its turns' intervals (:func:`turn_intervals`) and its edits (:func:`activity_times`)."""
    current = _aware(now or utcnow())
    out = {}
    for row in steps:
        end = _aware(row.settled_at) if row.settled_at is not None else current
        seconds = working_seconds(
            _aware(row.opened_at), end, edits.get(row.index, []), turns.get(row.index, []), pause_after
        )
        out[row.index] = round(seconds, 1)
    return out


def attempt_working_seconds(
    s: Session, attempt_id: str, steps: Iterable[StepRow], pause_after: float, now: dt.datetime | None = None
) -> dict[int, float]:
    """:func:`step_working_seconds` of an attempt's ``steps``, reading its turns and edits (two queries)."""
    query = select(Turn.step, Turn.started_at, Turn.finished_at).where(Turn.attempt_id == attempt_id)
    times = s.execute(query)
    turns = turn_intervals(times.tuples())
    return step_working_seconds(steps, turns, activity_times(s, attempt_id), pause_after, now)


def record_activity(attempts: Attempts, attempt_id: str, step: int, participant: str) -> dict[str, Any]:
    """A person edited the open step ``step``: an ``activity`` event; the step's working time."""
    row, _ = attempts.load(attempt_id, participant)
    Attempts.check_open(row, step)
    attempts.event(attempt_id, ACTIVITY, {"step": step})
    pause_after = PlaySettings(**row.settings).pause_after
    with attempts.store.session() as s:
        srow = s.scalar(select(StepRow).where(StepRow.attempt_id == attempt_id, StepRow.index == step))
        assert srow is not None, "check_open: the open step has its row"
        times = s.execute(
            select(Turn.step, Turn.started_at, Turn.finished_at).where(
                Turn.attempt_id == attempt_id, Turn.step == step
            )
        )
        turns = turn_intervals(times.tuples())
        seconds = step_working_seconds([srow], turns, activity_times(s, attempt_id), pause_after)[step]
    return {"step": step, "working_seconds": seconds}


def _aware(at: dt.datetime) -> dt.datetime:
    """A database time (naive UTC) as an aware one, so ``timestamp()`` reads it as UTC."""
    return at.replace(tzinfo=dt.timezone.utc) if at.tzinfo is None else at
