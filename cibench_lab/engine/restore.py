"""Resume: the code that rebuilds an attempt's kernel state after a restart (DESIGN §3).

End-to-end: every error-free turn of the steps so far, in order (the state the
player built).  Oracle: the references of the settled steps (what the kernel held
before each next step opened); those (not last) whose reference run was never
recorded are recorded from what the kernel prints on the restore.

Each executor runs the plan on its own kernel, then hands what ran to
:func:`record_restore`.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from ..grading import TurnOutput
from ..store.tables import Event, StepRow, Turn
from .attempt import Attempts
from .players import ORACLE_EVENT, record_reference

#: ``(step index, code, needs_reference_record)`` per cell, in restore order.
RestorePlan = list[tuple[int, str, bool]]


def restore_plan(attempts: Attempts, attempt_id: str) -> RestorePlan:
    """The cells that rebuild the attempt's kernel state (synchronous: database)."""
    row, task = attempts.load(attempt_id)
    with attempts.store.session() as s:
        if row.mode != "oracle":
            turns = s.scalars(
                select(Turn)
                .where(Turn.attempt_id == attempt_id, Turn.error.is_(False))
                .order_by(Turn.step, Turn.number)
            ).all()
            return [(t.step, t.code, False) for t in turns if t.code.strip()]
        settled = sorted(
            s.scalars(
                select(StepRow.index).where(StepRow.attempt_id == attempt_id, StepRow.settled_at.is_not(None))
            )
        )
        have = _referenced(s, attempt_id)
    return [(i, task.steps[i].code, i not in have and i + 1 < row.n_steps) for i in settled]


def record_restore(
    attempts: Attempts,
    attempt_id: str,
    plan: RestorePlan,
    ran: list[TurnOutput],
    detail: dict[str, Any] | None,
    source: str = "",
) -> None:
    """Record a restore: the missing oracle references from what ``plan`` printed when it
    ``ran``, then the ``restore`` event with ``detail`` (None: no event).  Synchronous."""
    for (index, _, missing), out in zip(plan, ran, strict=False):
        if missing:
            record_reference(attempts, attempt_id, index, out, source)
    if detail is not None:
        attempts.event(attempt_id, "restore", detail)


def referenced_steps(attempts: Attempts, attempt_id: str) -> set[int]:
    """Oracle: the steps whose reference run (what it printed) is recorded."""
    with attempts.store.session() as s:
        return _referenced(s, attempt_id)


def _referenced(s, attempt_id: str) -> set[int]:
    q = select(Event.detail).where(Event.attempt_id == attempt_id, Event.kind == ORACLE_EVENT)
    return {d["step"] for d in s.scalars(q)}
