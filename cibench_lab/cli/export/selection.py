"""Which attempts an export holds (``--study``, ``--run``, ``--participant``: combined with AND) and
how their participants are shown (pseudonyms unless ``--real-names``; docs/exports.md, "Participants").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from ...store.pseudonym import pseudonym
from ...store.tables import Attempt, Enrolment, Participant, Study
from ..report import find_runs

#: A participant whose name starts so is a player of a headless run, not a person: shown as is.
PLAYER_PREFIX = "player:"
#: Outside a study a person is shown as this and their row number in the results database.
LOCAL_PREFIX = "u-"


@dataclass(frozen=True)
class Filters:
    study: str | None = None
    run: str | None = None
    participant: str | None = None
    real_names: bool = False


@dataclass
class Selection:
    """The filters resolved against the database: ``where`` clauses on ``attempt``, and what
    rows show in place of ids (run names, study salts)."""

    filters: Filters
    where: list[Any]
    run_names: dict[int, str]
    salts: dict[str, str | None]  # every study; None: the database role may not read its salt
    participant_id: int | None = None
    _shown: dict[tuple[int | None, str | None], str] = field(default_factory=dict)

    def shown(self, participant_id: int | None, name: str | None, study: str | None) -> str | None:
        """The participant as the export shows them (cached: one HMAC per person and study)."""
        if name is None:
            return None
        key = (participant_id, study)
        if key not in self._shown:
            self._shown[key] = self._show(participant_id, name, study)
        return self._shown[key]

    def _show(self, participant_id: int | None, name: str, study: str | None) -> str:
        if self.filters.real_names or name.startswith(PLAYER_PREFIX):
            return name
        salt = None if study is None else self.salts.get(study)
        if salt is not None:
            return pseudonym(salt, name)
        return f"{LOCAL_PREFIX}{participant_id}"


def resolve(s: Session, filters: Filters) -> Selection:
    """The selection; LookupError (one line naming it) for an unknown study, run or participant."""
    salts = study_salts(s)
    sel = Selection(filters, [], {r.id: r.name for r in find_runs(s, None)}, salts)
    if filters.study is not None:
        if filters.study not in salts:
            known = ", ".join(sorted(salts)) or "none"
            raise LookupError(f"no study {filters.study!r} (known: {known})")
        sel.where.append(Attempt.study_id == filters.study)
    if filters.run is not None:
        (run,) = find_runs(s, [filters.run])[:1]
        sel.where.append(Attempt.run_id == run.id)
    if filters.participant is not None:
        sel.participant_id = participant_of(s, filters.participant, salts)
        sel.where.append(Attempt.participant_id == sel.participant_id)
    return sel


def study_salts(s: Session) -> dict[str, str | None]:
    """Every study's salt; None for each when the connection's role may not read the column (a
    student's role on a class database: docs/teach/reference.md), whose export then shows ``u-N``."""
    if s.get_bind().dialect.name == "postgresql":
        readable = s.scalar(text("SELECT has_column_privilege('study', 'salt', 'SELECT')"))
        if not readable:
            return {sid: None for sid in s.scalars(select(Study.id))}
    return {sid: salt for sid, salt in s.execute(select(Study.id, Study.salt))}


def participant_of(s: Session, given: str, salts: dict[str, str | None]) -> int:
    """The participant ``given`` names: a name, a study pseudonym (``p-…``) or ``u-N``."""
    found = s.scalar(select(Participant.id).where(Participant.name == given))
    if found is not None:
        return found
    number = given.removeprefix(LOCAL_PREFIX)
    if given.startswith(LOCAL_PREFIX) and number.isdigit():
        row = s.get(Participant, int(number))
        if row is not None:
            return row.id
    for study, pid, name in _members(s):
        salt = salts.get(study)
        if salt is not None and pseudonym(salt, name) == given:
            return pid
    raise LookupError(
        f"no participant {given!r} (give a name, a study pseudonym p-… or u-N as an export shows them)"
    )


def _members(s: Session):
    """(study, participant id, name) of everyone enrolled in or playing a study."""
    enrolled = select(Enrolment.study_id, Participant.id, Participant.name).join(
        Participant, Participant.id == Enrolment.participant_id
    )
    playing = (
        select(Attempt.study_id, Participant.id, Participant.name)
        .join(Participant, Participant.id == Attempt.participant_id)
        .where(Attempt.study_id.is_not(None))
    )
    return s.execute(enrolled.union(playing))
