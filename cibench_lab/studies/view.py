"""What a participant sees of a study (their own enrolment only), and what a researcher sees
of every participant's. Synchronous (database)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from ..store import Store
from ..store.tables import Enrolment, Participant
from ..store.times import iso
from ..tasks.library import TaskLibrary
from .definition import SETTLE_NOTE, StudyDef
from .enrolment import enrolment_of, mark_finished, progress

ENDED = ("done", "quit")


def plan_size(study: StudyDef) -> int:
    return study.draw.n if study.draw is not None else len(study.tasks or [])


def _definition(study: StudyDef, codes: bool) -> dict[str, Any]:
    return {
        "id": study.id,
        "title": study.title,
        "protocol": study.protocol,
        "proctored": study.proctored,
        "consent": study.consent_text(),
        "settle_note": SETTLE_NOTE if study.protocol == "model-parity" else None,
        "questionnaire": [q.model_dump() for q in study.questionnaire],
        "settings": study.settings.as_dict(),
        "participant_code": codes,
        "n_items": plan_size(study),
    }


def item_counts(items: list[dict[str, Any]]) -> dict[str, int]:
    """The plan's items ended (``done``), of them played to the end (``finished``) and quit."""
    statuses = [i["status"] for i in items]
    return {
        "done": sum(s in ENDED for s in statuses),
        "finished": statuses.count("done"),
        "quit": statuses.count("quit"),
    }


def study_view(
    store: Store,
    library: TaskLibrary,
    study: StudyDef,
    participant: str | None,
    codes: bool,
    researcher: bool,
) -> dict[str, Any]:
    """The study for ``participant`` (None: nobody is signed in yet, a code is asked)."""
    out: dict[str, Any] = {
        **_definition(study, codes),
        "participant": participant,
        "researcher": researcher,
        "state": "consent",
        "enrolment": None,
        "items": [],
        "current": None,
        "next": None,
        "done": 0,
        "finished": 0,
        "quit": 0,
        "total_seconds": 0.0,
    }
    if participant is None:
        return out
    with store.session() as s:
        enrolment = enrolment_of(s, study.id, participant)
        if enrolment is None or enrolment.consent_at is None:
            return out
        p = progress(s, library, study.id, enrolment)
        if p.finished:
            mark_finished(s, study.id, enrolment)
        state = "playing" if p.current is not None else "finished" if p.finished else "ready"
        out.update(
            state=state,
            enrolment={
                "consent_at": iso(enrolment.consent_at),
                "answers": dict(enrolment.answers or {}),
                "finished_at": iso(enrolment.finished_at),
            },
            items=p.items,
            current=p.current,
            next=p.next,
            **item_counts(p.items),
            total_seconds=round(sum(i["working_seconds"] or 0.0 for i in p.items), 1),
        )
    return out


def summary(view: dict[str, Any]) -> dict[str, Any]:
    """A study's row in the list of studies."""
    keys = ("id", "title", "protocol", "state", "done", "finished", "quit", "n_items", "participant_code")
    return {k: view[k] for k in keys}


def participants_view(store: Store, library: TaskLibrary, study: StudyDef) -> list[dict[str, Any]]:
    """Every participant's enrolment and progress (for researchers), in enrolment order."""
    with store.session() as s:
        q = (
            select(Enrolment, Participant.name)
            .join(Participant, Participant.id == Enrolment.participant_id)
            .where(Enrolment.study_id == study.id)
            .order_by(Enrolment.created_at, Enrolment.id)
        )
        out = []
        for enrolment, name in s.execute(q).all():
            p = progress(s, library, study.id, enrolment)
            out.append(
                {
                    "participant": name,
                    "consent_at": iso(enrolment.consent_at),
                    "answers": dict(enrolment.answers or {}),
                    "seed": enrolment.seed,
                    "finished_at": iso(enrolment.finished_at),
                    "items": p.items,
                    "total_seconds": round(sum(i["working_seconds"] or 0.0 for i in p.items), 1),
                }
            )
        return out
