"""The settle rule: when a step is over.  The one place it is decided.

A person's step settles when they press Next or Give up, or at their run limit
(``turn_cap``): the configured turn cap and, on a Qwen task, the item's call limit less an
easy item's prior turn, which ran at setup and counts as a call.  A player's (model,
reference, replay) step settles at its first turn that runs without error (CIBench's rule)
or after ``max_turn`` turns.  A player's step of
a Qwen benchmark task follows the original's loop instead: ``stopped`` at the first
observation holding a stop word (``error:``, ``Traceback``; not an easy item's prior turn,
which the original never checks), ``out_of_turns`` when the item's call limit is reached,
``answered`` at a reply that calls nothing.  Everything
else — the step driver's answers, the browser, a player's conversation, resume —
follows the outcome this function returns.
"""

from __future__ import annotations

from typing import Any

from ..grading import TurnOutput
from ..models.qwen_react import interpreter_observation
from ..store.tables import Attempt
from ..tasks.model import Task
from ..tasks.qwen import CALL_TIMEOUT, call_limit, person_runs, qwen_item, stops
from .settings import PlaySettings

HUMAN = "human"

#: outcomes of a settled step
OUTCOMES = ("passed", "out_of_turns", "turn_cap", "next", "gave_up", "stopped", "answered")


def settle_rule(
    player: str,
    settings: PlaySettings,
    turn: TurnOutput,
    n_turns: int,
    task: Task | None = None,
    meta: dict[str, Any] | None = None,
) -> str | None:
    """The outcome the open step settles with after ``turn``, its ``n_turns``-th (None: open);
    ``task`` and the turn's ``meta`` decide a Qwen task's player step."""
    if player == HUMAN:
        cap = person_cap(settings, task)
        return "turn_cap" if cap and n_turns >= cap else None
    calls = call_limit(task) if task is not None else None
    if task is not None and calls is not None:
        return qwen_rule(task, calls, turn, n_turns, meta or {})
    if not turn.error:
        return "passed"
    return "out_of_turns" if n_turns >= max(settings.max_turn, 1) else None


def person_cap(settings: PlaySettings, task: Task | None) -> int | None:
    """A person's run limit on the step: the turn cap, and a Qwen task's calls left after setup."""
    caps = [settings.turn_cap] if settings.turn_cap else []
    item = qwen_item(task) if task is not None else None
    if item is not None:
        caps.append(person_runs(item))
    return min(caps) if caps else None


def qwen_rule(task: Task, calls: int, turn: TurnOutput, n_turns: int, meta: dict[str, Any]) -> str | None:
    """The original's loop end: no call, a stop word in the observation, the call limit."""
    if turn.status == "no_action":
        return "answered"
    observation = meta.get("observation")
    if observation is None:
        observation = interpreter_observation(turn.outputs, turn.status, CALL_TIMEOUT)
    if not meta.get("prior_turn") and stops(task, str(observation)):
        return "stopped"
    return "out_of_turns" if n_turns >= calls else None


def next_action(row: Attempt) -> dict[str, Any]:
    """What happens next in an attempt between transitions: a person plays the open step
    (``wait``), the player is asked for its turn (``propose``), or it is over (``done``).
    Right after a settle in oracle mode the driver answers ``reference`` instead."""
    if row.status != "open":
        return {"do": "done"}
    if row.player == HUMAN:
        return {"do": "wait", "step": row.current_step}
    return {"do": "propose", "step": row.current_step}
