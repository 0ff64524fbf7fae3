"""People beside models (``GET studies/{id}/compare``, ``GET studies/{id}/runs``): the comparison
report exactly as `cibench-lab report --compare --format json` prints it (docs/compare.md)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from .common import Closed, Mode, Request, StepKind, Text, absent

ProfileName = TypeAliasType("ProfileName", Literal["fair", "cibench"])


class CompareQuery(Request):
    runs: Text = Field(description="the run names (or ids) to compare with, comma-separated")
    profile: ProfileName | None = absent("the grading profile (default: the lab's)")
    allow_mismatch: bool = Field(
        False, strict=False, description="show a comparison whose conditions differ, marked in every row"
    )

    def names(self) -> list[str]:
        return [name.strip() for name in self.runs.split(",") if name.strip()]


class Spread(Closed):
    n: int
    median: float | None
    q1: float | None
    q3: float | None


class HumanFigures(Closed):
    """The people's figures of a step, task or library."""

    n: int = Field(description="people counted")
    passed: int
    steps: int = Field(description="graded steps (those not graded are counted in not_graded)")
    rate: float | None = Field(description="passed / steps x100")
    ci: list[float | None] = Field(description="the rate's 95% bootstrap CI [low, high] (one decimal)")
    score: float | None = Field(description="mean score x100")
    quit: int = Field(description="people who only quit the task(s)")
    not_graded: int = Field(
        description="step results whose grade measured nothing (e.g. a figure "
        "no judge rated): neither passed nor missed, out of the rate"
    )
    time: Spread = Field(description="working seconds net of pauses")


class StepRun(Closed):
    """A run's result at one step."""

    passed: bool = Field(description="false where not graded")
    graded: bool = Field(description="false: the grade measured nothing (neither passed nor missed)")
    score: float | None
    outcome: str | None
    turns: int


class GroupRun(Closed):
    """A run's results over a task's or library's steps."""

    tasks: int
    steps: int = Field(description="graded steps")
    passed: int
    rate: float | None
    score: float | None
    not_graded: int = Field(description="steps whose grade measured nothing, out of the rate")


class StepRow(Closed):
    task: str
    lib: str = Field(description="the task's library as the library rows name it")
    step: int = Field(description="0-based step index")
    kind: StepKind
    humans: HumanFigures
    runs: dict[str, StepRun | None] = Field(description="by run name; null: the run did not play it")
    mismatch: list[str] = Field(description="`run: field` for each mismatch of the row's task")
    difficulty: float | None = Field(description="Rasch difficulty; null: nobody played the step")
    rank: int | None = Field(description="1 = hardest; null: nobody played the step")


class TaskRow(Closed):
    task: str
    steps: int
    humans: HumanFigures
    runs: dict[str, GroupRun]
    mismatch: list[str]


class LibraryRow(Closed):
    lib: str = Field(
        description="the library's name (`pandas`); `split/lib` where two splits hold a library of that name"
    )
    split: str = Field(description="the split of the library's tasks")
    steps: int
    humans: HumanFigures
    runs: dict[str, GroupRun]
    mismatch: list[str]


class DifficultyItem(Closed):
    task: str
    step: int
    kind: StepKind
    difficulty: float
    rank: int


class Respondent(Closed):
    who: str = Field(description="a participant's pseudonym, or a run name")
    group: str = Field(description="humans, or the run name")
    ability: float


class Difficulty(Closed):
    method: str
    ridge: float
    converged: bool
    iterations: int
    items: list[DifficultyItem] = Field(description="the steps somebody played, hardest first")
    respondents: list[Respondent]


class MismatchRow(Closed):
    run: str
    task: str
    field: str
    humans: list[Any] = Field(description="the distinct values among the people's attempts")
    model: Any
    reason: str


class Comparability(Closed):
    mismatches: list[MismatchRow]
    allowed: bool = Field(description="allow_mismatch was given")


class ComparedRun(Closed):
    run: str
    player: str
    mode: Mode


class Comparison(Closed):
    """The comparison report (docs/compare.md)."""

    study: str
    profile: ProfileName
    runs: list[ComparedRun]
    people: int = Field(description="participants counted")
    notes: list[str] = Field(description="the counting rule, the CIs, who settles, what was left out")
    comparability: Comparability
    steps: list[StepRow]
    tasks: list[TaskRow]
    libraries: list[LibraryRow]
    difficulty: Difficulty


class RecordedRun(Closed):
    """A recorded run (`cibench-lab run --run NAME`) a comparison can name."""

    run: str
    player: str
    mode: Mode
    created_at: str
    tasks: int = Field(description="tasks the run finished")
