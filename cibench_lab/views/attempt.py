"""What a browser may see of an attempt (the trust boundary: anything sent to the browser
counts as shown to the participant; docs/architecture.md).

Reference code, reference outputs and Thought text appear only for settled
steps and only when the reveal policy (or oracle mode) allows; instructions only
for steps already revealed; grades of open steps only when live grades are on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, select
from sqlalchemy.orm import Session

from ..benchmarks import CIBENCH, benchmark_of
from ..grading.kept import kept_turn
from ..grading.own import all_rules
from ..lab.cull import kernel_state
from ..play.attempt import Attempts
from ..play.rules import HUMAN, next_action, person_cap
from ..play.settings import PlaySettings
from ..record.worktime import Clock, Interval, read_clock, turn_intervals
from ..store.tables import Attempt, StepRow, Turn
from ..store.times import iso
from ..tasks.model import Step, Task


def wire_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """A stored summary as the browser reads it: the measures a benchmark's own grading stored
    under its name (grading/summary.py) as ``benchmark_measures``."""
    out = dict(summary)
    for rules in all_rules():
        if rules.name in out:
            out["benchmark_measures"] = out.pop(rules.name)
    return out


def _summaries(row: Attempt, profile: str) -> dict[str, Any]:
    """A finished attempt's summary under ``profile`` and under every stored profile (else None)."""
    if row.status != "done":
        return {"summary": None, "summaries": None}
    every = {name: wire_summary(summary) for name, summary in (row.summary or {}).items()}
    return {"summary": every.get(profile), "summaries": every}


def grades_visible(status: str, show_grades: bool) -> bool:
    """Grades are shown before a step settles when live grades are on, and once the attempt ended
    (done, or quit: it cannot be played on)."""
    return show_grades or status != "open"


def _revealed(row: Attempt, settings: PlaySettings, settled: bool) -> bool:
    if not settled:
        return False
    if row.mode == "oracle":
        return True
    if settings.reveal == "after-step":
        return True
    return settings.reveal == "after-task" and row.status == "done"


def _kept(
    srow: StepRow,
    n_turns: int,
    open_grades: list[dict | None],
    settings: PlaySettings,
    profile: str,
    quit: bool = False,
) -> tuple[dict | None, int | None]:
    """(the step's grade under ``profile``, the turn it was kept from): a settled step's as
    stored (rows from before kept_turn kept the last turn), the open step's so far; a quit
    attempt's unsettled step keeps none (``quit``)."""
    if srow.settled_at is not None:
        grade = (srow.grade or {}).get(profile)
        if grade is None:
            return None, None
        return grade, grade.get("kept_turn", n_turns - 1 if n_turns else None)
    if quit:
        return None, None
    k = kept_turn(open_grades, settings.grade_rule)
    return (None, None) if k is None else (open_grades[k], k)


def reference_view(step: Step) -> dict[str, Any] | None:
    """A CIBench step's reference as the reveal policy shows it: a vis step's plot as an image
    (from its outputs, else the graded reference PNG), not a line naming its size.  Another
    benchmark's step: its benchmark's :meth:`.Benchmark.reference_view`."""
    return CIBENCH.reference_view(step)


def _step_view(
    row: Attempt,
    task: Task,
    srow: StepRow,
    n_turns: int,
    open_grades: list[dict | None],
    settings: PlaySettings,
    profile: str,
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
        "kept_turn": None,
        "run_limit": person_cap(settings, task) if row.player == HUMAN else None,
        "criterion": benchmark_of(task).criterion(step, profile, task.language),
        "passes": benchmark_of(task).passes(step, profile),
    }
    if srow.settled_at is not None:
        view["seconds"] = round((srow.settled_at - srow.opened_at).total_seconds(), 1)
    grade, kept = _kept(srow, n_turns, open_grades, settings, profile, row.status == "quit")
    if grade is not None and grades_visible(row.status, settings.show_grades):
        view["grade"], view["kept_turn"] = grade, kept
    view["grades"] = dict(srow.grade or {}) if row.status != "open" and settled else None
    reference = benchmark_of(task).reference_view(step) if _revealed(row, settings, settled) else None
    if reference is not None:
        view["reference"] = reference
    return view


