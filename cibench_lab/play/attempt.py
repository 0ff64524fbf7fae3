"""The attempt state machine: open_step -> record_turn -> settle, persisted.

One code path for every player and executor, driven by the step driver.  The database is the
truth: each transition is one transaction, so a kill -9 loses at most the turn
in flight.  Methods are synchronous (SQLAlchemy + grading); the server and the
headless runner call them from a worker thread.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Collection, Container
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..errors import BadInput, Conflict, Forbidden, NotFound
from ..grading import TurnOutput, grade_all, summarize
from ..grading.kept import kept_grades
from ..grading.own import not_graded
from ..grading.profile import PROFILES
from ..store import Store
from ..store.tables import Attempt, Base, Event, OracleReference, Participant, Run, StepRow, Turn, utcnow
from ..store.times import iso
from ..tasks.library import TaskLibrary
from ..tasks.model import Task
from ..tasks.vocabulary import MODES, Mode, Outcome
from .answers import Settled
from .rules import HUMAN, settle_rule
from .settings import PlaySettings
from .turns import Graded, TurnRecord

PROFILE = "cibench"  # what badges, summaries and views show unless the server chooses another

_Row = TypeVar("_Row", bound=Base)


@dataclass(frozen=True)
class StudyAttempt:
    """An attempt of a study (studies/definition.py): played under its protocol's settings, locked."""

    study_id: str
    protocol: str  # model-parity | practice
    settings: PlaySettings


@dataclass(frozen=True)
class NewAttempt:
    task: Task
    mode: Mode
    player: str  # human | reference | ...
    participant: str
    settings: PlaySettings
    environment: dict[str, Any]
    workdir: str = ""
    notebook_path: str = ""
    run_id: int | None = None
    study: StudyAttempt | None = None


def turn_output(turn: Turn) -> TurnOutput:
    """A recorded turn as the graders (and players) see it."""
    return TurnOutput(turn.code, turn.outputs, turn.error, (turn.meta or {}).get("status", "ok"))


def _get(s: Session, table: type[_Row], key: Any) -> _Row:
    """``s.get(table, key)``, NotFound when there is no such row."""
    row = s.get(table, key)
    if row is None:
        raise NotFound(f"unknown {table.__tablename__} {key!r}")
    return row


def participant_id(store: Store, name: str, tries: int = 5) -> int:
    """The participant's id, inserted when new: insert-or-get under ``participant.name``'s
    unique constraint, so processes creating the same participant at once all get its row."""
    for _ in range(tries):
        with store.session() as s:
            found = s.scalar(select(Participant.id).where(Participant.name == name))
        if found is not None:
            return found
        try:
            with store.session() as s:
                row = Participant(name=name)
                s.add(row)
                s.flush()
                return row.id
        except IntegrityError:  # another process inserted it first: read it again
            continue
    raise Conflict(f"participant {name!r} could not be recorded")


