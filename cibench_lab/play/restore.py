"""Resume: the code that rebuilds an attempt's kernel state after a restart.

End-to-end: every error-free turn of the steps so far, in order (the state the
player built).  Oracle: the references of the settled steps (what the kernel held
before each next step opened); those (not last) whose reference run was never
recorded are recorded from what the kernel prints on the restore.

The step driver (:meth:`.driver.StepDriver.restore`) asks for the plan, has the
executor run it on its kernel and records what ran with :func:`record_restore`.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from ..grading import TurnOutput
from ..store.tables import StepRow, Turn
from .attempt import Attempts
from .oracle import record_reference, referenced_steps

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
    have = referenced_steps(attempts, attempt_id)
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
