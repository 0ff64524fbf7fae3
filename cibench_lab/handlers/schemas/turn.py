"""A step's turns: the runs the browser reports, settles, proposals, oracle references, the turn log."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from .attempt import AttemptView, NextAction
from .common import OUTCOME_DOC, Action, Closed, Id, Record, Request, StepIndex, absent
from .grade import Grade


class RunReport(Request):
    """A cell run the browser made on the attempt's kernel; other fields (``outputs``) are ignored."""

    step: StepIndex
    kernel_id: Id
    msg_id: Id = Field(description="the execute request's msg_id")


class StepRequest(Request):
    step: StepIndex


class StopRequest(Request):
    pass


class Settled(Closed):
    """How a step settled."""

    step: int
    outcome: str = Field(description=OUTCOME_DOC)
    grade: Grade | None
    next_step: int | None
    oracle_code: str | None = Field(description="oracle mode: the settled step's reference, run next")


class TurnResult(Closed):
    step: int
    turn: int
    grade: Grade | None
    settled: Settled | None = Field(description="set when a turn cap settled the step")
    stopped: str = absent(
        "the run went over CIBenchLabApp.turn_timeout and was stopped: interrupted | restarted | timeout"
    )
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
    outputs: list[dict[str, Any]] = Field(description="what the kernel printed and showed (nbformat outputs)")
    error: bool
    started_at: str
    finished_at: str
    grade: Grade | None
    status: str = absent("how the kernel ran it: ok | error | timeout | no_action | ...")
    truncated: bool = absent("the outputs were cut: the kernel printed more than the server keeps")
    malformed: int = absent("IOPub messages from the kernel not as the protocol says, ignored (their count)")
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
    observation: list[dict[str, Any]] | str = absent(
        "what the model was shown after the turn ran: the messages, or the observation text of a "
        "benchmark's own ReAct loop"
    )
    merge_roles: bool = absent()
    replay: dict[str, Any] = absent("where a replayed turn came from")
    edited: bool = absent("the proposed code was changed before it ran")
