"""The step driver: the one loop every attempt is played through — lab and headless,
people and players, first play and resume.

Its API (each call one or two persisted transitions)::

    await driver.next(attempt_id)                    # what happens now
    await driver.propose(attempt_id, step)           # a player's turn: code to run, or a turn it recorded
    await driver.record(attempt_id, step, turn)      # an executed turn (a TurnRecord): graded, settled
    await driver.settle(attempt_id, step, outcome)   # a person's Next / Give up
    await driver.reference(attempt_id, step, ref)    # oracle: what the settled step's reference printed
    await driver.restore(attempt_id, run_cells)      # a new kernel: rebuild its state, then go on

Every answer carries ``next``, the only thing an executor acts on::

    {"do": "propose", "step": s}                     # ask the player for step s's next turn
    {"do": "run", "step": s, "turn": t, "code": c}   # run the player's code as step s's turn t
    {"do": "reference", "step": s, "code": c}        # oracle: run settled step s's reference
    {"do": "wait", "step": s}                        # a person plays step s in the notebook
    {"do": "done"}                                   # oracle mode adds "show": the last reference

The headless executor follows it in :meth:`StepDriver.play`; the browser follows
the same answers through the REST API.  When a step settles is decided by
:func:`.step.settle_rule` alone; players learn the outcome from ``settle``.
Player sessions live in memory and are rebuilt from the database when missing
(:func:`.history.replay_history`), so a restart loses nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ..errors import BadInput, Conflict
from ..grading import TurnOutput
from ..grading.pool import Grader
from ..players import Player, PlayerSession, Proposal, unexecuted_turn
from ..store.tables import Attempt
from ..tasks.model import Task
from ..tasks.vocabulary import Outcome, as_mode
from .answers import NextMove, Settled, SettledNext, with_next
from .attempt import Attempts, turn_output
from .history import replay_history
from .oracle import ensure_reference, record_reference, referenced_steps
from .restore import record_restore, restore_plan
from .rules import HUMAN, next_action, settle_rule
from .settings import PlaySettings
from .turns import Graded, TurnRecord

Call = Callable[..., Awaitable[Any]]  # runs a synchronous engine call on the engine's thread
RunCells = Callable[[list[str]], Awaitable[list[TurnOutput]]]


@dataclass
class Pending:
    """A proposal handed out to run, not yet reported."""

    step: int
    turn: int
    proposal: Proposal


class Executor(Protocol):
    """What :meth:`StepDriver.play` needs of an executor that runs code itself."""

    async def turn(self, code: str) -> TurnRecord: ...  # what the kernel published, when, facts

    async def reference(self, code: str) -> TurnOutput: ...


class StepDriver:
    def __init__(self, attempts: Attempts, players: Callable[[str], Player], call: Call, grader: Grader):
        self.attempts = attempts
        self.players = players  # the attempt's recorded player spec -> its Player
        self.call = call
        self.grader = grader  # grades off the engine thread (image work in worker processes)
        self.recording: dict[str, asyncio.Lock] = {}  # one turn of an attempt graded + recorded at a time
        self.sessions: dict[str, PlayerSession] = {}
        self.pending: dict[str, Pending] = {}
        self.inflight: dict[str, asyncio.Future] = {}  # player requests, cancelled by stop()
        self.busy: set[str] = set()  # attempts with a proposal being made

    # ---- what happens now ---------------------------------------------------------
    async def next(self, attempt_id: str, participant: str | None = None) -> NextMove:
        row, _ = await self.call(self.attempts.load, attempt_id, participant)
        return next_action(row)

    def _after(self, attempt_id: str, row: Attempt, task: Task, settled: Settled | None) -> NextMove:
        """The next action after a transition of ``row``'s open step; tells the player how
        its step settled."""
        if settled is None:
            return next_action(row)
        self.pending.pop(attempt_id, None)
        session = self.sessions.get(attempt_id)
        if session is not None:
            session.settle(task.steps[settled["step"]], settled["outcome"])
        if settled["next_step"] is None:
            self.forget(attempt_id)
            if settled["oracle_code"] is not None:  # shown in the notebook, not run for the record
                return {"do": "done", "show": {"step": settled["step"], "code": settled["oracle_code"]}}
            return {"do": "done"}
        if settled["oracle_code"] is not None:
            return {"do": "reference", "step": settled["step"], "code": settled["oracle_code"]}
        if row.player == HUMAN:
            return {"do": "wait", "step": settled["next_step"]}
        return {"do": "propose", "step": settled["next_step"]}

    # ---- a player's turn -------------------------------------------------------------
    async def propose(self, attempt_id: str, step: int, participant: str | None = None) -> dict[str, Any]:
        """The player's next turn of the open step (asked again: the same pending turn)."""
        if attempt_id in self.busy:  # e.g. Play pressed in a second tab
            raise Conflict("the player is already working on this step")
        self.busy.add(attempt_id)
        try:
            return await self._propose(attempt_id, step, participant)
        finally:
            self.busy.discard(attempt_id)

    async def _propose(self, attempt_id: str, step: int, participant: str | None) -> dict[str, Any]:
        row, task = await self.call(self.attempts.load, attempt_id, participant)
        if row.player == HUMAN:
            raise Conflict("this attempt is played by a person; start one with a model to use Play")
        Attempts.check_open(row, step)
        turn = len(await self.call(self.attempts.turns, attempt_id, step))
        pending = self.pending.get(attempt_id)
        if pending is None or (pending.step, pending.turn) != (step, turn):
            session = await self._session(attempt_id, row, task)
            if row.mode == "oracle" and step > 0:
                ref = await self.call(ensure_reference, self.attempts, attempt_id, task, step - 1)
                if ref is not None:
                    session.observe_reference(task.steps[step - 1], ref)
            pending = Pending(step, turn, await self._ask(attempt_id, session, task, step, turn))
            self.pending[attempt_id] = pending
        return await self._proposed(attempt_id, row, task, pending)

    async def _ask(
        self, attempt_id: str, session: PlayerSession, task: Task, step: int, turn: int
    ) -> Proposal:
        job = asyncio.ensure_future(session.propose(task.steps[step], turn))
        self.inflight[attempt_id] = job
        try:
            return await job
        except asyncio.CancelledError:
            raise Conflict("stopped: the player's request was cancelled") from None
        finally:
            self.inflight.pop(attempt_id, None)

    async def _proposed(self, attempt_id: str, row: Attempt, task: Task, pending: Pending) -> dict[str, Any]:
        answer = proposal_view(pending)
        proposal, step = pending.proposal, pending.step
        if proposal.action == "give_up":  # a replay out of recorded turns
            settled = await self.call(self.attempts.settle, attempt_id, step, "gave_up")
            done = with_next(settled, self._after(attempt_id, row, task, settled))
            return {**answer, "settled": done, "next": done["next"]}
        idle = unexecuted_turn(proposal)
        if idle is None:
            return {
                **answer,
                "next": {"do": "run", "step": step, "turn": pending.turn, "code": proposal.code},
            }
        result = await self.record(attempt_id, step, idle)  # a reply that ran nothing
        return {**answer, "result": result, "next": result["next"]}

    def stop(self, attempt_id: str) -> bool:
        """Cancel the player's request in flight, if any."""
        job = self.inflight.get(attempt_id)
        if job is not None:
            job.cancel()
        return job is not None

    # ---- executed turns, settles, references ----------------------------------------------
    async def record(
        self, attempt_id: str, step: int, turn: TurnRecord | TurnOutput, participant: str | None = None
    ) -> dict[str, Any]:
        """Record an executed turn of the open step: graded, settled when the rule says so."""
        record = TurnRecord.of(turn)
        row, task = await self.call(self.attempts.load, attempt_id, participant)
        Attempts.check_open(row, step)
        if row.player != HUMAN:
            meta = {**await self._observe(attempt_id, row, task, step, record.turn), **record.meta}
            record = replace(record, meta=meta)
        try:
            async with self.recording.setdefault(attempt_id, asyncio.Lock()):
                result = await self._record(attempt_id, task, step, record)
        except Exception:
            self.forget(attempt_id)  # the session saw a turn the database did not keep
            raise
        result["next"] = self._after(attempt_id, row, task, result["settled"])
        return result

    async def _record(self, attempt_id: str, task: Task, step: int, record: TurnRecord) -> dict:
        """Grade the turn with the step's earlier turns (off the engine thread), then record it."""
        previous = await self.call(self.attempts.turns, attempt_id, step)
        turns = [turn_output(t) for t in previous] + [record.turn]
        graded = Graded(await self.grader.grade(task.steps[step], turns), len(previous))
        return await self.call(self.attempts.record_turn, attempt_id, step, record, graded)

    async def _observe(self, attempt_id: str, row: Attempt, task: Task, step: int, turn: TurnOutput) -> dict:
        """The turn's meta from the proposal it ran (Conflict when the player proposed none)."""
        pending = self.pending.get(attempt_id)
        if pending is None or pending.step != step:
            raise Conflict("this step is played by the attached player: press Play step to run its turn")
        session = await self._session(attempt_id, row, task)
        del self.pending[attempt_id]
        proposal = pending.proposal
        meta = {**proposal.meta, **session.observe(task.steps[step], proposal, turn)}
        if proposal.action == "code" and turn.code.strip() != proposal.code.strip():
            meta["edited"] = True  # someone changed the proposed code before it ran
        return meta

    async def settle(
        self, attempt_id: str, step: int, outcome: Outcome, participant: str | None = None
    ) -> SettledNext:
        """A person settles the open step (Next, Give up)."""
        row, task = await self.call(self.attempts.load, attempt_id, participant)
        settled = await self.call(self.attempts.settle, attempt_id, step, outcome)
        return with_next(settled, self._after(attempt_id, row, task, settled))

    async def reference(
        self, attempt_id: str, step: int, ref: TurnOutput, source: str = "", participant: str | None = None
    ) -> dict[str, Any]:
        """Oracle: keep what running settled step ``step``'s reference printed (once)."""
        row, task = await self.call(self.attempts.load, attempt_id, participant)
        if row.mode != "oracle" or not 0 <= step < row.current_step:
            raise BadInput("step: must be a settled step of an oracle attempt")
        recorded = step not in await self.call(referenced_steps, self.attempts, attempt_id)
        if recorded:
            await self.call(record_reference, self.attempts, attempt_id, step, ref, source)
            session = self.sessions.get(attempt_id)
            if session is not None:
                session.observe_reference(task.steps[step], ref)
        return {"step": step, "recorded": recorded, "next": next_action(row)}

    # ---- kernels that lost their state -------------------------------------------------------
    async def restore(
        self, attempt_id: str, run: RunCells, reason: str = "", source: str = "", **detail: Any
    ) -> int:
        """Rebuild a new kernel's state (settling a step its turns already decided); return
        the cells run.  The ``restore`` event is kept when cells ran or a ``reason`` is given."""
        await self.call(settle_pending, self.attempts, attempt_id)
        plan = await self.call(restore_plan, self.attempts, attempt_id)
        ran = await run([code for _, code, _ in plan])
        event = None
        if plan or reason:
            event = {**detail, "cells": len(plan), "failed": sum(bool(r.error) for r in ran)}
            if reason:
                event["reason"] = reason
        await self.call(record_restore, self.attempts, attempt_id, plan, ran, event, source)
        self.sessions.pop(attempt_id, None)  # rebuilt from the database, restored references included
        return len(plan)

    # ---- the headless cycle -----------------------------------------------------------------------
    async def play(
        self, attempt_id: str, executor: Executor, on_settled: Callable[[dict], None] | None = None
    ) -> None:
        """Play the attempt to its end on an executor that runs code itself (headless)."""
        nxt = await self.next(attempt_id)
        while nxt["do"] != "done":
            if nxt["do"] == "propose":
                answer = await self.propose(attempt_id, nxt["step"])
            elif nxt["do"] == "run":
                ran = await executor.turn(nxt["code"])
                answer = await self.record(attempt_id, nxt["step"], ran)
            elif nxt["do"] == "reference":
                ref = await executor.reference(nxt["code"])
                answer = await self.reference(attempt_id, nxt["step"], ref)
            else:
                raise Conflict(f"attempt {attempt_id} is played by a person, not by this executor")
            settled = answer.get("settled") or (answer.get("result") or {}).get("settled")
            if settled is not None and on_settled is not None:
                on_settled(settled)
            nxt = answer["next"]

    # ---- player sessions ------------------------------------------------------------------------
    async def _session(self, attempt_id: str, row: Attempt, task: Task) -> PlayerSession:
        session = self.sessions.get(attempt_id)
        if session is None:
            session = self.players(row.player).session(task, as_mode(row.mode))
            await self.call(replay_history, session, self.attempts, attempt_id)
            self.sessions[attempt_id] = session
        return session

    def forget(self, attempt_id: str) -> None:
        """Drop the attempt's in-memory state (rebuilt from the database when needed)."""
        self.sessions.pop(attempt_id, None)
        self.pending.pop(attempt_id, None)
        self.recording.pop(attempt_id, None)

    async def close(self) -> None:
        for job in list(self.inflight.values()):
            job.cancel()


def proposal_view(pending: Pending) -> dict[str, Any]:
    """A proposal as the executor sees it (the code only when it runs)."""
    runs = pending.proposal.action == "code"
    return {
        "step": pending.step,
        "turn": pending.turn,
        "action": pending.proposal.action,
        "code": pending.proposal.code if runs else None,
        "tokens": (pending.proposal.meta.get("tokens") or {}).get("total"),
        "latency_s": pending.proposal.meta.get("latency_s"),
        "result": None,
        "settled": None,
    }


def settle_pending(attempts: Attempts, attempt_id: str) -> None:
    """Settle the open step if its turns already decide it (a kill between turn and settle)."""
    row, task = attempts.load(attempt_id)
    if row.status != "open":
        return
    turns = attempts.turns(attempt_id, row.current_step)
    if not turns:
        return
    last, rules = turns[-1], PlaySettings.recorded(row.settings)
    outcome = settle_rule(row.player, rules, turn_output(last), len(turns), task, dict(last.meta or {}))
    if outcome:
        attempts.settle(attempt_id, row.current_step, outcome)
