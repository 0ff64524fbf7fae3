"""The settle rule: when a step is over.  The one place it is decided.

A person's step settles when they press Next or Give up, or at the configured
turn cap.  A player's (model, reference, replay) step settles at its first turn
that runs without error (CIBench's rule) or after ``max_turn`` turns.  Everything
else — the step driver's answers, the browser, a player's conversation, resume —
follows the outcome this function returns.
"""

from __future__ import annotations

from typing import Any

from ..grading import TurnOutput
from ..store.tables import Attempt
from .settings import PlaySettings

HUMAN = "human"

#: outcomes of a settled step
OUTCOMES = ("passed", "out_of_turns", "turn_cap", "next", "gave_up")


def settle_rule(player: str, settings: PlaySettings, turn: TurnOutput, n_turns: int) -> str | None:
    """The outcome the open step settles with after ``turn``, its ``n_turns``-th (None: open)."""
    if player == HUMAN:
        return "turn_cap" if settings.turn_cap and n_turns >= settings.turn_cap else None
    if not turn.error:
        return "passed"
    return "out_of_turns" if n_turns >= max(settings.max_turn, 1) else None


def next_action(row: Attempt) -> dict[str, Any]:
    """What happens next in an attempt between transitions: a person plays the open step
    (``wait``), the player is asked for its turn (``propose``), or it is over (``done``).
    Right after a settle in oracle mode the driver answers ``reference`` instead."""
    if row.status != "open":
        return {"do": "done"}
    if row.player == HUMAN:
        return {"do": "wait", "step": row.current_step}
    return {"do": "propose", "step": row.current_step}