@dataclass
class _Turns:
    """What the view needs of an attempt's turns, read in one query: how many each step has,
    when each ran (the working clock), and the open step's grades under the profile so far."""

    counts: Counter[int]
    intervals: dict[int, list[Interval]]
    open_grades: list[dict | None]


def _turns(s: Session, row: Attempt, profile: str) -> _Turns:
    # a settled step keeps its grade in its StepRow: only the open step's turns bring theirs
    open_grade = case((Turn.step == row.current_step, Turn.grade))
    q = select(Turn.step, Turn.started_at, Turn.finished_at, open_grade).where(Turn.attempt_id == row.id)
    turns = s.execute(q.order_by(Turn.step, Turn.number)).all()
    return _Turns(
        counts=Counter(step for step, *_ in turns),
        intervals=turn_intervals((step, started, finished) for step, started, finished, _ in turns),
        open_grades=[(g or {}).get(profile) for step, _, _, g in turns if step == row.current_step],
    )


def attempt_view(attempts: Attempts, attempt_id: str, participant: str | None) -> dict[str, Any]:
    """The attempt as its player may see it, from a fixed number of queries however many steps
    and turns it has (the attempt, its owner, its steps, its turns, its clock's events; a stopped
    kernel's last stop)."""
    row, task = attempts.load(attempt_id, participant)
    settings = PlaySettings.recorded(row.settings)
    profile = attempts.profile
    with attempts.store.session() as s:
        srows = s.scalars(select(StepRow).where(StepRow.attempt_id == row.id).order_by(StepRow.index)).all()
        turns = _turns(s, row, profile)
        clock = read_clock(s, row.id, srows, turns.intervals)
        kernel = kernel_state(s, row, attempts.kernels)
    steps = _steps(row, task, srows, turns, clock, settings, profile)
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
        **_summaries(row, profile),
        "next": next_action(row),
        "created_at": iso(row.created_at),
        "sandbox": (row.environment or {}).get("sandbox"),
        **kernel,
        "paused": row.status == "open" and clock.open_pause is not None,
        "pauses": [p.view() for p in clock.pauses],
    }


def _steps(
    row: Attempt,
    task: Task,
    srows: Sequence[StepRow],
    turns: _Turns,
    clock: Clock,
    settings: PlaySettings,
    profile: str,
) -> list[dict[str, Any]]:
    """The opened steps' views, each with its working time and its record."""
    worked = clock.working(srows, settings.pause_after)
    return [
        _step_view(row, task, r, turns.counts[r.index], turns.open_grades, settings, profile)
        | {"working_seconds": worked[r.index]}
        | _step_record(r, turns.intervals.get(r.index, []))
        for r in srows
    ]


def _step_record(srow: StepRow, turns: list[Interval]) -> dict[str, Any]:
    """A step's record in the view: when it opened, first ran as a turn and settled; the person's note."""
    first = min((started for started, _ in turns), default=None)
    return {
        "opened_at": iso(srow.opened_at),
        "first_run_at": None if first is None else iso(first),
        "settled_at": None if srow.settled_at is None else iso(srow.settled_at),
        "note": srow.note,
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
    "malformed",
    "seconds",
)


def turns_view(attempts: Attempts, attempt_id: str, participant: str | None) -> list[dict[str, Any]]:
    """Every recorded turn of an attempt: the player's code and, for attached players, the
    prompt, raw reply, tokens and latency (the debugging view of a model's play)."""
    row, _ = attempts.load(attempt_id, participant)
    settings = PlaySettings.recorded(row.settings)
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
                "outputs": list(t.outputs or []),
                "error": t.error,
                "started_at": iso(t.started_at),
                "finished_at": iso(t.finished_at),
                "grade": (t.grade or {}).get(attempts.profile) if show else None,
                **{k: t.meta[k] for k in TURN_META if k in (t.meta or {})},
            }
            for t in turns
        ]
