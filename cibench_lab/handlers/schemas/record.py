"""The participant record: pause / resume, notes, activity, the action trace, and the working
clock's pauses in the attempt view."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from ...record.activity import CELL_EDITS_MAX, NOTE_MAX
from .common import Closed, Count, Id, Request, StepIndex, Text, absent

PauseCause = TypeAliasType("PauseCause", Literal["button", "command"])


class PauseView(Closed):
    """An interval the working clock stood still (it counts 0 in working time)."""

    step: int = Field(description="the step open when it paused")
    start: str
    end: str | None = Field(description="null: still paused")
    cause: str = Field(description="button | command | idle (a gap over pause_after, recorded when noticed)")
    resumed_by: str | None = Field(description="button | command | edit | run | settle (its step settled)")


class PauseRequest(Request):
    """Pause or resume the working clock: with the panel's button or a palette command."""

    cause: PauseCause = Field("button", description="what the person used")


class NoteRequest(Request):
    step: StepIndex = Field(description="an opened step (0-based)")
    text: Annotated[Text, Field(max_length=NOTE_MAX)] = Field(
        description=f"the whole note (at most {NOTE_MAX} characters); empty clears it"
    )


class ActivityReport(Request):
    """The person edited the attempt's notebook (sent at most every 20 s while they type, at once
    when they run a cell or the clock is paused)."""

    step: StepIndex
    cells: Annotated[dict[Id, Count], Field(max_length=CELL_EDITS_MAX)] = absent(
        "edits (not keystrokes) per cell id since the last report"
    )
    runs: Annotated[dict[Id, Id], Field(max_length=CELL_EDITS_MAX)] = absent(
        "executions just scheduled: their execute request's msg_id -> the cell id"
    )


class Activity(Closed):
    step: int
    working_seconds: float | None = Field(
        description="the open step's working time so far (null for a report of runs alone: not read for it)"
    )
    resumed: bool = Field(description="the working clock was paused and this edit resumed it")


class Note(Closed):
    step: int
    note: str


class CellRun(Closed):
    """One execution on the attempt's kernel, as the server's capture read it."""

    step: int = Field(description="the step open when it started")
    cell_id: str | None = Field(description="the cell the browser said it ran (null: not said)")
    msg_id: str
    code: str = Field(description="what the kernel published as its input")
    started_at: str
    finished_at: str | None = Field(description="null: its kernel died before it finished")
    error: bool
    status: str = Field(description="ok | error | timeout | dead")
    execution_count: int | None
    graded: bool = Field(description="a turn of its step holds it; false: an exploration run")
    turn: int | None = Field(description="that turn (0-based within the step)")


class CellEdits(Closed):
    step: int
    cell_id: str
    count: int = Field(description="edits (not keystrokes) since the browser's previous report")
    at: str


class Trace(Closed):
    """The attempt's action trace, in time order."""

    runs: list[CellRun]
    edits: list[CellEdits]
