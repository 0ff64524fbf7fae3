"""Read a study's people and model runs from the results database for the comparison report.

Tasks: every task of the study (``study_tasks``: its task list, its participants' plans, what they
played), so a task people only quit or never played has its rows too.  People: attempts with the
study's ``study_id`` and player ``human`` that are done or quit (open ones are still being played),
named by their pseudonym in the study (``store/pseudonym.py``), each step with its working time net
of pauses (``worktime.py``).  Runs: their done attempts.  The statistics and
the comparability check are pure (``grading/compare.py``, ``grading/comparability.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..errors import BadInput, Conflict, NotFound
from ..grading.comparability import conditions
from ..grading.compare import HUMANS, Played, RunInfo, StepResult, build, check, refusal
from ..grading.own import not_graded
from ..play.settings import PlaySettings
from ..record.worktime import Interval, read_clock, turn_intervals
from ..store import Store
from ..store.pseudonym import pseudonym
from ..store.runs import find_runs
from ..store.tables import Attempt, Enrolment, Participant, StepRow, Study, Turn
from ..store.times import iso
from ..tasks.library import TaskLibrary
from ..tasks.vocabulary import HUMAN


class NotComparable(Conflict):
    """409: the people and a run were played under different conditions; ``lines`` says each."""

    def __init__(self, lines: list[str]):
        super().__init__("; ".join(lines))
        self.lines = lines


def compare(
    store: Store,
    study: str,
    names: list[str],
    profile: str,
    allow_mismatch: bool,
    library: Callable[[], TaskLibrary] | None = None,
) -> dict[str, Any]:
    """The comparison report of ``study``'s people and the runs ``names`` (``grading/compare.py``):
    what `report --compare` prints as JSON and `GET studies/{id}/compare` answers, over every task of
    the study (``study_tasks``; ``library``: the task library, asked for the steps of a task no
    person finished).  NotFound for an unknown run or study, Conflict while no person finished,
    NotComparable for a mismatch (unless ``allow_mismatch``: then the report marks it)."""
    if not names:
        raise BadInput("runs: name at least one run to compare the people with")
    with store.session() as s:
        runs = find_runs(s, names)
        infos = [RunInfo(r.name, r.player, r.mode) for r in runs]
        ids = {r.id: r.name for r in runs}
    humans = human_attempts(store, study, profile)
    if not any(p.status == "done" for p in humans):
        quit_ = sum(p.status == "quit" for p in humans)
        raise Conflict(f"study {study}: no finished attempts by people yet ({quit_} quit)")
    played = run_attempts(store, ids, profile)
    mismatched = check(humans, played)
    if mismatched and not allow_mismatch:
        raise NotComparable(refusal(study, mismatched))
    tasks = study_tasks(store, study, library)
    return build(study, profile, infos, humans, played, mismatched, allow_mismatch, tasks)


def study_tasks(
    store: Store, study_id: str, library: Callable[[], TaskLibrary] | None = None
) -> dict[str, list[str]]:
    """Every task of the study, in id order, with its steps' kinds as far as they are known: the
    study's task list (as recorded at its first consent), every participant's plan (a draw's tasks)
    and the tasks its people started.  The kinds are those of a finished attempt by a person, else
    the task library's (``library``, asked only then), else those of the attempt that reached the
    most steps (none: nobody opened a step).  What the comparison lists, for the CLI and the lab
    alike; NotFound for an unknown study."""
    study_salt(store, study_id)  # NotFound naming the recorded studies
    with store.session() as s:
        row = s.get(Study, study_id)
        ids = {entry["task"] for entry in ((row.config if row else None) or {}).get("tasks") or []}
        for plan in s.scalars(select(Enrolment.plan).where(Enrolment.study_id == study_id)):
            ids.update(item["task_id"] for item in plan or [])
        rows = s.execute(
            select(Attempt.id, Attempt.task_id, Attempt.status, StepRow.kind)
            .join(StepRow, StepRow.attempt_id == Attempt.id, isouter=True)
            .where(Attempt.study_id == study_id, Attempt.player == HUMAN)
            .order_by(Attempt.created_at, Attempt.id, StepRow.index)
        ).all()
    reached: dict[str, tuple[str, str, list[str]]] = {}  # attempt -> task, status, kinds
    for attempt_id, task_id, status, kind in rows:
        ids.add(task_id)
        kinds = reached.setdefault(attempt_id, (task_id, status, []))[2]
        kinds.extend([kind] if kind is not None else [])
    return {task: _kinds(task, list(reached.values()), library) for task in sorted(ids)}


def _kinds(
    task_id: str, reached: list[tuple[str, str, list[str]]], library: Callable[[], TaskLibrary] | None
) -> list[str]:
    done = [kinds for t, status, kinds in reached if t == task_id and status == "done"]
    if done:
        return done[0]
    task = library().tasks.get(task_id) if library is not None else None
    if task is not None:
        return [step.kind for step in task.steps]
    return max((kinds for t, _, kinds in reached if t == task_id), key=len, default=[])


def recorded_runs(store: Store) -> list[dict[str, Any]]:
    """Every recorded run, oldest first, with how many tasks it finished (what a comparison can name)."""
    with store.session() as s:
        done = dict(
            s.execute(
                select(Attempt.run_id, func.count(func.distinct(Attempt.task_id)))
                .where(Attempt.run_id.is_not(None), Attempt.status == "done")
                .group_by(Attempt.run_id)
            ).all()
        )
        return [
            {"run": r.name, "player": r.player, "mode": r.mode, "created_at": iso(r.created_at),
             "tasks": done.get(r.id, 0)}
            for r in find_runs(s, None)
        ]  # fmt: skip


def study_salt(store: Store, study_id: str) -> str:
    """The study's salt; NotFound naming the recorded studies when there is no such study."""
    with store.session() as s:
        study = s.get(Study, study_id)
        if study is None:
            known = ", ".join(s.scalars(select(Study.id).order_by(Study.id))) or "none"
            raise NotFound(f"no study {study_id!r} in the results database (recorded: {known})")
        return study.salt


def human_attempts(store: Store, study_id: str, profile: str) -> list[Played]:
    """The people's done and quit attempts of the study, oldest first."""
    salt = study_salt(store, study_id)
    with store.session() as s:
        q = (
            select(Attempt, Participant.name)
            .join(Participant, Participant.id == Attempt.participant_id)
            .where(Attempt.study_id == study_id, Attempt.player == HUMAN)
            .where(Attempt.status.in_(("done", "quit")))
            .order_by(Attempt.created_at, Attempt.id)
        )
        rows = s.execute(q).all()
        return [_played(s, row, pseudonym(salt, name), HUMANS, profile) for row, name in rows]


def run_attempts(store: Store, runs: dict[int, str], profile: str) -> dict[str, list[Played]]:
    """Each run's done attempts (``runs``: id -> name), oldest first."""
    out: dict[str, list[Played]] = {name: [] for name in runs.values()}
    with store.session() as s:
        q = (
            select(Attempt)
            .where(Attempt.run_id.in_(list(runs)), Attempt.status == "done")
            .order_by(Attempt.created_at, Attempt.id)
        )
        for row in s.scalars(q):
            name = runs[row.run_id]  # type: ignore[index]  # the query chose these runs
            out[name].append(_played(s, row, name, name, profile))
    return out


def _played(s: Session, row: Attempt, who: str, group: str, profile: str) -> Played:
    settings = PlaySettings.recorded(row.settings or {})
    steps = list(s.scalars(select(StepRow).where(StepRow.attempt_id == row.id).order_by(StepRow.index)))
    status = row.status
    results: list[StepResult] = []
    if status == "done":
        times = s.execute(
            select(Turn.step, Turn.started_at, Turn.finished_at).where(Turn.attempt_id == row.id)
        )
        intervals = turn_intervals(times)
        turns = {step: len(spans) for step, spans in intervals.items()}
        seconds = _seconds(s, row, steps, intervals, settings.pause_after)
        for step in steps:
            grade = _grade(step, profile)
            if grade is None:  # graded before the profile existed: not counted
                status, results = "ungraded", []
                break
            results.append(_result(step, grade, turns.get(step.index, 0), seconds(step.index)))
    judges = [m for r in steps if (m := ((_grade(r, profile) or {}).get("judge") or {}).get("model"))]
    cond = conditions(
        row.player, row.mode, settings.as_dict(), row.environment or {}, row.task_hash, judges, profile
    )
    return Played(who, group, row.task_id, status, cond, results)


def _grade(step: StepRow, profile: str) -> dict[str, Any] | None:
    return (step.grade or {}).get(profile)


def _result(step: StepRow, grade: dict[str, Any], turns: int, seconds: float | None) -> StepResult:
    passed, score = bool(grade.get("passed")), grade.get("score")
    return StepResult(step.kind, passed, score, step.outcome, turns, seconds, not not_graded(grade))


def _seconds(
    s: Session, row: Attempt, steps: list[StepRow], turns: dict[int, list[Interval]], pause_after: float
) -> Callable[[int], float | None]:
    """A step's working seconds, for a person's attempt (None for a player's)."""
    if row.player != HUMAN:
        return lambda index: None
    by_step = read_clock(s, row.id, steps, turns).working(steps, pause_after)
    return by_step.get
