"""A player attached to a lab attempt: a model (or a recorded run) plays in the live notebook.

The server asks the player for a turn (:meth:`Autoplay.propose`) and hands the
code to the browser, which puts it in the step's answer cell and runs it on the
notebook's kernel.  The run is then reported like a person's (``/turns``): the
server grades what its own IOPub capture read and records the turn with the
proposal's meta (prompt, raw reply, tokens, latency) — one engine for lab and
headless play (DESIGN §3).  Replies that run nothing (no code, a final answer)
are recorded here directly; a replay that runs out of turns gives the step up.

Sessions live in memory, keyed by attempt; after a server restart the next
proposal rebuilds one from the database (:func:`.players.replay_history`).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..grading import TurnOutput
from ..models import ModelError, ModelRegistry, make_model_player
from ..models.config import ConfigError
from ..models.transcript import ReplayPlayer, TranscriptError, replay_steps, replayable
from ..store.tables import Attempt
from ..tasks.model import Task
from .attempt import Attempts, graded
from .errors import BadInput, Conflict, Unavailable
from .players import (
    Player,
    PlayerError,
    PlayerSession,
    Proposal,
    record_reference,
    replay_history,
    unexecuted_turn,
)
from .restore import referenced_steps
from .settings import PlaySettings

log = logging.getLogger(__name__)

HUMAN = "human"
RECORDING = "replay:attempt:"  # + the recorded attempt's id
TRANSCRIPT = "replay:file:"  # + a transcript's path relative to the server root


@dataclass
class Pending:
    """A proposal handed to the browser, waiting for its run to be reported."""

    step: int
    turn: int
    proposal: Proposal


class Autoplay:
    def __init__(
        self, attempts: Attempts, registry: ModelRegistry, call, root: Path | None = None, grader=None
    ):
        self.attempts = attempts
        self.grader = grader  # grades an unexecuted turn off the engine thread (None: on it)
        self.root = root  # transcripts are read from under the server root only
        self.registry = registry
        self.call = call  # runs a synchronous engine call on the engine's worker thread
        self.sessions: dict[str, PlayerSession] = {}
        self.pending: dict[str, Pending] = {}
        self.inflight: dict[str, asyncio.Future] = {}  # model requests, cancelled by Stop
        self.busy: set[str] = set()  # attempts with a proposal being made
        self.players: dict[str, Player] = {}

    # ---- choosing a player ---------------------------------------------------------
    def player_spec(self, choice: Any, task: Task) -> str:
        """The attempt's player from the browser's choice: none (a person), ``{"model": NAME}``
        (a server-configured model), ``{"replay": ATTEMPT_ID}`` (a recorded model run) or
        ``{"transcript": PATH}`` (a JSONL transcript under the server root)."""
        if choice in (None, HUMAN):
            return HUMAN
        if not isinstance(choice, dict) or len(choice) != 1:
            raise BadInput('player: must be {"model": NAME}, {"replay": ATTEMPT_ID} or {"transcript": PATH}')
        kind, value = next(iter(choice.items()))
        if kind == "model":
            if value not in self.registry.configs:
                known = ", ".join(self.registry.configs) or "none configured"
                raise BadInput(f"player.model: unknown model {value!r} (this server has: {known})")
            try:
                self.registry.get(value).key()  # fail at Start, not at the first Play
            except ConfigError as err:
                raise BadInput(f"player.model: {value}: {err}") from None
            return f"openai:{value}"
        if kind == "replay":
            ids = {r["id"] for r in replayable(self.attempts.store, task.id)}
            if value not in ids:
                raise BadInput(f"player.replay: no recorded model run {value!r} of task {task.id}")
            return RECORDING + value
        if kind == "transcript":
            return TRANSCRIPT + self._transcript(value, task)
        raise BadInput(f"player.{kind}: unknown player kind (model, replay or transcript)")

    def _transcript(self, value: Any, task: Task) -> str:
        """A transcript path, checked: under the server root, readable, with turns for ``task``."""
        if not isinstance(value, str) or not value.strip() or self.root is None:
            raise BadInput("player.transcript: a path relative to the server root")
        path = (self.root / value.strip().lstrip("/")).resolve()
        if not path.is_relative_to(self.root.resolve()):
            raise BadInput(f"player.transcript: {value!r} is outside the server root")
        if not path.is_file():
            raise BadInput(f"player.transcript: no file {value!r} under the server root")
        try:
            player = ReplayPlayer(path)
        except TranscriptError as err:
            raise BadInput(f"player.transcript: {err}".replace(str(path), value)) from None
        if task.id not in player.turns:
            raise BadInput(f"player.transcript: {value!r} has no turns of task {task.id}")
        rel = path.relative_to(self.root.resolve()).as_posix()
        self.players[TRANSCRIPT + rel] = player  # the attempt plays what was checked here
        return rel

    def recordings(self, task_id: str) -> list[dict[str, Any]]:
        """Recorded model runs of a task the lab can replay (synchronous: database)."""
        if task_id not in self.attempts.library.tasks:
            raise BadInput(f"unknown task {task_id!r}")
        return replayable(self.attempts.store, task_id)

    def _player(self, spec: str) -> Player:
        player = self.players.get(spec)
        if player is None:
            if spec.startswith("openai:"):
                try:
                    player = make_model_player(spec[7:], registry=self.registry)
                except ConfigError as err:
                    raise BadInput(f"model {spec[7:]!r}: {err}") from None
            elif spec.startswith(RECORDING):
                source = spec[len(RECORDING) :]
                steps = replay_steps(self.attempts.store, source)
                player = ReplayPlayer(steps=steps, source=f"attempt {source}")
            elif spec.startswith(TRANSCRIPT) and self.root is not None:
                rel = spec[len(TRANSCRIPT) :]
                try:
                    player = ReplayPlayer(self.root / rel)
                except TranscriptError as err:
                    raise Conflict(f"the transcript {rel} can no longer be read: {err}") from None
            else:
                raise Conflict(f"this attempt is played by {spec!r}, not by an attached player")
            self.players[spec] = player
        return player

    async def _session(self, attempt_id: str, row: Attempt, task: Task) -> PlayerSession:
        session = self.sessions.get(attempt_id)
        if session is None:
            max_turn = PlaySettings(**row.settings).max_turn
            session = self._player(row.player).session(task, row.mode, max_turn)
            await self.call(replay_history, session, self.attempts, attempt_id)
            self.sessions[attempt_id] = session
        return session

    # ---- proposing ------------------------------------------------------------------
    async def propose(self, attempt_id: str, step: Any, participant: str) -> dict[str, Any]:
        """The next turn of the open step: code for the browser to run, or a turn recorded here."""
        if not isinstance(step, int) or isinstance(step, bool):
            raise BadInput("step: must be an integer (0-based)")
        if attempt_id in self.busy:  # e.g. Play pressed in a second tab
            raise Conflict("the player is already working on this step")
        self.busy.add(attempt_id)
        try:
            return await self._propose(attempt_id, step, participant)
        finally:
            self.busy.discard(attempt_id)

    async def _propose(self, attempt_id: str, step: int, participant: str) -> dict[str, Any]:
        row, task = await self.call(self.attempts.load, attempt_id, participant)
        if row.player == HUMAN:
            raise Conflict("this attempt is played by a person; start one with a model to use Play")
        Attempts.check_open(row, step)
        turn = len(await self.call(self.attempts.turns, attempt_id, step))
        pending = self.pending.get(attempt_id)
        if pending and (pending.step, pending.turn) == (step, turn):
            return _proposal_view(pending)  # asked again (Stop, a reload): same code, no new request
        session = await self._session(attempt_id, row, task)
        if row.mode == "oracle" and step > 0:
            ref = await self.call(_ensure_reference, self.attempts, attempt_id, task, step - 1)
            if ref is not None:
                session.observe_reference(task.steps[step - 1], ref)
        job = asyncio.ensure_future(session.propose(task.steps[step], turn))
        self.inflight[attempt_id] = job
        try:
            proposal = await job
        except asyncio.CancelledError:
            raise Conflict("stopped: the player's request was cancelled") from None
        except (PlayerError, ModelError) as err:
            raise Unavailable(f"the model endpoint failed: {err}") from None
        finally:
            self.inflight.pop(attempt_id, None)
        return await self._handle(attempt_id, task, Pending(step, turn, proposal))

    async def _handle(self, attempt_id: str, task: Task, pending: Pending) -> dict[str, Any]:
        proposal, step = pending.proposal, task.steps[pending.step]
        if proposal.action == "give_up":
            settled = await self.call(self.attempts.settle, attempt_id, step.index, "gave_up")
            self.settled(attempt_id, task, step.index, settled["outcome"])
            return {**_proposal_view(pending), "settled": settled}
        idle = unexecuted_turn(proposal)
        if idle is None:
            self.pending[attempt_id] = pending
            return _proposal_view(pending)
        session = self.sessions[attempt_id]
        meta = {**proposal.meta, **session.observe(step, pending.turn, proposal, idle)}
        grades = (
            await graded(self.call, self.attempts, self.grader, attempt_id, step, idle) if self.grader else {}
        )
        result = await self.call(self.attempts.record_turn, attempt_id, step.index, idle, meta=meta, **grades)
        self.recorded(attempt_id, task, result)
        return {**_proposal_view(pending), "result": result}

    def stop(self, attempt_id: str) -> bool:
        """Cancel the player's request in flight, if any."""
        job = self.inflight.get(attempt_id)
        if job is not None:
            job.cancel()
        return job is not None

    # ---- hooks of the lab's turn and settle ---------------------------------------------
    def observe(self, attempt_id: str, task: Task, step: int, result: TurnOutput) -> dict[str, Any]:
        """Meta for a reported run of an attached player's step (Conflict when nobody proposed it)."""
        pending = self.pending.get(attempt_id)
        session = self.sessions.get(attempt_id)
        if pending is None or session is None or pending.step != step:
            raise Conflict("this step is played by the attached player: press Play step to run its turn")
        del self.pending[attempt_id]
        proposal = pending.proposal
        meta = {**proposal.meta, **session.observe(task.steps[step], pending.turn, proposal, result)}
        if result.code.strip() != proposal.code.strip():
            meta["edited"] = True  # someone changed the proposed code before it ran
        return meta

    def recorded(self, attempt_id: str, task: Task, result: dict[str, Any]) -> None:
        settled = result.get("settled")
        if settled:
            self.settled(attempt_id, task, settled["step"], settled["outcome"])

    def settled(self, attempt_id: str, task: Task, step: int, outcome: str) -> None:
        self.pending.pop(attempt_id, None)
        session = self.sessions.get(attempt_id)
        if session is not None:
            session.settle(task.steps[step], outcome)
            if step + 1 >= len(task.steps):
                self.forget(attempt_id)

    def reference_ran(self, attempt_id: str, task: Task, step: int, result: TurnOutput) -> None:
        session = self.sessions.get(attempt_id)
        if session is not None:
            session.observe_reference(task.steps[step], result)

    def forget(self, attempt_id: str) -> None:
        """Drop the attempt's in-memory state (rebuilt from the database when needed)."""
        self.sessions.pop(attempt_id, None)
        self.pending.pop(attempt_id, None)

    async def close(self) -> None:
        for job in list(self.inflight.values()):
            job.cancel()
        for player in self.players.values():
            closer = getattr(player, "aclose", None)
            if closer is not None:
                try:
                    await closer()
                except Exception:
                    log.debug("cibench-lab: closing player failed", exc_info=True)


def _proposal_view(pending: Pending) -> dict[str, Any]:
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


def _ensure_reference(attempts: Attempts, attempt_id: str, task: Task, step: int) -> TurnOutput | None:
    """Oracle: the model's next prompt shows step ``step``'s reference output.  The browser
    reports the oracle cell's run; when that report never came (the page closed), record
    the task notebook's own output for it.  Returns what it recorded, if anything."""
    if step in referenced_steps(attempts, attempt_id):
        return None
    ref = task.steps[step]
    error = any(o.get("output_type") == "error" for o in ref.outputs)
    out = TurnOutput(ref.code, list(ref.outputs), error, "error" if error else "ok")
    record_reference(attempts, attempt_id, step, out, source="task notebook")
    return out
