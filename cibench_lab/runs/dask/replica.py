"""An attempt's rows as plain data: copied to a worker's database, and back, idempotently.

A distributed run (:mod:`.cluster`) plays an attempt on a worker against a database of the
worker's own (a *replica*), loaded from the attempt's rows as the driver holds them
(:func:`dump`, :func:`load`); after each transition the worker sends what :func:`changed` —
its attempt row, and the steps, turns, events and oracle references new or different since it
last sent — and
the driver *applies* them to the results database (:mod:`.stream` says in what order).  Rows
are keyed by what they are, not by the ids a database gave them: a step by (attempt, index), a
turn by (attempt, step, turn), an event by (attempt, kind, time), an oracle reference by
(attempt, step, time); so applying the same rows
twice adds nothing.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from ...store import Store
from ...store.tables import Attempt, Base, Event, OracleReference, Participant, Run, StepRow, Turn
from ...store.times import UTCDateTime

Rows = dict[
    str, Any
]  # {"attempt": {...}, "steps": [...], "turns": [...], "events": [...], "references": [...]}
#: each list of a Rows: its table and what keys a row (beside its attempt)
TABLES: dict[str, tuple[Any, tuple[str, ...]]] = {
    "steps": (StepRow, ("index",)),
    "turns": (Turn, ("step", "number")),
    "events": (Event, ("kind", "at")),
    "references": (OracleReference, ("step", "at")),
}
_KEEP_ON_DRIVER = ("id", "run_id", "participant_id", "study_id")  # the driver's, never a replica's


def _plain(row: Base, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The row's columns; times as ISO strings (so the rows travel as plain msgpack)."""
    out = {}
    for c in row.__table__.columns:
        if c.key not in skip:
            value = getattr(row, c.key)
            out[c.key] = value.isoformat() if isinstance(value, dt.datetime) else value
    return out


def _row(table: Any, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (from :func:`_plain`) with its times as datetimes again."""
    times = {c.key for c in table.__table__.columns if isinstance(c.type, UTCDateTime)}
    return {
        k: dt.datetime.fromisoformat(v) if k in times and isinstance(v, str) else v for k, v in data.items()
    }


def dump(store: Store, attempt_id: str) -> Rows:
    """The attempt's rows (no database ids but the attempt's); a stream numbers its deltas."""
    with store.session() as s:
        attempt = s.get(Attempt, attempt_id)
        if attempt is None:
            raise LookupError(f"no attempt {attempt_id} in {store.url}")
        where = {"attempt_id": attempt_id}
        rows: Rows = {"attempt": _plain(attempt)}
        for name, (table, _) in TABLES.items():
            rows[name] = [_plain(r, ("id",)) for r in s.scalars(select(table).filter_by(**where))]
        return rows


def owners(store: Store, attempt_id: str) -> dict[str, Any]:
    """The run and participant rows an attempt refers to (a replica needs them too)."""
    with store.session() as s:
        attempt = s.get(Attempt, attempt_id)
        if attempt is None:
            raise LookupError(f"no attempt {attempt_id}")
        run = s.get(Run, attempt.run_id) if attempt.run_id is not None else None
        who = s.get(Participant, attempt.participant_id) if attempt.participant_id is not None else None
        return {"run": _plain(run) if run else None, "participant": _plain(who) if who else None}


def load(store: Store, rows: Rows, refs: dict[str, Any]) -> None:
    """Make ``store`` hold exactly the attempt ``rows`` describe (a worker's replica)."""
    attempt_id = rows["attempt"]["id"]
    with store.session() as s:
        for table in (Turn, StepRow, Event, OracleReference):
            s.execute(delete(table).where(table.attempt_id == attempt_id))
        s.execute(delete(Attempt).where(Attempt.id == attempt_id))
        owner_tables: tuple[tuple[Any, str], ...] = ((Run, "run"), (Participant, "participant"))
        for owner, key in owner_tables:
            if refs.get(key) and s.get(owner, refs[key]["id"]) is None:
                s.add(owner(**_row(owner, refs[key])))
        s.flush()
        attempt = dict(rows["attempt"])
        if attempt.get("study_id"):
            attempt["study_id"] = None  # studies are not played on clusters
        s.add(Attempt(**_row(Attempt, attempt)))
        s.flush()
        for name, (table, _) in TABLES.items():
            s.add_all(table(**_row(table, r)) for r in rows.get(name, []))


def apply(store: Store, rows: Rows) -> None:
    """Bring the results database's copy of the attempt up to ``rows`` (idempotent)."""
    attempt_id = rows["attempt"]["id"]
    with store.session() as s:
        attempt = s.get(Attempt, attempt_id)
        if attempt is None:
            raise LookupError(f"attempt {attempt_id} is not in the results database")
        for key, value in _row(Attempt, rows["attempt"]).items():
            if key not in _KEEP_ON_DRIVER:
                setattr(attempt, key, value)
        for name, (table, keyed_by) in TABLES.items():
            _merge(s, table, rows.get(name, []), attempt_id, keyed_by, update=name in ("steps", "turns"))


def _merge(
    s: Session, table: Any, rows: list[dict], attempt_id: str, key: tuple, update: bool = True
) -> None:
    have = {
        tuple(getattr(r, k) for k in key): r
        for r in s.scalars(select(table).filter_by(attempt_id=attempt_id))
    }
    for data in (_row(table, r) for r in rows):
        found = have.get(tuple(data[k] for k in key))
        if found is None:
            s.add(table(**data))
        elif update:
            for name, value in data.items():
                setattr(found, name, value)


def keys(rows: Rows) -> dict[tuple, dict[str, Any]]:
    """Every step, turn, event and reference of ``rows`` by its key (what :func:`changed` compares)."""
    return {(name, *(r[k] for k in key)): r for name, (_, key) in TABLES.items() for r in rows.get(name, [])}


def changed(rows: Rows, sent: dict[tuple, dict[str, Any]]) -> Rows:
    """The part of ``rows`` not in ``sent`` (or different there): a delta :func:`apply` merges
    as it merges whole rows; ``sent`` is brought up to ``rows``.  The attempt row is always in."""
    delta: Rows = {"attempt": rows["attempt"], **{name: [] for name in TABLES}}
    for key, row in keys(rows).items():
        if sent.get(key) != row:
            delta[key[0]].append(row)
            sent[key] = row
    return delta
