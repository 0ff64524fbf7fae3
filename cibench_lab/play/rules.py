"""The settle rule: when a step is over.  The one place it is decided.

A person's step settles when they press Next or Give up, or at their run limit
(``turn_cap``): the configured turn cap and the task's benchmark's own limit, if any (e.g. an
item's call limit: :meth:`cibench_lab.benchmarks.Benchmark.person_limit`).  A player's (model, reference,
replay) step settles as the task's benchmark says: under CIBench's rule at its first turn that
runs without error or after ``max_turn`` turns (:mod:`cibench_lab.benchmarks.cibench`).  Everything
else — the step driver's answers, the browser, a player's conversation, resume —
follows the outcome this function returns.
"""

from __future__ import annotations

from typing import Any

from ..benchmarks import benchmark_of
from ..grading import TurnOutput
from ..store.tables import Attempt
from ..tasks.model import Task
from ..tasks.vocabulary import HUMAN as HUMAN
from ..tasks.vocabulary import Outcome
from .answers import Done, Propose, Wait
from .settings import PlaySettings


def settle_rule(
    player: str,
    settings: PlaySettings,
    turn: TurnOutput,
    n_turns: int,
    task: Task | None = None,
    meta: dict[str, Any] | None = None,
) -> Outcome | None:
    """The outcome the open step settles with after ``turn``, its ``n_turns``-th (None: open);
    ``task``'s benchmark and the turn's ``meta`` decide a player's step."""
    if player == HUMAN:
        cap = person_cap(settings, task)
        return "turn_cap" if cap and n_turns >= cap else None
    return benchmark_of(task).player_outcome(task, turn, n_turns, settings.max_turn, meta or {})


def person_cap(settings: PlaySettings, task: Task | None) -> int | None:
    """A person's run limit on the step: the turn cap, and the task's benchmark's own limit."""
    caps = [settings.turn_cap] if settings.turn_cap else []
    limit = benchmark_of(task).person_limit(task) if task is not None else None
    if limit is not None:
        caps.append(limit)
    return min(caps) if caps else None


def next_action(row: Attempt) -> Propose | Wait | Done:
    """What happens next in an attempt between transitions: a person plays the open step
    (``wait``), the player is asked for its turn (``propose``), or it is over (``done``).
    Right after a settle in oracle mode the driver answers ``reference`` instead."""
    if row.status != "open":
        return {"do": "done"}
    if row.player == HUMAN:
        return {"do": "wait", "step": row.current_step}
    return {"do": "propose", "step": row.current_step}
