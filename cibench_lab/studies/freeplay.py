"""A study's task played outside the study (the ordinary task list's Start).

A study's record is each participant's *first* attempt of each plan task, under the study's
protocol: playing the task freely first would let a person meet its steps — and, with live grades
or a revealed reference, its answers — before the attempt that counts. So while a participant has a
task pending in a study they enrolled in (its plan item not started, or in progress), Start outside
the study is refused (409) naming the study. Once the item ended (done or quit) the task is free to
play again; such an attempt has no study (``attempt.study_id`` null), so the study's progress,
exports and comparison never count it (docs/studies.md, "Outside the study").
Synchronous (database).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import Conflict
from ..store import Store
from .definition import StudyDef
from .enrolment import enrolment_of, study_attempts

PENDING = ("todo", "open")


def pending_study(
    store: Store, studies: Iterable[StudyDef], participant: str, task_id: str
) -> StudyDef | None:
    """The first of ``studies`` whose plan holds ``task_id`` in an item ``participant`` (enrolled:
    consented) has not ended yet; None when there is none."""
    with store.session() as s:
        for study in studies:
            enrolment = enrolment_of(s, study.id, participant)
            if enrolment is None or enrolment.consent_at is None:
                continue
            attempts = study_attempts(s, study.id, enrolment)  # item k is the k-th attempt
            for index, entry in enumerate(enrolment.plan or []):
                status = attempts[index].status if index < len(attempts) else "todo"
                if entry["task_id"] == task_id and status in PENDING:
                    return study
    return None


def check_free_play(store: Store, studies: Iterable[StudyDef], participant: str, task_id: str) -> None:
    """Conflict when ``task_id`` is pending in one of ``participant``'s studies."""
    study = pending_study(store, studies, participant, task_id)
    if study is not None:
        raise Conflict(
            f"this task is part of study {study.title!r} ({study.id}); play it from the study "
            "(it can be played freely once its study task has ended)"
        )
