"""What a browser may see of an attempt (the trust boundary: anything sent to the browser
counts as shown to the participant; docs/architecture.md).

Reference code, reference outputs and Thought text appear only for settled
steps and only when the reveal policy (or oracle mode) allows; instructions only
for steps already revealed; grades of open steps only when live grades are on.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from ..store.tables import Attempt, StepRow, Turn
from ..tasks.model import Task
from .attempt import Attempts
from .cull import kernel_state
from .settings import PlaySettings
from .step import next_action
from .worktime import step_working_seconds


def grades_visible(status: str, show_grades: bool) -> bool:
    """Grades are shown before a step settles when live grades are on, and once the attempt is done."""
    return show_grades or status == "done"


def _revealed(row: Attempt, settings: PlaySettings, settled: bool) -> bool:
    if not settled:
        return False
    if row.mode == "oracle":
        return True
    if settings.reveal == "after-step":
        return True
    return settings.reveal == "after-task" and row.status == "done"


def _step_view(
    row: Attempt, task: Task, srow: StepRow, n_turns: int, last_grade, settings, profile: str
) -> dict:
    step = task.steps[srow.index]
    settled = srow.settled_at is not None
    view: dict[str, Any] = {
        "index": srow.index,
        "kind": step.kind,
        "instruction": step.instruction,
        "modules": list(step.modules),
        "turns": n_turns,
        "outcome": srow.outcome,
        "settled": settled,
        "grade": None,
        "seconds": None,
    }
    if srow.settled_at is not None:
        view["seconds"] = round((srow.settled_at - srow.opened_at).total_seconds(), 1)
    grade = (srow.grade or {}).get(profile) if settled else last_grade
    if grade is not None and grades_visible(row.status, settings.show_grades):
        view["grade"] = grade
    if _revealed(row, settings, settled):
        view["reference"] = {"code": step.code, "thought": step.thought, "output": step.reference.summary()}
    return view


def attempt_view(attempts: Attempts, attempt_id: str, participant: str | None) -> dict[str, Any]:
    row, task = attempts.load(attempt_id, participant)
    settings = PlaySettings(**row.settings)
    with attempts.store.session() as s:
        srows = s.scalars(select(StepRow).where(StepRow.attempt_id == row.id).order_by(StepRow.index)).all()
        counts = dict(
            s.execute(
                select(Turn.step, func.count()).where(Turn.attempt_id == row.id).group_by(Turn.step)
            ).all()
        )
        last = s.scalar(
            select(Turn)
            .where(Turn.attempt_id == row.id, Turn.step == row.current_step)
            .order_by(Turn.number.desc())
            .limit(1)
        )
        profile = attempts.profile
        last_grade = last.grade.get(profile) if last is not None else None
        steps = [
            _step_view(row, task, r, counts.get(r.index, 0), last_grade, settings, profile) for r in srows
        ]
        worked = step_working_seconds(s, row.id, srows, settings.pause_after)
        kernel = kernel_state(s, row, attempts.kernels)
        for view in steps:
            view["working_seconds"] = worked[view["index"]]
    return {
        "id": row.id,
        "task_id": row.task_id,
        "title": task.title,
        "intro": task.intro,
        "mode": row.mode,
        "player": row.player,
        "status": row.status,
        "current_step": row.current_step,
        "n_steps": row.n_steps,
        "kinds": [s.kind for s in task.steps],
        "settings": settings.as_dict(),
        "notebook_path": row.notebook_path,
        "kernel_id": row.kernel_id,
        "profile": profile,
        "steps": steps,
        "summary": (row.summary or {}).get(profile) if row.status == "done" else None,
        "next": next_action(row),
        "created_at": row.created_at.isoformat() + "Z",
        "sandbox": (row.environment or {}).get("sandbox"),
        **kernel,
    }


#: Turn meta a browser may see: what the player sent and got back (never a key: the
#: model client records none), how long it took, and how the kernel fared.
TURN_META = (
    "action",
    "protocol",
    "model",
    "prompt",
    "response",
    "thought",
    "text",
    "tokens",
    "latency_s",
    "wall_s",
    "retries",
    "finish_reason",
    "observation",
    "merge_roles",
    "replay",
    "edited",
    "status",
    "truncated",
    "seconds",
)


def turns_view(attempts: Attempts, attempt_id: str, participant: str | None) -> list[dict[str, Any]]:
    """Every recorded turn of an attempt: the player's code and, for attached players, the
    prompt, raw reply, tokens and latency (the debugging view of a model's play)."""
    row, _ = attempts.load(attempt_id, participant)
    settings = PlaySettings(**row.settings)
    show = grades_visible(row.status, settings.show_grades)
    with attempts.store.session() as s:
        turns = s.scalars(
            select(Turn).where(Turn.attempt_id == row.id).order_by(Turn.step, Turn.number)
        ).all()
        return [
            {
                "step": t.step,
                "turn": t.number,
                "code": t.code,
                "error": t.error,
                "started_at": t.started_at.isoformat() + "Z",
                "finished_at": t.finished_at.isoformat() + "Z",
                "grade": (t.grade or {}).get(attempts.profile) if show else None,
                **{k: t.meta[k] for k in TURN_META if k in (t.meta or {})},
            }
            for t in turns
        ]
