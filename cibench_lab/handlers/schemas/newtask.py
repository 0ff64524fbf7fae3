"""A task made from a teacher's solution notebook (``POST tasks``; ``cibench-lab tasks new``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from ...tasks.solution import Library as LibraryName
from .common import Closed, Id, Request, StepIndex, StepKind, Text, absent

#: CIBench's ten libraries.
Library = TypeAliasType("Library", LibraryName)


class NewTaskRequest(Request):
    notebook: Id = Field(description="the solution notebook, relative to the server root")
    lib: Library | None = absent("the task's library (default: the one its steps use most)")
    lang: Literal["en", "zh"] = Field("en", description="the instructions' language")
    data: Text | None = absent(
        "the folder copied as the task's data/, relative to the server root (default: data/ beside it)"
    )
    check: bool = Field(False, description="run the solution and say what the task would be; write nothing")


class NewTaskStep(Closed):
    step: StepIndex
    cell: int = Field(description="its code cell in the teacher's notebook, counted from 1")
    kind: StepKind | None = Field(
        description="the tagged or inferred kind; null: not known (not run, or refused)"
    )
    tagged: bool = Field(description="the kind is a cell tag's (cibench:KIND), not inferred")
    answer: str = Field(description="what the solution showed: a number, a line, 'a figure', 'nothing'")
    modules: list[str]
    plot_elements: list[str] = Field(description="a vis step's declared plot elements (graded with its data)")
    seconds: float | None = Field(description="how long the solution ran; null: not run")


class CellRefusal(Closed):
    cell: int | None = Field(description="the teacher's cell, counted from 1; null: the notebook as a whole")
    message: str = Field(description="one line naming the cell and the reason")


class NewTaskResult(Closed):
    """What was made of the notebook: written, or (check, or refused) what it would be."""

    task_id: str = Field(description="classroom/<lib>/<stem>")
    path: str = Field(description="where the task notebook is (or would be) written")
    lib: str | None
    language: str
    title: str
    steps: list[NewTaskStep]
    refusals: list[CellRefusal] = Field(description="empty unless the notebook cannot become a task")
    warnings: list[str]
    written: bool
    updated: bool = Field(description="it replaced an earlier version of the task")
    data_files: list[str]
