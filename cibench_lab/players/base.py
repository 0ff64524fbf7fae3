"""What every player is: it proposes the code of a step's turn; a session per attempt holds its state.

The step driver (:mod:`cibench_lab.play.driver`) is the only caller::

    session = player.session(task, mode)                 # one per attempt
    proposal = await session.propose(step, turn)          # may call a model
    session.observe(step, proposal, result)              # -> more Turn.meta
    session.settle(step, outcome)                        # the driver's settle rule decided
    session.observe_reference(step, reference_result)    # oracle mode

A session never decides when a step is over: it learns the outcome from
``settle`` (``passed`` means the last turn it observed is the one that counts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..grading import TurnOutput
from ..tasks.model import Step, Task
from ..tasks.vocabulary import ACTIONS as ACTIONS
from ..tasks.vocabulary import Action, Mode
from .own import reference_refusal


class PlayerError(RuntimeError):
    """A player could not propose (a model endpoint that failed for good): the attempt
    stays open, to be resumed later."""


@dataclass
class Proposal:
    code: str
    meta: dict[str, Any] = field(default_factory=dict)
    action: Action = "code"  # tasks/vocabulary.py: what each action does


class PlayerSession(Protocol):
    """A player's state for one attempt."""

    async def propose(self, step: Step, turn: int) -> Proposal: ...

    def observe(self, step: Step, proposal: Proposal, result: TurnOutput) -> dict[str, Any]: ...

    def settle(self, step: Step, outcome: str) -> None: ...

    def observe_reference(self, step: Step, result: TurnOutput) -> None: ...


class Player(Protocol):
    name: str  # recorded as the attempt's player: reference | openai:<model> | replay:<source>

    def session(self, task: Task, mode: Mode) -> PlayerSession: ...

    def describe(self) -> dict[str, Any]: ...  # recorded with the run (never a key)


def unexecuted_turn(proposal: Proposal) -> TurnOutput | None:
    """The turn to record for a proposal that runs nothing (None: run its code)."""
    if proposal.action == "code":
        return None
    if proposal.action == "empty":
        return TurnOutput("", [], True, "error")
    if proposal.action in ("no_action", "invalid"):
        return TurnOutput("", [], True, "no_action")
    if proposal.action == "finish":
        return TurnOutput("", [], False, "no_action")
    raise ValueError(f"proposal action {proposal.action!r} records no turn")


class QuietSession:
    """Sessions that learn nothing when a step settles or its reference runs (a benchmark's own
    loop without reference code; the reference and replay players keep no conversation)."""

    def settle(self, step: Step, outcome: str) -> None:
        pass

    def observe_reference(self, step: Step, result: TurnOutput) -> None:
        pass


class StatelessSession(QuietSession):
    """Sessions of players that keep no conversation (reference, replay)."""

    def observe(self, step: Step, proposal: Proposal, result: TurnOutput) -> dict[str, Any]:
        return {}


class ReferencePlayer(StatelessSession):
    """Replays the task's own code: must score 100 (under ``cibench``, two documented
    exceptions: Chinese text steps, and plot SSIM 0.9999995)."""

    name = "reference"

    def session(self, task: Task, mode: Mode) -> ReferencePlayer:
        why = reference_refusal(task)
        if why is not None:
            raise PlayerError(why)
        return self

    def describe(self) -> dict[str, Any]:
        return {"player": self.name}

    async def propose(self, step: Step, turn: int) -> Proposal:
        return Proposal(code=step.code)
