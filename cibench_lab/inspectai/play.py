"""A sample played: one new attempt of the sample's task through the step driver, in our kernel.

The solver plays the task as `cibench-lab run` plays it (:func:`cibench_lab.runs.local.play_attempt`:
a fresh sandboxed kernel, the step driver, the settle rule, grading under every profile), the player
asking the sample's Inspect model (:mod:`.client`); every attempt is recorded in the results
database, in one run per eval.  The sample's messages become the conversation the model last saw
and its reply; its scores are read from the attempt's kept step grades under the task's profile.
"""

from __future__ import annotations

import datetime as dt
import secrets
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.model import ChatMessage, messages_from_openai
from inspect_ai.solver import Generate, Solver, TaskState, solver
from sqlalchemy import select

from ..play.attempt import Attempts
from ..play.settings import PlaySettings
from ..runs.local import PlayContext, ensure_run, play_attempt
from ..store.tables import Attempt, StepRow
from ..tasks.vocabulary import Mode
from .client import PROTOCOLS, InspectClient, InspectPlayer
from .scores import sample_scores

#: The sample store's keys: the attempt played, and its scores (``Score`` fields per metric).
ATTEMPT, SCORES = "cibench_lab_attempt", "cibench_lab_scores"


@dataclass(frozen=True)
class Options:
    """What the task's arguments choose about play (docs/inspect.md)."""

    mode: Mode = "e2e"
    protocol: str = "react"
    merge_roles: bool = False
    profile: str = "cibench"
    timeout: float = 120.0
    max_turn: int = PlaySettings.max_turn
    run: str | None = None


@dataclass
class Shared:
    """What the samples of one eval share: the attempts (database and task library), one database
    thread (SQLite sees one writer), a folder for the attempts, their run."""

    attempts: Attempts
    options: Options
    pool: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(1, "cibench-inspect-db"))
    workroot: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="cibench-inspect-")))
    runs: dict[str, int] = field(default_factory=dict)
    stamp: str = field(
        default_factory=lambda: f"{dt.datetime.now().astimezone():%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"
    )

    def run_name(self, player: InspectPlayer) -> str:
        """``-T run=NAME``, else one run per eval and model: ``inspect-<model>-<protocol>-<mode>-<time>``."""
        o = self.options
        return o.run or f"inspect-{player.config.model}-{o.protocol}-{o.mode}-{self.stamp}"

    def context(self, player: InspectPlayer) -> PlayContext:
        o = self.options
        settings = PlaySettings(max_turn=o.max_turn)
        return PlayContext(
            self.attempts, player, o.mode, None, self.workroot, o.timeout, settings=settings, pool=self.pool
        )


@solver
def play_task(shared: Shared) -> Solver:
    """Play the sample's task with the sample's model; record the attempt and its scores."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        o = shared.options
        player = InspectPlayer(str(state.model), PROTOCOLS[o.protocol], o.merge_roles)
        ctx = shared.context(player)
        name = shared.run_name(player)
        if name not in shared.runs:
            shared.runs[name] = await ctx.db(
                ensure_run, ctx.attempts, name, player.name, o.mode, player.describe()
            )
        ctx.run_id = shared.runs[name]
        task = shared.attempts.library.get(str(state.sample_id))
        try:
            attempt_id = await play_attempt(ctx, task)
        finally:
            ctx.grader.close()
        status, grades = await ctx.db(_outcome, shared.attempts, attempt_id, o.profile)
        if status != "done":
            raise RuntimeError(f"attempt {attempt_id} of {task.id} ended {status}, not done")
        state.store.set(ATTEMPT, attempt_id)
        state.store.set(SCORES, {m: s.model_dump() for m, s in sample_scores(grades).items()})
        state.metadata.update({"attempt_id": attempt_id, "run": name, "profile": o.profile})
        state.messages = await last_conversation(player.inspect)
        return state

    return solve


def _outcome(attempts: Attempts, attempt_id: str, profile: str) -> tuple[str, list[dict[str, Any]]]:
    """The attempt's status and its kept step grades under ``profile``."""
    with attempts.store.session() as s:
        status = s.scalar(select(Attempt.status).where(Attempt.id == attempt_id))
        q = select(StepRow.grade).where(StepRow.attempt_id == attempt_id).order_by(StepRow.index)
        grades = [g[profile] for g in s.scalars(q) if g and profile in g]
    return str(status), grades


async def last_conversation(client: InspectClient) -> list[ChatMessage]:
    """The last request's messages and the model's reply to it (the whole conversation, in e2e)."""
    if client.last is None:
        return []
    sent, reply = client.last
    return [*await messages_from_openai(sent), reply]  # type: ignore[arg-type]
