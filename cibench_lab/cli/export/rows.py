"""The exported tables' rows, streamed from the results database (docs/exports.md).

Each table is one query read ``BATCH`` rows at a time (``yield_per``), never loaded whole; an
attempt's steps, with their first runs and working seconds, are read per attempt.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

from sqlalchemy import false, func, select
from sqlalchemy.orm import Session

from ...play.settings import PlaySettings
from ...record.worktime import attempt_working_seconds
from ...store.tables import Attempt, Enrolment, Participant, StepRow, Study, Turn
from .columns import ANSWER_PREFIX, SETTINGS, STEP_GRADE, TURN_GRADE
from .selection import Selection
from .values import grade_columns, iso, output_text, summary_columns

BATCH = 200

Row = dict[str, Any]


def attempts(s: Session, sel: Selection, now: dt.datetime) -> Iterator[tuple[Row, list[Row]]]:
    """Each selected attempt's row with its steps' rows, oldest attempt first."""
    q = (
        select(Attempt, Participant.name)
        .outerjoin(Participant, Participant.id == Attempt.participant_id)
        .where(*sel.where)
        .order_by(Attempt.created_at, Attempt.id)
        .execution_options(yield_per=BATCH)
    )
    for att, name in s.execute(q):
        steps = step_rows(s, att, now)
        yield attempt_row(att, name, sel, steps), steps


def attempt_row(att: Attempt, name: str | None, sel: Selection, steps: list[Row]) -> Row:
    settings = PlaySettings.recorded(att.settings or {}).as_dict()
    env = att.environment or {}
    sandbox = env.get("sandbox") or {}
    split, lib = (att.task_id.split("/") + ["", ""])[:2]
    return {
        "attempt_id": att.id,
        "task_id": att.task_id,
        "split": split,
        "lib": lib,
        "task_hash": att.task_hash,
        "mode": att.mode,
        "player": att.player,
        "participant": sel.shown(att.participant_id, name, att.study_id),
        "study": att.study_id,
        "protocol": att.protocol,
        "run": sel.run_names.get(att.run_id) if att.run_id is not None else None,
        "status": att.status,
        "n_steps": att.n_steps,
        "steps_settled": sum(r["settled_at"] is not None for r in steps),
        "created_at": iso(att.created_at),
        "finished_at": iso(att.finished_at),
        "working_seconds": round(sum(r["working_seconds"] for r in steps), 1),
        **{k: settings[k] for k in SETTINGS},
        "kernel_env_sha256": (env.get("kernel") or {}).get("constraints_sha256"),
        "python": env.get("python"),
        "sandbox": sandbox.get("enabled"),
        "network": sandbox.get("network"),
        "profile_version": (env.get("server") or {}).get("cibench-lab"),
        **summary_columns(att.summary),
    }


def step_rows(s: Session, att: Attempt, now: dt.datetime) -> list[Row]:
    """The attempt's opened steps; an unsettled step's time runs to the attempt's end (quit) or ``now``."""
    rows = list(s.scalars(select(StepRow).where(StepRow.attempt_id == att.id).order_by(StepRow.index)))
    runs = select(Turn.step, func.min(Turn.started_at), func.count(Turn.id)).where(Turn.attempt_id == att.id)
    first = {step: (at, n) for step, at, n in s.execute(runs.group_by(Turn.step))}
    pause_after = PlaySettings.recorded(att.settings or {}).pause_after
    seconds = attempt_working_seconds(s, att.id, rows, pause_after, now=att.finished_at or now)
    return [
        {
            "attempt_id": att.id,
            "step": r.index,
            "kind": r.kind,
            "opened_at": iso(r.opened_at),
            "first_run_at": iso(first.get(r.index, (None, 0))[0]),
            "settled_at": iso(r.settled_at),
            "outcome": r.outcome,
            "turns": first.get(r.index, (None, 0))[1],
            "working_seconds": seconds[r.index],
            "note": r.note,
            **grade_columns(r.grade, STEP_GRADE),
        }
        for r in rows
    ]


def turns(s: Session, sel: Selection) -> Iterator[Row]:
    cols = (Turn.attempt_id, Turn.step, Turn.number, Turn.msg_id, Turn.started_at, Turn.finished_at)
    q = (
        select(*cols, Turn.error, Turn.code, Turn.outputs, Turn.grade, Turn.meta)
        .join(Attempt, Attempt.id == Turn.attempt_id)
        .where(*sel.where)
        .order_by(Attempt.created_at, Attempt.id, Turn.step, Turn.number)
        .execution_options(yield_per=BATCH)
    )
    for attempt_id, step, number, msg_id, started, finished, error, code, outputs, grade, meta in s.execute(
        q
    ):
        meta = meta or {}
        yield {
            "attempt_id": attempt_id,
            "step": step,
            "turn": number,
            "msg_id": msg_id,
            "started_at": iso(started),
            "finished_at": iso(finished),
            "seconds": round((finished - started).total_seconds(), 3),
            "status": meta.get("status", "error" if error else "ok"),
            "error": error,
            "truncated": bool(meta.get("truncated")),
            "code": code,
            **output_text(outputs),
            **grade_columns(grade, TURN_GRADE),
        }


def _enrolments(sel: Selection):
    q = select(Enrolment, Participant.name).join(Participant, Participant.id == Enrolment.participant_id)
    if sel.filters.study is not None:
        q = q.where(Enrolment.study_id == sel.filters.study)
    if sel.participant_id is not None:
        q = q.where(Enrolment.participant_id == sel.participant_id)
    if sel.filters.run is not None:  # a run's attempts have no enrolment
        q = q.where(false())
    return q


def answer_columns(s: Session, sel: Selection) -> list[str]:
    """``answer_<name>`` per questionnaire field of the selected studies (their order), then any
    answer a study's questionnaire no longer names."""
    names: list[str] = []
    studies = select(Study.config).order_by(Study.id)
    if sel.filters.study is not None:
        studies = studies.where(Study.id == sel.filters.study)
    for config in s.scalars(studies):
        for field in (config or {}).get("questionnaire") or []:
            if isinstance(field, dict) and field.get("name") and field["name"] not in names:
                names.append(str(field["name"]))
    for enrolment, _ in s.execute(_enrolments(sel)):
        names += [str(k) for k in (enrolment.answers or {}) if str(k) not in names]
    return [ANSWER_PREFIX + n for n in names]


def participants(s: Session, sel: Selection, answers: list[str]) -> Iterator[Row]:
    """One row per enrolment: the participant's consent, plan and questionnaire answers."""
    q = _enrolments(sel).order_by(Enrolment.study_id, Enrolment.created_at, Enrolment.id)
    for e, name in s.execute(q.execution_options(yield_per=BATCH)):
        given = {ANSWER_PREFIX + str(k): v for k, v in (e.answers or {}).items()}
        yield {
            "participant": sel.shown(e.participant_id, name, e.study_id),
            "study": e.study_id,
            "consent_at": iso(e.consent_at),
            "enrolled_at": iso(e.created_at),
            "finished_at": iso(e.finished_at),
            "seed": e.seed,
            "plan": e.plan,
            **{col: given.get(col) for col in answers},
        }
