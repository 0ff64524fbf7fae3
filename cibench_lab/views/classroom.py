"""The class view: a class's members' attempts with their progress and kept scores, the class's
pass rate per step (where the class is stuck), the table as CSV, and one member's attempt record
for their instructor (docs/teach/reference.md). Synchronous (database): the server calls these on its
engine thread, after the handler checked the caller teaches the class (``auth/roles.py``).

What an instructor reads holds no reference material: only what the member did (code, outputs,
notes, times) and how the server graded it.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..errors import NotFound
from ..grading.fair import first_image
from ..grading.own import not_graded
from ..play.attempt import Attempts
from ..play.settings import PlaySettings
from ..record.worktime import Clock, attempt_working_seconds, read_clocks
from ..store.tables import Attempt, Participant, StepRow, Turn
from ..store.times import iso
from ..tasks.model import Task
from .csvcells import Writer

#: The columns of the class table's CSV, in order.
CSV_COLUMNS = (
    "participant",
    "task_id",
    "title",
    "attempt_id",
    "status",
    "step",
    "step_seconds",
    "passed",
    "settled",
    "not_graded",
    "score",
    "created_at",
)
OUTPUT_TEXT_MAX = 20_000  # characters of a turn's outputs the drill-down keeps


def passed_under(grade: dict[str, Any] | None, profile: str) -> bool:
    """A settled step's kept grade under ``profile`` passed."""
    return bool(((grade or {}).get(profile) or {}).get("passed"))


def not_graded_under(srow: StepRow, profile: str) -> bool:
    """A settled step's kept grade under ``profile`` is not graded: neither passed nor missed."""
    return srow.settled_at is not None and not_graded((srow.grade or {}).get(profile))


def _steps_by_attempt(s: Session, attempt_ids: list[str]) -> dict[str, list[StepRow]]:
    found: dict[str, list[StepRow]] = {a: [] for a in attempt_ids}
    if attempt_ids:
        q = select(StepRow).where(StepRow.attempt_id.in_(attempt_ids)).order_by(StepRow.index)
        for srow in s.scalars(q):
            found[srow.attempt_id].append(srow)
    return found


def attempt_row(
    row: Attempt, name: str, title: str, steps: list[StepRow], clock: Clock, profile: str
) -> dict:
    """One attempt's cell of the class table: status, step n of m, the open step's working time
    (from the attempt's ``clock``; None once the attempt ended: no step is open, and the table
    shows a dash), the steps passed so far, the steps settled and graded, those settled but not
    graded, and the kept score: the passed steps of the settled and graded ones, x100 (None
    while none is: a step someone is still on is neither passed nor missed)."""
    passed = sum(1 for r in steps if r.settled_at is not None and passed_under(r.grade, profile))
    none = sum(not_graded_under(r, profile) for r in steps)
    settled = sum(1 for r in steps if r.settled_at is not None) - none
    current = next((r for r in steps if r.index == row.current_step), None)
    seconds = None
    if current is not None and row.status == "open":
        pause_after = (row.settings or {}).get("pause_after", 300)
        seconds = round(clock.working([current], pause_after, None)[current.index], 1)
    return {
        "participant": name,
        "task_id": row.task_id,
        "title": title,
        "attempt_id": row.id,
        "status": row.status,
        "current_step": row.current_step,
        "n_steps": row.n_steps,
        "step_seconds": seconds,
        "passed": passed,
        "settled": settled,
        "not_graded": none,
        "score": round(100 * passed / settled, 1) if settled else None,
        "created_at": iso(row.created_at),
    }


