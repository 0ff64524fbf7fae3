"""The events table's rows: every event, and each oracle reference run as the ``oracle`` event it was.

Oracle reference runs have their own table (``oracle_reference``, revision 0006); the export shows
them where it always did: among their attempt's events, kind ``oracle``, placed before the first
event recorded after them, with the detail the event held. They are no event row: ``event_id``
is empty. Streamed: the attempts, their events and their references are three queries in one order.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
from typing import Any

from sqlalchemy import and_, select
from sqlalchemy.orm import Session

from ...lab.trace import with_graded
from ...record.worktime import CELL_RUN
from ...store.tables import Attempt, Event, OracleReference, Turn
from .selection import Selection
from .values import iso, summarized_detail

BATCH = 200
ORACLE = "oracle"

Row = dict[str, Any]


def events(s: Session, sel: Selection) -> Iterator[Row]:
    """Every event of the selected attempts, by attempt, in arrival order (see the module)."""
    order = (Attempt.created_at, Attempt.id)
    ids = select(Attempt.id).where(*sel.where).order_by(*order).execution_options(yield_per=BATCH)
    evs = groupby(_events(s, sel), key=lambda r: r["attempt_id"])
    refs = groupby(_references(s, sel), key=lambda r: r["attempt_id"])
    ev, ref = next(evs, None), next(refs, None)
    for attempt_id in s.scalars(ids):
        mine: list[Row] = []
        theirs: list[Row] = []
        if ev is not None and ev[0] == attempt_id:
            mine, ev = list(ev[1]), next(evs, None)
        if ref is not None and ref[0] == attempt_id:
            theirs, ref = list(ref[1]), next(refs, None)
        yield from _interleaved(mine, theirs)


def _interleaved(events: list[Row], references: list[Row]) -> Iterator[Row]:
    """``events`` in their order, each reference before the first event recorded after it."""
    i = 0
    for row in events:
        while i < len(references) and references[i]["_at"] < row["_at"]:
            yield _shown(references[i])
            i += 1
        yield _shown(row)
    for rest in references[i:]:
        yield _shown(rest)


def _shown(row: Row) -> Row:
    return {k: v for k, v in row.items() if k != "_at"}


def _events(s: Session, sel: Selection) -> Iterator[Row]:
    """Every event; a ``cell_run`` with ``graded``/``turn`` joined from the turn holding its msg_id."""
    graded = and_(
        Event.kind == CELL_RUN,
        Turn.attempt_id == Event.attempt_id,
        Turn.msg_id == Event.detail["msg_id"].as_string(),
    )
    q = (
        select(Event.id, Event.attempt_id, Event.kind, Event.at, Event.detail, Turn.number)
        .join(Attempt, Attempt.id == Event.attempt_id)
        .outerjoin(Turn, graded)
        .where(*sel.where)
        .order_by(Attempt.created_at, Attempt.id, Event.id)
        .execution_options(yield_per=BATCH)
    )
    for event_id, attempt_id, kind, at, detail, number in s.execute(q):
        if kind == CELL_RUN:
            detail = with_graded(detail or {}, number)
        yield _row(event_id, attempt_id, kind, at, detail)


def _references(s: Session, sel: Selection) -> Iterator[Row]:
    q = (
        select(OracleReference)
        .join(Attempt, Attempt.id == OracleReference.attempt_id)
        .where(*sel.where)
        .order_by(Attempt.created_at, Attempt.id, OracleReference.id)
        .execution_options(yield_per=BATCH)
    )
    for ref in s.scalars(q):
        yield _row(None, ref.attempt_id, ORACLE, ref.at, ref.detail())


def _row(event_id: int | None, attempt_id: str, kind: str, at: Any, detail: dict[str, Any] | None) -> Row:
    step = (detail or {}).get("step")
    return {
        "event_id": event_id,
        "attempt_id": attempt_id,
        "kind": kind,
        "at": iso(at),
        "step": step if isinstance(step, int) else None,
        "detail": summarized_detail(detail),
        "_at": at,
    }
