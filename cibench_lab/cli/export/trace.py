"""What a transcript shows of an attempt beyond its step rows: the turns with their outputs, the
exploration runs, oracle reference runs and pauses (events), by step."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...lab.trace import turn_numbers, with_graded
from ...store.tables import Event, OracleReference, Turn

TRACE = ("cell_run", "pause", "resume")


@dataclass
class Recorded:
    """What one attempt recorded beyond its step rows, by step index."""

    turns: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    explorations: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    oracle: dict[int, dict[str, Any]] = field(default_factory=dict)
    pauses: dict[int, list[tuple[str, dt.datetime, dict[str, Any]]]] = field(default_factory=dict)


def recorded(s: Session, attempt_id: str) -> Recorded:
    rec = Recorded()
    cols = (Turn.step, Turn.number, Turn.code, Turn.outputs, Turn.error, Turn.started_at, Turn.finished_at)
    q = select(*cols, Turn.grade, Turn.meta).where(Turn.attempt_id == attempt_id)
    for row in s.execute(q.order_by(Turn.step, Turn.number)):
        rec.turns.setdefault(row.step, []).append(row._asdict())
    q = select(Event.kind, Event.at, Event.detail).where(
        Event.attempt_id == attempt_id, Event.kind.in_(TRACE)
    )
    graded = turn_numbers(s, attempt_id)
    for kind, at, detail in s.execute(q.order_by(Event.id)):
        detail = detail or {}
        step = detail.get("step")
        if not isinstance(step, int):
            continue
        if kind == "cell_run":  # graded when a turn holds its msg_id (joined here, not stored)
            detail = with_graded(detail, graded.get(str(detail.get("msg_id"))))
        if kind == "cell_run" and detail["graded"] is False:
            rec.explorations.setdefault(step, []).append({**detail, "at": at})
        elif kind in ("pause", "resume"):
            rec.pauses.setdefault(step, []).append((kind, at, detail))
    q_refs = select(OracleReference).where(OracleReference.attempt_id == attempt_id)
    for ref in s.scalars(q_refs.order_by(OracleReference.id)):
        rec.oracle[ref.step] = ref.detail()  # the latest reference run of the step
    return rec