def pass_rates(attempts: Iterable[tuple[str, Sequence[StepRow]]], profile: str) -> list[dict[str, Any]]:
    """Per task and step: the attempts that reached it (opened it), those that settled it, and of
    those the ones whose kept grade passed it and those whose kept grade is not graded, sorted by
    task then step. A step still open counts as reached only: the rate is passed of settled and
    graded, never a miss of someone still on it. ``attempts``: (task id, the attempt's step rows)
    pairs."""
    counts: dict[tuple[str, int], list[int]] = {}
    for task_id, steps in attempts:
        for srow in steps:
            done = srow.settled_at is not None
            tally = counts.setdefault((task_id, srow.index), [0, 0, 0, 0])
            tally[0] += 1
            tally[1] += done
            tally[2] += done and passed_under(srow.grade, profile)
            tally[3] += not_graded_under(srow, profile)
    return [
        {
            "task_id": task,
            "step": index,
            "reached": reached,
            "settled": settled,
            "passed": passed,
            "not_graded": none,
        }
        for (task, index), (reached, settled, passed, none) in sorted(counts.items())
    ]


def class_progress(attempts: Attempts, class_name: str, members: Sequence[str]) -> dict[str, Any]:
    """The class's members and their attempts (newest first; headless runs left out), each task
    attempted, and the per-step pass rates: four queries, however large the class (the attempts,
    their steps, and every attempt's working clock: ``worktime.read_clocks``)."""
    with attempts.store.session() as s:
        q = (
            select(Attempt, Participant.name)
            .join(Participant, Participant.id == Attempt.participant_id)
            .where(Participant.name.in_(list(members)), Attempt.run_id.is_(None))
            .order_by(Attempt.created_at.desc(), Attempt.id)
        )
        found = s.execute(q).all()
        steps = _steps_by_attempt(s, [row.id for row, _ in found])
        titles = {row.task_id: _title(attempts, row.task_id) for row, _ in found}
        clocks = read_clocks(s, steps)
        rows = [
            attempt_row(row, name, titles[row.task_id], steps[row.id], clocks[row.id], attempts.profile)
            for row, name in found
        ]
    return {
        "name": class_name,
        "members": sorted(members),
        "profile": attempts.profile,
        "tasks": [{"task_id": t, "title": titles[t]} for t in sorted(titles)],
        "attempts": rows,
        "pass_rates": pass_rates(((row.task_id, steps[row.id]) for row, _ in found), attempts.profile),
    }


def _title(attempts: Attempts, task_id: str) -> str:
    task = attempts.library.tasks.get(task_id)
    return task.title if task else task_id


def progress_csv(progress: dict[str, Any]) -> str:
    """The class table (one line per attempt) as CSV with a header line; ``step`` as a person reads
    it (``3/4``: step 3 of 4), an unknown time empty."""
    out = io.StringIO()
    writer = Writer(out)  # every cell neutral (csvcells.py); CRLF lines: a CR in a cell is quoted
    writer.writerow(CSV_COLUMNS)
    for row in progress["attempts"]:
        line = {k: "" if row.get(k) is None else row[k] for k in CSV_COLUMNS}
        line["step"] = f"{row['current_step'] + 1}/{row['n_steps']}"
        writer.writerow(line[k] for k in CSV_COLUMNS)
    return out.getvalue()


def output_text(outputs: list[dict[str, Any]]) -> str:
    """A turn's outputs as text: streams, results' text/plain, errors' name and value; a figure is
    a line saying so (its image goes beside it)."""
    parts = []
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(_joined(out.get("text")))
        elif kind in ("execute_result", "display_data"):
            data = out.get("data") or {}
            parts.append(_joined(data["text/plain"]) if "text/plain" in data else "")
            if "image/png" in data:
                parts.append("[figure]\n")
        elif kind == "error":
            parts.append(f"{out.get('ename', 'Error')}: {out.get('evalue', '')}\n")
    text = "".join(p if p.endswith("\n") or not p else p + "\n" for p in parts)
    return text if len(text) <= OUTPUT_TEXT_MAX else text[:OUTPUT_TEXT_MAX] + "…"


def _joined(text: Any) -> str:
    return "".join(text) if isinstance(text, list) else str(text or "")


