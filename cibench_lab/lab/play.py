"""Lab executor: attempts played in the browser on kernels jupyter_server manages.

The browser runs every visible cell — a person's, an attached player's, the
oracle's — as the step driver's answers say (``next``); the server starts the
attempt's session, runs hidden work itself (start code, restoring state after a
restart) and hands the driver each turn as its own IOPub capture read it
(:mod:`.capture`), never what the browser says the outputs were.

A turn over ``turn_timeout`` is interrupted, then restarted after ``interrupt_grace`` (:mod:`.interrupt`);
the restart restores the attempt's state and the turn's answer waits for it (:mod:`.hidden`, :mod:`.cull`).
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..benchmarks import benchmark_of
from ..errors import BadInput, Conflict, Unavailable
from ..grading import TurnOutput
from ..grading.pool import Grader
from ..kernels.environment import attempt_environment
from ..kernels.execution import Execution
from ..kernels.spec import KERNEL_NAME
from ..models.config import ModelRegistry
from ..play.answers import NextMove, SettledNext
from ..play.attempt import Attempts, NewAttempt
from ..play.driver import StepDriver
from ..play.oracle import referenced_steps
from ..play.safe_outputs import sign_notebook
from ..play.settings import attempt_settings
from ..play.turns import TurnRecord
from ..play.workspace import notebook_name, written
from ..players import Player, PlayerContext, PlayerError, SpecError, make_player, spec_of_choice
from ..players.transcript import replayable
from ..tasks.model import Task
from ..tasks.vocabulary import HUMAN, Mode, Outcome
from .capture import Captures
from .closed import check_bindable
from .config import LabConfig, check_ids, check_step, settings_policy
from .cull import FINISHED, Culler, check_cull, previous_stop, session_of
from .hidden import language_info
from .interrupt import stop_turn
from .pool import LabKernels
from .setup import KernelSetup, check_mode
from .trace import LabRecord

log = logging.getLogger(__name__)
RESTORE_WAIT = 60.0  # seconds a turn whose kernel was replaced waits for the state's restore


@dataclass
class _Opening:
    """An attempt being started: what a failed start must undo."""

    attempt_id: str
    rel: Path  # its folder, relative to the server root
    session_id: str | None = None


class LabPlay:
    def __init__(
        self,
        attempts: Attempts,
        serverapp: Any,
        config: LabConfig,
        registry: ModelRegistry | None = None,
        grader: Grader | None = None,
    ):
        self.attempts = attempts
        self.grader = grader or Grader()  # grades turns off the engine thread
        self.app = serverapp
        self.config = config
        self.captures = Captures(serverapp.kernel_manager)
        self.record = LabRecord(attempts, self.call, self.captures)  # pauses, notes, the action trace
        self.prepared: dict[str, str] = {}  # kernel_id -> attempt id whose state it holds
        self.locks: dict[str, asyncio.Lock] = {}
        self.prepared_at: dict[str, float] = {}  # when the kernel's state was last restored
        self.setup = KernelSetup()  # the start code; the benchmark's own start and prior turn
        self.reports: dict[str, int] = {}  # kernel_id -> turn reports being graded
        self.background: set[asyncio.Future] = set()
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cibench-engine")
        self.player_context = PlayerContext(
            registry or ModelRegistry(), attempts.store, config.root_dir, config.attempts_path
        )
        self.players: dict[str, Player] = {}  # by spec, built once
        self.driver = StepDriver(attempts, self.player, self.call, self.grader)
        self.kernels = LabKernels(serverapp, config.root_dir / config.attempts_dir, config.kernel_pool)
        attempts.kernels = serverapp.kernel_manager  # the view says whether an attempt's kernel runs
        self.culler = Culler(
            serverapp, attempts, self.call, config.kernel_idle_cull, self.prepared, self._busy
        )

    async def call(self, fn, *args, **kwargs):
        """Run an engine transition (DB + grading) off the event loop, one at a time."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.pool, lambda: fn(*args, **kwargs))

    # ---- kernels ---------------------------------------------------------------
    def _busy(self, kernel_id: str) -> bool:
        """A restore or a turn report is in flight on the kernel: it is not idle."""
        lock = self.locks.get(kernel_id)
        return (lock is not None and lock.locked()) or self.reports.get(kernel_id, 0) > 0

    def on_kernel_action(self, action: str, kernel_id: str | None) -> None:
        if not kernel_id:
            return
        if action in ("start", "restart"):
            km = self.app.kernel_manager
            if kernel_id not in km or getattr(km.get_kernel(kernel_id), "kernel_name", "") != KERNEL_NAME:
                return
            if action == "restart":  # its state is gone: subscribe again and restore
                self.prepared.pop(kernel_id, None)
                self.captures.forget(kernel_id)
            elif kernel_id in self.prepared:
                return  # a kernel `start` made and prepared before this event arrived
            self.captures.watch(kernel_id)
            job = asyncio.ensure_future(self._auto_bind(kernel_id))
            self.background.add(job)
            job.add_done_callback(self.background.discard)
        elif action == "shutdown":
            self.prepared.pop(kernel_id, None)
            self.locks.pop(kernel_id, None)
            self.prepared_at.pop(kernel_id, None)
            self.captures.shutdown(kernel_id)

    async def _auto_bind(self, kernel_id: str) -> None:
        """A new kernel on this participant's attempt notebook (reopened after a restart): an open
        attempt's is restored at once, before anything a person runs; a finished one's is stopped
        (:mod:`.closed`). Only this participant's: another server's root holds someone else's."""
        who = self.config.participant
        session = await session_of(self.app.session_manager, kernel_id, tries=100)
        path = session.get("path") if session else None
        found = path and await self.call(self.attempts.attempt_at, path, who)
        try:
            if found and found[1] == "open":
                await self.bind(found[0], kernel_id, who)
            elif found:
                await self.culler.stop(found[0], kernel_id, FINISHED)
        except Exception:
            log.exception("cibench-lab: preparing kernel %s for attempt %s failed", kernel_id, found)

    async def _restore(self, attempt_id: str, kernel_id: str, task: Task, player: str) -> int:
        """The start code (the benchmark's too: :mod:`.setup`) and the attempt's state on a new kernel;
        oracle: the references no report covered, as this kernel printed them. In history: players only."""
        km, counted = self.app.kernel_manager, player != HUMAN
        run = self.setup.runner(km, kernel_id, attempt_id, task, self.config.turn_timeout, counted)
        return await self.driver.restore(attempt_id, run, source="restore", kernel_id=kernel_id)

    # ---- players -------------------------------------------------------------------
    def player(self, spec: str) -> Player:
        """The attempt's player from its recorded spec (built once per spec)."""
        if spec not in self.players:
            try:
                self.players[spec] = make_player(spec, self.player_context)
            except SpecError as err:
                raise Conflict(f"this attempt's player {spec!r} cannot be built: {err}") from None
        return self.players[spec]

    def recordings(self, task_id: str) -> list[dict[str, Any]]:
        """Recorded model runs of a task the lab can replay (synchronous: database)."""
        if task_id not in self.attempts.library.tasks:
            raise BadInput(f"unknown task {task_id!r}")
        return replayable(self.attempts.store, task_id)

    # ---- attempts --------------------------------------------------------------
    async def start(
        self, task_id: str, mode: Mode, participant: str, overrides: dict | None, player: Any = None
    ) -> str:
        try:
            task = self.attempts.library.get(task_id)
        except KeyError as err:
            raise BadInput(str(err.args[0])) from None
        try:
            spec = await self.call(spec_of_choice, player, task.id, self.player_context)
        except SpecError as err:
            raise BadInput(str(err)) from None
        settings = attempt_settings(
            self.config.settings, overrides, spec == HUMAN, settings_policy(self.config)
        )
        environment = attempt_environment(task, benchmark_of(task).profile_versions())
        return await self.create(NewAttempt(task, mode, spec, participant, settings, environment))

    async def create(self, new: NewAttempt) -> str:
        """Record ``new`` (a study's too), then its folder, session, kernel, notebook; a fault undoes all."""
        check_cull(self.config.kernel_idle_cull, new.settings.pause_after)
        check_mode(new.task, new.mode)  # the task's benchmark may refuse a mode
        attempt_id = await self.call(self.attempts.create, new)
        if any(step.kind == "vis" for step in new.task.steps):
            self.grader.warm_processes()  # the first plot's grade then finds its process started
        opening = _Opening(attempt_id, Path(self.config.attempts_dir) / f"{new.task.stem}-{attempt_id[:8]}")
        try:
            await self._open(opening, new)
        except BaseException:
            await self._abandon(opening)
            raise
        return attempt_id

    async def _open(self, opening: _Opening, new: NewAttempt) -> None:
        """The new attempt's folder, session and kernel, then its notebook."""
        task, mode, spec = new.task, new.mode, new.player
        rel, folder = opening.rel, self.config.root_dir / opening.rel
        name = notebook_name(task, await self.call(self.attempts.number, opening.attempt_id))
        nb_rel = (rel / name).as_posix()
        await written(rel, self.kernels.place(task, folder))  # the data, and a warm kernel if pooled
        await self.call(self.attempts.paths, opening.attempt_id, str(folder), nb_rel)
        try:
            session = await self.app.session_manager.create_session(
                path=nb_rel, name=name, type="notebook", kernel_name=KERNEL_NAME
            )
        finally:
            await self.kernels.unclaimed(folder)
        opening.session_id, kernel_id = session["id"], session["kernel"]["id"]
        await self.bind(opening.attempt_id, kernel_id, new.participant)
        self.kernels.refill_after_start(task, opening.attempt_id)  # once the lab's part is over too
        # as JupyterLab records it (its kernel's language_info) and trusted: it opens clean
        language = await language_info(self.app.kernel_manager, kernel_id)
        nb, aid = folder / name, opening.attempt_id
        wrote = asyncio.to_thread(self.setup.write_notebook, task, aid, mode, nb, spec, language)
        sign_notebook(self.app.contents_manager.notary, await written(rel, wrote), nb)

    async def _abandon(self, opening: _Opening) -> None:
        """Undo a start that failed — its session, folder and row — so no orphan attempt stays."""
        if opening.session_id is not None:
            try:
                await self.app.session_manager.delete_session(opening.session_id)
            except Exception as err:
                log.warning("cibench-lab: closing the session of a failed start: %s", err)
        await asyncio.to_thread(shutil.rmtree, self.config.root_dir / opening.rel, True)
        try:
            await self.call(self.attempts.discard, opening.attempt_id)
        except Exception as err:
            log.error("cibench-lab: the failed attempt %s stays recorded: %s", opening.attempt_id, err)

    async def bind(self, attempt_id: str, kernel_id: str, participant: str) -> dict[str, Any]:
        """Make ``kernel_id`` the attempt's kernel (for its participant only); restore it if it is new."""
        row, task = await self.call(self.attempts.load, attempt_id, participant)
        check_bindable(row, kernel_id, self.prepared, self.culler.shown)
        km = self.app.kernel_manager
        if kernel_id not in km:
            raise BadInput(f"kernel_id: no running kernel {kernel_id!r}")
        self.captures.watch(kernel_id)
        restored = 0
        async with self.locks.setdefault(kernel_id, asyncio.Lock()):  # one restore per kernel
            if self.prepared.get(kernel_id) != attempt_id:
                restored = await self._restore(attempt_id, kernel_id, task, row.player)
                self.prepared[kernel_id] = attempt_id
                self.prepared_at[kernel_id] = time.time()
        if row.kernel_id != kernel_id:
            await self.call(self.attempts.set_kernel, attempt_id, kernel_id)
        self.culler.start()
        self.kernels.started(attempt_id)  # a Start's pool refill may follow
        stopped = await self.call(previous_stop, self.attempts, attempt_id, kernel_id)
        return {"kernel_id": kernel_id, "restored_cells": restored, "previous_stop": stopped}

    async def turn(
        self, attempt_id: str, step: Any, kernel_id: Any, msg_id: Any, participant: str
    ) -> dict[str, Any]:
        """Grade one execution the browser says ran for ``step``: read from our capture."""
        check_ids(kernel_id, msg_id)
        check_step(step)
        lock = self.locks.get(kernel_id)
        if lock is not None and lock.locked():  # a restore is running: judge the run after it
            async with lock:
                pass
        row, _ = await self.call(self.attempts.load, attempt_id, participant)
        if kernel_id != row.kernel_id or self.prepared.get(kernel_id) != attempt_id:
            raise Conflict(f"kernel {kernel_id} is not this attempt's kernel")
        Attempts.check_open(row, step)
        await self.record.ran(attempt_id)
        self.reports[kernel_id] = self.reports.get(kernel_id, 0) + 1
        try:
            result = await self._graded(attempt_id, step, kernel_id, msg_id)
        finally:
            self.reports[kernel_id] -= 1
        self.culler.after(attempt_id, kernel_id, result["next"])
        return result

    async def _graded(self, attempt_id: str, step: int, kernel_id: str, msg_id: str) -> dict[str, Any]:
        ex = await self._captured(attempt_id, step, kernel_id, msg_id)
        started, finished = ex.times()
        turn = TurnOutput(ex.code or "", ex.outputs, ex.error, ex.status)
        meta = {"kernel_id": kernel_id, **ex.facts()}
        result = await self.driver.record(attempt_id, step, TurnRecord(turn, msg_id, started, finished, meta))
        if ex.status == "timeout":  # the badge says the run was stopped at the limit
            result["stopped"] = ex.stopped or "timeout"
        if ex.status == "dead" or ex.stopped == "restarted":  # the next run needs the state back
            await self._until_restored(attempt_id, kernel_id, ex.first_seen)
        return result

    async def _captured(self, attempt_id: str, step: int, kernel_id: str, msg_id: str) -> Execution:
        """What our capture read for ``msg_id``, if it ran after step ``step`` opened."""
        opened = await self.call(self.attempts.opened_at, attempt_id, step)
        ex = await self.captures.requested(kernel_id, msg_id)  # sent through this server, or refused
        finished = await ex.wait(self.config.turn_timeout)  # (when it started: its first message)
        if ex.first_seen < opened.timestamp():
            raise Conflict(f"execution {msg_id} started before step {step} opened")
        if ex.first_seen < self.prepared_at.get(kernel_id, 0.0):
            raise Conflict("this run started while the kernel's state was being restored; run the cell again")
        if not finished:
            if not ex.began and not ex.outputs:
                raise BadInput(f"msg_id: kernel {kernel_id} published nothing for {msg_id}")
            await stop_turn(self.app.kernel_manager, kernel_id, ex, self.config.interrupt_grace)
        return ex  # dead: perhaps before it began (a kernel killed at once may not publish its input)

    async def _until_restored(self, attempt_id: str, kernel_id: str, since: float) -> bool:
        """Wait (up to ``RESTORE_WAIT``) until the kernel holds the attempt's state again,
        restored after ``since``; False if it did not (or the kernel is gone)."""
        deadline = time.monotonic() + RESTORE_WAIT
        while kernel_id in self.app.kernel_manager and time.monotonic() < deadline:
            if self.prepared.get(kernel_id) == attempt_id and self.prepared_at.get(kernel_id, 0.0) > since:
                return True
            await asyncio.sleep(0.1)
        log.warning("cibench-lab: kernel %s was not restored for attempt %s", kernel_id, attempt_id)
        return False

    async def settle(self, attempt_id: str, step: Any, outcome: Outcome, participant: str) -> SettledNext:
        check_step(step)
        await self.record.settling(attempt_id)
        settled = await self.driver.settle(attempt_id, step, outcome, participant)
        await self._finished(attempt_id, settled["next"])
        return settled

    async def _finished(self, attempt_id: str, nxt: NextMove) -> None:
        """The answer says the attempt is done: stop its kernel."""
        if nxt["do"] == "done":
            row, _ = await self.call(self.attempts.load, attempt_id)
            self.culler.after(attempt_id, row.kernel_id, nxt)

    async def propose(self, attempt_id: str, step: Any, participant: str) -> dict[str, Any]:
        """Play step: the attached player's next turn, for the browser to run in the cell."""
        check_step(step)
        try:
            out = await self.driver.propose(attempt_id, step, participant)
        except PlayerError as err:
            raise Unavailable(f"the model endpoint failed: {err}") from None
        await self._finished(attempt_id, out["next"])
        return out

    async def stop(self, attempt_id: str, participant: str) -> bool:
        await self.call(self.attempts.load, attempt_id, participant)
        return self.driver.stop(attempt_id)

    async def reference(
        self, attempt_id: str, step: Any, kernel_id: Any, msg_id: Any, participant: str
    ) -> dict:
        """Oracle: the browser ran a settled step's reference cell; the driver keeps what
        the kernel printed (an attached model's next prompt shows it).  A finished attempt's
        kernel waits for this report (``Culler.after``)."""
        try:
            return await self._reference(attempt_id, step, kernel_id, msg_id, participant)
        finally:
            self.culler.referenced(attempt_id, step)

    async def _reference(
        self, attempt_id: str, step: Any, kernel_id: Any, msg_id: Any, participant: str
    ) -> dict:
        check_ids(kernel_id, msg_id)
        row, task = await self.call(self.attempts.load, attempt_id, participant)
        last = row.status == "done" and step == row.current_step  # shown after the attempt finished
        settled = isinstance(step, int) and (0 <= step < row.current_step or last)
        if row.mode != "oracle" or not settled:
            raise BadInput("step: must be a settled step of an oracle attempt")
        if kernel_id != row.kernel_id:
            raise Conflict(f"kernel {kernel_id} is not this attempt's kernel")
        if step in await self.call(referenced_steps, self.attempts, attempt_id):
            return await self.driver.reference(attempt_id, step, TurnOutput("", [], False))
        ex = await self.captures.requested(kernel_id, msg_id)
        if not await ex.wait(self.config.turn_timeout) or ex.status == "dead":  # a restore re-runs it
            raise BadInput(f"msg_id: kernel {kernel_id} did not finish {msg_id}")
        if (ex.code or "").strip() != task.steps[step].code.strip():
            raise BadInput(f"msg_id: {msg_id} did not run step {step}'s reference")
        if last:  # no prompt follows: nothing to keep, the kernel may stop
            return {"step": step, "recorded": False, "next": await self.driver.next(attempt_id)}
        ref = TurnOutput(ex.code or "", ex.outputs, ex.error, ex.status)
        return await self.driver.reference(attempt_id, step, ref, "notebook")

    async def close(self) -> None:
        self.record.close()
        await self.kernels.close()
        await self.culler.close()
        await self.driver.close()
        for player in self.players.values():
            closer = getattr(player, "aclose", None)
            if closer is not None:
                try:
                    await closer()
                except Exception:
                    log.debug("cibench-lab: closing player failed", exc_info=True)
        for kid in list(self.captures.by_kernel):
            self.captures.shutdown(kid)
        self.pool.shutdown(wait=False)
        self.grader.close()
