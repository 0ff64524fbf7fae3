"""Oracle mode's reference runs: what running a settled step's reference printed.

An attached model's next prompt shows that output (OpenCompass's ``every_with_gt``),
so it is recorded as an ``oracle`` event — by the executor that ran it (the
browser's report, a headless kernel, a restore), or, when no run was ever
reported, from the task notebook's own output.  Synchronous (database).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from ..grading import TurnOutput
from ..kernels.execution import joined_streams
from ..store.tables import Event
from ..tasks.model import Task
from .attempt import Attempts

ORACLE_EVENT = "oracle"


def record_reference(
    attempts: Attempts, attempt_id: str, step: int, ref: TurnOutput, source: str = ""
) -> None:
    """Keep what step ``step``'s reference printed when it ran."""
    detail: dict[str, Any] = {"source": source} if source else {}
    detail |= {
        "step": step,
        "code": ref.code,
        "outputs": ref.outputs,
        "error": ref.error,
        "status": ref.status,
    }
    attempts.event(attempt_id, ORACLE_EVENT, detail)


def references(attempts: Attempts, attempt_id: str) -> dict[int, TurnOutput]:
    """The latest recorded reference run of each step."""
    with attempts.store.session() as s:
        q = select(Event.detail).where(Event.attempt_id == attempt_id, Event.kind == ORACLE_EVENT)
        return {d["step"]: reference_output(d) for d in s.scalars(q.order_by(Event.id))}


def referenced_steps(attempts: Attempts, attempt_id: str) -> set[int]:
    """The steps whose reference run is recorded."""
    with attempts.store.session() as s:
        q = select(Event.detail).where(Event.attempt_id == attempt_id, Event.kind == ORACLE_EVENT)
        return {d["step"] for d in s.scalars(q)}


def reference_output(detail: dict[str, Any]) -> TurnOutput:
    return TurnOutput(detail.get("code", ""), detail["outputs"], detail["error"], detail["status"])


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
