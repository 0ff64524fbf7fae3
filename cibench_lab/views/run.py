"""A headless run's attempts (``cibench-lab run``: ``run_id`` set), read only, for whom the server
lets read them (the ``runs/attempts`` routes: researchers; docs/api.md): the list, and one attempt's
view and turns — the very views its player reads (``views/attempt.py``), so the reference shows where
the attempt's reveal policy shows it. Synchronous (database): the server calls these on its engine
thread. A run's attempts are no participant's own work: the class routes leave them out."""

from __future__ import annotations

from typing import Any

from ..errors import NotFound
from ..play.attempt import Attempts
from ..store.tables import Attempt
from .attempt import attempt_view, turns_view


def run_attempts(attempts: Attempts) -> list[dict[str, Any]]:
    """Every headless run's attempts as ``GET attempts`` rows (each naming its player's participant
    and its run), newest first."""
    return attempts.rows_where(Attempt.run_id.is_not(None))


def run_attempt_view(attempts: Attempts, attempt_id: str) -> dict[str, Any]:
    """A run's attempt as its player sees it (``GET attempts/{id}``); NotFound for any other."""
    _check(attempts, attempt_id)
    return attempt_view(attempts, attempt_id, None)


def run_turns_view(attempts: Attempts, attempt_id: str) -> list[dict[str, Any]]:
    """Every recorded turn of a run's attempt (``GET attempts/{id}/turns``); NotFound for any other."""
    _check(attempts, attempt_id)
    return turns_view(attempts, attempt_id, None)


def _check(attempts: Attempts, attempt_id: str) -> None:
    with attempts.store.session() as s:
        row = s.get(Attempt, attempt_id)
        if row is None or row.run_id is None:
            raise NotFound(f"unknown attempt {attempt_id!r} of a headless run")
