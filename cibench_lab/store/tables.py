"""Tables of the results store (SQLAlchemy 2 declarative).

participant 1─* attempt 1─* step 1─* turn; attempt *─1 run; attempt 1─* event;
attempt 1─* oracle_reference (what a step's reference printed when it ran, oracle mode);
study 1─* enrolment *─1 participant (consent, questionnaire answers, the drawn plan); study 1─* attempt;
run_lease: which process plays a run name now (by name, so it is taken before the run exists).
class_member: which user a PostgreSQL login role is and their roles in classes (the row-level security
policies of a class database read it: docs/teach/reference.md).
Steps and turns are 0-based, as in the engine and the API (the UI shows step n+1).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from .times import UTCDateTime, utcnow

__all__ = ["utcnow"]  # where the code took it from before store.times


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON, dt.datetime: UTCDateTime}


class Participant(Base):
    __tablename__ = "participant"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class Study(Base):
    """A study as it was when its first participant enrolled (``config``: the definition, for the
    record); ``salt`` pseudonymises its participants in exports."""

    __tablename__ = "study"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    title: Mapped[str] = mapped_column(String(300))
    config: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # deferred: loading a study reads no salt, which a class database's student roles may not read
    salt: Mapped[str] = mapped_column(String(64), deferred=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class Enrolment(Base):
    """One participant in one study: consent (``consent_at``), questionnaire ``answers``, and the
    ``plan`` drawn for them with ``seed`` (``[{"task_id", "mode"}, ...]``, in playing order)."""

    __tablename__ = "enrolment"
    __table_args__ = (UniqueConstraint("study_id", "participant_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    study_id: Mapped[str] = mapped_column(ForeignKey("study.id"), index=True)
    participant_id: Mapped[int] = mapped_column(ForeignKey("participant.id"))
    consent_at: Mapped[dt.datetime | None] = mapped_column()
    answers: Mapped[dict[str, Any]] = mapped_column(default=dict)
    seed: Mapped[int | None] = mapped_column()
    plan: Mapped[list[Any]] = mapped_column(default=list)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[dt.datetime | None] = mapped_column()


class Run(Base):
    __tablename__ = "run"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    player: Mapped[str] = mapped_column(String(200))
    mode: Mapped[str] = mapped_column(String(10))
    config: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class RunLease(Base):
    """One process plays a run name at a time: it holds the row and renews ``heartbeat_at``."""

    __tablename__ = "run_lease"
    name: Mapped[str] = mapped_column(String(200), primary_key=True)  # the run name
    holder: Mapped[str] = mapped_column(String(300))  # host:pid, for messages
    token: Mapped[str] = mapped_column(String(32))  # the holder's own random token
    acquired_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    heartbeat_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class Attempt(Base):
    __tablename__ = "attempt"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    task_id: Mapped[str] = mapped_column(String(300), index=True)
    task_hash: Mapped[str] = mapped_column(String(64))
    mode: Mapped[str] = mapped_column(String(10))  # e2e | oracle
    player: Mapped[str] = mapped_column(String(200))  # human | reference | openai:<model> | ...
    participant_id: Mapped[int | None] = mapped_column(ForeignKey("participant.id"))
    run_id: Mapped[int | None] = mapped_column(ForeignKey("run.id"), index=True)
    study_id: Mapped[str | None] = mapped_column(ForeignKey("study.id"), index=True)
    protocol: Mapped[str | None] = mapped_column(String(30))  # the study's preset: model-parity | practice
    settings: Mapped[dict[str, Any]] = mapped_column(default=dict)
    environment: Mapped[dict[str, Any]] = mapped_column(default=dict)
    workdir: Mapped[str] = mapped_column(Text, default="")
    notebook_path: Mapped[str] = mapped_column(Text, default="")  # relative to the server root
    kernel_id: Mapped[str | None] = mapped_column(String(64))
    n_steps: Mapped[int] = mapped_column()
    current_step: Mapped[int] = mapped_column(default=0)
    status: Mapped[str] = mapped_column(String(10), default="open")  # open | done | quit
    summary: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[dt.datetime | None] = mapped_column()


class StepRow(Base):
    __tablename__ = "step"
    __table_args__ = (UniqueConstraint("attempt_id", "index"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    attempt_id: Mapped[str] = mapped_column(ForeignKey("attempt.id"))
    index: Mapped[int] = mapped_column()
    kind: Mapped[str] = mapped_column(String(10))
    opened_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    settled_at: Mapped[dt.datetime | None] = mapped_column()
    # passed|next|gave_up|turn_cap|out_of_turns|stopped|answered (tasks/vocabulary.py: OUTCOMES)
    outcome: Mapped[str | None] = mapped_column(String(20))
    grade: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    note: Mapped[str | None] = mapped_column(Text)  # the participant's note on the step (latest text)


class Turn(Base):
    __tablename__ = "turn"
    __table_args__ = (
        UniqueConstraint("attempt_id", "msg_id"),
        Index("ix_turn_attempt_step", "attempt_id", "step"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    attempt_id: Mapped[str] = mapped_column(ForeignKey("attempt.id"))
    step: Mapped[int] = mapped_column()
    number: Mapped[int] = mapped_column()  # 0-based within the step
    msg_id: Mapped[str | None] = mapped_column(String(100))
    code: Mapped[str] = mapped_column(Text)
    outputs: Mapped[list[Any]] = mapped_column(default=list)
    error: Mapped[bool] = mapped_column(default=False)
    started_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    grade: Mapped[dict[str, Any]] = mapped_column(default=dict)  # the step's grade as of this turn
    meta: Mapped[dict[str, Any]] = mapped_column(default=dict)  # model prompt/response, tokens, ...


class Event(Base):
    __tablename__ = "event"
    id: Mapped[int] = mapped_column(primary_key=True)
    attempt_id: Mapped[str] = mapped_column(ForeignKey("attempt.id"), index=True)
    kind: Mapped[str] = mapped_column(String(30))  # restore | oracle | settle | activity | pause | ...
    at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    detail: Mapped[dict[str, Any]] = mapped_column(default=dict)


class OracleReference(Base):
    """What running step ``step``'s reference printed (oracle mode: a model's next prompt shows it);
    the latest row of a step is its reference run. ``source``: who ran it (None: not recorded)."""

    __tablename__ = "oracle_reference"
    __table_args__ = (Index("ix_oracle_reference_attempt_step", "attempt_id", "step"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    attempt_id: Mapped[str] = mapped_column(ForeignKey("attempt.id"))
    step: Mapped[int] = mapped_column()
    source: Mapped[str | None] = mapped_column(Text)  # notebook | task notebook | ... (who reported it)
    code: Mapped[str | None] = mapped_column(Text)
    outputs: Mapped[list[Any]] = mapped_column(default=list)
    error: Mapped[bool] = mapped_column(default=False)
    status: Mapped[str] = mapped_column(String(20))
    at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    def detail(self) -> dict[str, Any]:
        """The row as the ``oracle`` event's detail it was before revision 0006 (exports show that)."""
        source = {} if self.source is None else {"source": self.source}
        code = {} if self.code is None else {"code": self.code}
        return {**source, "step": self.step, **code} | {
            "outputs": self.outputs,
            "error": self.error,
            "status": self.status,
        }


class ClassMember(Base):
    """A database login role's user (``pg_role`` -> ``user_name``) and one of their roles: ``participant``
    (every role has that row, ``class_name`` '' or a class it is a member of), ``instructor`` of a class,
    ``researcher`` (``class_name`` ''). Written by ``cibench-lab class grant``; on PostgreSQL the
    row-level security policies read it (revision 0005)."""

    __tablename__ = "class_member"
    __table_args__ = (UniqueConstraint("pg_role", "class_name", "role"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    pg_role: Mapped[str] = mapped_column(String(63), index=True)
    user_name: Mapped[str] = mapped_column(String(200))
    class_name: Mapped[str] = mapped_column(String(63), default="", index=True)
    role: Mapped[str] = mapped_column(String(20))  # participant | instructor | researcher
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