class Attempts:
    """Create attempts and move them through their steps."""

    def __init__(self, store: Store, library: TaskLibrary, profile: str = PROFILE):
        """``profile``: the grades that turn, settle and view answers carry (every profile is stored)."""
        if profile not in PROFILES:
            raise ValueError(f"profile: must be one of {', '.join(PROFILES)}")
        self.store = store
        self.library = library
        self.profile = profile
        self.kernels: Container[str] = ()  # ids of running kernels (the lab's kernel manager)

    # ---- creation and lookup -------------------------------------------------
    def create(self, new: NewAttempt) -> str:
        if new.mode not in MODES:
            raise BadInput(f"mode: must be one of {', '.join(MODES)}")
        participant = participant_id(self.store, new.participant)
        settings = new.settings if new.player == HUMAN else new.settings.for_player()
        with self.store.session() as s:
            row = Attempt(
                id=uuid.uuid4().hex,
                task_id=new.task.id,
                task_hash=new.task.content_hash,
                mode=new.mode,
                player=new.player,
                participant_id=participant,
                run_id=new.run_id,
                study_id=new.study.study_id if new.study else None,
                protocol=new.study.protocol if new.study else None,
                settings=settings.as_dict(),
                environment=new.environment,
                workdir=new.workdir,
                notebook_path=new.notebook_path,
                n_steps=len(new.task.steps),
            )
            s.add(row)
            s.flush()
            s.add(StepRow(attempt_id=row.id, index=0, kind=new.task.steps[0].kind))
            return row.id

    def load(self, attempt_id: str, participant: str | None = None) -> tuple[Attempt, Task]:
        """The attempt row and its task; Forbidden when it is someone else's."""
        with self.store.session() as s:
            row = s.get(Attempt, attempt_id)
            if row is None:
                raise NotFound(f"unknown attempt {attempt_id!r}")
            if participant is not None:
                owner = s.get(Participant, row.participant_id)
                if owner is None or owner.name != participant:
                    raise Forbidden("this attempt belongs to another participant")  # names no id
            s.expunge(row)
        return row, self.task_of(row)

    def list_for(self, participant: str) -> list[dict[str, Any]]:
        """A participant's attempts, newest first (browser-safe rows)."""
        rows = self.list_of([participant])
        return [{k: v for k, v in row.items() if k != "participant"} for row in rows]

    def list_of(self, participants: Collection[str]) -> list[dict[str, Any]]:
        """The attempts of ``participants``, newest first, each row naming its participant."""
        return self.rows_where(Participant.name.in_(list(participants)))

    def rows_where(self, *where: ColumnElement[bool]) -> list[dict[str, Any]]:
        """The attempts ``where`` holds for (on Attempt, Participant, Run), newest first, each row
        naming its participant."""
        with self.store.session() as s:
            q = (
                select(Attempt, Participant.name, Run.name)
                .join(Participant, Participant.id == Attempt.participant_id)
                .outerjoin(Run, Run.id == Attempt.run_id)
                .where(*where)
                .order_by(Attempt.created_at.desc())
            )
            rows = list(s.execute(q))
            passed = self._passed(s, [a.id for a, _, _ in rows if a.status == "done"])
            return [
                {
                    "participant": name,
                    "id": a.id,
                    "task_id": a.task_id,
                    "title": self._title(a.task_id),
                    "mode": a.mode,
                    "status": a.status,
                    "current_step": a.current_step,
                    "n_steps": a.n_steps,
                    "notebook_path": a.notebook_path,
                    "created_at": iso(a.created_at),
                    "passed": passed.get(a.id, (0, 0))[0] if a.status == "done" else None,
                    "not_graded": passed.get(a.id, (0, 0))[1] if a.status == "done" else None,
                    "study_id": a.study_id,
                    "run": run,
                    **self._origin(a.task_id),
                }
                for a, name, run in rows
            ]

    def _passed(self, s: Session, attempt_ids: list[str]) -> dict[str, tuple[int, int]]:
        """Per attempt: its steps whose kept grade passed under the shown profile, and those whose
        kept grade is not graded (neither passed nor missed: ``grading.own.not_graded``)."""
        counts: dict[str, tuple[int, int]] = {}
        if not attempt_ids:
            return counts
        q = select(StepRow.attempt_id, StepRow.grade).where(StepRow.attempt_id.in_(attempt_ids))
        for attempt_id, grade in s.execute(q):
            kept = (grade or {}).get(self.profile)
            passed, none = counts.get(attempt_id, (0, 0))
            counts[attempt_id] = (passed + bool((kept or {}).get("passed")), none + not_graded(kept))
        return counts

    def _origin(self, task_id: str) -> dict[str, str]:
        """The task's language and split (the split from the id when the task is gone)."""
        task = self.library.tasks.get(task_id)
        if task is not None:
            return {"language": task.language, "split": task.split}
        return {"language": "", "split": task_id.split("/")[0]}

    def attempt_at(self, notebook_path: str, participant: str) -> tuple[str, str] | None:
        """(id, status) of ``participant``'s latest attempt whose notebook is at ``notebook_path``
        (relative to the root of the server it was started on: the path alone may be another's
        attempt); None when there is none."""
        with self.store.session() as s:
            q = (
                select(Attempt.id, Attempt.status)
                .join(Participant, Participant.id == Attempt.participant_id)
                .where(Attempt.notebook_path == notebook_path, Participant.name == participant)
                .order_by(Attempt.created_at.desc())
            )
            found = s.execute(q.limit(1)).first()
            return None if found is None else (found[0], found[1])

    def _title(self, task_id: str) -> str:
        task = self.library.tasks.get(task_id)
        return task.title if task else task_id

    def task_of(self, row: Attempt) -> Task:
        try:
            return self.library.version(row.task_id, row.task_hash)
        except KeyError:
            raise NotFound(f"task {row.task_id!r} of attempt {row.id} is no longer available") from None

    def number(self, attempt_id: str) -> int:
        """The attempt's number among its participant's attempts of its task, by creation (1: the
        first), which its notebook's name carries from the second on."""
        with self.store.session() as s:
            row = _get(s, Attempt, attempt_id)
            q = (
                select(Attempt.id)
                .where(Attempt.participant_id == row.participant_id, Attempt.task_id == row.task_id)
                .order_by(Attempt.created_at, Attempt.id)
            )
            return list(s.scalars(q)).index(attempt_id) + 1

    def paths(self, attempt_id: str, workdir: str, notebook_path: str) -> None:
        with self.store.session() as s:
            row = _get(s, Attempt, attempt_id)
            row.workdir, row.notebook_path = workdir, notebook_path

    def discard(self, attempt_id: str) -> None:
        """Remove an attempt whose start failed, with all recorded for it (one transaction)."""
        with self.store.session() as s:
            for table in (Event, OracleReference, Turn, StepRow):
                s.execute(delete(table).where(table.attempt_id == attempt_id))
            s.execute(delete(Attempt).where(Attempt.id == attempt_id))

    def opened_at(self, attempt_id: str, step: int) -> dt.datetime:
        with self.store.session() as s:
            opened = s.scalar(
                select(StepRow.opened_at).where(StepRow.attempt_id == attempt_id, StepRow.index == step)
            )
            if opened is None:
                raise NotFound(f"attempt {attempt_id} has no step {step}")
            return opened

    def set_kernel(self, attempt_id: str, kernel_id: str | None) -> None:
        with self.store.session() as s:
            _get(s, Attempt, attempt_id).kernel_id = kernel_id

    def event(self, attempt_id: str, kind: str, detail: dict[str, Any]) -> None:
        with self.store.session() as s:
            s.add(Event(attempt_id=attempt_id, kind=kind, detail=detail))

    # ---- turns -----------------------------------------------------------------
    def turns(self, attempt_id: str, step: int) -> list[Turn]:
        with self.store.session() as s:
            q = select(Turn).where(Turn.attempt_id == attempt_id, Turn.step == step)
            return list(s.scalars(q.order_by(Turn.number)))

    def record_turn(
        self, attempt_id: str, step: int, turn: TurnRecord | TurnOutput, graded: Graded | None = None
    ) -> dict[str, Any]:
        """Store one turn with the step's grade as of it; settle when the rules say so.

        ``graded``: computed off this thread (by the step driver); graded here when absent or a
        turn came in since."""
        record = TurnRecord.of(turn)
        row, task = self.load(attempt_id)
        self.check_open(row, step)
        previous = self.turns(attempt_id, step)
        if graded is not None and graded.with_turns == len(previous):
            grades = graded.grades
        else:
            grades = grade_all(task.steps[step], [turn_output(t) for t in previous] + [record.turn])
        self._add_turn(attempt_id, step, len(previous), record, grades)
        result = {"step": step, "turn": len(previous), "grade": grades[self.profile], "settled": None}
        rules = PlaySettings.recorded(row.settings)
        outcome = settle_rule(row.player, rules, record.turn, len(previous) + 1, task, record.meta)
        if outcome:
            result["settled"] = self.settle(attempt_id, step, outcome)
        return result

    def _add_turn(self, attempt_id: str, step: int, number: int, record: TurnRecord, grades: dict) -> None:
        turn, msg_id = record.turn, record.msg_id
        times = (record.started_at or utcnow(), record.finished_at or utcnow())
        with self.store.session() as s:
            if msg_id and s.scalar(
                select(Turn.id).where(Turn.attempt_id == attempt_id, Turn.msg_id == msg_id)
            ):
                raise Conflict(f"execution {msg_id} was already recorded as a turn")
            s.add(
                Turn(
                    attempt_id=attempt_id,
                    step=step,
                    number=number,
                    msg_id=msg_id,
                    code=turn.code,
                    outputs=turn.outputs,
                    error=turn.error,
                    started_at=times[0],
                    finished_at=times[1],
                    grade=grades,
                    meta={**record.meta, "status": turn.status},
                )
            )

    @staticmethod
    def check_open(row: Attempt, step: int) -> None:
        if row.status != "open":
            raise Conflict(f"attempt {row.id} is {'quit' if row.status == 'quit' else 'finished'}")
        if not isinstance(step, int) or not 0 <= step < row.n_steps:
            raise BadInput(f"step: must be 0..{row.n_steps - 1}")
        if step != row.current_step:
            raise Conflict(f"step {step} is not the open step (step {row.current_step} is)")

    # ---- settling ----------------------------------------------------------------
    def settle(self, attempt_id: str, step: int, outcome: Outcome) -> Settled:
        """Close the step with the grade its turns earned; open the next or finish."""
        row, task = self.load(attempt_id)
        self.check_open(row, step)
        grades = self.kept(row, task, step)
        now = utcnow()
        with self.store.session() as s:
            srow = s.scalar(select(StepRow).where(StepRow.attempt_id == attempt_id, StepRow.index == step))
            assert srow is not None, "check_open: the open step has its row"
            srow.settled_at, srow.outcome, srow.grade = now, outcome, grades
            att = _get(s, Attempt, attempt_id)
            if step + 1 < att.n_steps:
                att.current_step = step + 1
                s.add(StepRow(attempt_id=attempt_id, index=step + 1, kind=task.steps[step + 1].kind))
            else:
                att.status, att.finished_at = "done", now
            s.add(Event(attempt_id=attempt_id, kind="settle", detail={"step": step, "outcome": outcome}))
        if step + 1 >= row.n_steps:
            self._finish(attempt_id)
        return {
            "step": step,
            "outcome": outcome,
            "grade": grades[self.profile],
            "oracle_code": task.steps[step].code if row.mode == "oracle" else None,
            "next_step": step + 1 if step + 1 < row.n_steps else None,
        }

    def kept(self, row: Attempt, task: Task, step: int) -> dict[str, dict[str, Any]]:
        """The step's grade under every profile by the attempt's grade rule, each with the
        ``kept_turn`` it comes from (None: no turn, graded as no answer)."""
        turns = self.turns(row.id, step)
        if not turns:
            return {p: {**g, "kept_turn": None} for p, g in grade_all(task.steps[step], []).items()}
        return kept_grades([t.grade for t in turns], PlaySettings.recorded(row.settings).grade_rule)

    def _finish(self, attempt_id: str) -> None:
        with self.store.session() as s:
            att = _get(s, Attempt, attempt_id)
            rows = s.scalars(select(StepRow).where(StepRow.attempt_id == attempt_id)).all()
            grades: list[dict[str, Any]] = []
            for r in rows:
                assert r.grade is not None, "every step is settled (graded) when the attempt finishes"
                grades.append(r.grade)
            profiles = set.intersection(*(set(g) for g in grades))  # steps graded before a profile existed
            att.summary = {p: summarize(g[p] for g in grades) for p in sorted(profiles)}
