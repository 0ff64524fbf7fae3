"""Rebuild a player's session from the database after a restart.

Everything a turn adds to a player's conversation is derived from what is
recorded — the turn with its meta (the model's reply), the step's settle
outcome, the oracle reference's output — so feeding it back in order gives the
same conversation, byte for byte.  Synchronous (database reads).
"""

from __future__ import annotations

from sqlalchemy import select

from ..players import PlayerSession, Proposal
from ..store.tables import StepRow
from .attempt import Attempts, turn_output
from .oracle import references


def replay_history(session: PlayerSession, attempts: Attempts, attempt_id: str) -> int:
    """Feed an attempt's recorded turns back into a fresh ``session``; return the turns fed."""
    _, task = attempts.load(attempt_id)
    with attempts.store.session() as s:
        steps = {r.index: r for r in s.scalars(select(StepRow).where(StepRow.attempt_id == attempt_id))}
    refs = references(attempts, attempt_id)
    fed = 0
    for index in sorted(steps):
        step = task.steps[index]
        for t in attempts.turns(attempt_id, index):
            proposal = Proposal(t.code, dict(t.meta), t.meta.get("action", "code"))
            session.observe(step, proposal, turn_output(t))
            fed += 1
        if steps[index].settled_at is not None:
            session.settle(step, steps[index].outcome or "")
            if index in refs:
                session.observe_reference(step, refs[index])
    return fed
