"""Request bodies and responses of the study routes (``/studies...``; docs/api.md, docs/studies.md)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from .schemas import AttemptView, Closed, Mode, PlaySettingsView, Request, Text, absent

StudyProtocol = TypeAliasType("StudyProtocol", Literal["model-parity", "practice"])
StudyState = TypeAliasType("StudyState", Literal["consent", "ready", "playing", "finished"])
ItemStatus = TypeAliasType("ItemStatus", Literal["todo", "open", "done", "quit"])
QuestionType = TypeAliasType("QuestionType", Literal["choice", "number", "text"])


# ---- requests ---------------------------------------------------------------------------


class ConsentRequest(Request):
    """The participant accepts the consent text and answers the questionnaire."""

    accept: bool = Field(description="must be true: the consent text is accepted")
    code: Text = absent("the participant code (a study with participant codes, on a single server)")
    answers: dict[str, Any] = Field(
        default_factory=dict, description="questionnaire answers by field name (text, choice or number)"
    )


class StudyRequest(Request):
    """Start the next task, quit the current one, hand over: no fields."""


# ---- responses --------------------------------------------------------------------------


class Question(Closed):
    name: str
    label: str
    type: QuestionType
    choices: list[str]
    required: bool
    min: float | None
    max: float | None


class PlanItem(Closed):
    """One task of the participant's plan, with its attempt once started."""

    index: int = Field(description="0-based place in the plan")
    task_id: str
    title: str
    mode: Mode
    status: ItemStatus = Field(description="todo: not started; else its attempt's status")
    attempt_id: str | None
    notebook_path: str | None = Field(description="the attempt's notebook, relative to the server root")
    working_seconds: float | None = Field(description="the attempt's time net of pauses (null: not started)")


class EnrolmentView(Closed):
    consent_at: str
    answers: dict[str, Any]
    finished_at: str | None = Field(description="when the plan's last attempt ended")


class StudyView(Closed):
    """A study as its participant sees it: their own enrolment and plan only."""

    id: str
    title: str
    protocol: StudyProtocol
    proctored: bool
    consent: str = Field(description="the consent text to accept (markdown)")
    settle_note: str | None = Field(
        description="model-parity: who decides when a step ends (also in consent)"
    )
    questionnaire: list[Question]
    settings: PlaySettingsView = Field(
        description="the play settings every attempt of the study is locked to"
    )
    participant_code: bool = Field(description="participants sign in with a code at the consent")
    n_items: int = Field(description="tasks in a participant's plan")
    participant: str | None = Field(description="who plays (null: a participant code is needed)")
    researcher: bool = Field(description="the caller may read every participant's record")
    state: StudyState
    enrolment: EnrolmentView | None
    items: list[PlanItem] = Field(description="the plan in playing order (empty before the consent)")
    current: int | None = Field(description="the item in progress")
    next: int | None = Field(description="the item Start starts (null while one is in progress or all ended)")
    done: int = Field(description="items ended (done or quit)")
    finished: int = Field(description="items whose attempt was played to its end (status done)")
    quit: int = Field(description="items whose attempt was quit (left unfinished)")
    total_seconds: float = Field(description="working time over the plan's attempts, net of pauses")


class StudySummary(Closed):
    id: str
    title: str
    protocol: StudyProtocol
    state: StudyState
    done: int = Field(description="items ended (done or quit)")
    finished: int = Field(description="items played to their end")
    quit: int = Field(description="items quit")
    n_items: int
    participant_code: bool


class StudyStarted(Closed):
    study: StudyView
    attempt: AttemptView


class ParticipantRecord(Closed):
    """One participant's enrolment and progress, for the study's researchers."""

    participant: str
    consent_at: str | None
    answers: dict[str, Any]
    seed: int | None = Field(description="the seed the plan was drawn with (null: a fixed list)")
    finished_at: str | None
    items: list[PlanItem]
    total_seconds: float
