"""The typed API boundary: every request body and response of /cibench-lab/api/.

Requests are validated strictly (``"1"`` is not a step) and unknown fields are
ignored, as they always were, except in ``settings`` and ``player``, which name
their fields.  Responses are the engine's views, validated against these models
before they are sent (a view that drifts from its model is a logged 500); the
view itself is what is written, so the models never change a field's value.
The OpenAPI document (:mod:`.openapi`) and the browser's types are built from here.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import PydanticCustomError
from typing_extensions import TypeAliasType

Mode = TypeAliasType("Mode", Literal["e2e", "oracle"])
StepKind = TypeAliasType("StepKind", Literal["exec", "num", "text", "vis", "general"])
Reveal = TypeAliasType("Reveal", Literal["after-step", "after-task", "never"])
AttemptStatus = TypeAliasType("AttemptStatus", Literal["open", "done"])
Next = TypeAliasType("Next", Literal["propose", "run", "reference", "wait", "done"])
GradeRule = TypeAliasType("GradeRule", Literal["best", "settling"])
KernelStatus = TypeAliasType("KernelStatus", Literal["running", "stopped", "none"])
KernelStop = TypeAliasType("KernelStop", Literal["idle", "finished"])
Action = TypeAliasType("Action", Literal["code", "empty", "no_action", "invalid", "finish", "give_up"])


def _no_nul(value: str) -> str:
    if "\x00" in value:
        raise PydanticCustomError("nul_byte", "must not contain a NUL byte")
    return value


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


#: A string field of a request: never with a NUL byte (paths, ids and names reach the OS).
Text = Annotated[str, AfterValidator(_no_nul)]
Id = Annotated[Text, Field(min_length=1)]
StepIndex = Annotated[int, Field(ge=0, description="0-based step index")]
Count = Annotated[int, Field(ge=0)]


def absent(description: str | None = None) -> Any:
    """A field that is either left out or holds its type (never null)."""
    return Field(None, description=description, json_schema_extra=_no_default)


def describe(err: ValidationError) -> str:
    """``task_id: Input should be a valid string; player.model: ...`` (dotted field paths)."""
    parts = []
    for e in err.errors(include_url=False):
        path = ".".join(str(p) for p in e["loc"]) or "request body"
        parts.append(f"{path}: {e['msg']}")
    return "; ".join(parts)


class Request(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class Closed(BaseModel):
    """Strict, and no field it does not declare (every response; settings and player)."""

    model_config = ConfigDict(strict=True, extra="forbid")


class Record(BaseModel):
    """A stored record whose fields the grading profile owns: more may appear."""

    model_config = ConfigDict(strict=True, extra="allow")


class Error(Closed):
    """Every error, of every route (also unknown routes under the API)."""

    error: str
    status: int


# ---- requests ---------------------------------------------------------------------------


class SettingsOverride(Closed):
    """Play settings a start request overrides (ignored when the server locks them)."""

    show_grades: bool = absent("grades shown before a step settles")
    turn_cap: Count = absent("a person's step settles after this many turns (0: no cap)")
    pause_after: Annotated[int, Field(ge=1)] = absent(
        "seconds without an edit or a run that pause the working clock"
    )
    reveal: Reveal = absent("when an end-to-end step's reference is shown")
    max_turn: Count = absent("a model's step settles at its first error-free turn or here")
    grade_rule: GradeRule = absent(
        "the grade a person's step keeps: best (the best turn so far) or settling (as the step "
        "settles); a player's attempt is always settling"
    )


class PlayerChoice(Closed):
    """Exactly one of: a server-configured model, a recorded model attempt, a transcript file."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1, "maxProperties": 1})

    model: Id = absent("a model the server configures (GET models)")
    replay: Id = absent("a recorded model attempt of the task (GET recordings)")
    transcript: Id = absent("a JSONL transcript, relative to the server root")

    @model_validator(mode="after")
    def _one(self) -> PlayerChoice:
        if len(self.model_fields_set) != 1:
            raise PydanticCustomError(
                "player_choice", 'must be {"model": NAME}, {"replay": ATTEMPT_ID} or {"transcript": PATH}'
            )
        return self

    def choice(self) -> dict[str, str]:
        """The engine's form: ``{kind: value}``."""
        return self.model_dump(exclude_unset=True)


