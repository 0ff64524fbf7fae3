"""A study's record: its ``study`` row (when the first participant enrols), each participant's
``enrolment`` (consent, questionnaire answers, seed and plan) and the plan's progress.

Plan item k is played by the participant's k-th attempt of the study (attempts are started in
plan order, one at a time: :mod:`.studies`), so progress needs no column of its own.
Synchronous (database); the server calls these on its engine thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..errors import Conflict
from ..play.attempt import participant_id
from ..record.worktime import attempt_working_seconds
from ..store import Store
from ..store.pseudonym import new_salt
from ..store.tables import Attempt, Enrolment, Participant, StepRow, Study, utcnow
from ..tasks.library import TaskLibrary
from .change import refusal
from .definition import StudyDef
from .plan import make_plan, new_seed


def record_study(store: Store, study: StudyDef) -> None:
    """The study's row, inserted when new (insert-or-get: processes sharing the database may
    enrol its first participants at once); a definition changed since is refused (Conflict:
    :mod:`.study_change`), the recorded one stays."""
    with store.session() as s:
        row = s.get(Study, study.id)
        if row is not None:
            problem = refusal(row.config or {}, study)
            if problem:
                raise Conflict(problem)
            return
    try:
        with store.session() as s:
            s.add(Study(id=study.id, title=study.title, config=study.record(), salt=new_salt()))
    except IntegrityError:  # another process recorded it first
        pass


def enrolment_of(s: Session, study_id: str, participant: str) -> Enrolment | None:
    q = (
        select(Enrolment)
        .join(Participant, Participant.id == Enrolment.participant_id)
        .where(Enrolment.study_id == study_id, Participant.name == participant)
    )
    return s.scalar(q)


def held_by_another(store: Store, name: str, code_studies: list[str]) -> bool:
    """``name`` already has records in the database made other than under a participant code of
    ``code_studies`` (a hub user's of a shared database, say): as a code it would read them."""
    with store.session() as s:
        who = s.scalar(select(Participant.id).where(Participant.name == name))
        if who is None:
            return False
        coded = select(Enrolment.id).where(
            Enrolment.participant_id == who, Enrolment.study_id.in_(code_studies)
        )
        return s.scalar(coded.limit(1)) is None


def enrol(
    store: Store, library: TaskLibrary, study: StudyDef, participant: str, answers: dict[str, Any]
) -> bool:
    """Record ``participant``'s consent (now), answers and plan; False when they had enrolled
    already (their first consent, answers and plan stay)."""
    record_study(store, study)
    pid = participant_id(store, participant)
    seed = None if study.draw is None else new_seed()
    plan = make_plan(study, library, seed)
    try:
        with store.session() as s:
            mine = select(Enrolment.id).where(Enrolment.study_id == study.id, Enrolment.participant_id == pid)
            if s.scalar(mine) is not None:
                return False
            now = utcnow()
            s.add(
                Enrolment(
                    study_id=study.id,
                    participant_id=pid,
                    consent_at=now,
                    answers=answers,
                    seed=seed,
                    plan=plan,
                )
            )
    except IntegrityError:  # the same participant's other request enrolled them first
        return False
    return True


def study_attempts(s: Session, study_id: str, enrolment: Enrolment) -> list[Attempt]:
    """The enrolment's attempts of the study, in the order they were started (= plan order)."""
    q = (
        select(Attempt)
        .where(Attempt.study_id == study_id, Attempt.participant_id == enrolment.participant_id)
        .order_by(Attempt.created_at, Attempt.id)
    )
    return list(s.scalars(q))


def attempt_seconds(s: Session, row: Attempt) -> float:
    """An attempt's working time: its steps' time net of pauses (a quit one up to the quit)."""
    srows = s.scalars(select(StepRow).where(StepRow.attempt_id == row.id)).all()
    pause_after = (row.settings or {}).get("pause_after", 300)
    now = row.finished_at if row.status != "open" else None
    return round(sum(attempt_working_seconds(s, row.id, srows, pause_after, now).values()), 1)


@dataclass
class Progress:
    """Where an enrolment stands: its plan items with their attempts."""

    items: list[dict[str, Any]]
    current: int | None  # the item whose attempt is open
    next: int | None  # the item to start next (None while one is open, or when all ended)

    @property
    def finished(self) -> bool:
        return self.current is None and self.next is None


def progress(s: Session, library: TaskLibrary, study_id: str, enrolment: Enrolment) -> Progress:
    attempts = study_attempts(s, study_id, enrolment)
    items: list[dict[str, Any]] = []
    for index, entry in enumerate(enrolment.plan):
        task = library.tasks.get(entry["task_id"])
        row = attempts[index] if index < len(attempts) else None
        items.append(
            {
                "index": index,
                "task_id": entry["task_id"],
                "title": task.title if task else entry["task_id"],
                "mode": entry["mode"],
                "status": row.status if row else "todo",
                "attempt_id": row.id if row else None,
                "notebook_path": row.notebook_path if row else None,
                "working_seconds": attempt_seconds(s, row) if row else None,
            }
        )
    current = next((i["index"] for i in items if i["status"] == "open"), None)
    todo = next((i["index"] for i in items if i["status"] == "todo"), None)
    return Progress(items, current, None if current is not None else todo)


def mark_finished(s: Session, study_id: str, enrolment: Enrolment) -> None:
    """Every item ended: the enrolment finished when its last attempt did."""
    if enrolment.finished_at is None:
        ended = [a.finished_at for a in study_attempts(s, study_id, enrolment) if a.finished_at]
        enrolment.finished_at = max(ended) if ended else utcnow()


def the_enrolment(s: Session, study_id: str, participant: str) -> Enrolment:
    found = enrolment_of(s, study_id, participant)
    if found is None or found.consent_at is None:
        raise Conflict(f"{participant} has not consented to study {study_id!r}: accept its consent first")
    return found
