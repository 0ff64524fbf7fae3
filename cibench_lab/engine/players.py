"""Players propose the code for a step's turn; one session per attempt holds their state.

The API is executor-agnostic so that the headless loop (:mod:`.run`) and the lab
(a model attached to a live notebook) drive players the same way::

    session = player.session(task, mode, max_turn)      # one per attempt
    proposal = await session.propose(step, turn)          # may call a model
    # proposal.action == "give_up": attempts.settle(attempt_id, step.index, "gave_up")
    # run proposal.code (headless kernel, or the browser's cell) unless
    # unexecuted_turn(proposal) says it is not code to run
    extra = session.observe(step, turn, proposal, turn_output)   # -> more Turn.meta
    result = attempts.record_turn(..., meta={**proposal.meta, **extra})
    if result["settled"]:
        session.settle(step, result["settled"]["outcome"])
        # oracle, unless it was the last step: run the reference, then
        record_reference(attempts, attempt_id, step.index, reference_turn_output)
        session.observe_reference(step, reference_turn_output)

After a restart, :func:`replay_history` rebuilds a session from the database
(turns with their meta, settle outcomes, the oracle references' outputs), so a
model's conversation continues byte for byte where it stopped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy import select

from ..grading import TurnOutput
from ..store.tables import Event, StepRow
from ..tasks.model import Step, Task
from .attempt import turn_output

#: Proposal actions.  ``code`` runs; the others record a turn without running anything:
#: ``empty`` (an interpreter call with no code: a failed tool turn), ``no_action`` and
#: ``invalid`` (a reply with no usable tool call), ``finish`` (a final answer: the step
#: ends without code, as lagent's FinishAction does); ``give_up`` settles the step
#: with no further turn (a replay that ran out of recorded turns).
ACTIONS = ("code", "empty", "no_action", "invalid", "finish", "give_up")
ORACLE_EVENT = "oracle"


class PlayerError(RuntimeError):
    """A player could not propose (a model endpoint that failed for good): the attempt
    stays open, to be resumed by the next run with the same name."""


@dataclass
class Proposal:
    code: str
    meta: dict[str, Any] = field(default_factory=dict)
    action: str = "code"


class PlayerSession(Protocol):
    """A player's state for one attempt."""

    async def propose(self, step: Step, turn: int) -> Proposal: ...

    def observe(self, step: Step, turn: int, proposal: Proposal, result: TurnOutput) -> dict[str, Any]: ...

    def settle(self, step: Step, outcome: str) -> None: ...

    def observe_reference(self, step: Step, result: TurnOutput) -> None: ...


class Player(Protocol):
    name: str  # recorded as the attempt's player: reference | openai:<model> | replay:<file>

    def session(self, task: Task, mode: str, max_turn: int) -> PlayerSession: ...

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


class StatelessSession:
    """Sessions of players that keep no conversation (reference, replay)."""

    def observe(self, step: Step, turn: int, proposal: Proposal, result: TurnOutput) -> dict[str, Any]:
        return {}

    def settle(self, step: Step, outcome: str) -> None:
        pass

    def observe_reference(self, step: Step, result: TurnOutput) -> None:
        pass


class ReferencePlayer(StatelessSession):
    """Replays the task's own code: must score 100 (DESIGN §6 names the exceptions)."""

    name = "reference"

    def session(self, task: Task, mode: str, max_turn: int) -> ReferencePlayer:
        return self

    def describe(self) -> dict[str, Any]:
        return {"player": self.name}

    async def propose(self, step: Step, turn: int) -> Proposal:
        return Proposal(code=step.code)


def make_player(spec: str, **options: Any) -> Player:
    """``reference`` | ``openai:MODEL`` | ``replay:FILE`` (options: see models.make_model_player)."""
    if spec == "reference":
        return ReferencePlayer()
    if spec.startswith("openai:") and spec[7:]:
        from ..models import make_model_player

        return make_model_player(spec[7:], **options)
    if spec.startswith("replay:") and spec[7:]:
        from ..models.transcript import ReplayPlayer

        return ReplayPlayer(spec[7:])
    raise ValueError(f"unknown player {spec!r} (available: reference, openai:MODEL, replay:FILE)")


def replay_history(session: PlayerSession, attempts: Any, attempt_id: str) -> int:
    """Feed an attempt's recorded turns back into a fresh ``session``; return the turns fed.

    Synchronous (database reads): call it from a worker thread.
    """
    row, task = attempts.load(attempt_id)
    with attempts.store.session() as s:
        steps = {r.index: r for r in s.scalars(select(StepRow).where(StepRow.attempt_id == attempt_id))}
        events = s.scalars(
            select(Event).where(Event.attempt_id == attempt_id, Event.kind == ORACLE_EVENT).order_by(Event.id)
        ).all()
        references = {e.detail["step"]: e.detail for e in events}
    fed = 0
    for index in sorted(steps):
        step = task.steps[index]
        for t in attempts.turns(attempt_id, index):
            result = turn_output(t)
            proposal = Proposal(t.code, dict(t.meta), t.meta.get("action", "code"))
            session.observe(step, t.number, proposal, result)
            fed += 1
        if steps[index].settled_at is not None:
            session.settle(step, steps[index].outcome or "")
            ref = references.get(index)
            if ref is not None:
                session.observe_reference(step, reference_output(ref))
    return fed


def record_reference(attempts: Any, attempt_id: str, step: int, ref: TurnOutput, source: str = "") -> None:
    """Oracle: keep what running step ``step``'s reference printed — the model's history
    shows it, so a rebuilt session needs it.  Synchronous (database)."""
    detail: dict[str, Any] = {"source": source} if source else {}
    detail |= {
        "step": step,
        "code": ref.code,
        "outputs": ref.outputs,
        "error": ref.error,
        "status": ref.status,
    }
    attempts.event(attempt_id, ORACLE_EVENT, detail)


def recorded_reference(attempts: Any, attempt_id: str, step: int) -> TurnOutput | None:
    """Oracle: the latest recorded run of step ``step``'s reference.  Synchronous (database)."""
    with attempts.store.session() as s:
        q = select(Event.detail).where(Event.attempt_id == attempt_id, Event.kind == ORACLE_EVENT)
        found = [d for d in s.scalars(q.order_by(Event.id)) if d["step"] == step]
    return reference_output(found[-1]) if found else None


def reference_output(detail: dict[str, Any]) -> TurnOutput:
    return TurnOutput(detail.get("code", ""), detail["outputs"], detail["error"], detail["status"])
