"""What an instructor reads of their class (docs/classroom.md): the members' attempts, and
one of them as its owner sees it — the same view, turns and revealed references, read only.

Who is readable is the roles' word (:meth:`.roles.Roles.readable`); on the class database
the row-level security decides as well (an attempt the role cannot read is unknown)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..store.tables import Attempt, Participant
from .attempt import Attempts
from .errors import NotFound
from .view import attempt_view, turns_view


def class_attempts(attempts: Attempts, members: Collection[str]) -> list[dict[str, Any]]:
    """The attempts of ``members``, newest first, each naming its participant."""
    return attempts.list_of(members)


def member_attempt(attempts: Attempts, attempt_id: str, members: Collection[str]) -> dict[str, Any]:
    """The attempt view of a member's attempt, as that member sees it (NotFound otherwise)."""
    return attempt_view(attempts, attempt_id, owner_among(attempts, attempt_id, members))


def member_turns(attempts: Attempts, attempt_id: str, members: Collection[str]) -> list[dict[str, Any]]:
    """Every recorded turn of a member's attempt, as that member sees them (NotFound otherwise)."""
    return turns_view(attempts, attempt_id, owner_among(attempts, attempt_id, members))


def owner_among(attempts: Attempts, attempt_id: str, members: Collection[str]) -> str:
    """The name of the attempt's participant when it is one of ``members``: an attempt of anyone
    else is as unknown as one that does not exist (its existence is not the caller's to know)."""
    with attempts.store.session() as s:
        row = s.get(Attempt, attempt_id)
        owner = None if row is None else s.get(Participant, row.participant_id)
    if owner is None or owner.name not in members:
        raise NotFound(f"unknown attempt {attempt_id!r}")
    return owner.name