class StartAttempt(Request):
    task_id: Id
    mode: Mode
    settings: SettingsOverride | None = None
    player: PlayerChoice | None = Field(None, description="null: a person plays")


class KernelReport(Request):
    """The kernel that now runs the attempt's notebook."""

    kernel_id: Id


class RunReport(Request):
    """A cell run the browser made on the attempt's kernel; other fields (``outputs``) are ignored."""

    step: StepIndex
    kernel_id: Id
    msg_id: Id = Field(description="the execute request's msg_id")


class StepRequest(Request):
    step: StepIndex


class StopRequest(Request):
    pass


class RecordingsQuery(Request):
    task: Text = Field("", description="a task id")


# ---- responses --------------------------------------------------------------------------


class TaskSummary(Closed):
    id: str
    title: str
    split: str
    lib: str
    language: str
    libraries: list[str]
    steps: int
    kinds: list[StepKind]


class TaskInstruction(Closed):
    index: int
    kind: StepKind


class TaskDetail(TaskSummary):
    """A task before play: never reference code, outputs or Thought text."""

    intro: str
    instructions: list[TaskInstruction]


class PlaySettings(Closed):
    show_grades: bool
    turn_cap: int
    pause_after: int = Field(description="seconds without an edit or a run that pause the working clock")
    reveal: Reveal
    max_turn: int
    grade_rule: GradeRule = Field(
        description="best: the best turn so far is kept; settling: as the step settles"
    )


class ServerSettings(Closed):
    defaults: PlaySettings
    locked: bool
    turn_timeout: float
    profile: str = Field(description="the profile the lab shows (badges, summaries)")
    profiles: list[str] = Field(description="every profile each turn is graded and stored under")
    kernel_idle_cull: float = Field(
        description="seconds an attempt's kernel may idle before it is stopped (0: never)"
    )


class ModelInfo(Closed):
    """A model the server lets the lab attach: never its key or endpoint."""

    name: str
    protocol: str


class Recording(Closed):
    id: str
    run: str
    player: str
    mode: Mode
    status: AttemptStatus
    created_at: str


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
    language: str = Field(description="the task's language (en | zh; empty when the task is gone)")
    split: str = Field(description="the task's split")


class Grade(Record):
    """A step's grade under one profile, as of the turns so far."""

    profile: str
    kind: StepKind
    tool: float
    exec: float
    score: float | None
    metric: str
    detail: str
    passed: bool
    ungradable: str | None
    judge: dict[str, Any] | None = absent("the VLM judge's verdict (fair vis steps, when configured)")


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
    outcome: str | None
    settled: bool
    seconds: float | None
    working_seconds: float | None = Field(
        description="the step's time net of pauses (settled: final; open: up to now)"
    )
    grade: Grade | None
    kept_turn: int | None = Field(
        description="0-based turn whose grade is `grade` under the grade rule (open step: so far); "
        "null without turns or while grades are hidden"
    )
    criterion: str = Field(description="how the shown profile decides pass for this kind, in words")
    reference: Reference = absent("only for settled steps the reveal policy (or oracle mode) shows")
    opened_at: str
    first_run_at: str | None = Field(description="the step's first execution of any cell (null: none yet)")
    settled_at: str | None
    note: str | None = Field(description="the person's note on the step (latest text)")


class Summary(Record):
    """Per-metric means x100 (null when no step has that metric)."""

    tool: float | None
    exec: float | None
    num: float | None
    text: float | None
    vis: float | None
    counts: dict[str, int]
    ungradable: int = absent()
    judge: float | None = absent()
    judge_failed: int = absent()


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


