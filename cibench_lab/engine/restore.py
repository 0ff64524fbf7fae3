"""Resume: the code that rebuilds an attempt's kernel state after a restart (DESIGN §3).

End-to-end: every error-free turn of the steps so far, in order (the state the
player built).  Oracle: the references of the settled steps (what the kernel held
before each next step opened).
"""

from __future__ import annotations

from sqlalchemy import select

from ..store.tables import Event, StepRow, Turn
from .attempt import Attempts
from .players import ORACLE_EVENT


def restore_code(attempts: Attempts, attempt_id: str) -> list[str]:
    row, task = attempts.load(attempt_id)
    with attempts.store.session() as s:
        settled = s.scalars(
            select(StepRow.index).where(StepRow.attempt_id == attempt_id, StepRow.settled_at.is_not(None))
        ).all()
        if row.mode == "oracle":
            return [task.steps[i].code for i in sorted(settled)]
        turns = s.scalars(
            select(Turn)
            .where(Turn.attempt_id == attempt_id, Turn.error.is_(False))
            .order_by(Turn.step, Turn.number)
        ).all()
        return [t.code for t in turns if t.code.strip()]


def missing_references(attempts: Attempts, attempt_id: str) -> dict[str, list[int]]:
    """Oracle: the settled steps in restore order, and those (not last) whose reference run
    was never recorded — a restore records them from what the kernel prints."""
    row, _ = attempts.load(attempt_id)
    with attempts.store.session() as s:
        settled = sorted(
            s.scalars(
                select(StepRow.index).where(StepRow.attempt_id == attempt_id, StepRow.settled_at.is_not(None))
            )
        )
    have = referenced_steps(attempts, attempt_id)
    missing = [i for i in settled if i not in have and i + 1 < row.n_steps]
    return {"settled": settled, "missing": missing}


def referenced_steps(attempts: Attempts, attempt_id: str) -> set[int]:
    """Oracle: the steps whose reference run (what it printed) is recorded."""
    with attempts.store.session() as s:
        q = select(Event.detail).where(Event.attempt_id == attempt_id, Event.kind == ORACLE_EVENT)
        return {d["step"] for d in s.scalars(q)}
