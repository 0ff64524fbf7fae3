"""The class view: a class's progress table and pass rates, its CSV, one member's attempt record
(instructors of the class only; ``views/classroom.py``)."""

from __future__ import annotations

from pydantic import Field

from .common import AttemptStatus, Closed, Mode, StepKind
from .grade import Grade


class ClassAttempt(Closed):
    """One member's attempt: a cell of the participants x tasks table."""

    participant: str
    task_id: str
    title: str
    attempt_id: str
    status: AttemptStatus
    current_step: int = Field(description="the step open (0-based; the last one once the attempt ended)")
    n_steps: int
    step_seconds: float | None = Field(
        description="the open step's working time so far; null once the attempt ended (no step is open)"
    )
    passed: int = Field(description="settled steps whose kept grade passed")
    settled: int = Field(
        description="settled steps with a kept grade (passed or missed; not those not graded)"
    )
    not_graded: int = Field(
        description="settled steps whose kept grade is not graded (e.g. a figure no "
        "judge rated): neither passed nor missed"
    )
    score: float | None = Field(
        description="the kept score: passed steps of the settled ones with a grade (`passed` of `settled`), "
        "x100; null while none is (a step still open is neither passed nor missed)"
    )
    created_at: str


class ClassTask(Closed):
    task_id: str
    title: str


class StepPassRate(Closed):
    """Where the class is stuck: of a task's attempts, how many reached a step, how many settled it
    and how many of those passed it (``reached - settled`` are still on it)."""

    task_id: str
    step: int = Field(description="0-based")
    reached: int = Field(description="attempts that opened the step")
    settled: int = Field(description="of those, attempts that settled it (the rest are still on it)")
    passed: int = Field(description="of the settled ones, attempts whose kept grade passed it")
    not_graded: int = Field(
        description="of the settled ones, attempts whose kept grade is not graded (neither passed nor missed)"
    )


class ClassProgress(Closed):
    """The class's members, every task one of them attempted, their attempts (newest first) and
    the per-step pass rates."""

    name: str
    members: list[str]
    profile: str
    tasks: list[ClassTask]
    attempts: list[ClassAttempt]
    pass_rates: list[StepPassRate]


class ClassCSV(Closed):
    """The class table as CSV (one line per attempt, a header line first; ``step`` as ``3/4``)."""

    filename: str
    csv: str


class MemberTurn(Closed):
    step: int = Field(description="the step the turn belongs to (0-based)")
    turn: int = Field(description="0-based within the step")
    code: str
    output: str = Field(description="the outputs the kernel published, as text")
    image: str | None = Field(description="the turn's first figure (base64 PNG)")
    error: bool
    grade: Grade | None = Field(description="the step's grade as of this turn")
    started_at: str
    finished_at: str


class MemberStep(Closed):
    index: int
    kind: StepKind
    instruction: str
    outcome: str | None
    opened_at: str
    settled_at: str | None
    working_seconds: float
    grade: Grade | None = Field(description="the kept grade (settled steps)")
    passed: bool
    note: str | None
    turns: list[MemberTurn]


class MemberAttempt(Closed):
    """A class member's attempt for their instructor: each opened step's turns (code, outputs,
    grades), note and times. No reference material."""

    id: str
    participant: str
    task_id: str
    title: str
    status: AttemptStatus
    mode: Mode
    player: str
    current_step: int
    n_steps: int
    turn_cap: int | None = Field(
        description="the runs a person's step has before it settles (outcome turn_cap); null: no cap"
    )
    created_at: str
    finished_at: str | None
    steps: list[MemberStep]