class PauseView(Closed):
    """An interval the working clock stood still (it counts 0 in working time)."""

    step: int = Field(description="the step open when it paused")
    start: str
    end: str | None = Field(description="null: still paused")
    cause: str = Field(description="button | command | idle (a gap over pause_after, recorded when noticed)")
    resumed_by: str | None = Field(description="button | command | edit | run | settle (its step settled)")


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
    settings: PlaySettings
    notebook_path: str = Field(description="relative to the server root")
    kernel_id: str | None
    profile: str
    steps: list[StepView]
    summary: Summary | None
    summaries: dict[str, Summary] | None = Field(
        description="done: every stored profile's summary; open: null"
    )
    next: NextAction
    created_at: str
    sandbox: SandboxView | None = Field(description="null: not recorded (an attempt made before sandboxing)")
    kernel: KernelStatus = Field(description="whether the attempt's kernel is alive (none: it never had one)")
    kernel_stopped: KernelStop | None = Field(description="why the server stopped it (null: it did not)")
    paused: bool = Field(description="the person paused the working clock and has not resumed it")
    pauses: list[PauseView] = Field(description="the working clock's pauses, oldest first")


class KernelBinding(Closed):
    kernel_id: str
    restored_cells: int = Field(description="cells replayed on a kernel new to the attempt")
    previous_stop: KernelStop | None = Field(
        description="the server had stopped the attempt's previous kernel, and why (the first kernel since)"
    )


class Settled(Closed):
    """How a step settled."""

    step: int
    outcome: str
    grade: Grade | None
    next_step: int | None
    oracle_code: str | None = Field(description="oracle mode: the settled step's reference, run next")


class TurnResult(Closed):
    step: int
    turn: int
    grade: Grade | None
    settled: Settled | None = Field(description="set when a turn cap settled the step")
    next: NextAction
    attempt: AttemptView


class SettleResult(Closed):
    settled: Settled
    next: NextAction
    attempt: AttemptView


class Proposal(Closed):
    """The attached player's next turn: ``code`` to run in the step's cell, or a turn it recorded."""

    step: int
    turn: int
    action: Action
    code: str | None
    tokens: int | None = Field(description="the model request's total tokens")
    latency_s: float | None
    recorded: bool = Field(description="the server recorded a turn that ran nothing")
    grade: Grade | None
    settled: Settled | None
    next: NextAction
    attempt: AttemptView


class Stopped(Closed):
    stopped: bool = Field(description="a request was in flight and is cancelled")


class ReferenceResult(Closed):
    step: int
    recorded: bool
    next: NextAction


class Tokens(Record):
    prompt: int | None = absent()
    completion: int | None = absent()
    total: int | None = absent()


class TurnDetail(Closed):
    """A recorded turn, with what an attached player sent and got back (never a key)."""

    step: int
    turn: int
    code: str
    error: bool
    started_at: str
    finished_at: str
    grade: Grade | None
    status: str = absent("how the kernel ran it: ok | error | timeout | no_action | ...")
    truncated: bool = absent("the outputs were cut: the kernel printed more than the server keeps")
    seconds: float = absent("how long a headless run took")
    action: Action = absent()
    protocol: str = absent()
    model: str = absent()
    prompt: list[dict[str, Any]] = absent("the messages the model was sent")
    response: str = absent("the model's raw reply")
    thought: str = absent()
    text: str = absent()
    tokens: Tokens = absent()
    latency_s: float = absent()
    wall_s: float = absent()
    retries: int = absent()
    finish_reason: str | None = absent()
    observation: list[dict[str, Any]] = absent("the messages the model was shown after the turn ran")
    merge_roles: bool = absent()
    replay: dict[str, Any] = absent("where a replayed turn came from")
    edited: bool = absent("the proposed code was changed before it ran")
