"""Oracle mode's reference runs: what running a settled step's reference printed.

An attached model's next prompt shows that output (OpenCompass's ``every_with_gt``),
so it is recorded as a row of ``oracle_reference`` — by the executor that ran it (the
browser's report, a headless kernel, a restore), or, when no run was ever
reported, from the task notebook's own output.  Synchronous (database).
"""

from __future__ import annotations

from sqlalchemy import select

from ..grading import TurnOutput
from ..kernels.execution import joined_streams
from ..store.tables import OracleReference
from ..tasks.model import Task
from .attempt import Attempts


def record_reference(
    attempts: Attempts, attempt_id: str, step: int, ref: TurnOutput, source: str = ""
) -> None:
    """Keep what step ``step``'s reference printed when it ran."""
    row = OracleReference(
        attempt_id=attempt_id,
        step=step,
        source=source or None,
        code=ref.code,
        outputs=ref.outputs,
        error=ref.error,
        status=ref.status,
    )
    with attempts.store.session() as s:
        s.add(row)


def references(attempts: Attempts, attempt_id: str) -> dict[int, TurnOutput]:
    """The latest recorded reference run of each step."""
    with attempts.store.session() as s:
        q = select(OracleReference).where(OracleReference.attempt_id == attempt_id)
        return {r.step: reference_output(r) for r in s.scalars(q.order_by(OracleReference.id))}


def referenced_steps(attempts: Attempts, attempt_id: str) -> set[int]:
    """The steps whose reference run is recorded."""
    with attempts.store.session() as s:
        q = select(OracleReference.step).where(OracleReference.attempt_id == attempt_id)
        return set(s.scalars(q))


def reference_output(row: OracleReference) -> TurnOutput:
    return TurnOutput(row.code or "", row.outputs, row.error, row.status)


def ensure_reference(attempts: Attempts, attempt_id: str, task: Task, step: int) -> TurnOutput | None:
    """Record the task notebook's output for step ``step``'s reference when no run of it
    was reported (the page closed before the oracle cell ran), its streams joined as a run's
    are (``joined_streams``).  Returns what it recorded."""
    if step in referenced_steps(attempts, attempt_id):
        return None
    ref = task.steps[step]
    error = any(o.get("output_type") == "error" for o in ref.outputs)
    out = TurnOutput(ref.code, joined_streams(list(ref.outputs)), error, "error" if error else "ok")
    record_reference(attempts, attempt_id, step, out, source="task notebook")
    return out