def member_attempts(attempts: Attempts, members: Collection[str]) -> list[dict[str, Any]]:
    """The members' attempts as ``GET attempts`` rows, each naming its participant, newest first:
    their own work only, so no headless run's (the attempts :func:`member_attempt` reads)."""
    return attempts.rows_where(Participant.name.in_(list(members)), Attempt.run_id.is_(None))


def member_attempt(attempts: Attempts, attempt_id: str, members: Collection[str]) -> dict[str, Any]:
    """A class member's attempt for their instructor (:func:`attempt_record`). NotFound when the
    attempt is not a member's own work (another class's attempts do not exist for the caller)."""

    def theirs(row: Attempt, name: str) -> bool:
        return name in members and row.run_id is None

    return attempt_record(attempts, attempt_id, theirs, f"unknown attempt {attempt_id!r} in this class")


def attempt_record(
    attempts: Attempts, attempt_id: str, readable: Callable[[Attempt, str], bool], unknown: str
) -> dict[str, Any]:
    """An attempt as the class view shows it: each opened step with its turns (code, outputs, grade,
    times), kept grade, outcome, note and working time; no reference material. NotFound(``unknown``)
    unless ``readable(its row, its participant's name)``."""
    row, task = attempts.load(attempt_id)
    profile = attempts.profile
    with attempts.store.session() as s:
        owner = s.get(Participant, row.participant_id)
        if owner is None or not readable(row, owner.name):
            raise NotFound(unknown)
        srows = list(s.scalars(select(StepRow).where(StepRow.attempt_id == row.id).order_by(StepRow.index)))
        turns = s.scalars(
            select(Turn).where(Turn.attempt_id == row.id).order_by(Turn.step, Turn.number)
        ).all()
        settings = PlaySettings.recorded(row.settings)
        now = row.finished_at if row.status != "open" else None
        worked = attempt_working_seconds(s, row.id, srows, settings.pause_after, now)
        by_step: dict[int, list[dict[str, Any]]] = {}
        for t in turns:
            by_step.setdefault(t.step, []).append(_turn_record(t, profile))
    return {
        "id": row.id,
        "participant": owner.name,
        "task_id": row.task_id,
        "title": task.title,
        "status": row.status,
        "mode": row.mode,
        "player": row.player,
        "current_step": row.current_step,
        "n_steps": row.n_steps,
        "turn_cap": settings.turn_cap or None,
        "created_at": iso(row.created_at),
        "finished_at": iso(row.finished_at),
        "steps": [_step_record(r, task, worked, by_step.get(r.index, []), profile) for r in srows],
    }


def member_turns(attempts: Attempts, attempt_id: str, members: Collection[str]) -> list[dict[str, Any]]:
    """The turns of :func:`member_attempt`, every step's in order (each names its ``step``)."""
    return [t for step in member_attempt(attempts, attempt_id, members)["steps"] for t in step["turns"]]


def _step_record(
    srow: StepRow, task: Task, worked: dict[int, float], turns: list[dict], profile: str
) -> dict:
    return {
        "index": srow.index,
        "kind": srow.kind,
        "instruction": task.steps[srow.index].instruction if srow.index < len(task.steps) else "",
        "outcome": srow.outcome,
        "opened_at": iso(srow.opened_at),
        "settled_at": iso(srow.settled_at),
        "working_seconds": round(worked.get(srow.index, 0.0), 1),
        "grade": (srow.grade or {}).get(profile) if srow.settled_at is not None else None,
        "passed": srow.settled_at is not None and passed_under(srow.grade, profile),
        "note": srow.note,
        "turns": turns,
    }


def _turn_record(turn: Turn, profile: str) -> dict[str, Any]:
    outputs = list(turn.outputs or [])
    return {
        "step": turn.step,
        "turn": turn.number,
        "code": turn.code,
        "output": output_text(outputs),
        "image": first_image(outputs),
        "error": turn.error,
        "grade": (turn.grade or {}).get(profile),
        "started_at": iso(turn.started_at),
        "finished_at": iso(turn.finished_at),
    }
