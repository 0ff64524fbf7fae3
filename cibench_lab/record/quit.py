"""Quit: a participant leaves an attempt unfinished (status ``quit``, ``finished_at``, event ``quit``).

The open step stays unsettled (no grade); the attempt's other steps keep theirs. The lab stops
the attempt's kernel as for a finished attempt.
"""

from __future__ import annotations

from ..errors import Conflict
from ..play.attempt import Attempts
from ..store.tables import Attempt, Event, utcnow

QUIT = "quit"  # the attempt's status, and the Event kind ({"step": the open step})


def ended_word(status: str) -> str:
    """How an ended attempt ended, in a word: quit or finished."""
    return "quit" if status == QUIT else "finished"


def quit_attempt(attempts: Attempts, attempt_id: str, participant: str) -> str | None:
    """Quit ``participant``'s open attempt; its kernel id (None: it had none)."""
    attempts.load(attempt_id, participant)  # theirs, or Forbidden
    with attempts.store.session() as s:
        att = s.get(Attempt, attempt_id)
        assert att is not None, "loaded above"
        if att.status != "open":
            raise Conflict(f"attempt {attempt_id} is {ended_word(att.status)}")
        att.status, att.finished_at = QUIT, utcnow()
        s.add(Event(attempt_id=attempt_id, kind=QUIT, detail={"step": att.current_step}))
        return att.kernel_id
