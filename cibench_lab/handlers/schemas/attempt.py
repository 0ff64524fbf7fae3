"""An attempt: starting it, its rows and view (steps, references, what next), its kernel."""

from __future__ import annotations

from pydantic import Field

from .common import (
    OUTCOME_DOC,
    AttemptStatus,
    Closed,
    Id,
    KernelStatus,
    KernelStop,
    Mode,
    Next,
    Request,
    StepKind,
    absent,
)
from .grade import Grade, Summary
from .player import PlayerChoice
from .record import PauseView
from .settings import PlaySettingsView, SettingsOverride


class StartAttempt(Request):
    task_id: Id
    mode: Mode
    settings: SettingsOverride | None = None
    player: PlayerChoice | None = Field(None, description="null: a person plays")


class AttemptRow(Closed):
    id: str
    task_id: str
    title: str
    mode: Mode
    status: AttemptStatus
    current_step: int
    n_steps: int
    notebook_path: str = Field(description="relative to the server root")
    created_at: str
    passed: int | None = Field(description="done: steps whose kept grade passed (shown profile); open: null")
    not_graded: int | None = Field(
        None,
        description="done: steps whose kept grade is not graded (shown profile; e.g. a figure no judge "
        "rated), neither passed nor missed; open: null",
    )
    language: str = Field(description="the task's language (en | zh; empty when the task is gone)")
    split: str = Field(description="the task's split")
    study_id: str | None = Field(None, description="the study the attempt was played in (null: none)")
    run: str | None = Field(None, description="the headless run it belongs to, by name (null: none)")


class Reference(Closed):
    code: str
    thought: str
    output: str
    image: str | None = Field(description="vis steps: the reference plot, a base64 PNG; else null")


class StepView(Closed):
    index: int
    kind: StepKind
    instruction: str
    modules: list[str]
    turns: int
    outcome: str | None = Field(description=OUTCOME_DOC + "; null while open")
    settled: bool
    seconds: float | None
    working_seconds: float | None = Field(
        description="the step's time net of pauses (settled: final; open: up to now)"
    )
    grade: Grade | None = Field(
        description="the kept grade under the shown profile (the open step's so far; null while grades "
        "are hidden, and for the step a quit left unsettled: it keeps none)"
    )
    grades: dict[str, Grade] | None = Field(
        None,
        description="done or quit: a settled step's kept grade under every stored profile; "
        "open, or the step a quit left unsettled: null",
    )
    kept_turn: int | None = Field(
        description="0-based turn whose grade is `grade` under the grade rule (open step: so far); "
        "null without turns or while grades are hidden"
    )
    run_limit: int | None = Field(
        description="a person's run limit on the step, where the step settles (turn_cap): the attempt's "
        "turn cap and the task's benchmark's own limit, if any, whichever is lower; null: "
        "none, or a player's attempt"
    )
    criterion: str = Field(description="how the shown profile decides pass for this kind, in words")
    passes: str | None = Field(
        None,
        description="a text step's short rule of what passes under the shown profile, for its badge "
        "(e.g. fair: `to pass: print only the answer, or a sentence naming it, as your last line`); "
        "null for other kinds, whose measure says it",
    )
    reference: Reference = absent("only for settled steps the reveal policy (or oracle mode) shows")
    opened_at: str
    first_run_at: str | None = Field(description="when the step's first turn started (null: none yet)")
    settled_at: str | None
    note: str | None = Field(description="the person's note on the step (latest text)")


class ShownReference(Closed):
    """Oracle mode, after the last step: its reference, shown as a read-only cell."""

    step: int
    code: str


class NextAction(Closed):
    """What happens next, as the server's step driver decides it: ``propose`` (ask the attached
    player for step ``step``'s turn), ``run`` (run the player's ``code`` as that turn),
    ``reference`` (oracle mode: run settled step ``step``'s reference ``code``), ``wait``
    (a person plays step ``step``), ``done`` (oracle mode: with the last step's reference to
    ``show`` in the notebook; nothing is recorded of it)."""

    do: Next
    step: int = absent()
    turn: int = absent()
    code: str = absent()
    show: ShownReference = absent()


class SandboxView(Closed):
    """The kernel sandbox an attempt's kernels started in (recorded when it was created)."""

    enabled: bool = Field(description="false: the kernels ran unsandboxed, as the server's user")
    network: bool = Field(description="the sandboxed kernels could reach the network")
    tool: str | None = Field(description="bubblewrap, or null when unsandboxed")


class AttemptView(Closed):
    """An attempt as its player may see it; ``steps`` holds the steps opened so far."""

    id: str
    task_id: str
    title: str
    intro: str
    mode: Mode
    player: str = Field(description="human | openai:NAME | replay:attempt:ID | replay:file:PATH")
    status: AttemptStatus
    current_step: int
    n_steps: int
    kinds: list[StepKind]
    settings: PlaySettingsView
    notebook_path: str = Field(description="relative to the server root")
    kernel_id: str | None
    profile: str
    steps: list[StepView]
    summary: Summary | None = Field(
        description="done: the shown profile's means over every step; open or quit: null (a quit "
        "attempt's steps keep their grades, in `steps`)"
    )
    summaries: dict[str, Summary] | None = Field(
        description="done: every stored profile's summary; open or quit: null"
    )
    next: NextAction
    created_at: str
    sandbox: SandboxView | None = Field(description="null: not recorded (an attempt made before sandboxing)")
    kernel: KernelStatus = Field(description="whether the attempt's kernel is alive (none: it never had one)")
    kernel_stopped: KernelStop | None = Field(description="why the server stopped it (null: it did not)")
    paused: bool = Field(description="the person paused the working clock and has not resumed it")
    pauses: list[PauseView] = Field(description="the working clock's pauses, oldest first")


class KernelReport(Request):
    """The kernel that now runs the attempt's notebook."""

    kernel_id: Id


class KernelBinding(Closed):
    kernel_id: str
    restored_cells: int = Field(description="cells replayed on a kernel new to the attempt")
    previous_stop: KernelStop | None = Field(
        description="the server had stopped the attempt's previous kernel, and why (the first kernel since)"
    )
